import { z } from 'zod';
import { Element, LockGeneration, LockReleaseReason, DragEntry, ElementId } from './elements.ts';
import { InkEntry } from './ink.ts';
import { Activity } from './boards.ts';
import { LessonPages } from './pages.ts';
import { BoardFlag, Poll, Timer } from './checks.ts';
import { LaserEntry, ViewportEntry } from './attention.ts';
import { DEFAULT_LESSON_SETTINGS, LessonSettings, LessonSettingsChoice } from './lessonSettings.ts';
import { Coordinate, DisplayName, MAX_COORDINATE, RequestId, Revision, RoomCode, RoomId, SessionId, UserId, printable } from './primitives.ts';

export const RoomTitle = z.string().trim().min(1).max(80).regex(printable);

/** A browser-held secret that makes a returning student the same member (stored only as a hash). */
export const MemberKey = z.string().min(22).max(64).regex(/^[A-Za-z0-9_-]+$/);

export const Role = z.enum(['teacher', 'student']);
export type Role = z.infer<typeof Role>;

/**
 * `pending`: joined a room that requires approval and waits in the lobby (no socket, no board);
 * `denied`: the teacher declined them from the lobby. Both are refused everywhere `active` is
 * required; see docs/store.md for why `denied` is not `revoked`.
 */
export const MembershipStatus = z.enum(['active', 'revoked', 'pending', 'denied']);
export type MembershipStatus = z.infer<typeof MembershipStatus>;

/** Why a session ended: each has its own reconnect and attendance consequence. */
export const SessionEndReason = z.enum(['signed_out', 'revoked', 'server', 'lesson_ended']);
export type SessionEndReason = z.infer<typeof SessionEndReason>;

// ---------------------------------------------------------------------------------------------
// HTTP bodies

export const CreateRoomRequest = z.strictObject({
  teacherName: DisplayName,
  title: RoomTitle.optional(),
  memberKey: MemberKey,
  /** Students wait in a lobby until the teacher admits them (default false). */
  requireApproval: z.boolean().optional(),
  /** The lesson's settings from its start; each one left out takes its default (lessonSettings.ts). */
  settings: LessonSettingsChoice.optional(),
  /**
   * Prepare the lesson without starting it (issue 39): students who have the link wait on "not
   * started yet" (`lesson_not_started`) until the teacher sends `lesson.start`. Default false.
   */
  prepare: z.boolean().optional(),
  /**
   * Teach again: the code of one of the signed-in teacher's lessons, whose live pages (and only
   * them) the new lesson starts with. The new lesson is prepared, not started. Another teacher's
   * code, or no account, is refused `not_found`.
   */
  teachAgainFrom: RoomCode.optional(),
});
export type CreateRoomRequest = z.infer<typeof CreateRoomRequest>;

export const JoinRoomRequest = z.strictObject({
  displayName: DisplayName,
  memberKey: MemberKey,
});
export type JoinRoomRequest = z.infer<typeof JoinRoomRequest>;

export const RoomInfo = z.object({
  id: RoomId,
  code: RoomCode,
  title: z.string(),
  /** `ended`: the teacher ended the lesson (joins refused) and may reopen it; `archived`: for good. */
  status: z.enum(['open', 'ended', 'archived']),
  /** Joiners wait in the lobby until the teacher admits them. Absent from old clients' copies: false. */
  requireApproval: z.boolean().default(false),
  /** What students may do on the board (lessonSettings.ts); changed with `lesson.settings`. */
  settings: LessonSettings.default(DEFAULT_LESSON_SETTINGS),
  /** The lesson's countdown (checks.ts), or null: none. Changed with `timer.set`. */
  timer: Timer.nullable().optional(),
  /**
   * When the lesson started (the database's clock), or null while it is prepared and not started
   * (issue 39: students wait on "not started yet" until `lesson.start`). Absent from old copies.
   */
  startedAt: z.string().nullable().optional(),
});
export type RoomInfo = z.infer<typeof RoomInfo>;

/** A teacher's change of the room's settings (`POST /api/rooms/:code/settings`). */
export const RoomSettingsRequest = z.strictObject({ requireApproval: z.boolean() });
export type RoomSettingsRequest = z.infer<typeof RoomSettingsRequest>;

/**
 * Where a session's member stands with the room's lobby: `admitted` may connect; `pending` waits
 * for the teacher; `denied` was declined and never gets in with this membership.
 */
export const Admission = z.enum(['admitted', 'pending', 'denied']);
export type Admission = z.infer<typeof Admission>;

/** `GET /api/session/admission`: the lobby's answer to a waiting student. */
export const AdmissionStatus = z.object({ admission: Admission });
export type AdmissionStatus = z.infer<typeof AdmissionStatus>;

/** Body of a teacher's denial: an optional reason, shown to the student. */
export const DenyMemberRequest = z.strictObject({ reason: z.string().trim().max(200).optional() });
export type DenyMemberRequest = z.infer<typeof DenyMemberRequest>;

/** What a successful create or join returns: the session token is shown to its owner only. */
export const SessionGrant = z.object({
  token: z.string(),
  sessionId: SessionId,
  userId: UserId,
  role: Role,
  displayName: z.string(),
  room: RoomInfo,
  /** `pending`: the room requires approval and the student waits in the lobby before connecting. */
  admission: z.enum(['admitted', 'pending']).default('admitted'),
});
export type SessionGrant = z.infer<typeof SessionGrant>;

// ---------------------------------------------------------------------------------------------
// Socket handshake

/** What a client may ask for in its handshake's `features`. */
export const CLIENT_FEATURES = ['boards.pointers'] as const;
export type ClientFeature = (typeof CLIENT_FEATURES)[number];

export const HandshakeAuth = z.strictObject({
  token: z.string().min(1).max(200),
  protocol: z.number().int(),
  /** The last room revision this client applied; absent on a first connect. */
  lastRevision: Revision.optional(),
  /**
   * Optional message forms this client reads (added compatibly; a client that sends none gets
   * what every client gets): `boards.pointers`, a tick's board batches in one message.
   */
  features: z.array(z.enum(CLIENT_FEATURES)).max(CLIENT_FEATURES.length).optional(),
});
export type HandshakeAuth = z.infer<typeof HandshakeAuth>;

// ---------------------------------------------------------------------------------------------
// Room state

export const Member = z.object({
  userId: UserId,
  displayName: z.string(),
  role: Role,
  status: MembershipStatus,
  /** Index into `MEMBER_PALETTE`, assigned by the server at join and kept for the membership. */
  colorIndex: z.number().int().min(0).max(32_767),
  /** The teacher muted this student's pen: they only look, whatever the lesson's edit policy. */
  penMuted: z.boolean().default(false),
  /** When the student raised their hand (the database's clock, ISO 8601), or null: no hand up. */
  handRaisedAt: z.string().nullable().default(null),
});
export type Member = z.infer<typeof Member>;

/** One live presence lease. Its absence means the session is not present. */
export const Presence = z.object({
  sessionId: SessionId,
  userId: UserId,
  revision: Revision,
  /** A socket for this session is open on some node; false while it reconnects (I7). */
  connected: z.boolean(),
});
export type Presence = z.infer<typeof Presence>;

/** A member's last known way of leaving, used to tell "gone" from "signed out" in the roster. */
export const Departure = z.object({
  userId: UserId,
  reason: z.enum(['lease_expired', 'signed_out', 'revoked', 'server', 'lesson_ended']),
});
export type Departure = z.infer<typeof Departure>;

export const RoomSnapshot = z.object({
  room: RoomInfo,
  revision: Revision,
  members: z.array(Member),
  presence: z.array(Presence),
  departures: z.array(Departure),
  /** Live elements in drawing order (tombstones are not sent). */
  elements: z.array(Element),
  /** The lesson's latest poll as everyone may know it (no names), or null: none yet. */
  poll: Poll.nullable().optional(),
});
export type RoomSnapshot = z.infer<typeof RoomSnapshot>;

// ---------------------------------------------------------------------------------------------
// Room events: durable, revisioned, logged; applied in revision order and deduplicated by id (I1)

const eventBase = {
  roomId: RoomId,
  revision: Revision,
  eventId: z.string().min(1).max(200),
};

export const RoomEvent = z.discriminatedUnion('kind', [
  z.object({ ...eventBase, kind: z.literal('member.joined'), payload: Member }),
  z.object({
    ...eventBase,
    kind: z.literal('presence.opened'),
    payload: z.object({ sessionId: SessionId, userId: UserId, revision: Revision }),
  }),
  z.object({
    ...eventBase,
    kind: z.literal('presence.expired'),
    payload: z.object({ sessionId: SessionId, userId: UserId, revision: Revision }),
  }),
  z.object({
    ...eventBase,
    kind: z.literal('session.closed'),
    payload: z.object({ sessionId: SessionId, userId: UserId, reason: SessionEndReason }),
  }),
  z.object({
    ...eventBase,
    kind: z.literal('member.revoked'),
    payload: z.object({ userId: UserId, by: UserId, reason: z.string().nullable() }),
  }),
  /** The teacher let a removed member back in: they may join again (their old sessions stay closed). */
  z.object({
    ...eventBase,
    kind: z.literal('member.restored'),
    payload: z.object({ userId: UserId, by: UserId }),
  }),
  /** A student asked to join a room that requires approval: they wait in the lobby (status `pending`). */
  z.object({ ...eventBase, kind: z.literal('member.pending'), payload: Member }),
  /** The teacher let a waiting student in: status `active`; they connect next. */
  z.object({
    ...eventBase,
    kind: z.literal('member.admitted'),
    payload: z.object({ userId: UserId, by: UserId }),
  }),
  /** The teacher declined a waiting student: status `denied`. */
  z.object({
    ...eventBase,
    kind: z.literal('member.denied'),
    payload: z.object({ userId: UserId, by: UserId, reason: z.string().nullable() }),
  }),
  /** A waiting student left the lobby (cancelled): the membership is gone. */
  z.object({ ...eventBase, kind: z.literal('member.withdrawn'), payload: z.object({ userId: UserId }) }),
  /**
   * The room's own facts changed: renamed, its lesson settings changed, or archived (then every
   * session of it is closed).
   */
  z.object({ ...eventBase, kind: z.literal('room.updated'), payload: RoomInfo }),
  z.object({ ...eventBase, kind: z.literal('element.created'), payload: z.object({ element: Element }) }),
  /** Any accepted change: shape, pin, or a drag's final position. Carries the whole element. */
  z.object({ ...eventBase, kind: z.literal('element.updated'), payload: z.object({ element: Element }) }),
  /**
   * The teacher restored a version of the element: apply it even over a tombstone (the one way a
   * deleted element comes back), when its version is newer than yours.
   */
  z.object({ ...eventBase, kind: z.literal('element.restored'), payload: z.object({ element: Element }) }),
  /** A tombstone: the element stays deleted unless the teacher restores it (`element.restored`). */
  z.object({
    ...eventBase,
    kind: z.literal('element.deleted'),
    payload: z.object({ elementId: ElementId, version: Revision, by: UserId }),
  }),
  z.object({
    ...eventBase,
    kind: z.literal('lock.granted'),
    payload: z.object({ elementId: ElementId, generation: LockGeneration, sessionId: SessionId, userId: UserId }),
  }),
  z.object({
    ...eventBase,
    kind: z.literal('lock.released'),
    payload: z.object({ elementId: ElementId, generation: LockGeneration, reason: LockReleaseReason }),
  }),
  /** The teacher muted a student's pen (`muted`) or gave it back. Muting ends their drags. */
  z.object({
    ...eventBase,
    kind: z.literal('member.pen'),
    payload: z.object({ userId: UserId, muted: z.boolean(), by: UserId }),
  }),
  /**
   * A student raised their hand (`raisedAt`, the database's clock) or it was lowered (`null`): by
   * themselves, by the teacher, or because they left (`by` is then the student).
   */
  z.object({
    ...eventBase,
    kind: z.literal('member.hand'),
    payload: z.object({ userId: UserId, raisedAt: z.string().nullable(), by: UserId }),
  }),
  /**
   * An activity of the lesson started, was frozen, resumed or ended, or the boards it shows to the
   * class changed (docs/boards.md). In the lesson's log only; never names a private board.
   */
  z.object({ ...eventBase, kind: z.literal('activity.updated'), payload: Activity }),
  /**
   * The lesson's poll opened, was answered (the count, and the results while shown), closed, or
   * its results were shown or hidden. Counts only: never a student's name or id.
   */
  z.object({ ...eventBase, kind: z.literal('poll.updated'), payload: Poll }),
  /**
   * The lesson's pages changed (added, duplicated, renamed, moved, deleted, restored), the teacher
   * went to another page, or the pacing changed (pages.ts). In the lesson's log only.
   */
  z.object({ ...eventBase, kind: z.literal('pages.updated'), payload: LessonPages }),
  /**
   * In a private board's log: its owner flagged it (`done`, `help`, at `flaggedAt` on the
   * database's clock) or the flag was cleared (`null`), by the owner or the teacher (`by`).
   */
  z.object({
    ...eventBase,
    kind: z.literal('board.flagged'),
    payload: z.object({ boardId: RoomId, flag: BoardFlag.nullable(), flaggedAt: z.string().nullable(), by: UserId }),
  }),
]);
export type RoomEvent = z.infer<typeof RoomEvent>;
export type RoomEventKind = RoomEvent['kind'];

export const SyncMessage = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('snapshot'), snapshot: RoomSnapshot }),
  /** Events strictly after `fromRevision`, in order, ending at the room's current revision. */
  z.object({ kind: z.literal('replay'), fromRevision: Revision, events: z.array(RoomEvent) }),
]);
export type SyncMessage = z.infer<typeof SyncMessage>;

// ---------------------------------------------------------------------------------------------
// Ephemeral signals (never stored)

/** A cursor position in board coordinates; the client's stamp is diagnostics only (I2). */
export const CursorUpdate = z.strictObject({
  x: Coordinate,
  y: Coordinate,
  t: z.number().finite().optional(),
});
export type CursorUpdate = z.infer<typeof CursorUpdate>;

const isCoordinate = (value: unknown): value is number =>
  typeof value === 'number' && value >= -MAX_COORDINATE && value <= MAX_COORDINATE;

/**
 * `CursorUpdate` checked without zod, for the server's hot path (30 packets a second per user).
 * It answers only for the well-formed case: the same value `CursorUpdate.parse` would return, or
 * null when the packet is anything else, and then `CursorUpdate` decides and words the error.
 */
export function readCursorUpdate(packet: unknown): CursorUpdate | null {
  if (typeof packet !== 'object' || packet === null || Array.isArray(packet)) return null;
  if (Object.getPrototypeOf(packet) !== Object.prototype) return null;
  const { x, y, t } = packet as Record<string, unknown>;
  if (!isCoordinate(x) || !isCoordinate(y)) return null;
  let keys = 2;
  if (t !== undefined) {
    if (typeof t !== 'number' || !Number.isFinite(t)) return null;
    keys = 3;
  }
  if (Object.keys(packet).length !== keys) return null;
  return t === undefined ? { x, y } : { x, y, t };
}

/**
 * One cursor in a batch, as a tuple: `[sessionId, x, y]`, or `[sessionId, x, y, t]` when the
 * sender stamped it. Every batch reaches every member of the room up to 30 times a second, so the
 * entry carries no field names and no user id (the roster maps a session to its user): half the
 * bytes of the named object it replaced (protocol 1).
 */
export const CursorEntry = z.tuple([SessionId, z.number(), z.number(), z.number().optional()]);
export type CursorEntry = z.infer<typeof CursorEntry>;

/** A cursor entry with its fields named. */
export interface CursorPosition {
  sessionId: string;
  x: number;
  y: number;
  t?: number;
}

export function cursorEntry(position: CursorPosition): CursorEntry {
  return position.t === undefined ? [position.sessionId, position.x, position.y] : [position.sessionId, position.x, position.y, position.t];
}

export function cursorPosition(entry: CursorEntry): CursorPosition {
  const [sessionId, x, y, t] = entry;
  return t === undefined ? { sessionId, x, y } : { sessionId, x, y, t };
}

/**
 * One room tick of ephemeral motion: cursors, drags in progress under a current lock, and live
 * ink (strokes being drawn).
 */
export const CursorBatch = z.object({
  cursors: z.array(CursorEntry),
  drags: z.array(DragEntry).optional(),
  ink: z.array(InkEntry).optional(),
  /** Laser pointer points (everyone sees them, whatever the cursor visibility). */
  laser: z.array(LaserEntry).optional(),
  /** The teacher's view, in the batches of the students following it only. */
  viewport: ViewportEntry.optional(),
});
export type CursorBatch = z.infer<typeof CursorBatch>;

export const PresenceSignal = z.object({
  sessionId: SessionId,
  userId: UserId,
  connected: z.boolean(),
});
export type PresenceSignal = z.infer<typeof PresenceSignal>;

// ---------------------------------------------------------------------------------------------
// Requests over the socket

export const LeaseRenewRequest = z.strictObject({ revision: Revision, requestId: RequestId });
export type LeaseRenewRequest = z.infer<typeof LeaseRenewRequest>;

export const LeaseDecision = z.enum([
  'accepted',
  'ignored_old_revision',
  'already_applied',
  'not_a_member',
  'no_lease',
]);
export type LeaseDecision = z.infer<typeof LeaseDecision>;

export const LeaseRenewResult = z.object({
  decision: LeaseDecision,
  /** The stored revision after the decision. */
  revision: Revision,
  /**
   * The room's revision in the database at that moment: a client whose applied revision stays
   * below it lost an event and resyncs (this works even while the relay between nodes is down).
   */
  roomRevision: Revision.optional(),
});
export type LeaseRenewResult = z.infer<typeof LeaseRenewResult>;

export const SyncRequest = z.strictObject({ lastRevision: Revision.optional() });
export type SyncRequest = z.infer<typeof SyncRequest>;

/**
 * `session.signOut` takes no fields: clients send `{}` (the session to close is the socket's own).
 * Anything else is refused `bad_request` and signs nobody out. The HTTP sign-outs take the same
 * body (or none).
 */
export const SignOutRequest = z.strictObject({}).transform((): Record<string, never> => ({}));
export type SignOutRequest = z.infer<typeof SignOutRequest>;

export const Welcome = z.object({
  sessionId: SessionId,
  userId: UserId,
  role: Role,
  displayName: z.string(),
  leaseRevision: Revision,
  leaseTtlMs: z.number().int().positive(),
  renewIntervalMs: z.number().int().positive(),
});
export type Welcome = z.infer<typeof Welcome>;

export const LeaseDue = z.object({
  revision: Revision,
  /** The newest room revision this server node has published: a client behind it lost an event. */
  roomRevision: Revision.optional(),
});
export type LeaseDue = z.infer<typeof LeaseDue>;
