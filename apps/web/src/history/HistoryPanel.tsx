import type { HistoryEntry } from '@wb/protocol';
import { useCallback, useEffect, useId, useState } from 'react';
import { useStore } from 'zustand';
import type { RoomClient } from '../connection/roomClient.ts';
import { describeChange, historyRows, restoreTarget } from './historyText.ts';
import './history.css';
import type { ErrorCode } from '@wb/protocol';
import { formatDateTime } from '../i18n/format.ts';
import { refusalMessage } from '../i18n/errors.ts';
import { useT } from '../i18n/useT.ts';

interface HistoryPanelProps {
  client: RoomClient;
  teacherId: string;
  nameOf: (userId: string) => string;
  onClose: () => void;
}

/** Reloads at most this often while changes keep arriving (ms). */
const RELOAD_EVERY_MS = 500;

/**
 * The teacher's history of the board: recent changes (who, what, when), filterable by person,
 * each deleted element or someone else's change restorable, and the board's clears undoable as
 * one action. The server keeps the versions and decides every restore (teacher only).
 */
export function HistoryPanel({ client, teacherId, nameOf, onClose }: HistoryPanelProps) {
  const revision = useStore(client.view, (v) => v.state?.revision ?? 0);
  const roster = useStore(client.view, (v) => v.roster);
  const [by, setBy] = useState('');
  const [entries, setEntries] = useState<HistoryEntry[] | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const filterId = useId();
  const t = useT();

  const load = useCallback(async () => {
    try {
      const reply = await client.listHistory(by || undefined);
      if (reply.ok) setEntries(reply.entries);
      else setMessage(refusalMessage(reply.error.code));
    } catch {
      setMessage(t('error.noAnswer'));
    }
  }, [client, by, t]);

  // Reload when the board moves on, not on every event of a burst.
  useEffect(() => {
    const timer = setTimeout(() => void load(), entries === null ? 0 : RELOAD_EVERY_MS);
    return () => clearTimeout(timer);
  }, [load, revision]);

  const settle = async (call: Promise<{ ok: boolean; error?: { code: ErrorCode } }>, done: string) => {
    try {
      const reply = await call;
      setMessage(reply.ok ? done : reply.error ? refusalMessage(reply.error.code) : t('history.notDone'));
    } catch {
      setMessage(t('error.noAnswer'));
    }
  };

  const person = by ? nameOf(by) : null;
  const clear = () => {
    setConfirming(false);
    void settle(client.clearBoard(by || undefined), person ? t('history.removedWork', { name: person }) : t('history.cleared'));
  };

  return (
    <section className="panel history-panel" aria-labelledby="history-heading" data-testid="history-panel">
      <header className="history-header">
        <h2 id="history-heading">{t('lesson.history')}</h2>
        <button type="button" className="button button-secondary" onClick={onClose}>
          {t('action.close')}
        </button>
      </header>
      <div className="field history-filter">
        <label htmlFor={filterId}>{t('history.changesBy')}</label>
        <select id={filterId} value={by} onChange={(e) => setBy(e.target.value)} data-testid="history-filter">
          <option value="">{t('history.everyone')}</option>
          {roster.map((e) => (
            <option key={e.userId} value={e.userId}>
              {e.displayName}
            </option>
          ))}
        </select>
      </div>
      <div className="history-actions">
        {confirming ? (
          <>
            <span>{person ? t('history.removeConfirm', { name: person }) : t('history.clearConfirm')}</span>
            <button type="button" className="button button-danger" onClick={clear}>
              {person ? t('teacher.remove') : t('history.clear')}
            </button>
            <button type="button" className="button button-secondary" onClick={() => setConfirming(false)}>
              {t('action.cancel')}
            </button>
          </>
        ) : (
          <button type="button" className="button button-danger-quiet" onClick={() => setConfirming(true)}>
            {person ? t('history.removeAll', { name: person }) : t('history.clearBoard')}
          </button>
        )}
      </div>
      {message && (
        <p className="history-message" role="status">
          {message}
        </p>
      )}
      {entries === null ? (
        <p className="muted">{t('common.loading')}</p>
      ) : entries.length === 0 ? (
        <p className="muted">{t('history.none')}</p>
      ) : (
        <ol className="history-list">
          {historyRows(entries).map((row) =>
            row.kind === 'batch' ? (
              <li key={row.batchId} className="history-row" data-testid="history-row">
                <span className="history-what">
                  {t('history.batch', { name: nameOf(row.by), count: row.count })}
                </span>
                <time className="muted" dateTime={row.at}>{timeOf(row.at)}</time>
                {row.restorable && (
                  <button type="button" className="roster-action" onClick={() => void settle(client.restoreBatch(row.batchId), t('history.broughtBack'))}>
                    {t('history.undo')}
                  </button>
                )}
              </li>
            ) : (
              <HistoryChange key={`${row.entry.elementId}:${row.entry.version}`} entry={row.entry} teacherId={teacherId} nameOf={nameOf}
                onRestore={(version) => void settle(client.restoreElement(row.entry.elementId, version), t('history.restoredForEveryone'))} />
            ),
          )}
        </ol>
      )}
    </section>
  );
}

function HistoryChange({ entry, teacherId, nameOf, onRestore }: { entry: HistoryEntry; teacherId: string; nameOf: (id: string) => string; onRestore: (version: number) => void }) {
  const target = restoreTarget(entry, teacherId);
  const t = useT();
  return (
    <li className="history-row" data-testid="history-row" data-action={entry.action}>
      <span className="history-what">{describeChange(entry, nameOf)}</span>
      <time className="muted" dateTime={entry.at}>{timeOf(entry.at)}</time>
      {target && (
        <button type="button" className="roster-action" onClick={() => onRestore(target.version)}>
          {t(target.label)}
        </button>
      )}
    </li>
  );
}

function timeOf(iso: string): string {
  return formatDateTime(iso, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
