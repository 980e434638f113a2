import type { HistoryAction, HistoryEntry } from '@wb/protocol';
import type { MessageId } from '@lingui/core';
import { i18n } from '../i18n/i18n.ts';

/** The sentence for each change, as the teacher reads it (total: a new action needs its words). */
export const actionText: Record<HistoryAction, MessageId> = {
  created: 'history.created',
  moved: 'history.moved',
  restyled: 'history.restyled',
  erased: 'history.erased',
  deleted: 'history.deleted',
  pinned: 'history.pinned',
  unpinned: 'history.unpinned',
  restored: 'history.restored',
};

const kindText: Partial<Record<string, MessageId>> = {
  rect: 'history.kind.rect',
  ellipse: 'history.kind.ellipse',
  line: 'history.kind.line',
  arrow: 'history.kind.arrow',
  pen: 'history.kind.pen',
  text: 'history.kind.text',
  sticky: 'history.kind.sticky',
};

/** "Ana erased a rectangle". */
export function describeChange(entry: HistoryEntry, nameOf: (userId: string) => string): string {
  return i18n._(actionText[entry.action], { name: nameOf(entry.by), what: i18n._(kindText[entry.kind] ?? 'history.kind.other') });
}

/** One history row, or one teacher action over many elements (a clear) folded into one. */
export type HistoryRow =
  | { kind: 'change'; entry: HistoryEntry }
  | { kind: 'batch'; batchId: string; by: string; at: string; count: number; restorable: boolean };

/**
 * Folds the entries of one batch (clear the board, remove a student's work) into one row, where
 * its first (newest) entry stands, so the teacher sees and restores it as the one action it was.
 */
export function historyRows(entries: readonly HistoryEntry[]): HistoryRow[] {
  const rows: HistoryRow[] = [];
  const batches = new Map<string, Extract<HistoryRow, { kind: 'batch' }>>();
  for (const entry of entries) {
    if (entry.batchId === null) {
      rows.push({ kind: 'change', entry });
      continue;
    }
    const row = batches.get(entry.batchId);
    if (row) {
      row.count += 1;
      row.restorable ||= entry.deletedNow;
      continue;
    }
    const fresh = { kind: 'batch' as const, batchId: entry.batchId, by: entry.by, at: entry.at, count: 1, restorable: entry.deletedNow };
    batches.set(entry.batchId, fresh);
    rows.push(fresh);
  }
  return rows;
}

/**
 * What the teacher can undo on a row: bring a deleted element back, or put back the version
 * before someone else's change. Null when there is nothing to undo.
 */
export function restoreTarget(entry: HistoryEntry, teacherId: string): { version: number; label: MessageId } | null {
  if (entry.deletedNow && (entry.action === 'erased' || entry.action === 'deleted')) return { version: entry.version, label: 'history.restore' };
  if (!entry.deletedNow && entry.by !== teacherId && entry.previousVersion !== null && (entry.action === 'moved' || entry.action === 'restyled')) {
    return { version: entry.previousVersion, label: 'history.restorePrevious' };
  }
  return null;
}
