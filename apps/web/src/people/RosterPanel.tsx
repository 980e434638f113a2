import { colorForUser } from '@wb/protocol';
import type { ReactNode } from 'react';
import type { RosterEntry, RosterState } from '../sync/roster.ts';
import './teacher.css';

/** The words for each roster state (total: a new state fails to compile until it has words). */
const stateText: Record<RosterState, string> = {
  live: 'Here',
  reconnecting: 'Reconnecting…',
  gone: 'Connection lost',
  signed_out: 'Signed out',
  removed: 'Removed',
};

interface RosterPanelProps {
  roster: readonly RosterEntry[];
  selfUserId: string;
  /** Our own connection is not live: what we show is the last thing we knew, and we say so. */
  stale: boolean;
  /** Teacher actions on students; absent for students, who never see them. */
  controls?: RosterControls;
  /** Present users with no input for a minute: shown as idle, not hidden. */
  idle?: ReadonlySet<string>;
}

export interface RosterControls {
  onRemove: (entry: RosterEntry) => void;
  /** Absent where restoring is not offered. */
  onRestore?: (entry: RosterEntry) => void;
  /** The teacher's authority over a member's work (RosterAuthority.tsx): their pen, what they drew. */
  authority?: (entry: RosterEntry) => ReactNode;
}

export function RosterPanel({ roster, selfUserId, stale, controls, idle }: RosterPanelProps) {
  const here = roster.filter((e) => e.state === 'live' || e.state === 'reconnecting').length;
  return (
    <section className={`panel roster${stale ? ' roster-stale' : ''}`} aria-labelledby="roster-heading" aria-busy={stale}>
      <h2 id="roster-heading">
        People <span className="muted">· {here} here</span>
      </h2>
      {stale && roster.length > 0 && <p className="roster-note">As last seen. Updates resume when you are back online.</p>}
      {roster.length === 0 ? (
        <p className="muted">Waiting for the lesson…</p>
      ) : (
        <ul className="roster-list">
          {roster.map((entry) => (
            <li
              key={entry.userId}
              className={`roster-entry state-${entry.state}`}
              data-testid="roster-entry"
              data-user-id={entry.userId}
              data-state={entry.state}
              data-idle={entry.state === 'live' && idle?.has(entry.userId) ? 'true' : undefined}
            >
              {/* Initials come from CSS (attr) so the entry's text is just the name and its state. */}
              <span className="avatar" style={{ background: colorForUser(entry.userId) }} data-initials={initials(entry.displayName)} aria-hidden="true" />
              <span className="roster-name">
                <span className="roster-display-name">{entry.displayName}</span>
                {entry.userId === selfUserId && <span className="muted">(you)</span>}
                {entry.role === 'teacher' && <span className="role-badge">Teacher</span>}
              </span>
              <span className="roster-state">
                <span className="state-dot" aria-hidden="true" />
                {entry.state === 'gone' && entry.departure === null ? 'Not here yet' : stateText[entry.state]}
                {entry.state === 'live' && idle?.has(entry.userId) && <span className="roster-idle"> · idle</span>}
                {entry.sessions > 1 && <span className="muted"> · {entry.sessions} tabs</span>}
              </span>
              {controls?.authority?.(entry)}
              {controls && entry.role === 'student' && (
                <span className="roster-actions">
                  {entry.state === 'removed' ? (
                    controls.onRestore && (
                      <button type="button" className="roster-action" onClick={() => controls.onRestore?.(entry)}
                        aria-label={`Restore ${entry.displayName}`}>
                        Restore
                      </button>
                    )
                  ) : (
                    <button type="button" className="roster-action" onClick={() => controls.onRemove(entry)}
                      aria-label={`Remove ${entry.displayName}`}>
                      Remove
                    </button>
                  )}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? [parts[0], parts[parts.length - 1]] : [parts[0]];
  return letters.map((p) => [...(p ?? '')][0] ?? '').join('').toUpperCase() || '?';
}
