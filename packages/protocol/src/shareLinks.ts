/**
 * Read-only share links to an ended lesson, and replay of a board as it was built (issue 39;
 * docs/protocol.md, "Share links and replay"; docs/privacy.md, "Share links").
 *
 * A viewer holds no account and no session: the link's token is its only key, and what it reads
 * names no person unless the teacher included names. Boards are named by their place in the
 * lesson's list (`index`), never by an id, and elements carry their shape and drawing order only:
 * no `createdBy`, `updatedBy`, lock or session.
 */
import { z } from 'zod';
import { ElementId, ElementShape } from './elements.ts';
import { Paper } from './lessonSettings.ts';
import { Revision, UserId } from './primitives.ts';

/**
 * What a share link includes. Each is off unless the teacher turns it on: students' names (as
 * owners of private boards), students' private boards, and replay of how each board was built.
 */
export const ShareOptions = z.strictObject({
  names: z.boolean(),
  privateBoards: z.boolean(),
  replay: z.boolean(),
});
export type ShareOptions = z.infer<typeof ShareOptions>;
export const DEFAULT_SHARE_OPTIONS: ShareOptions = { names: false, privateBoards: false, replay: false };

/** The teacher's request to make a link, or to change what the link that is on includes. */
export const ShareLinkRequest = ShareOptions.partial();
export type ShareLinkRequest = z.infer<typeof ShareLinkRequest>;

/**
 * A share token: 32 random bytes as base64url (43 characters), shown to the teacher once; only
 * its SHA-256 is stored. Anything else is refused before the database is asked.
 */
export const ShareToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

/** The teacher's view of the lesson's link (no token: it is not kept). */
export const ShareLinkState = z.object({
  /** A link is on: made at `createdAt`, including `options`. */
  on: z.boolean(),
  createdAt: z.string().nullable(),
  options: ShareOptions,
});
export type ShareLinkState = z.infer<typeof ShareLinkState>;

/** The answer to making a link: its token, once. The address is `/shared/<token>`. */
export const ShareLinkCreated = ShareLinkState.extend({ token: ShareToken });
export type ShareLinkCreated = z.infer<typeof ShareLinkCreated>;

/**
 * One board of a shared lesson: a class page, or a student's private board (when included).
 * `owner` is the student's display name only when the link includes names; otherwise null and
 * the board is labelled by its number.
 */
export const SharedBoardRef = z.object({
  index: z.number().int().nonnegative(),
  kind: z.enum(['page', 'private']),
  title: z.string().nullable(),
  owner: z.string().nullable(),
  paper: Paper,
});
export type SharedBoardRef = z.infer<typeof SharedBoardRef>;

/** `GET /api/shared/:token`: the lesson as the link shows it. */
export const SharedLesson = z.object({
  title: z.string(),
  /** What the link includes (the viewer shows replay only when `replay`). */
  options: ShareOptions,
  boards: z.array(SharedBoardRef),
});
export type SharedLesson = z.infer<typeof SharedLesson>;

/** An element as a share link shows it: its shape and drawing order, no author or lock. */
export const SharedElement = z.object({ id: ElementId, shape: ElementShape, z: Revision });
export type SharedElement = z.infer<typeof SharedElement>;

/** `GET /api/shared/:token/boards/:index`: the board's live elements in drawing order. */
export const SharedBoard = z.object({ index: z.number().int().nonnegative(), elements: z.array(SharedElement) });
export type SharedBoard = z.infer<typeof SharedBoard>;

/**
 * One step of a board's history: an element took `version` (its shape, deleted or not) at `at`
 * (ms since the epoch, the database's clock). `by` (the member, a user id) only in the teacher's
 * replay, never through a share link.
 */
export const ReplayStep = z.object({
  id: ElementId,
  version: Revision,
  at: z.number(),
  deleted: z.boolean(),
  shape: ElementShape,
  z: Revision,
  by: UserId.optional(),
});
export type ReplayStep = z.infer<typeof ReplayStep>;

/** Most steps in one answer (a pen stroke is at most ~45 KB): a long lesson comes in pages. */
export const REPLAY_PAGE_STEPS = 2_000;

/** A page of a board's history, oldest first; `next` asks for the page after it (null: the end). */
export const ReplayPage = z.object({ steps: z.array(ReplayStep), next: z.string().nullable() });
export type ReplayPage = z.infer<typeof ReplayPage>;

/**
 * The board after the first `count` steps: each element at the newest version seen so far (a
 * step older than the version already applied changes nothing, as I1 for events), deleted ones
 * left out, in drawing order. Applying every step gives the board's final state.
 */
export function replayBoard(steps: readonly ReplayStep[], count = steps.length): SharedElement[] {
  const latest = new Map<string, ReplayStep>();
  const end = Math.min(Math.max(0, count), steps.length);
  for (let i = 0; i < end; i++) {
    const step = steps[i]!;
    const seen = latest.get(step.id);
    if (!seen || step.version > seen.version) latest.set(step.id, step);
  }
  return [...latest.values()]
    .filter((s) => !s.deleted)
    .map((s) => ({ id: s.id, shape: s.shape, z: s.z }))
    .sort((a, b) => a.z - b.z || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
