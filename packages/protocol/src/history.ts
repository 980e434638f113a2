import { z } from 'zod';
import { ElementId } from './elements.ts';
import { RequestId, Revision, UserId } from './primitives.ts';

/**
 * The teacher's board history: every accepted version of every element, newest first, kept in the
 * database (not the bounded room log) so it reaches back over the lesson (docs/store.md, "History").
 */
export const HistoryAction = z.enum(['created', 'moved', 'restyled', 'erased', 'deleted', 'pinned', 'unpinned', 'restored']);
export type HistoryAction = z.infer<typeof HistoryAction>;

export const HistoryEntry = z.object({
  elementId: ElementId,
  /** The element's version this change produced. */
  version: Revision,
  /** The version before it, still kept: what "restore previous version" brings back. */
  previousVersion: Revision.nullable(),
  action: HistoryAction,
  by: UserId,
  /** ISO time by the database clock. */
  at: z.string(),
  kind: z.string(),
  /** One teacher action over many elements (clear the board, remove a student's work). */
  batchId: z.uuid().nullable(),
  /** The element is deleted now: restoring this version brings it back. */
  deletedNow: z.boolean(),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** Most entries one `history.list` answers (I10). */
export const MAX_HISTORY_ENTRIES = 200;

/** `history.list` (teacher): the newest changes, optionally only one member's, before a time. */
export const HistoryListRequest = z.strictObject({
  by: UserId.optional(),
  limit: z.number().int().min(1).max(MAX_HISTORY_ENTRIES).optional(),
});
export type HistoryListRequest = z.infer<typeof HistoryListRequest>;

/** `element.restore` (teacher): bring an element back to one of its kept versions (undeleting it). */
export const RestoreElementRequest = z.strictObject({ requestId: RequestId, elementId: ElementId, version: Revision });
export type RestoreElementRequest = z.infer<typeof RestoreElementRequest>;

/** `board.clear` (teacher): delete every element, or only those `of` one member drew, as one restorable action. */
export const ClearBoardRequest = z.strictObject({ requestId: RequestId, of: UserId.optional() });
export type ClearBoardRequest = z.infer<typeof ClearBoardRequest>;

export const ClearBoardReply = z.object({ batchId: z.uuid().nullable(), count: z.number().int().min(0) });
export type ClearBoardReply = z.infer<typeof ClearBoardReply>;

/** `batch.restore` (teacher): undo one clear or removal: its elements come back, as they were. */
export const RestoreBatchRequest = z.strictObject({ requestId: RequestId, batchId: z.uuid() });
export type RestoreBatchRequest = z.infer<typeof RestoreBatchRequest>;

export const RestoreBatchReply = z.object({ count: z.number().int().min(0) });
export type RestoreBatchReply = z.infer<typeof RestoreBatchReply>;
