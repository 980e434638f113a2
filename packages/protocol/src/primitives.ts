import { z } from 'zod';

/**
 * Bumped on any incompatible change to a message below; the handshake refuses a mismatch.
 * 2: cursor entries became tuples `[sessionId, x, y, t?]` (see `CursorEntry`).
 * 3: lesson settings (`room.settings`, `lesson.settings`) replace the board lock (`board.lock`,
 *    `board.locked`, `snapshot.boardLocked`); members carry `penMuted`, elements `updatedBy`.
 * 4: the teacher's attention kit: settings `cursorVisibility` and `laserAllowed`, members carry
 *    `handRaisedAt` with the `member.hand` event, and the laser and follow ephemera.
 * 5: activities and private student boards: the `activity.updated` room event, the `activity.*`
 *    and `board.*` requests, the `board.opened` signal and `boardId` on element edits. Added
 *    since, compatibly (a client that never sends them is unaffected): `boardId` on `ink` and the
 *    drag lock's `lock.acquire`/`move`/`release`/`break`, and `ink`/`drags` in `board.pointers`.
 * 6: the `image` element kind (an uploaded picture named by its SHA-256; docs/protocol.md
 *    "Images"), the `equation` element kind and the setting `paper` (an older client cannot read
 *    any of them). Added since, compatibly (optional, an older client ignores them): `frame` on
 *    `lock.move` and on drag entries (a resize or turn in progress; a client that ignores it sees
 *    a plain move until the drop), and `BoardInfo.lastDrewMsAgo` in a teacher's `board.list` reply;
 *    the handshake's `features` and, for a client that asks for it, the `boards.pointers` message.
 * 7: pages (issue 39): the `pages.updated` room event (an older client cannot read it), the
 *    `page.*` requests, `lesson.start` and `RoomInfo.startedAt` (a prepared lesson).
 */
export const PROTOCOL_VERSION = 7;

/** Largest socket message the server reads, in bytes (Socket.IO `maxHttpBufferSize`). */
export const MAX_MESSAGE_BYTES = 64 * 1024;

/** Board coordinates are bounded so a hostile 1e308 never reaches the store or a canvas. */
export const MAX_COORDINATE = 10_000_000;

export const RoomId = z.uuid();
export const UserId = z.uuid();
export const SessionId = z.uuid();
export const RequestId = z.string().min(8).max(64).regex(/^[A-Za-z0-9_-]+$/);
export const RoomCode = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z2-9]{6}$/, 'a room code is 6 letters or digits');

/** A non-negative integer revision; room revisions and lease revisions only grow (I1, I4). */
export const Revision = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const Coordinate = z.number().finite().min(-MAX_COORDINATE).max(MAX_COORDINATE);

// Control characters and bidi overrides are refused: names are rendered as text, never as markup,
// and must not be able to reorder the roster's text.
export const printable = /^[^\p{Cc}\u202A-\u202E\u2066-\u2069]*$/u;

export const DisplayName = z
  .string()
  .trim()
  .min(1, 'a name cannot be empty')
  .max(40, 'a name is at most 40 characters')
  .regex(printable, 'a name cannot contain control characters');

