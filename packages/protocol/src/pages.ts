/**
 * Pages (issue 39, docs/boards.md "Pages"): a lesson is an ordered list of pages, and each page is
 * a board, a room of its own (revision, log, elements, locks, history, edit policy) on the one
 * board engine. The lesson's own board is its first page as it always was, so a page's id is its
 * board's room id and the lesson's id names the page every lesson starts with.
 *
 * The list (order, titles, backgrounds, which page the teacher is on, whether students are paced)
 * is the lesson's: it travels in the lesson's log as `pages.updated`, so it is ordered with every
 * other lesson event (I1). Each page's content travels in the page's own log (`page.sync`).
 */
import { z } from 'zod';
import { Element } from './elements.ts';
import { Paper } from './lessonSettings.ts';
import { Revision, RoomId, printable } from './primitives.ts';

/** A page is a board: its id is its board's room id (the lesson's id for the lesson's own board). */
export const PageId = RoomId;
export type PageId = z.infer<typeof PageId>;

/** A page's title; empty means "Page N" as the client numbers it. */
export const PageTitle = z.string().trim().max(60).regex(printable);

/**
 * `paced` (the default): every student is on the teacher's page and moves when she moves; the
 * server refuses a student's read of any other page (`page_paced`) and a student's edit there
 * (`forbidden_by_policy`, look-only). `free`: students may browse every live page.
 */
export const Pacing = z.enum(['paced', 'free']);
export type Pacing = z.infer<typeof Pacing>;

/** Most live pages a lesson may hold (I10): a 50-page deck and room to spare. */
export const LESSON_PAGES_MAX = 200;

export const Page = z.object({
  id: PageId,
  title: PageTitle,
  /** The page's paper (its board row's `paper`; the lesson's own page: the lesson's paper setting). */
  background: Paper,
});
export type Page = z.infer<typeof Page>;

/** The lesson's pages as every member knows them (the payload of `pages.updated`). */
export const LessonPages = z.object({
  /** The live pages, in order; never empty. */
  pages: z.array(Page).min(1).max(LESSON_PAGES_MAX),
  /** The page the teacher is on: where paced students are and where a late joiner lands. */
  currentPageId: PageId,
  pacing: Pacing,
});
export type LessonPages = z.infer<typeof LessonPages>;

/** `page.list`'s reply: the lesson's pages, and for the teacher the deleted ones she may restore. */
export const PageListReply = LessonPages.extend({ deleted: z.array(Page) });
export type PageListReply = z.infer<typeof PageListReply>;

// ---------------------------------------------------------------------------------------------
// Requests (acknowledged; docs/protocol.md, "Pages"). Every one but `page.list` and `page.sync` is
// the teacher's: a student's is refused `forbidden` (teacherOnly) and changes nothing.

/**
 * Teacher: a new blank page after `afterPageId` (null: first), on the given paper. `pageId` is
 * chosen by the client, so a retry is the same request (answered with the list, nothing new).
 */
export const PageAddRequest = z.strictObject({
  pageId: PageId,
  afterPageId: PageId.nullable(),
  title: PageTitle.optional(),
  background: Paper.optional(),
});
export type PageAddRequest = z.infer<typeof PageAddRequest>;

/** Teacher: a copy of `sourcePageId` (its live elements and paper) right after it, as `pageId`. */
export const PageDuplicateRequest = z.strictObject({ pageId: PageId, sourcePageId: PageId });
export type PageDuplicateRequest = z.infer<typeof PageDuplicateRequest>;

/** Teacher: rename a page or change its paper. */
export const PageUpdateRequest = z
  .strictObject({ pageId: PageId, title: PageTitle.optional(), background: Paper.optional() })
  .refine((r) => r.title !== undefined || r.background !== undefined, 'name a title or a background');
export type PageUpdateRequest = z.infer<typeof PageUpdateRequest>;

/**
 * Teacher: move a page to right after `afterPageId` (null: first). Relative, not a full order, so
 * two tabs reordering at once both land, in the order the lesson row serialised them.
 */
export const PageMoveRequest = z.strictObject({ pageId: PageId, afterPageId: PageId.nullable() });
export type PageMoveRequest = z.infer<typeof PageMoveRequest>;

/** Teacher: delete a page (kept, restorable for the lesson's life) or restore a deleted one. */
export const PageDeleteRequest = z.strictObject({ pageId: PageId });
export type PageDeleteRequest = z.infer<typeof PageDeleteRequest>;
export const PageRestoreRequest = z.strictObject({ pageId: PageId });
export type PageRestoreRequest = z.infer<typeof PageRestoreRequest>;

/** Teacher: go to a page (paced students move with her). */
export const PageGotoRequest = z.strictObject({ pageId: PageId });
export type PageGotoRequest = z.infer<typeof PageGotoRequest>;

/** Teacher: let students browse freely, or pace them again (everyone back to her page). */
export const PagePacingRequest = z.strictObject({ pacing: Pacing });
export type PagePacingRequest = z.infer<typeof PagePacingRequest>;

/** The lesson's pages (any member); the teacher's reply also lists the deleted ones. */
export const PageListRequest = z.strictObject({});
export type PageListRequest = z.infer<typeof PageListRequest>;

/**
 * A page's events after `lastRevision`, or its snapshot; subscribes the socket to the page. A
 * student is refused `page_paced` for any page but the teacher's while paced, and `not_found` for
 * a deleted page. The lesson's own page syncs with `sync.request` as it always did.
 */
export const PageSyncRequest = z.strictObject({ pageId: PageId, lastRevision: Revision.optional() });
export type PageSyncRequest = z.infer<typeof PageSyncRequest>;

/** One page as one picture at one revision. */
export const PageSnapshot = z.object({ page: Page, revision: Revision, elements: z.array(Element) });
export type PageSnapshot = z.infer<typeof PageSnapshot>;

/** What `lesson.start` answers: the moment the prepared lesson started (the database's clock). */
export const LessonStartRequest = z.strictObject({});
export type LessonStartRequest = z.infer<typeof LessonStartRequest>;

/** Most elements a library thumbnail carries (the first page's first ones in drawing order, I10). */
export const THUMBNAIL_ELEMENTS_MAX = 400;

/**
 * `GET /api/teacher/rooms/:code/thumbnail`: the lesson's first live page and its first elements in
 * drawing order, for the library's thumbnail (the client draws it as a grid tile is drawn).
 */
export const LessonThumbnail = z.object({ page: Page, elements: z.array(Element).max(THUMBNAIL_ELEMENTS_MAX) });
export type LessonThumbnail = z.infer<typeof LessonThumbnail>;
