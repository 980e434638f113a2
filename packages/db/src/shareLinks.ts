/**
 * Read-only share links to an ended lesson, and replay of a board from its element versions
 * (issue 39; migration 0022; docs/protocol.md "Share links and replay", docs/privacy.md):
 *
 *   (none) --createShareLink--> on --setShareOptions--> on
 *     on   --createShareLink--> off (the old link) + on (a new token)
 *     on   --turnOffShareLink--> off (final: the token never works again)
 *
 * A link works while it is on and its lesson is not open (ended or archived): reopening the lesson
 * hides it until the lesson ends again, so a link never shows a class at work. Every read through
 * a link names the token in the same statement that reads the content (SL1), so a link turned
 * off is refused by the next request, not after a cache expires.
 *
 * What a link shows is decided here, not by the route (I12): the lesson's boards in order
 * (`sharedBoardsOf`), students' private boards only when included (SL2), owners' names only when
 * included (SL3), elements as shape and drawing order only (never `created_by`, `updated_by`,
 * locks or sessions), replay only when included (SL4).
 *
 * Replay reads `element_versions` (every accepted version of every element, its shape and whether
 * it was deleted), oldest first, a page of REPLAY_PAGE_STEPS per statement (SL5); folding every
 * step gives the board's live elements (`replayBoard` in the protocol, SL6).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  REPLAY_PAGE_STEPS,
  type Paper,
  type ReplayPage,
  type ReplayStep,
  type SharedBoard,
  type SharedBoardRef,
  type SharedLesson,
  type ShareLinkRequest,
  type ShareLinkState,
  type ShareOptions,
} from '@wb/protocol';
import type { Clock } from './clock.ts';
import { shapeOf } from './elementRows.ts';
import { lessonPages } from './pages.ts';
import { date, int, rows, type Db, type Executor } from './sql.ts';

/** A board of a lesson, in the lesson's order: a class page, or a student's private board. */
export interface LessonBoard {
  readonly id: string;
  readonly kind: 'page' | 'private';
  readonly title: string | null;
  /** The owner's display name (private boards only). */
  readonly owner: string | null;
  readonly paper: Paper;
}

/**
 * The lesson's class pages, in order: what a share link and the teacher's replay list first
 * (its live pages, `lessonPages`; the lesson's own board is one of them).
 */
export async function sharedBoardsOf(executor: Executor, lessonId: string): Promise<LessonBoard[]> {
  // The lesson's live pages in their order (pages.ts); a deleted page is not shown.
  const found = await lessonPages(executor, lessonId);
  return (found?.pages ?? []).map((p) => ({ id: p.id, kind: 'page' as const, title: p.title || null, owner: null, paper: p.background }));
}

/** The students' private boards of the lesson (every activity), oldest first, with their owners' names. */
export async function privateBoardsOf(executor: Executor, lessonId: string): Promise<LessonBoard[]> {
  const found = await rows<{ id: string; paper: Paper; owner: string }>(
    executor,
    sql`SELECT b.id, b.paper, m.display_name AS owner
        FROM rooms b JOIN memberships m ON m.room_id = b.parent_id AND m.user_id = b.owner_user_id
        WHERE b.parent_id = ${lessonId}::uuid AND b.owner_user_id IS NOT NULL
        ORDER BY b.created_at, b.id`,
  );
  return found.map((r) => ({ id: r.id, kind: 'private' as const, title: null, owner: r.owner, paper: r.paper }));
}

/** The boards a reader of the lesson sees, in order: the pages, then private boards when included. */
async function boardsShown(executor: Executor, lessonId: string, options: Pick<ShareOptions, 'privateBoards'>): Promise<LessonBoard[]> {
  const pages = await sharedBoardsOf(executor, lessonId);
  return options.privateBoards ? [...pages, ...(await privateBoardsOf(executor, lessonId))] : pages;
}

/** As the list goes out: numbered, owners' names only when included (SL3). */
function boardRefs(boards: readonly LessonBoard[], options: Pick<ShareOptions, 'names'>): SharedBoardRef[] {
  return boards.map((b, index) => ({ index, kind: b.kind, title: b.title, owner: options.names ? b.owner : null, paper: b.paper }));
}

interface LinkRow {
  id: string;
  room_id: string;
  include_names: boolean;
  include_private: boolean;
  include_replay: boolean;
  created_at: unknown;
}

const LINK_COLUMNS = sql.raw('id, room_id, include_names, include_private, include_replay, created_at');
const optionsOf = (r: LinkRow): ShareOptions => ({ names: r.include_names, privateBoards: r.include_private, replay: r.include_replay });
const stateOf = (r: LinkRow | undefined): ShareLinkState =>
  r ? { on: true, createdAt: date(r.created_at).toISOString(), options: optionsOf(r) } : { on: false, createdAt: null, options: { names: false, privateBoards: false, replay: false } };

/** The condition a link works under (SL1): on, and its lesson not open. `s` is the share_links row. */
const LINK_WORKS = sql`s.turned_off_at IS NULL AND EXISTS (SELECT 1 FROM rooms l WHERE l.id = s.room_id AND l.parent_id IS NULL AND l.status <> 'open')`;

export type CreateShareLinkResult = { decision: 'created'; state: ShareLinkState } | { decision: 'no_lesson' | 'lesson_open' };

/**
 * Teacher (the route checks who): makes the lesson's link, turning off the one that was on. Only
 * for a lesson that is not open: a link shows what the class made, not a class at work.
 */
export async function createShareLink(
  db: Db,
  clock: Clock,
  input: { lessonId: string; tokenHash: string; options: ShareOptions },
): Promise<CreateShareLinkResult> {
  return db.transaction(async (tx) => {
    const [lesson] = await rows<{ status: string }>(
      tx,
      sql`SELECT status FROM rooms WHERE id = ${input.lessonId}::uuid AND parent_id IS NULL FOR UPDATE`,
    );
    if (!lesson) return { decision: 'no_lesson' as const };
    if (lesson.status === 'open') return { decision: 'lesson_open' as const };
    await tx.execute(sql`UPDATE share_links SET turned_off_at = ${clock.now()} WHERE room_id = ${input.lessonId}::uuid AND turned_off_at IS NULL`);
    const [made] = await rows<LinkRow>(
      tx,
      sql`INSERT INTO share_links (id, room_id, token_hash, include_names, include_private, include_replay, created_at)
          VALUES (${randomUUID()}::uuid, ${input.lessonId}::uuid, ${input.tokenHash}, ${input.options.names}, ${input.options.privateBoards},
                  ${input.options.replay}, ${clock.now()})
          RETURNING ${LINK_COLUMNS}`,
    );
    return { decision: 'created' as const, state: stateOf(made) };
  });
}

/** Teacher: changes what the link that is on includes; nothing when none is on. */
export async function setShareOptions(
  db: Db,
  input: { lessonId: string; options: ShareLinkRequest },
): Promise<{ decision: 'updated'; state: ShareLinkState } | { decision: 'no_link' }> {
  const { names, privateBoards, replay } = input.options;
  const [changed] = await rows<LinkRow>(
    db,
    sql`UPDATE share_links SET include_names = coalesce(${names ?? null}::boolean, include_names),
                               include_private = coalesce(${privateBoards ?? null}::boolean, include_private),
                               include_replay = coalesce(${replay ?? null}::boolean, include_replay)
        WHERE room_id = ${input.lessonId}::uuid AND turned_off_at IS NULL
        RETURNING ${LINK_COLUMNS}`,
  );
  return changed ? { decision: 'updated', state: stateOf(changed) } : { decision: 'no_link' };
}

/** Teacher: turns the lesson's link off, for good. Turning off twice changes nothing. */
export async function turnOffShareLink(db: Db, clock: Clock, lessonId: string): Promise<{ decision: 'turned_off' | 'already_off' }> {
  const gone = await rows<{ id: string }>(
    db,
    sql`UPDATE share_links SET turned_off_at = ${clock.now()} WHERE room_id = ${lessonId}::uuid AND turned_off_at IS NULL RETURNING id`,
  );
  return { decision: gone.length > 0 ? 'turned_off' : 'already_off' };
}

/** The teacher's view of the lesson's link. */
export async function shareLinkState(executor: Executor, lessonId: string): Promise<ShareLinkState> {
  const [on] = await rows<LinkRow>(
    executor,
    sql`SELECT ${LINK_COLUMNS} FROM share_links WHERE room_id = ${lessonId}::uuid AND turned_off_at IS NULL`,
  );
  return stateOf(on);
}

/** The link named by the token's hash while it works (SL1), with its lesson's title. */
async function workingLink(executor: Executor, tokenHash: string): Promise<(LinkRow & { title: string }) | null> {
  const [found] = await rows<LinkRow & { title: string }>(
    executor,
    sql`SELECT s.id, s.room_id, s.include_names, s.include_private, s.include_replay, s.created_at, r.title
        FROM share_links s JOIN rooms r ON r.id = s.room_id
        WHERE s.token_hash = ${tokenHash} AND ${LINK_WORKS}`,
  );
  return found ?? null;
}

/** What a share link shows of its lesson; null when the link does not work (SL1). */
export async function openSharedLesson(db: Db, tokenHash: string): Promise<SharedLesson | null> {
  const link = await workingLink(db, tokenHash);
  if (!link) return null;
  const options = optionsOf(link);
  return { title: link.title, options, boards: boardRefs(await boardsShown(db, link.room_id, options), options) };
}

/** The lesson a working link shows (for its images, read by the lesson's hash); null when it does not work. */
export async function sharedLessonId(db: Db, tokenHash: string): Promise<string | null> {
  return (await workingLink(db, tokenHash))?.room_id ?? null;
}

/** The teacher's list of the lesson's boards for replay: every board, with owners' names. */
export async function lessonBoardsForReplay(db: Db, lessonId: string, title: string): Promise<SharedLesson> {
  const options: ShareOptions = { names: true, privateBoards: true, replay: true };
  return { title, options, boards: boardRefs(await boardsShown(db, lessonId, options), options) };
}

export type SharedRead<T> = { decision: 'ok'; value: T } | { decision: 'off' | 'not_found' | 'no_replay' };

/** The board at `index` of what the link shows, or why not. */
async function sharedBoardAt(db: Db, tokenHash: string, index: number): Promise<{ board: LessonBoard; link: LinkRow } | 'off' | 'not_found'> {
  const link = await workingLink(db, tokenHash);
  if (!link) return 'off';
  const board = (await boardsShown(db, link.room_id, optionsOf(link)))[index];
  return board ? { board, link } : 'not_found';
}

/** Still working, checked in the statement that reads (SL1): a link turned off meanwhile reads nothing. */
const stillWorks = (tokenHash: string) => sql`EXISTS (SELECT 1 FROM share_links s WHERE s.token_hash = ${tokenHash} AND ${LINK_WORKS})`;

/** Through a link: the live elements of its board at `index`, shape and drawing order only (SL3). */
export async function readSharedBoard(db: Db, tokenHash: string, index: number): Promise<SharedRead<SharedBoard>> {
  const at = await sharedBoardAt(db, tokenHash, index);
  if (typeof at === 'string') return { decision: at };
  const found = await rows<{ id: string; z: unknown; data: unknown; works: boolean }>(
    db,
    sql`SELECT e.id, e.z, v.data, ${stillWorks(tokenHash)} AS works
        FROM (SELECT 1) one
        LEFT JOIN elements e ON e.room_id = ${at.board.id}::uuid AND NOT e.deleted
        LEFT JOIN element_versions v ON v.room_id = e.room_id AND v.element_id = e.id AND v.version = e.version
        ORDER BY e.z, e.id`,
  );
  if (!found[0]?.works) return { decision: 'off' };
  const elements = found.filter((r) => r.id !== null).map((r) => ({ id: r.id, shape: shapeOf(r.data), z: int(r.z) }));
  return { decision: 'ok', value: { index, elements } };
}

/** Where the next page of a replay starts: the last step's (at, element, version), opaque to clients. */
type ReplayCursor = readonly [at: string, elementId: string, version: number];

export function encodeReplayCursor(cursor: ReplayCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/** Postgres's text of a timestamptz (`2031-03-01 08:00:01.5+00`), a real date: safe to cast back. */
function isTimestampText(text: string): boolean {
  const parts = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?)([+-]\d{2})(?::(\d{2}))?$/.exec(text);
  if (!parts) return false;
  const [, year, month, day, time, hours, minutes] = parts;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) return false;
  return !Number.isNaN(Date.parse(`${year}-${month}-${day}T${time}${hours}:${minutes ?? '00'}`));
}

/** The cursor a client sent back, or null when it is not one this store wrote. */
export function decodeReplayCursor(text: string): ReplayCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 3) return null;
    const [at, id, version] = value as unknown[];
    if (typeof at !== 'string' || !isTimestampText(at)) return null;
    if (typeof id !== 'string' || !/^[0-9a-f-]{36}$/i.test(id)) return null;
    if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) return null;
    return [at, id, version];
  } catch {
    return null;
  }
}

/**
 * One page of a board's history, oldest first, by one statement (SL5): every version of every
 * element (its shape, deleted or not) ordered by time, then element and version; pins, which
 * change no shape, are left out. `by` only when asked (the teacher's replay). `guard` (a share
 * link's check) is evaluated in the same statement: when it fails, no step is returned.
 */
export async function readReplayPage(
  executor: Executor,
  boardId: string,
  input: { after: ReplayCursor | null; withAuthors: boolean; limit?: number; guard?: ReturnType<typeof sql> },
): Promise<{ page: ReplayPage; guarded: boolean }> {
  const limit = input.limit ?? REPLAY_PAGE_STEPS;
  const after = input.after
    ? sql`AND (v.at, v.element_id, v.version) > (${input.after[0]}::timestamptz, ${input.after[1]}::uuid, ${input.after[2]}::int8)`
    : sql.empty();
  // The page's keys first, alone (an index range read in order, migration 0022; or, should the
  // planner choose otherwise, a sort of keys without their shapes), then each key's version and
  // element by primary key: never a sort of the rest of the history with its shapes.
  const found = await rows<{ element_id: string; version: unknown; at_key: string; at_ms: unknown; deleted: boolean; data: unknown; z: unknown; by: string; ok: boolean }>(
    executor,
    sql`WITH page AS MATERIALIZED (
          SELECT v.at, v.element_id, v.version FROM element_versions v
          WHERE v.room_id = ${boardId}::uuid AND v.action NOT IN ('pinned', 'unpinned') ${after}
          ORDER BY v.at, v.element_id, v.version
          LIMIT ${limit + 1}::int)
        SELECT p.element_id, p.version, p.at::text AS at_key, floor(extract(epoch FROM p.at) * 1000)::int8 AS at_ms,
               v.deleted, v.data, e.z, v.by, ${input.guard ?? sql`true`} AS ok
        FROM page p
        JOIN element_versions v ON v.room_id = ${boardId}::uuid AND v.element_id = p.element_id AND v.version = p.version
        JOIN elements e ON e.room_id = ${boardId}::uuid AND e.id = p.element_id
        ORDER BY p.at, p.element_id, p.version`,
  );
  if (found.length > 0 && !found[0]!.ok) return { page: { steps: [], next: null }, guarded: false };
  const kept = found.slice(0, limit);
  const steps: ReplayStep[] = kept.map((r) => ({
    id: r.element_id,
    version: int(r.version),
    at: int(r.at_ms),
    deleted: r.deleted,
    shape: shapeOf(r.data),
    z: int(r.z),
    ...(input.withAuthors ? { by: r.by } : {}),
  }));
  const last = kept[kept.length - 1];
  const next = found.length > limit && last ? encodeReplayCursor([last.at_key, last.element_id, int(last.version)]) : null;
  return { page: { steps, next }, guarded: true };
}

/** Through a link that includes replay (SL4): a page of its board's history, without authors. */
export async function readSharedReplay(db: Db, tokenHash: string, index: number, after: ReplayCursor | null): Promise<SharedRead<ReplayPage>> {
  const at = await sharedBoardAt(db, tokenHash, index);
  if (typeof at === 'string') return { decision: at };
  if (!at.link.include_replay) return { decision: 'no_replay' };
  const read = await readReplayPage(db, at.board.id, { after, withAuthors: false, guard: stillWorks(tokenHash) });
  return read.guarded ? { decision: 'ok', value: read.page } : { decision: 'off' };
}

/** The teacher's replay of the board at `index` of her lesson (every board), with authors. */
export async function readLessonReplay(db: Db, lessonId: string, index: number, after: ReplayCursor | null): Promise<SharedRead<ReplayPage>> {
  const board = (await boardsShown(db, lessonId, { privateBoards: true }))[index];
  if (!board) return { decision: 'not_found' };
  return { decision: 'ok', value: (await readReplayPage(db, board.id, { after, withAuthors: true })).page };
}
