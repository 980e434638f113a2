import './Hands.css';
import { raisedHandQueue } from '@wb/protocol';
import { useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import type { RoomClient } from '../connection/roomClient.ts';
import { useT } from '../i18n/useT.ts';

/** "0:42": minutes and seconds waited (never negative: the clocks of two machines differ a little). */
export function waitedText(raisedAt: string, now: number): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(raisedAt)) / 1_000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Re-renders every second while `active`, for the waited times. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

/**
 * The teacher's queue of raised hands, in the order they went up, with how long each has waited;
 * the teacher lowers one or all. Raised hands are lesson state (they survive a reconnect); the
 * queue shows only while there is one.
 */
export function HandQueue({ client, nameOf }: { client: RoomClient; nameOf: (userId: string) => string }) {
  const members = useStore(client.view, (v) => v.state?.members);
  const queue = useMemo(() => (members ? raisedHandQueue(members.values()) : []), [members]);
  const now = useNow(queue.length > 0);
  const t = useT();
  if (queue.length === 0) return null;
  return (
    <section className="hand-queue panel" aria-label={t('hands.label')} data-testid="hand-queue">
      <h2>{t('hands.label')}</h2>
      <ol>
        {queue.map((m) => (
          <li key={m.userId} data-testid="raised-hand">
            <span className="hand-name">{nameOf(m.userId)}</span>
            <span className="hand-waited" title={t('hands.waited')}>{waitedText(m.handRaisedAt, now)}</span>
            <button type="button" className="button button-secondary" onClick={() => void client.setHand(false, m.userId)} aria-label={t('hands.lowerName', { name: nameOf(m.userId) })}>
              {t('hands.lower')}
            </button>
          </li>
        ))}
      </ol>
      {queue.length > 1 && (
        <button type="button" className="button button-secondary" onClick={() => void client.lowerAllHands()}>
          {t('hands.lowerAll')}
        </button>
      )}
    </section>
  );
}

/** A student's hand: raise it to take a turn, lower it again (the teacher may lower it too). */
export function RaiseHandButton({ client, userId }: { client: RoomClient; userId: string }) {
  const raised = useStore(client.view, (v) => (v.state?.members.get(userId)?.handRaisedAt ?? null) !== null);
  const t = useT();
  return (
    <button type="button" className="button button-secondary raise-hand panel" aria-pressed={raised} data-testid="raise-hand"
      onClick={() => void client.setHand(!raised)}>
      {raised ? t('hands.lowerMine') : t('hands.raise')}
    </button>
  );
}
