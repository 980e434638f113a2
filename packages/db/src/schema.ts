/**
 * The store keeps three things apart (I6):
 * - presence: `presence_leases`, ephemeral and UNLOGGED (see drizzle/0001_*.sql); may vanish in a
 *   database crash, after which clients simply renew again;
 * - membership authorization: `memberships` and `sessions`, durable;
 * - attendance: `attendance`, append-only, enforced by triggers (see drizzle/0001_*.sql).
 * `rooms.revision` and `room_events` order everything a room's clients can see (I1).
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/** Teacher accounts: email and an argon2id password hash (the password itself is never stored). */
export const teachers = pgTable('teachers', {
  id: uuid('id').primaryKey(),
  /** Stored lowercased: one account per address, however it is typed. */
  email: text('email').notNull().unique(),
  /** Null for an account made by an OpenID provider (migration 0019): no password signs into it. */
  passwordHash: text('password_hash'),
  displayName: text('display_name').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  /** `disabled` by an admin (migration 0019): sign-in refused, sessions closed and refused. */
  status: text('status', { enum: ['active', 'disabled'] }).notNull().default('active'),
  disabledAt: timestamp('disabled_at', { withTimezone: true }),
});

/** Signed-in browsers of a teacher account (the cookie's token, stored only as a sha256 hash). */
export const teacherSessions = pgTable(
  'teacher_sessions',
  {
    id: uuid('id').primaryKey(),
    teacherId: uuid('teacher_id')
      .notNull()
      .references(() => teachers.id),
    tokenHash: text('token_hash').notNull().unique(),
    status: text('status', { enum: ['open', 'closed'] }).notNull().default('open'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    closedAt: timestamp('closed_at', { withTimezone: true }),
  },
  (t) => [index('teacher_sessions_teacher').on(t.teacherId)],
);

export const rooms = pgTable('rooms', {
  id: uuid('id').primaryKey(),
  code: text('code').notNull().unique(),
  title: text('title').notNull(),
  /** `ended`: the teacher ended the lesson (no joins, no edits); they may reopen it (migration 0007). */
  status: text('status', { enum: ['open', 'ended', 'archived'] }).notNull().default('open'),
  /** Monotonic: bumped in the same transaction as every row appended to room_events. */
  revision: bigint('revision', { mode: 'number' }).notNull().default(0),
  /** The lesson's edit policy (`EditPolicy` in the protocol), checked inside every edit's write. */
  editPolicy: text('edit_policy', { enum: ['everyone', 'own', 'look'] }).notNull().default('own'),
  /** Whose cursors students receive (`CursorVisibility`, migration 0009); the teacher sees all. */
  cursorVisibility: text('cursor_visibility', { enum: ['everyone', 'teacher', 'none'] }).notNull().default('teacher'),
  /** Students may use the laser pointer (migration 0009). */
  laserAllowed: boolean('laser_allowed').notNull().default(false),
  /** The board's paper (`Paper` in the protocol, migration 0013). */
  paper: text('paper', { enum: ['blank', 'dots', 'grid', 'lined', 'graph', 'staff'] }).notNull().default('dots'),
  /** Lobby: a student's join makes a `pending` membership the teacher admits or denies. */
  requireApproval: boolean('require_approval').notNull().default(false),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  /** The account that owns the room; null for a room started without an account. */
  teacherId: uuid('teacher_id').references(() => teachers.id),
  /** A private student board (migration 0011, docs/boards.md): the lesson it belongs to; null for a lesson. */
  parentId: uuid('parent_id'),
  /** The student whose private board this is. */
  ownerUserId: uuid('owner_user_id'),
  /** The activity the board was handed out for. */
  activityId: uuid('activity_id'),
  /** Not null while the teacher shows the board to the class: the label it is shown under. */
  shownLabel: text('shown_label'),
  /**
   * The board's live (not deleted) elements, moved by the revision bump of each element event that
   * makes one live or deleted (migration 0016): what the cap on elements per board is checked against.
   */
  liveElements: integer('live_elements').notNull().default(0),
  /** The lesson's timer (migration 0018, checks.ts): running until `timerEndsAt`, or paused with `timerRemainingMs` left. */
  timerEndsAt: timestamp('timer_ends_at', { withTimezone: true }),
  timerRemainingMs: bigint('timer_remaining_ms', { mode: 'number' }),
  timerDurationMs: bigint('timer_duration_ms', { mode: 'number' }),
  /** At zero, students' private boards refuse edits while the timer stays. */
  timerFreeze: boolean('timer_freeze').notNull().default(false),
  timerSound: boolean('timer_sound').notNull().default(false),
  /** A private board's flag, `done` or `help`, and when it went up (migration 0018). */
  flag: text('flag', { enum: ['done', 'help'] }),
  flaggedAt: timestamp('flagged_at', { withTimezone: true }),
  /** The page the teacher is on (migration 0021, pages.ts); null: the lesson's own page. */
  currentPageId: uuid('current_page_id'),
  /** `paced`: students are on the teacher's page; `free`: they browse. */
  pagePacing: text('page_pacing', { enum: ['paced', 'free'] }).notNull().default('paced'),
  /** When the lesson started; null while it is prepared and not started (migration 0021). */
  startedAt: timestamp('started_at', { withTimezone: true }),
});

/**
 * A lesson's pages (migration 0021, pages.ts): each page is a board (`board_id`, a rooms row whose
 * parent is the lesson, or the lesson's own row for its first page), in `position` order; a
 * deleted page is kept (`deleted_at`) and may be restored.
 */
export const lessonPages = pgTable('lesson_pages', {
  roomId: uuid('room_id')
    .notNull()
    .references(() => rooms.id),
  boardId: uuid('board_id')
    .primaryKey()
    .references(() => rooms.id),
  position: integer('position').notNull(),
  title: text('title').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  deletedAt: timestamp('deleted_at', { withTimezone: true }),
});

/** A lesson's quick polls (migration 0018, checks.ts): at most one open per lesson. */
export const polls = pgTable(
  'polls',
  {
    id: uuid('id').primaryKey(),
    roomId: uuid('room_id')
      .notNull()
      .references(() => rooms.id),
    question: text('question').notNull(),
    kind: text('kind', { enum: ['yesno', 'abcd', 'scale', 'thumbs', 'custom', 'text'] }).notNull(),
    choices: jsonb('choices').notNull().default(sql`'[]'::jsonb`),
    status: text('status', { enum: ['open', 'closed'] }).notNull().default('open'),
    resultsShown: boolean('results_shown').notNull().default(false),
    openedBy: uuid('opened_by').notNull(),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull(),
    closedAt: timestamp('closed_at', { withTimezone: true }),
  },
  (t) => [index('polls_room').on(t.roomId, t.openedAt)],
);

/** One answer per student and poll: the primary key is the rule (a change updates the row). */
export const pollAnswers = pgTable(
  'poll_answers',
  {
    pollId: uuid('poll_id')
      .notNull()
      // An answer belongs to its poll: deleting the lesson's polls (wb_purge_lesson) takes them.
      .references(() => polls.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull(),
    choice: integer('choice'),
    text: text('text'),
    answeredAt: timestamp('answered_at', { withTimezone: true }).notNull(),
    changes: integer('changes').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.pollId, t.userId] })],
);

/** A lesson's activities (migration 0011): each student works on a private board of their own. */
export const activities = pgTable(
  'activities',
  {
    id: uuid('id').primaryKey(),
    roomId: uuid('room_id')
      .notNull()
      .references(() => rooms.id),
    title: text('title').notNull(),
    status: text('status', { enum: ['running', 'frozen', 'ended'] }).notNull().default('running'),
    startKind: text('start_kind', { enum: ['blank', 'board', 'selection'] }).notNull(),
    /** The starting content, kept so a student who joins later gets it too. */
    template: jsonb('template').notNull().default(sql`'[]'::jsonb`),
    startedBy: uuid('started_by').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [index('activities_room').on(t.roomId, t.startedAt)],
);

export const memberships = pgTable(
  'memberships',
  {
    roomId: uuid('room_id')
      .notNull()
      .references(() => rooms.id),
    userId: uuid('user_id').notNull(),
    displayName: text('display_name').notNull(),
    role: text('role', { enum: ['teacher', 'student'] }).notNull(),
    /** `pending` waits in the lobby; `denied` was declined from it (migration 0004's CHECK). */
    status: text('status', { enum: ['active', 'revoked', 'pending', 'denied'] }).notNull().default('active'),
    /** sha256 of the browser-held member key: a returning browser is the same member. */
    memberKeyHash: text('member_key_hash').notNull(),
    revokedBy: uuid('revoked_by'),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokeReason: text('revoke_reason'),
    /** The teacher who last admitted or denied this member from the lobby, and when. */
    lobbyDecidedBy: uuid('lobby_decided_by'),
    lobbyDecidedAt: timestamp('lobby_decided_at', { withTimezone: true }),
    lobbyReason: text('lobby_reason'),
    /** Index into the protocol's MEMBER_PALETTE, chosen at join (least used in the room) and kept. */
    colorIndex: smallint('color_index').notNull(),
    /** The teacher muted this student's pen: they only look (migration 0007). */
    penMuted: boolean('pen_muted').notNull().default(false),
    /** When the student raised their hand, or null (migration 0010, hands.ts). */
    handRaisedAt: timestamp('hand_raised_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.roomId, t.userId] }),
    uniqueIndex('memberships_room_key').on(t.roomId, t.memberKeyHash),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    roomId: uuid('room_id').notNull(),
    userId: uuid('user_id').notNull(),
    /** sha256 of the bearer token; the token itself is never stored or logged. */
    tokenHash: text('token_hash').notNull().unique(),
    status: text('status', { enum: ['open', 'closed'] }).notNull().default('open'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    closedAt: timestamp('closed_at', { withTimezone: true }),
    closedReason: text('closed_reason', { enum: ['signed_out', 'revoked', 'server', 'lesson_ended'] }),
    /**
     * The highest lease revision this session has had expired. A re-opened lease starts above
     * it, so lease revisions (and the expiry event ids derived from them) never repeat (I4).
     */
    leaseFloor: bigint('lease_floor', { mode: 'number' }).notNull().default(0),
  },
  (t) => [index('sessions_member').on(t.roomId, t.userId)],
);

/** Ephemeral presence; made UNLOGGED by migration 0001. Never referenced by durable tables. */
export const presenceLeases = pgTable(
  'presence_leases',
  {
    roomId: uuid('room_id').notNull(),
    userId: uuid('user_id').notNull(),
    sessionId: uuid('session_id').notNull(),
    revision: bigint('revision', { mode: 'number' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    lastRequestId: text('last_request_id'),
    connected: boolean('connected').notNull().default(true),
  },
  (t) => [
    primaryKey({ columns: [t.roomId, t.userId, t.sessionId] }),
    uniqueIndex('presence_leases_session').on(t.sessionId),
    index('presence_leases_expires').on(t.expiresAt),
  ],
);

export const roomEvents = pgTable(
  'room_events',
  {
    roomId: uuid('room_id').notNull(),
    revision: bigint('revision', { mode: 'number' }).notNull(),
    eventId: text('event_id').notNull().unique(),
    kind: text('kind').notNull(),
    /** Of an element event (created, updated, restored): the payload's element without its shape. */
    payload: jsonb('payload').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    /**
     * An element event's shape is the content of this element version (`element_versions`,
     * migration 0015): stored once there, joined back by the log's readers (roomLog.ts).
     */
    elementId: uuid('element_id'),
    elementVersion: bigint('element_version', { mode: 'number' }),
  },
  (t) => [
    primaryKey({ columns: [t.roomId, t.revision] }),
    index('room_events_element_version')
      .on(t.roomId, t.elementId, t.elementVersion)
      .where(sql`${t.elementId} IS NOT NULL`),
  ],
);

export const attendanceKinds = [
  'joined',
  'reconnected',
  'signed_out',
  'lease_expired',
  'membership_revoked',
  'session_closed',
  'lesson_ended',
] as const;
export type AttendanceKind = (typeof attendanceKinds)[number];

/** Append-only; UPDATE, DELETE and TRUNCATE are refused by triggers (migration 0001). */
export const attendance = pgTable(
  'attendance',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    eventId: text('event_id').notNull().unique(),
    roomId: uuid('room_id').notNull(),
    userId: uuid('user_id').notNull(),
    sessionId: uuid('session_id'),
    kind: text('kind', { enum: attendanceKinds }).notNull(),
    requestId: text('request_id'),
    detail: jsonb('detail').notNull().default(sql`'{}'::jsonb`),
    at: timestamp('at', { withTimezone: true }).notNull(),
  },
  (t) => [index('attendance_room').on(t.roomId, t.seq)],
);

/**
 * Board elements: durable, versioned (every accepted change bumps `version`), deleted as
 * tombstones so a reconnect never resurrects them. The drag lock lives on the element row: a
 * server-granted lease with a fencing generation that only grows (I4); every drag move and
 * commit names the generation it holds, and a stale one is refused.
 */
export const elements = pgTable(
  'elements',
  {
    roomId: uuid('room_id').notNull(),
    id: uuid('id').notNull(),
    kind: text('kind').notNull(),
    /** The element's shape is not here: it is the `data` of its current version in `element_versions` (migration 0015). */
    version: bigint('version', { mode: 'number' }).notNull().default(1),
    deleted: boolean('deleted').notNull().default(false),
    pinned: boolean('pinned').notNull().default(false),
    createdBy: uuid('created_by').notNull(),
    updatedBy: uuid('updated_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    /** Drawing order: the room revision at which the element was created. */
    z: bigint('z', { mode: 'number' }).notNull(),
    lockGeneration: bigint('lock_generation', { mode: 'number' }).notNull().default(0),
    lockSessionId: uuid('lock_session_id'),
    lockUserId: uuid('lock_user_id'),
    lockExpiresAt: timestamp('lock_expires_at', { withTimezone: true }),
    /** The request that won the current grant: a retried acquire gets the same grant back. */
    lockRequestId: text('lock_request_id'),
    /** False until the holder's first move confirms it received the grant (short first term). */
    lockConfirmed: boolean('lock_confirmed').notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.roomId, t.id] }),
    index('elements_lock_expires').on(t.lockExpiresAt),
    index('elements_lock_session').on(t.lockSessionId),
  ],
);

/** Idempotency of element operations: a retried request gets its first answer back. */
export const appliedRequests = pgTable(
  'applied_requests',
  {
    sessionId: uuid('session_id').notNull(),
    requestId: text('request_id').notNull(),
    roomId: uuid('room_id').notNull(),
    result: jsonb('result').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.requestId] }), index('applied_requests_at').on(t.at)],
);

/**
 * Every accepted version of every element (migration 0007): the teacher's history and restore,
 * and since 0015 the one copy of each version's shape that elements and element events read.
 * Bounded per room by the sweeper, never below what those still read (docs/store.md).
 */
export const elementVersions = pgTable(
  'element_versions',
  {
    roomId: uuid('room_id').notNull(),
    elementId: uuid('element_id').notNull(),
    version: bigint('version', { mode: 'number' }).notNull(),
    data: jsonb('data').notNull(),
    deleted: boolean('deleted').notNull(),
    action: text('action', {
      enum: ['created', 'moved', 'restyled', 'erased', 'deleted', 'pinned', 'unpinned', 'restored'],
    }).notNull(),
    by: uuid('by').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    /** One teacher action over many elements (clear the board, remove a student's work). */
    batchId: uuid('batch_id'),
  },
  (t) => [primaryKey({ columns: [t.roomId, t.elementId, t.version] }), index('element_versions_room_at').on(t.roomId, t.at, t.elementId, t.version)],
);

/**
 * Read-only share links to an ended lesson (migration 0022, shareLinks.ts): the token's SHA-256,
 * what the link includes, and when the teacher turned it off. At most one link per lesson is on.
 */
export const shareLinks = pgTable(
  'share_links',
  {
    id: uuid('id').primaryKey(),
    roomId: uuid('room_id')
      .notNull()
      .references(() => rooms.id),
    tokenHash: text('token_hash').notNull().unique(),
    includeNames: boolean('include_names').notNull().default(false),
    includePrivate: boolean('include_private').notNull().default(false),
    includeReplay: boolean('include_replay').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    turnedOffAt: timestamp('turned_off_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('share_links_one_on').on(t.roomId).where(sql`${t.turnedOffAt} IS NULL`)],
);
