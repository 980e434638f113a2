import { useState } from 'react';
import type { RoomClient } from '../connection/roomClient.ts';
import { PollDialog } from './Poll.tsx';
import { TimerDialog } from './Timer.tsx';
import './checks.css';
import { useT } from '../i18n/useT.ts';

/** The teacher's way to a timer and a quick poll, in the side panel beside the activity. */
export function ChecksLauncher({ client, onStarted }: { client: RoomClient; onStarted?: () => void }) {
  const [open, setOpen] = useState<'timer' | 'poll' | null>(null);
  const close = () => {
    setOpen(null);
    onStarted?.();
  };
  const t = useT();
  return (
    <section className="checks-launcher" aria-label={t('checks.label')}>
      <button type="button" className="button button-secondary" onClick={() => setOpen('timer')}>
        {t('checks.timer')}
      </button>
      <button type="button" className="button button-secondary" onClick={() => setOpen('poll')}>
        {t('checks.poll')}
      </button>
      {open === 'timer' && <TimerDialog client={client} onClose={close} />}
      {open === 'poll' && <PollDialog client={client} onClose={close} />}
    </section>
  );
}
