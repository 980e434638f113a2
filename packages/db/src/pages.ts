/**
 * Pages (issue 39, docs/boards.md "Pages"). A lesson is an ordered list of pages and each page is a
 * board: a `rooms` row whose `parent_id` is the lesson and which has no owner (migration 0021), with
 * its own revision and log (I1), elements, locks and history, keyed by its id like every board.
 * The lesson's own row is its first page, so a lesson made before pages existed is a one-page
 * lesson and every existing path (class board sync, snapshot, edits) is that page's.
 *
 * The page list is `lesson_pages` (`room_id` the lesson, `board_id` the page); the page the
 * teacher is on and the pacing are lesson columns (`current_page_id`, `page_pacing`). Every change
 * of them is one transaction that takes the lesson row FOR UPDATE first: edits share-lock that row
 * (editRights.ts), so a change serialises with every edit of every page (I11: a paced student's
 * stroke lands before the teacher's move to the next page, or is refused look-only after it), and
 * two teacher tabs reordering at once are applied one after the other, each a relative move of the
 * order the previous one left (positions renumbered 0..n-1, unique at commit). Each change appends
 * `pages.updated` (the whole list, small) to the lesson's log.
 *
 * A page's edit policy is the lesson's: its row mirrors the lesson's `edit_policy` (set when made,
 * and by `setLessonSettings` with the lesson's), so the revision bump's `stillHeld` check holds on
 * a page as on the class board. A page's paper is its own row's `paper` (the lesson's own page: the
 * lesson's setting). Who may do what: the teacher changes the list; every member reads a live page,
 * a student only the teacher's page while paced (`paced`).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  LESSON_PAGES_MAX,
  THUMBNAIL_ELEMENTS_MAX,
  type Element,
  type LessonThumbnail,
  type ElementShape,
  type LessonPages,
  type Pacing,
  type Page,
  type PageListReply,
  type Paper,
  type RoomEvent,
  type RoomInfo,
} from '@wb/protocol';
import type { Clock } from './clock.ts';
import { authorizeEdit, editTransaction, type Authorized, type EditActor } from './editRights.ts';
import { imageHashes, refusedWhenFull, type ElementCaps } from './elementCap.ts';
import { ELEMENT_COLUMNS, ELEMENT_DATA, shapeOf, toElement, withShape, type ElementRow } from './elementRows.ts';
import { recordVersion } from './elementVersions.ts';
import { settingColumns, settingValues } from './lessonSettingsColumns.ts';
import { FREE_LOCK, releasedEvent } from './lockRelease.ts';
import { appendRoomEvent, eventsAfter, nextRoomRevision, type EventsAfter } from './roomLog.ts';
import { roomColumns, toRoom, type RoomRow } from './rooms.ts';
import { int, rows, type Db, type Executor, type Tx } from './sql.ts';

interface PageRow {
  board_id: string;
  title: string;
  paper: Paper;
  deleted: boolean;
}

const toPage = (r: PageRow): Page => ({ id: r.board_id, title: r.title, background: r.paper });

/** Every page of the lesson, deleted ones too, in position order. */
async function readPageRows(executor: Executor, lessonId: string): Promise<PageRow[]> {
  return rows<PageRow>(
    executor,
    sql`SELECT p.board_id, p.title, b.paper, p.deleted_at IS NOT NULL AS deleted
          FROM lesson_pages p JOIN rooms b ON b.id = p.board_id
         WHERE p.room_id = ${lessonId}::uuid
         ORDER BY p.position, p.board_id`,
  );
}

/** The page the teacher is on: the current page if live, else the first live page. */
function currentOf(live: readonly PageRow[], current: string | null, lessonId: string): string {
  const want = current ?? lessonId;
  return live.some((p) => p.board_id === want) ? want : (live[0]?.board_id ?? lessonId);
}

async function readLessonPages(executor: Executor, lessonId: string): Promise<(LessonPages & { deleted: Page[] }) | null> {
  const [lesson] = await rows<{ current_page_id: string | null; page_pacing: Pacing }>(
    executor,
    sql`SELECT current_page_id, page_pacing FROM rooms WHERE id = ${lessonId}::uuid AND parent_id IS NULL`,
  );
  if (!lesson) return null;
  const all = await readPageRows(executor, lessonId);
  const live = all.filter((p) => !p.deleted);
  return {
    pages: live.map(toPage),
    currentPageId: currentOf(live, lesson.current_page_id, lessonId),
    pacing: lesson.page_pacing,
    deleted: all.filter((p) => p.deleted).map(toPage),
  };
}

/**
 * The lesson's live pages in order, the page the teacher is on and the pacing; null for no such
 * lesson. For the code that reads a whole lesson (PDF export, the share link): each page's id is a
 * board id whose elements `listElements(db, page.id)` reads.
 */
export async function lessonPages(db: Executor, lessonId: string): Promise<LessonPages | null> {
  const found = await readLessonPages(db, lessonId);
  if (!found) return null;
  const { deleted: _deleted, ...pages } = found;
  return pages;
}

/** The lesson's first live page and its first elements in drawing order (the library's thumbnail). */
export async function lessonThumbnail(db: Executor, lessonId: string): Promise<LessonThumbnail | null> {
  const found = await lessonPages(db, lessonId);
  const page = found?.pages[0];
  if (!page) return null;
  const elements = await rows<ElementRow>(
    db,
    sql`SELECT ${ELEMENT_COLUMNS} FROM elements WHERE room_id = ${page.id}::uuid AND NOT deleted ORDER BY z, id LIMIT ${THUMBNAIL_ELEMENTS_MAX}`,
  );
  return { page, elements: elements.map(toElement) };
}

/** Who is reading: a session of a member of the lesson. */
export interface PageReader {
  lessonId: string;
  sessionId: string;
  userId: string;
}

/** The reader's role when their session is open and their membership active, else null. */
async function readerRole(executor: Executor, clock: Clock, reader: PageReader): Promise<'teacher' | 'student' | null> {
  const [me] = await rows<{ role: 'teacher' | 'student' }>(
    executor,
    sql`SELECT m.role FROM sessions s JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id
         WHERE s.id = ${reader.sessionId}::uuid AND s.user_id = ${reader.userId}::uuid AND s.room_id = ${reader.lessonId}::uuid
           AND s.status = 'open' AND s.expires_at > ${clock.now()} AND m.status = 'active'`,
  );
  return me?.role ?? null;
}

/** `page.list`: the lesson's pages for a member; the deleted ones for its teacher only. */
export async function listPages(db: Executor, clock: Clock, reader: PageReader): Promise<PageListReply | 'not_a_member'> {
  const role = await readerRole(db, clock, reader);
  const found = role ? await readLessonPages(db, reader.lessonId) : null;
  if (!role || !found) return 'not_a_member';
  return role === 'teacher' ? found : { ...found, deleted: [] };
}

export type PageReadable = { decision: 'ok'; page: Page } | { decision: 'not_a_member' | 'not_found' | 'paced' };

/**
 * Whether the reader may read the page now (I12 for pages): a live page of their lesson, and for a
 * student while paced only the teacher's page. `not_found` says nothing of a page of another lesson.
 */
export async function readablePage(db: Executor, clock: Clock, reader: PageReader, pageId: string): Promise<PageReadable> {
  return (await readablePageFor(db, clock, reader.lessonId, [reader], pageId)).get(reader.sessionId) ?? { decision: 'not_a_member' };
}

/**
 * `readablePage` for several readers of one lesson at once, in one statement: a class of 30
 * following the teacher asks for her new page within a few milliseconds, and one check of each
 * reader per statement kept the embedded database (one connection) busy for most of a switch.
 * Each reader is decided exactly as alone; the answer is keyed by session id.
 */
export async function readablePageFor(
  db: Executor,
  clock: Clock,
  lessonId: string,
  readers: readonly PageReader[],
  pageId: string,
): Promise<Map<string, PageReadable>> {
  const decided = new Map<string, PageReadable>();
  const ours = readers.filter((r) => r.lessonId === lessonId);
  for (const r of readers) if (r.lessonId !== lessonId) decided.set(r.sessionId, { decision: 'not_a_member' });
  if (ours.length === 0) return decided;
  // Each reader's role, the page if it is a live page of their lesson, and whether it is the
  // teacher's page; a reader whose session or membership is not live has no row.
  const found = await rows<{ session_id: string; role: 'teacher' | 'student'; pacing: Pacing; board_id: string | null; title: string | null; paper: Paper | null; is_current: boolean | null; current_live: boolean }>(
    db,
    sql`SELECT s.id AS session_id, m.role, r.page_pacing AS pacing, p.board_id, p.title, b.paper,
               p.board_id = coalesce(r.current_page_id, r.id) AS is_current,
               EXISTS (SELECT 1 FROM lesson_pages c WHERE c.room_id = r.id AND c.deleted_at IS NULL
                         AND c.board_id = coalesce(r.current_page_id, r.id)) AS current_live
          FROM unnest(${uuidArray(ours.map((r) => r.sessionId))}::uuid[], ${uuidArray(ours.map((r) => r.userId))}::uuid[]) AS w(session_id, user_id)
          JOIN sessions s ON s.id = w.session_id AND s.user_id = w.user_id
          JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id
          JOIN rooms r ON r.id = s.room_id
          LEFT JOIN lesson_pages p ON p.room_id = r.id AND p.board_id = ${pageId}::uuid AND p.deleted_at IS NULL
          LEFT JOIN rooms b ON b.id = p.board_id
         WHERE s.room_id = ${lessonId}::uuid AND s.status = 'open' AND s.expires_at > ${clock.now()} AND m.status = 'active'`,
  );
  // The teacher's page when the current page is not live: the first live page (`currentOf`), read once.
  let fallback: Promise<string | null> | undefined;
  for (const reader of ours) {
    const row = found.find((f) => f.session_id === reader.sessionId);
    if (!row) {
      decided.set(reader.sessionId, { decision: 'not_a_member' });
      continue;
    }
    if (!row.board_id || !row.paper) {
      decided.set(reader.sessionId, { decision: 'not_found' });
      continue;
    }
    const page: Page = { id: row.board_id, title: row.title ?? '', background: row.paper };
    if (row.role === 'teacher' || row.pacing === 'free') {
      decided.set(reader.sessionId, { decision: 'ok', page });
      continue;
    }
    const teachers = row.current_live ? row.is_current === true : page.id === (await (fallback ??= currentPageOf(db, lessonId)));
    decided.set(reader.sessionId, teachers ? { decision: 'ok', page } : { decision: 'paced' });
  }
  return decided;
}

/** A uuid[] parameter (one bound value, never spliced into the statement). */
const uuidArray = (ids: readonly string[]) => `{${ids.join(',')}}`;

/** The teacher's page, as `lessonPages` says it (the current page, or the first live page). */
async function currentPageOf(db: Executor, lessonId: string): Promise<string | null> {
  return (await lessonPages(db, lessonId))?.currentPageId ?? null;
}

export type PageSnapshotResult =
  | { decision: 'ok'; snapshot: { page: Page; revision: number; elements: Element[] } }
  | { decision: 'not_a_member' | 'not_found' | 'paced' };

/**
 * One page as one picture at one revision (its revision and live elements in one statement), with
 * no reader's check: for `loadPageSnapshot`, and for the server sharing one read among the class
 * moving to the same page at once (each reader checked by `readablePage` first, I14).
 */
export async function readPageContent(db: Executor, pageId: string): Promise<{ revision: number; elements: Element[] }> {
  const [row] = await rows<{ revision: unknown; elements: unknown }>(
    db,
    sql`SELECT (SELECT revision FROM rooms WHERE id = ${pageId}::uuid) AS revision,
               (SELECT coalesce(json_agg(e ORDER BY e.z, e.id), '[]'::json)
                  FROM (SELECT ${ELEMENT_COLUMNS} FROM elements WHERE room_id = ${pageId}::uuid AND NOT deleted) e) AS elements`,
  );
  const elements = (typeof row?.elements === 'string' ? JSON.parse(row.elements) : row?.elements) as ElementRow[];
  return { revision: int(row?.revision), elements: elements.map(toElement) };
}

/** One page as one picture at one revision, for a reader who may read it (`readablePage`). */
export async function loadPageSnapshot(db: Db, clock: Clock, reader: PageReader, pageId: string): Promise<PageSnapshotResult> {
  const readable = await readablePage(db, clock, reader, pageId);
  if (readable.decision !== 'ok') return readable;
  return { decision: 'ok' as const, snapshot: { page: readable.page, ...(await readPageContent(db, pageId)) } };
}

/** A page's events after a revision, for a reader who may read it. */
export async function pageEventsAfter(
  db: Db,
  clock: Clock,
  reader: PageReader,
  pageId: string,
  afterRevision: number,
  limit: number,
): Promise<EventsAfter | { decision: 'not_a_member' | 'not_found' | 'paced' }> {
  const readable = await readablePage(db, clock, reader, pageId);
  if (readable.decision !== 'ok') return readable;
  return eventsAfter(db, pageId, afterRevision, limit);
}

export type PagesResult =
  | { decision: 'applied'; pages: LessonPages; events: RoomEvent[] }
  | { decision: 'already_applied'; pages: LessonPages }
  | { decision: 'not_a_member' | 'forbidden' | 'not_found' | 'last_page' | 'too_many_pages' | 'board_full' };

type Refusal = Exclude<PagesResult, { decision: 'applied' | 'already_applied' }>['decision'];

interface LessonLocked {
  auth: Authorized;
  lesson: RoomRow & { current_page_id: string | null; page_pacing: Pacing };
}

/** The lesson row FOR UPDATE (before anything else), then the actor's rights: its teacher only. */
async function teacherOfPages(tx: Tx, clock: Clock, actor: EditActor): Promise<LessonLocked | 'not_a_member' | 'forbidden'> {
  const [lesson] = await rows<LessonLocked['lesson'] & { parent_id: string | null }>(
    tx,
    sql`SELECT ${roomColumns}, parent_id, current_page_id, page_pacing FROM rooms WHERE id = ${actor.roomId}::uuid FOR UPDATE`,
  );
  const auth = await authorizeEdit(tx, clock, actor);
  if (!lesson || !auth) return 'not_a_member';
  if (auth.role !== 'teacher' || lesson.parent_id !== null) return 'forbidden';
  return { auth, lesson };
}

/**
 * One teacher's change of the pages: `work` runs with the lesson row locked and says whether it
 * changed anything; a change appends `pages.updated` to the lesson's log, with `extra` events (a
 * new page's elements, locks broken on a deleted page) before it.
 */
async function changePages(
  db: Db,
  clock: Clock,
  actor: EditActor,
  work: (tx: Tx, locked: LessonLocked) => Promise<{ changed: boolean; events?: RoomEvent[] } | Refusal>,
): Promise<PagesResult> {
  return editTransaction(db, async (tx) => {
    const locked = await teacherOfPages(tx, clock, actor);
    if (typeof locked === 'string') return { decision: locked };
    const done = await work(tx, locked);
    if (typeof done === 'string') return { decision: done };
    const current = await lessonPages(tx, actor.roomId);
    if (!current) throw new Error(`lesson ${actor.roomId} vanished under its own lock`);
    if (!done.changed) return { decision: 'already_applied' as const, pages: current };
    const roomRevision = await nextRoomRevision(tx, actor.roomId);
    const event = await appendRoomEvent(tx, clock, actor.roomId, 'pages.updated', { roomRevision }, current, locked.auth);
    return { decision: 'applied' as const, pages: current, events: [...(done.events ?? []), event] };
  });
}

/** Renumbers the lesson's pages 0..n-1 in the given order (every page, deleted ones too). */
async function renumber(tx: Tx, lessonId: string, order: readonly string[]): Promise<void> {
  if (order.length === 0) return;
  await tx.execute(
    sql`UPDATE lesson_pages p SET position = o.ord - 1
          FROM unnest(${`{${order.join(',')}}`}::uuid[]) WITH ORDINALITY AS o(board_id, ord)
         WHERE p.room_id = ${lessonId}::uuid AND p.board_id = o.board_id AND p.position <> o.ord - 1`,
  );
}

/** The order with `pageId` placed right after `afterPageId` (null: first). */
function placed(order: readonly string[], pageId: string, afterPageId: string | null): string[] {
  const rest = order.filter((id) => id !== pageId);
  const at = afterPageId === null ? 0 : rest.indexOf(afterPageId) + 1;
  return [...rest.slice(0, at), pageId, ...rest.slice(at)];
}

/** Makes the board of a new page of the lesson, with the lesson's settings and the given paper. */
async function insertPageBoard(tx: Tx, clock: Clock, lesson: RoomRow, pageId: string, paper: Paper): Promise<boolean> {
  const settings = { ...toRoom(lesson).settings, paper };
  const made = await rows<{ id: string }>(
    tx,
    sql`INSERT INTO rooms (id, code, title, status, revision, ${settingColumns()}, require_approval, parent_id, created_at)
        VALUES (${pageId}::uuid, ${`page-${pageId}`}, ${lesson.title}, 'open', 0, ${settingValues(settings)}, false,
                ${lesson.id}::uuid, ${clock.now()})
        ON CONFLICT (id) DO NOTHING RETURNING id`,
  );
  return made.length > 0;
}

async function insertPageRow(tx: Tx, clock: Clock, lessonId: string, pageId: string, title: string): Promise<void> {
  await tx.execute(
    sql`INSERT INTO lesson_pages (room_id, board_id, position, title, created_at)
        VALUES (${lessonId}::uuid, ${pageId}::uuid,
                (SELECT coalesce(max(position), -1) + 1 FROM lesson_pages WHERE room_id = ${lessonId}::uuid),
                ${title}, ${clock.now()})`,
  );
}

/**
 * Copies the live elements of `sourceBoardId` onto the (new, empty) board `boardId`, as `by`'s, each
 * with its first version and its `element.created` in the board's own log, within the board's cap.
 */
async function copyElements(
  tx: Tx,
  clock: Clock,
  sourceBoardId: string,
  boardId: string,
  by: string,
  auth: Authorized,
  caps: ElementCaps,
): Promise<{ events: RoomEvent[]; shapes: ElementShape[] }> {
  const source = await rows<{ id: string; data: unknown }>(
    tx,
    sql`SELECT id, ${ELEMENT_DATA} AS data FROM elements WHERE room_id = ${sourceBoardId}::uuid AND NOT deleted ORDER BY z, id`,
  );
  const events: RoomEvent[] = [];
  const shapes: ElementShape[] = [];
  for (const item of source) {
    const shape: ElementShape = shapeOf(item.data);
    shapes.push(shape);
    const [inserted] = await rows<ElementRow>(
      tx,
      sql`INSERT INTO elements (room_id, id, kind, version, created_by, updated_by, created_at, updated_at, z)
          VALUES (${boardId}::uuid, ${item.id}::uuid, ${shape.kind}, 1, ${by}::uuid, ${by}::uuid, ${clock.now()}, ${clock.now()},
                  (SELECT revision + 1 FROM rooms WHERE id = ${boardId}::uuid))
          RETURNING ${ELEMENT_COLUMNS}`,
    );
    if (!inserted) continue;
    const created = withShape(inserted, shape);
    await recordVersion(tx, clock, created, 'created', by);
    events.push(await appendRoomEvent(tx, clock, boardId, 'element.created', { elementId: created.id }, { element: toElement(created) }, auth, caps.maxPerBoard));
  }
  return { events, shapes };
}

const liveOrder = async (tx: Tx, lessonId: string) => (await readPageRows(tx, lessonId)).filter((p) => !p.deleted).map((p) => p.board_id);

/** Whether the page is a page of this lesson, and whether it is deleted. */
async function pageState(tx: Tx, lessonId: string, pageId: string): Promise<'live' | 'deleted' | 'none'> {
  const [row] = await rows<{ deleted: boolean }>(
    tx,
    sql`SELECT deleted_at IS NOT NULL AS deleted FROM lesson_pages WHERE room_id = ${lessonId}::uuid AND board_id = ${pageId}::uuid`,
  );
  return !row ? 'none' : row.deleted ? 'deleted' : 'live';
}

/** Teacher: a new blank page after `afterPageId` (null: first). A retry (same `pageId`) changes nothing. */
export async function addPage(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { pageId: string; afterPageId: string | null; title?: string; background?: Paper },
): Promise<PagesResult> {
  return changePages(db, clock, actor, async (tx, { lesson }) => {
    if ((await pageState(tx, actor.roomId, input.pageId)) !== 'none') return { changed: false };
    const order = await liveOrder(tx, actor.roomId);
    if (input.afterPageId !== null && !order.includes(input.afterPageId)) return 'not_found';
    if (order.length >= LESSON_PAGES_MAX) return 'too_many_pages';
    // A page id another room already has (a hand-written packet naming one) makes nothing.
    if (!(await insertPageBoard(tx, clock, lesson, input.pageId, input.background ?? toRoom(lesson).settings.paper))) return 'not_found';
    await insertPageRow(tx, clock, actor.roomId, input.pageId, input.title ?? '');
    await renumberAll(tx, actor.roomId, placed(order, input.pageId, input.afterPageId));
    return { changed: true };
  });
}

/**
 * Renumbers every page: the live ones in `liveOrder`, each deleted page kept right after the live
 * page it followed (so a restore puts it back where it was).
 */
async function renumberAll(tx: Tx, lessonId: string, live: readonly string[]): Promise<void> {
  const all = await readPageRows(tx, lessonId);
  const deletedAfter = new Map<string | null, string[]>();
  let previous: string | null = null;
  for (const p of all) {
    if (p.deleted) deletedAfter.set(previous, [...(deletedAfter.get(previous) ?? []), p.board_id]);
    else previous = p.board_id;
  }
  const order = [...(deletedAfter.get(null) ?? [])];
  for (const id of live) order.push(id, ...(deletedAfter.get(id) ?? []));
  // A page new to the list (just inserted) is in `live`; nothing else is left out.
  await renumber(tx, lessonId, order);
}

/** Teacher: a copy of a live page (its live elements and paper) right after it, as `pageId`. */
export async function duplicatePage(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { pageId: string; sourcePageId: string },
  caps: ElementCaps,
): Promise<PagesResult> {
  return refusedWhenFull(() =>
    changePages(db, clock, actor, async (tx, { lesson, auth }) => {
      if ((await pageState(tx, actor.roomId, input.pageId)) !== 'none') return { changed: false };
      const order = await liveOrder(tx, actor.roomId);
      if (!order.includes(input.sourcePageId)) return 'not_found';
      if (order.length >= LESSON_PAGES_MAX) return 'too_many_pages';
      const [source] = await rows<{ paper: Paper; title: string }>(
        tx,
        sql`SELECT b.paper, p.title FROM rooms b JOIN lesson_pages p ON p.board_id = b.id WHERE b.id = ${input.sourcePageId}::uuid`,
      );
      if (!source || !(await insertPageBoard(tx, clock, lesson, input.pageId, source.paper))) return 'not_found';
      await insertPageRow(tx, clock, actor.roomId, input.pageId, source.title);
      await renumberAll(tx, actor.roomId, placed(order, input.pageId, input.sourcePageId));
      const { events } = await copyElements(tx, clock, input.sourcePageId, input.pageId, actor.userId, auth, caps);
      return { changed: true, events };
    }),
  );
}

/** Teacher: rename a page or change its paper. */
export async function updatePage(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { pageId: string; title?: string; background?: Paper },
): Promise<PagesResult> {
  return changePages(db, clock, actor, async (tx) => {
    if ((await pageState(tx, actor.roomId, input.pageId)) === 'none') return 'not_found';
    let changed = false;
    if (input.title !== undefined) {
      const renamed = await rows<{ board_id: string }>(
        tx,
        sql`UPDATE lesson_pages SET title = ${input.title}
             WHERE room_id = ${actor.roomId}::uuid AND board_id = ${input.pageId}::uuid AND title <> ${input.title} RETURNING board_id`,
      );
      changed ||= renamed.length > 0;
    }
    if (input.background !== undefined) {
      const repapered = await rows<{ id: string }>(
        tx,
        sql`UPDATE rooms SET paper = ${input.background} WHERE id = ${input.pageId}::uuid AND paper <> ${input.background} RETURNING id`,
      );
      changed ||= repapered.length > 0;
    }
    return { changed };
  });
}

/** Teacher: move a live page to right after `afterPageId` (null: first), in the order as it is now. */
export async function movePage(db: Db, clock: Clock, actor: EditActor, input: { pageId: string; afterPageId: string | null }): Promise<PagesResult> {
  return changePages(db, clock, actor, async (tx) => {
    const order = await liveOrder(tx, actor.roomId);
    if (!order.includes(input.pageId) || (input.afterPageId !== null && !order.includes(input.afterPageId))) return 'not_found';
    if (input.afterPageId === input.pageId) return { changed: false };
    const next = placed(order, input.pageId, input.afterPageId);
    if (next.every((id, i) => id === order[i])) return { changed: false };
    await renumberAll(tx, actor.roomId, next);
    return { changed: true };
  });
}

/**
 * Teacher: deletes a live page (kept for the lesson's life, restorable): the students' drag locks
 * on it end (`lock.released`, broken, in its log) and from now on a student only looks at it. The
 * teacher on it moves to the page before it (or the new first page). The only live page stays.
 */
export async function deletePage(db: Db, clock: Clock, actor: EditActor, input: { pageId: string }): Promise<PagesResult> {
  return changePages(db, clock, actor, async (tx, { lesson }) => {
    const state = await pageState(tx, actor.roomId, input.pageId);
    if (state === 'none') return 'not_found';
    if (state === 'deleted') return { changed: false };
    const order = await liveOrder(tx, actor.roomId);
    if (order.length <= 1) return 'last_page';
    await tx.execute(sql`UPDATE lesson_pages SET deleted_at = ${clock.now()} WHERE board_id = ${input.pageId}::uuid AND deleted_at IS NULL`);
    const current = currentOf(
      order.map((board_id) => ({ board_id, title: '', paper: 'blank' as const, deleted: false })),
      lesson.current_page_id,
      actor.roomId,
    );
    if (current === input.pageId) {
      const at = order.indexOf(input.pageId);
      const next = at > 0 ? order[at - 1]! : order[1]!;
      await tx.execute(sql`UPDATE rooms SET current_page_id = ${next}::uuid WHERE id = ${actor.roomId}::uuid`);
    }
    // Every lock on the page ends: nobody drags on a deleted page.
    const broken = await rows<{ id: string; lock_generation: unknown }>(
      tx,
      sql`UPDATE elements SET ${FREE_LOCK} WHERE room_id = ${input.pageId}::uuid AND lock_session_id IS NOT NULL RETURNING id, lock_generation`,
    );
    const events: RoomEvent[] = [];
    for (const l of broken) events.push(await releasedEvent(tx, clock, input.pageId, l.id, int(l.lock_generation), 'broken'));
    return { changed: true, events };
  });
}

/** Teacher: restores a deleted page where it was (its content as it was when deleted). */
export async function restorePage(db: Db, clock: Clock, actor: EditActor, input: { pageId: string }): Promise<PagesResult> {
  return changePages(db, clock, actor, async (tx) => {
    const state = await pageState(tx, actor.roomId, input.pageId);
    if (state === 'none') return 'not_found';
    if (state === 'live') return { changed: false };
    if ((await liveOrder(tx, actor.roomId)).length >= LESSON_PAGES_MAX) return 'too_many_pages';
    await tx.execute(sql`UPDATE lesson_pages SET deleted_at = NULL WHERE board_id = ${input.pageId}::uuid`);
    return { changed: true };
  });
}

/** Teacher: goes to a live page; paced students move with her (their edits elsewhere are look-only). */
export async function gotoPage(db: Db, clock: Clock, actor: EditActor, input: { pageId: string }): Promise<PagesResult> {
  return changePages(db, clock, actor, async (tx, { lesson }) => {
    if ((await pageState(tx, actor.roomId, input.pageId)) !== 'live') return 'not_found';
    const order = await liveOrder(tx, actor.roomId);
    const current = currentOf(
      order.map((board_id) => ({ board_id, title: '', paper: 'blank' as const, deleted: false })),
      lesson.current_page_id,
      actor.roomId,
    );
    if (current === input.pageId) return { changed: false };
    await tx.execute(sql`UPDATE rooms SET current_page_id = ${input.pageId}::uuid WHERE id = ${actor.roomId}::uuid`);
    return { changed: true };
  });
}

/** Teacher: paces the class (everyone on her page) or lets it browse. */
export async function setPacing(db: Db, clock: Clock, actor: EditActor, input: { pacing: Pacing }): Promise<PagesResult> {
  return changePages(db, clock, actor, async (tx, { lesson }) => {
    if (lesson.page_pacing === input.pacing) return { changed: false };
    await tx.execute(sql`UPDATE rooms SET page_pacing = ${input.pacing} WHERE id = ${actor.roomId}::uuid AND page_pacing = ${lesson.page_pacing}`);
    return { changed: true };
  });
}

export type StartLessonResult =
  | { decision: 'applied'; room: RoomInfo; events: RoomEvent[] }
  | { decision: 'already_applied'; room: RoomInfo }
  | { decision: 'not_a_member' | 'forbidden' };

/** Teacher: starts a prepared lesson (students may join from now on). Starting twice changes nothing. */
export async function startLesson(db: Db, clock: Clock, actor: EditActor): Promise<StartLessonResult> {
  return editTransaction(db, async (tx) => {
    const locked = await teacherOfPages(tx, clock, actor);
    if (typeof locked === 'string') return { decision: locked };
    const [started] = await rows<RoomRow>(
      tx,
      sql`UPDATE rooms SET started_at = ${clock.now()} WHERE id = ${actor.roomId}::uuid AND started_at IS NULL RETURNING ${roomColumns}`,
    );
    if (!started) return { decision: 'already_applied' as const, room: toRoom(locked.lesson) };
    const room = toRoom(started);
    const roomRevision = await nextRoomRevision(tx, actor.roomId);
    const event = await appendRoomEvent(tx, clock, actor.roomId, 'room.updated', { roomRevision }, room, locked.auth);
    return { decision: 'applied' as const, room, events: [event] };
  });
}

/**
 * Teach again (inside the new lesson's creating transaction, `createRoom`'s `copyPagesFrom`):
 * copies the source lesson's live pages, in order, with their titles, papers and live elements,
 * onto the new lesson, as its teacher's (`teacherUserId`) work. Nothing else: no member,
 * attendance, private board, activity, poll, history or log of the source comes along, and of its
 * pictures only those the copied pages show are named in the new lesson (the bytes are stored
 * once). The first source page becomes the new lesson's own board.
 */
export async function copyPagesInto(
  tx: Tx,
  clock: Clock,
  sourceLessonId: string,
  target: { lessonId: string; teacherUserId: string },
  caps: ElementCaps,
): Promise<void> {
  const [lesson] = await rows<RoomRow>(tx, sql`SELECT ${roomColumns} FROM rooms WHERE id = ${target.lessonId}::uuid FOR UPDATE`);
  if (!lesson) throw new Error(`no lesson ${target.lessonId}`);
  // The new lesson's teacher writes its copies: a teacher's bump needs no policy condition.
  const asTeacher: Authorized = { role: 'teacher', editPolicy: toRoom(lesson).settings.editPolicy, penMuted: false, roomStatus: 'open', privateBoard: false };
  const source = (await readPageRows(tx, sourceLessonId)).filter((p) => !p.deleted);
  const shown: ElementShape[] = [];
  for (const [position, page] of source.entries()) {
    const boardId = position === 0 ? target.lessonId : randomUUID();
    if (position === 0) {
      await tx.execute(sql`UPDATE rooms SET paper = ${page.paper} WHERE id = ${boardId}::uuid`);
      await tx.execute(sql`UPDATE lesson_pages SET title = ${page.title} WHERE board_id = ${boardId}::uuid`);
    } else {
      await insertPageBoard(tx, clock, lesson, boardId, page.paper);
      await insertPageRow(tx, clock, target.lessonId, boardId, page.title);
    }
    shown.push(...(await copyElements(tx, clock, page.board_id, boardId, target.teacherUserId, asTeacher, caps)).shapes);
  }
  const hashes = imageHashes(shown);
  if (hashes.length === 0) return;
  await tx.execute(
    sql`INSERT INTO lesson_images (room_id, sha256, uploaded_by, created_at)
        SELECT ${target.lessonId}::uuid, sha256, ${target.teacherUserId}::uuid, ${clock.now()}
          FROM lesson_images WHERE room_id = ${sourceLessonId}::uuid AND sha256 = ANY(${`{${hashes.join(',')}}`}::text[])
        ON CONFLICT DO NOTHING`,
  );
}
