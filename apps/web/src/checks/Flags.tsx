import { helpQueue, type BoardFlag } from '@wb/protocol';
import { useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import type { ActivityBoard } from '../activity/activityClient.ts';
import type { RoomClient } from '../connection/roomClient.ts';
import type { MessageId } from '@lingui/core';
import { useT } from '../i18n/useT.ts';
import './checks.css';

/** A flag's words (total: a new flag fails to compile until it has words). */
export const FLAG_TEXT: Record<BoardFlag, MessageId> = { done: 'activity.flagDone', help: 'activity.flagHelp' };

/** The grid's filter by flag. */
export type FlagFilter = 'all' | 'help' | 'done' | 'none';

export function flagFilterMatches(filter: FlagFilter, flag: BoardFlag | null | undefined): boolean {
  return filter === 'all' || (filter === 'none' ? !flag : flag === filter);
}

/** Sort order by flag: help first (oldest request first), then done, then the rest. */
export function byFlag(a: ActivityBoard, b: ActivityBoard): number {
  const rank = (x: ActivityBoard) => (x.info.flag === 'help' ? 0 : x.info.flag === 'done' ? 1 : 2);
  return rank(a) - rank(b) || Date.parse(a.info.flaggedAt ?? '') - Date.parse(b.info.flaggedAt ?? '') || 0;
}

/** A tile's flag badge. */
export function FlagBadge({ flag }: { flag: BoardFlag | null | undefined }) {
  const t = useT();
  if (!flag) return null;
  return (
    <span className="flag-badge" data-flag={flag} data-testid="tile-flag">
      {flag === 'help' ? '? ' : '✓ '}
      {t(FLAG_TEXT[flag])}
    </span>
  );
}

/** A student's "I'm done" and "I need help" on their own board (each a toggle). */
export function FlagButtons({ client }: { client: RoomClient }) {
  const t = useT();
  const mine = useStore(client.activity.store, (s) => (s.mine ? s.boards.get(s.mine) : undefined));
  const running = useStore(client.activity.store, (s) => s.activity !== null && s.activity.status !== 'ended');
  if (!mine || !running) return null;
  const flag = mine.info.flag ?? null;
  const toggle = (f: BoardFlag) => void client.checks.flag(mine.info.id, flag === f ? null : f);
  return (
    <div className="flag-buttons panel" role="group" aria-label={t('flags.tellTeacher')} data-testid="flag-buttons">
      <button type="button" className="button button-secondary" aria-pressed={flag === 'done'} onClick={() => toggle('done')}>
        {flag === 'done' ? t('flags.doneOn') : t('flags.done')}
      </button>
      <button type="button" className="button button-secondary" aria-pressed={flag === 'help'} onClick={() => toggle('help')}>
        {flag === 'help' ? t('flags.waitingForHelp') : t('flags.needHelp')}
      </button>
    </div>
  );
}

/** "0:42" waited, from the database's clock (as this screen estimates it). */
function waited(flaggedAt: string, serverNow: number): string {
  const seconds = Math.max(0, Math.floor((serverNow - Date.parse(flaggedAt)) / 1_000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** The teacher's queue of help requests, in the order raised (like raised hands): open the board, or clear it. */
export function HelpQueue({ client, boards, onOpen }: { client: RoomClient; boards: readonly ActivityBoard[]; onOpen: (boardId: string) => void }) {
  const t = useT();
  const queue = useMemo(() => helpQueue(boards.map((b) => b.info)), [boards]);
  const [, tick] = useState(0);
  useEffect(() => {
    if (queue.length === 0) return;
    const id = setInterval(() => tick((n) => n + 1), 1_000);
    return () => clearInterval(id);
  }, [queue.length]);
  if (queue.length === 0) return null;
  const now = client.checks.serverNow();
  return (
    <section className="help-queue" aria-label={t('flags.helpRequests')} data-testid="help-queue">
      <h3>{t('flags.helpRequests')}</h3>
      <ol>
        {queue.map((info) => (
          <li key={info.id} data-testid="help-request">
            <span className="help-name">{info.ownerName}</span>
            <span className="help-waited" title={t('flags.timeWaited')}>{waited(info.flaggedAt!, now)}</span>
            <button type="button" className="button button-secondary" onClick={() => onOpen(info.id)}>
              {t('teacher.open')}
            </button>
            <button type="button" className="button button-secondary" aria-label={t('flags.clearFor', { name: info.ownerName })} onClick={() => void client.checks.flag(info.id, null)}>
              {t('flags.clear')}
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}
