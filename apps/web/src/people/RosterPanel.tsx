import './RosterPanel.css';
import { memberColor } from '@wb/protocol';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { labelTextColor } from '../board/labelColor.ts';
import type { RosterEntry, RosterState } from '../sync/roster.ts';
import { ROSTER_STATES, countByState, hereText, stateWords, viewRoster, type RosterSort } from './rosterView.ts';
import './teacher.css';
import type { MessageId } from '@lingui/core';
import { useT } from '../i18n/useT.ts';


/** The counts' labels at the top of the roster (plural messages). */
const countText: Record<RosterState, MessageId> = {
  live: 'roster.count.live',
  reconnecting: 'roster.count.reconnecting',
  gone: 'roster.count.gone',
  signed_out: 'roster.count.signed_out',
  removed: 'roster.count.removed',
};

/** From this many people on, the roster offers search and sort. */
const SEARCH_FROM = 8;

interface RosterPanelProps {
  roster: readonly RosterEntry[];
  selfUserId: string;
  /** Our own connection is not live: what we show is the last thing we knew, and we say so. */
  stale: boolean;
  /** Teacher actions on members; absent for students, who never see them. */
  controls?: RosterControls;
  /** Present users with no input for a minute: shown as idle, not hidden. */
  idle?: ReadonlySet<string>;
}

/** One action in a roster row's menu. */
export interface RosterAction {
  /** Stable id, also the menu item's test id (`roster-action-<id>`). */
  readonly id: string;
  /** The visible words ("Remove"); the accessible name adds the member's name. */
  readonly label: string;
  /** The accessible name where "<label> <member>" would not read well ("Mute pen of Ana"). */
  readonly name?: string;
  readonly run: (entry: RosterEntry) => void;
  readonly danger?: boolean;
}

export interface RosterControls {
  /** The actions offered on a member, in menu order; none: the row has no menu. */
  actionsFor: (entry: RosterEntry) => readonly RosterAction[];
  /** The teacher's view of a member's work (RosterAuthority.tsx): what they drew, a muted pen. */
  authority?: (entry: RosterEntry) => ReactNode;
}

/**
 * The people in the lesson, built for a class of 40: one compact line per member, the counts by
 * state at the top (each a filter), search and sort from eight people on, the teacher pinned
 * first, and the teacher's actions on a member in that row's menu.
 */
export function RosterPanel({ roster, selfUserId, stale, controls, idle }: RosterPanelProps) {
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<RosterSort>('state');
  const [stateFilter, setStateFilter] = useState<RosterState | null>(null);
  const counts = countByState(roster);
  const shown = viewRoster(roster, { query, sort, state: stateFilter });
  const searchable = roster.length >= SEARCH_FROM;
  const t = useT();

  return (
    <section className={`panel roster${stale ? ' roster-stale' : ''}`} aria-labelledby="roster-heading" aria-busy={stale}>
      <h2 id="roster-heading">
        {t('lesson.people')} <span className="muted" data-testid="roster-here">· {hereText(roster)}</span>
      </h2>
      {roster.some((e) => e.role === 'student') && (
        <div className="roster-counts" role="group" aria-label={t('roster.byState')}>
          {ROSTER_STATES.filter((s) => counts[s] > 0 || s === 'live').map((s) => (
            <button key={s} type="button" className={`roster-count state-${s}`} aria-pressed={stateFilter === s} data-testid={`roster-count-${s}`}
              onClick={() => setStateFilter((current) => (current === s ? null : s))}>
              <span className="state-dot" aria-hidden="true" />
              {t(countText[s], { count: counts[s] })}
            </button>
          ))}
        </div>
      )}
      {searchable && (
        <div className="roster-tools">
          <input type="search" className="roster-search" placeholder={t('roster.search')} aria-label={t('roster.searchLabel')} value={query}
            onChange={(e) => setQuery(e.target.value)} data-testid="roster-search" />
          <select className="roster-sort" aria-label={t('roster.order')} value={sort} onChange={(e) => setSort(e.target.value === 'name' ? 'name' : 'state')}>
            <option value="state">{t('roster.sortState')}</option>
            <option value="name">{t('roster.sortName')}</option>
          </select>
        </div>
      )}
      {stale && roster.length > 0 && <p className="roster-note">{t('roster.stale')}</p>}
      {roster.length === 0 ? (
        <p className="muted">{t('roster.waiting')}</p>
      ) : (
        <ul className="roster-list" data-actions={controls ? '' : undefined}>
          {shown.map((entry) => (
            <RosterRow key={entry.userId} entry={entry} self={entry.userId === selfUserId} idle={entry.state === 'live' && (idle?.has(entry.userId) ?? false)}
              actions={controls?.actionsFor(entry) ?? []} authority={controls?.authority?.(entry)} />
          ))}
          {shown.length === roster.filter((e) => e.role === 'teacher').length && roster.length > shown.length && (
            <li className="muted roster-none">{t('roster.noMatch')}</li>
          )}
        </ul>
      )}
    </section>
  );
}

function RosterRow({ entry, self, idle, actions, authority }: { entry: RosterEntry; self: boolean; idle: boolean; actions: readonly RosterAction[]; authority?: ReactNode }) {
  const t = useT();
  return (
    <li
      className={`roster-entry state-${entry.state}`}
      data-testid="roster-entry"
      data-user-id={entry.userId}
      data-state={entry.state}
      data-idle={idle ? 'true' : undefined}
      data-color-index={entry.colorIndex}
    >
      {/* Initials come from CSS (attr) so the entry's text is just the name and its state. */}
      <span className="avatar" style={{ background: memberColor(entry.colorIndex), color: labelTextColor(memberColor(entry.colorIndex)) }} data-initials={initials(entry.displayName)} aria-hidden="true" />
      <span className="roster-name">
        <span className="roster-display-name" title={entry.displayName}>{entry.displayName}</span>
        {/* The teacher's own row says "Teacher", which is them: "(you)" would only cut their name short. */}
        {self && entry.role !== 'teacher' && <span className="muted">{t('roster.you')}</span>}
        {entry.role === 'teacher' && <span className="role-badge">{t('roster.teacher')}</span>}
      </span>
      <span className="roster-state">
        <span className="state-dot" aria-hidden="true" />
        {/* "Here" is the usual case: a green dot says it, and the words stay for screen readers. */}
        <span className={entry.state === 'live' ? 'visually-hidden' : undefined}>
          {stateWords(entry)}
        </span>
        {entry.handRaisedAt !== null && (
          <span className="roster-hand" data-testid="roster-hand" title={t('roster.handRaised')}>
            {' '}· {t('roster.handUp')}
          </span>
        )}
        {idle && <span className="roster-idle"> · {t('roster.idle')}</span>}
        {entry.sessions > 1 && <span className="muted"> · {t('roster.tabs', { count: entry.sessions })}</span>}
      </span>
      {authority}
      {actions.length > 0 && <RowMenu entry={entry} actions={actions} />}
    </li>
  );
}

/** A row's actions behind one button: a small menu, closed by Escape, a choice or a click elsewhere. */
function RowMenu({ entry, actions }: { entry: RosterEntry; actions: readonly RosterAction[] }) {
  const [open, setOpen] = useState(false);
  const t = useT();
  // Opens upward when the room below (in the window and the scrolling roster) is too short.
  const [above, setAbove] = useState(false);
  const menuId = useId();
  const rootRef = useRef<HTMLSpanElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    rootRef.current?.querySelector<HTMLButtonElement>('[role="menuitem"]')?.focus();
    const onPointer = (e: PointerEvent) => {
      if (!rootRef.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    return () => document.removeEventListener('pointerdown', onPointer);
  }, [open]);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape' && open) {
      e.stopPropagation();
      setOpen(false);
      buttonRef.current?.focus();
      return;
    }
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const items = [...(rootRef.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    e.preventDefault();
    items[(at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
  };

  return (
    <span className="roster-menu" ref={rootRef} onKeyDown={onKeyDown}>
      <button ref={buttonRef} type="button" className="roster-menu-button" aria-haspopup="menu" aria-expanded={open} aria-controls={open ? menuId : undefined}
        aria-label={t('roster.actionsFor', { name: entry.displayName })} title={t('roster.actions')}
        onClick={() => {
          if (!open && buttonRef.current) setAbove(roomBelow(buttonRef.current) < actions.length * MENU_ITEM_PX + MENU_PADDING_PX);
          setOpen((o) => !o);
        }}>
        <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" fill="currentColor">
          <circle cx="3" cy="8" r="1.5" /><circle cx="8" cy="8" r="1.5" /><circle cx="13" cy="8" r="1.5" />
        </svg>
      </button>
      {open && (
        <span className="roster-menu-list panel" role="menu" id={menuId} data-above={above ? '' : undefined} aria-label={t('roster.actionsFor', { name: entry.displayName })}>
          {actions.map((action) => (
            <button key={action.id} type="button" role="menuitem" className={`roster-menu-item${action.danger ? ' danger' : ''}`}
              aria-label={action.name ?? t('roster.actionOn', { action: action.label, name: entry.displayName })} data-testid={`roster-action-${action.id}`}
              onClick={() => {
                setOpen(false);
                action.run(entry);
              }}>
              {action.label}
            </button>
          ))}
        </span>
      )}
    </span>
  );
}

/** A menu item's height and the menu's padding and border (teacher.css, RosterPanel.css), in px. */
const MENU_ITEM_PX = 34;
const MENU_PADDING_PX = 12;

/** Pixels between an element's bottom and the nearest edge that would cut off what opens under it. */
function roomBelow(element: HTMLElement): number {
  let bottom = window.innerHeight;
  for (let box = element.parentElement; box; box = box.parentElement) {
    if (getComputedStyle(box).overflowY !== 'visible') bottom = Math.min(bottom, box.getBoundingClientRect().bottom);
  }
  return bottom - element.getBoundingClientRect().bottom;
}

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? [parts[0], parts[parts.length - 1]] : [parts[0]];
  return letters.map((p) => [...(p ?? '')][0] ?? '').join('').toUpperCase() || '?';
}
