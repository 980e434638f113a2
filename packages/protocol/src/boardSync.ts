/**
 * What `board.sync` answers (docs/protocol.md, "Activities and private boards"): apart from
 * boards.ts because it carries room events, whose union names the activity (boards.ts).
 */
import { z } from 'zod';
import { BoardId, BoardInfo } from './boards.ts';
import { Element } from './elements.ts';
import { PageId, PageSnapshot } from './pages.ts';
import { Revision } from './primitives.ts';
import { RoomEvent } from './schemas.ts';

/** One board as one picture at one revision. */
export const BoardSnapshot = z.object({ board: BoardInfo, revision: Revision, elements: z.array(Element) });
export type BoardSnapshot = z.infer<typeof BoardSnapshot>;

export const BoardSyncMessage = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('snapshot'), snapshot: BoardSnapshot }),
  /** The board's events strictly after `fromRevision`, in order (each `roomId` is the board's id). */
  z.object({ kind: z.literal('replay'), boardId: BoardId, fromRevision: Revision, events: z.array(RoomEvent) }),
]);
export type BoardSyncMessage = z.infer<typeof BoardSyncMessage>;

/** What `page.sync` answers (docs/protocol.md, "Pages"). */
export const PageSyncMessage = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('snapshot'), snapshot: PageSnapshot }),
  /** The page's events strictly after `fromRevision`, in order (each `roomId` is the page's id). */
  z.object({ kind: z.literal('replay'), pageId: PageId, fromRevision: Revision, events: z.array(RoomEvent) }),
]);
export type PageSyncMessage = z.infer<typeof PageSyncMessage>;
