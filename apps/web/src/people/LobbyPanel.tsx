import { useState } from 'react';
import { admitAll, admitMember, denyMember, setRequireApproval } from '../api/teacherApi.ts';
import type { LobbyEntry } from '../sync/roster.ts';
import './teacher.css';
import './LobbyPanel.css';
import type { MessageId } from '@lingui/core';
import { errorMessage } from '../i18n/errors.ts';
import { useT } from '../i18n/useT.ts';

interface LobbyPanelProps {
  token: string;
  code: string;
  /** The room's setting as the last applied event says (null before the first sync). */
  requireApproval: boolean | null;
  lobby: readonly LobbyEntry[];
}

/**
 * The teacher's lobby: the "students wait for approval" switch and the waiting list with Admit,
 * Deny and Admit all. What it shows comes from room events (`member.pending`, `member.admitted`,
 * `member.denied`, `member.withdrawn`, `room.updated`), so every teacher tab agrees; the buttons
 * only ask the server, and the server's teacher guard decides.
 */
export function LobbyPanel({ token, code, requireApproval, lobby }: LobbyPanelProps) {
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const waiting = lobby.filter((e) => e.status === 'pending');
  const declined = lobby.filter((e) => e.status === 'denied');
  const t = useT();

  const act = async (key: string, action: () => Promise<unknown>, fallback: MessageId) => {
    setFailure(null);
    setBusy((b) => new Set(b).add(key));
    try {
      await action();
    } catch (error) {
      setFailure(errorMessage(error, fallback));
    } finally {
      setBusy((b) => {
        const next = new Set(b);
        next.delete(key);
        return next;
      });
    }
  };

  return (
    <section className="panel lobby" aria-labelledby="lobby-heading" data-testid="lobby-panel">
      <h2 id="lobby-heading">
        {t('lobby.heading')} {waiting.length > 0 && <span className="count-badge" data-testid="lobby-count">{waiting.length}</span>}
      </h2>
      <label className="lobby-switch">
        <input
          type="checkbox"
          checked={requireApproval ?? false}
          disabled={requireApproval === null || busy.has('setting')}
          onChange={(e) => {
            const on = e.currentTarget.checked;
            void act('setting', () => setRequireApproval(token, code, on), 'lobby.settingFailed');
          }}
        />
        {t('lobby.requireApproval')}
      </label>
      {requireApproval === false && waiting.length > 0 && (
        <p className="lobby-note">{t('lobby.note')}</p>
      )}
      {waiting.length === 0 ? (
        requireApproval && <p className="muted">{t('lobby.nobody')}</p>
      ) : (
        <>
          <ul className="lobby-list" aria-live="polite">
            {waiting.map((entry) => (
              <li key={entry.userId} className="lobby-entry" data-testid="lobby-entry" data-user-id={entry.userId}>
                <span className="lobby-name">{entry.displayName}</span>
                <span className="roster-actions">
                  <button type="button" className="roster-action" disabled={busy.has(entry.userId)} aria-label={t('lobby.admitName', { name: entry.displayName })}
                    onClick={() => act(entry.userId, () => admitMember(token, code, entry.userId), 'lobby.admitFailed')}>
                    {t('lobby.admit')}
                  </button>
                  <button type="button" className="roster-action" disabled={busy.has(entry.userId)} aria-label={t('lobby.denyName', { name: entry.displayName })}
                    onClick={() => act(entry.userId, () => denyMember(token, code, entry.userId), 'lobby.denyFailed')}>
                    {t('lobby.deny')}
                  </button>
                </span>
              </li>
            ))}
          </ul>
          {waiting.length > 1 && (
            <button type="button" className="button button-primary" disabled={busy.has('all')}
              onClick={() => act('all', () => admitAll(token, code), 'lobby.admitAllFailed')}>
              {t('lobby.admitAll', { count: waiting.length })}
            </button>
          )}
        </>
      )}
      {declined.length > 0 && (
        <details className="lobby-declined">
          <summary>{t('lobby.declined', { count: declined.length })}</summary>
          <ul className="lobby-list">
            {declined.map((entry) => (
              <li key={entry.userId} className="lobby-entry" data-testid="lobby-declined" data-user-id={entry.userId}>
                <span className="lobby-name">{entry.displayName}</span>
                <span className="roster-actions">
                  <button type="button" className="roster-action" disabled={busy.has(entry.userId)} aria-label={t('lobby.letInName', { name: entry.displayName })}
                    onClick={() => act(entry.userId, () => admitMember(token, code, entry.userId), 'lobby.admitFailed')}>
                    {t('lobby.letIn')}
                  </button>
                </span>
              </li>
            ))}
          </ul>
        </details>
      )}
      {failure && <p className="form-error" role="alert">{failure}</p>}
    </section>
  );
}
