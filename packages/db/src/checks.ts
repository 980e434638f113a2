/**
 * Checking for understanding (migration 0018, docs/store.md "Timer, polls and flags"): the lesson's
 * timer, its quick polls and the flags on private boards. Each change is one conditional write
 * naming the state it expects (I3), in a transaction that appends its event (I1).
 *
 * Timer (lesson row):      none --start--> running(ends_at) --pause--> paused(remaining) --resume--> running
 *                          running|paused --add--> +1 min (at zero: running again for 1 min); --stop--> none
 * Poll:                    open --close--> closed; results_shown toggled by the teacher at any time.
 * Poll answer:             the primary key (poll_id, user_id) is the rule "one answer per student":
 *                          INSERT ... ON CONFLICT DO UPDATE ... WHERE the answer differs. Answers take
 *                          the poll row FOR SHARE, the close takes it FOR UPDATE: none lands after it.
 * Board flag:              null --owner: done|help--> flag(at = now()) --owner or teacher: clear--> null
 */
import { randomUUID } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import {
  POLL_CHOICES,
  TIMER_ADD_MS,
  type BoardFlag,
  type BoardInfo,
  type Poll,
  type PollAnswer,
  type PollKind,
  type RoomEvent,
  type RoomInfo,
  type TimerAction,
} from '@wb/protocol';
import { priorResult, rememberResult } from './appliedRequests.ts';
import type { Clock } from './clock.ts';
import { authorizeEdit, type EditActor } from './editRights.ts';
import { appendRoomEvent, nextRoomRevision } from './roomLog.ts';
import { roomColumns, toRoom, type RoomRow } from './rooms.ts';
import { date, int, rows, type Db, type Executor, type Tx } from './sql.ts';

type Refused = { decision: 'not_a_member' | 'forbidden' };

// ---------------------------------------------------------------------------------------------
// Timer

export type TimerResult =
  | { decision: 'applied'; room: RoomInfo; events: RoomEvent[] }
  | { decision: 'already_applied'; room: RoomInfo }
  | Refused;

/** `ms` as an interval. */
const interval = (ms: SQL | number) => sql`(${ms}::int8 * interval '1 millisecond')`;
/** Milliseconds from now until `column` (negative when past). */
const msUntil = (clock: Clock, column: SQL) => sql`floor(extract(epoch FROM (${column} - ${clock.now()})) * 1000)::int8`;

/** The UPDATE's SET and the state it expects, per action (null: nothing to change). */
function timerWrite(clock: Clock, action: TimerAction, current: RoomRow): { set: SQL; expects: SQL } | null {
  const now = clock.now();
  const options = (a: { freezeAtZero?: boolean | undefined; sound?: boolean | undefined }) =>
    sql`timer_freeze = ${a.freezeAtZero ?? current.timer_freeze}, timer_sound = ${a.sound ?? current.timer_sound}`;
  switch (action.action) {
    case 'start':
      return {
        set: sql`timer_ends_at = ${now} + ${interval(action.durationMs)}, timer_remaining_ms = NULL,
                 timer_duration_ms = ${action.durationMs}::int8, ${options(action)}`,
        expects: sql`true`,
      };
    case 'pause':
      return {
        set: sql`timer_remaining_ms = greatest(0, ${msUntil(clock, sql`timer_ends_at`)}), timer_ends_at = NULL`,
        expects: sql`timer_ends_at > ${now}`,
      };
    case 'resume':
      return {
        set: sql`timer_ends_at = ${now} + ${interval(sql`timer_remaining_ms`)}, timer_remaining_ms = NULL`,
        expects: sql`timer_remaining_ms IS NOT NULL`,
      };
    case 'add':
      return {
        set: sql`timer_ends_at = CASE WHEN timer_ends_at IS NULL THEN NULL
                                      ELSE greatest(timer_ends_at, ${now}) + ${interval(TIMER_ADD_MS)} END,
                 timer_remaining_ms = timer_remaining_ms + ${TIMER_ADD_MS}::int8,
                 timer_duration_ms = CASE WHEN timer_ends_at IS NOT NULL AND timer_ends_at <= ${now} THEN ${TIMER_ADD_MS}::int8
                                          ELSE timer_duration_ms + ${TIMER_ADD_MS}::int8 END`,
        expects: sql`timer_duration_ms IS NOT NULL`,
      };
    case 'stop':
      return {
        set: sql`timer_ends_at = NULL, timer_remaining_ms = NULL, timer_duration_ms = NULL`,
        expects: sql`timer_duration_ms IS NOT NULL`,
      };
    case 'options':
      if ((action.freezeAtZero ?? current.timer_freeze) === current.timer_freeze && (action.sound ?? current.timer_sound) === current.timer_sound) {
        return null;
      }
      return { set: options(action), expects: sql`true` };
  }
}

/**
 * Teacher: one action on the lesson's timer. The lesson row is locked first (as a settings change
 * does); an action the timer's state does not allow (pause a paused or finished timer, resume a
 * running one, stop none) changes nothing and answers `already_applied` with the room as it is.
 * A request retried with the same `requestId` (a packet the client sent again after a lost reply)
 * is applied once: "+1 min" sent twice adds one minute, a repeated start does not restart.
 */
export async function setTimer(db: Db, clock: Clock, actor: EditActor, action: TimerAction, requestId: string): Promise<TimerResult> {
  return db.transaction(async (tx) => {
    const [current] = await rows<RoomRow & { parent_id: string | null }>(
      tx,
      sql`SELECT ${roomColumns}, parent_id FROM rooms WHERE id = ${actor.roomId}::uuid FOR UPDATE`,
    );
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth || !current) return { decision: 'not_a_member' as const };
    if (auth.role !== 'teacher' || current.parent_id !== null) return { decision: 'forbidden' as const };
    // After the row lock: a retry racing its first copy waits for it and then finds it applied.
    if (await priorResult<true>(tx, actor, requestId)) return { decision: 'already_applied' as const, room: toRoom(current) };
    const write = timerWrite(clock, action, current);
    if (!write) return { decision: 'already_applied' as const, room: toRoom(current) };
    const [updated] = await rows<RoomRow>(
      tx,
      sql`UPDATE rooms SET ${write.set} WHERE id = ${actor.roomId}::uuid AND ${write.expects} RETURNING ${roomColumns}`,
    );
    if (!updated) return { decision: 'already_applied' as const, room: toRoom(current) };
    const room = toRoom(updated);
    await rememberResult(tx, clock, actor, requestId, true);
    const roomRevision = await nextRoomRevision(tx, actor.roomId);
    const event = await appendRoomEvent(tx, clock, actor.roomId, 'room.updated', { roomRevision }, room);
    return { decision: 'applied' as const, room, events: [event] };
  });
}

/** The clock's now in ms since the epoch: what `clock.now` answers (the database's clock in production). */
export async function clockNow(executor: Executor, clock: Clock): Promise<number> {
  const [row] = await rows<{ at: unknown }>(executor, sql`SELECT ${clock.now()} AS at`);
  return date(row!.at).getTime();
}

// ---------------------------------------------------------------------------------------------
// Polls

export interface PollRow {
  id: string;
  room_id: string;
  question: string;
  kind: PollKind;
  choices: unknown;
  status: 'open' | 'closed';
  results_shown: boolean;
  opened_at: unknown;
  answered: unknown;
  counts: unknown;
  texts: unknown;
}

const parsed = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

/** The most different typed answers a poll's results carry (most given first). */
const POLL_TEXTS_MAX = 50;

/** A poll's columns with its counts (no names): `p` is the polls row. */
const pollColumns = sql`p.id, p.room_id, p.question, p.kind, p.choices, p.status, p.results_shown, p.opened_at,
  (SELECT count(*) FROM poll_answers a WHERE a.poll_id = p.id) AS answered,
  (SELECT coalesce(json_agg(json_build_object('choice', c.choice, 'n', c.n)), '[]'::json)
     FROM (SELECT choice, count(*) AS n FROM poll_answers a WHERE a.poll_id = p.id AND choice IS NOT NULL GROUP BY choice) c) AS counts,
  (SELECT coalesce(json_agg(json_build_object('text', t.text, 'n', t.n) ORDER BY t.n DESC, t.text), '[]'::json)
     FROM (SELECT min(text) AS text, count(*) AS n FROM poll_answers a WHERE a.poll_id = p.id AND text IS NOT NULL
           GROUP BY lower(text) ORDER BY count(*) DESC, min(text) LIMIT ${POLL_TEXTS_MAX}) t) AS texts`;

/** The poll as every member may know it: results only while shown. */
export function toPoll(r: PollRow): Poll {
  const choices = parsed<string[]>(r.choices);
  const counts = choices.map(() => 0);
  for (const c of parsed<Array<{ choice: number; n: unknown }>>(r.counts)) if (c.choice < counts.length) counts[c.choice] = int(c.n);
  const texts = parsed<Array<{ text: string; n: unknown }>>(r.texts).map((t) => ({ text: t.text, count: int(t.n) }));
  return {
    id: r.id,
    question: r.question,
    kind: r.kind,
    choices,
    status: r.status,
    resultsShown: r.results_shown,
    answered: int(r.answered),
    results: r.results_shown ? { counts, texts } : null,
    openedAt: date(r.opened_at).toISOString(),
  };
}

async function readPoll(executor: Executor, lessonId: string, pollId: string, lock: SQL = sql.empty()): Promise<PollRow | null> {
  const [row] = await rows<PollRow>(executor, sql`SELECT ${pollColumns} FROM polls p WHERE p.id = ${pollId}::uuid AND p.room_id = ${lessonId}::uuid ${lock}`);
  return row ?? null;
}

/** The statement reading the lesson's latest poll row (the snapshot embeds it in its one statement). */
export const latestPollRow = (lessonId: string) =>
  sql`SELECT ${pollColumns} FROM polls p WHERE p.room_id = ${lessonId}::uuid ORDER BY p.status = 'open' DESC, p.opened_at DESC, p.id DESC LIMIT 1`;

/** The lesson's latest poll (no names), or null: what the lesson's snapshot carries. */
export async function latestPoll(executor: Executor, lessonId: string): Promise<Poll | null> {
  const [row] = await rows<PollRow>(executor, latestPollRow(lessonId));
  return row ? toPoll(row) : null;
}

async function pollEvent(tx: Tx, clock: Clock, lessonId: string, pollId: string): Promise<{ poll: Poll; event: RoomEvent }> {
  const row = await readPoll(tx, lessonId, pollId);
  if (!row) throw new Error(`poll ${pollId} vanished inside its own transaction`);
  const poll = toPoll(row);
  const event = await appendRoomEvent(tx, clock, lessonId, 'poll.updated', { pollId, occurrence: randomUUID() }, poll);
  return { poll, event };
}

export type PollResult =
  | { decision: 'applied'; poll: Poll; events: RoomEvent[] }
  | { decision: 'already_applied'; poll: Poll }
  | { decision: 'not_found' }
  | Refused;

/** The choices a poll of `kind` offers (custom: the teacher's labels). */
export function pollChoices(kind: PollKind, custom: readonly string[] | undefined): string[] {
  if (kind === 'text') return [];
  if (kind === 'custom') return [...(custom ?? [])];
  return [...POLL_CHOICES[kind]];
}

/** Teacher: opens a poll of the lesson, closing the open one first. A retry with the same id finds it. */
export async function openPoll(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { pollId: string; question: string; kind: PollKind; choices?: readonly string[] | undefined },
): Promise<PollResult> {
  return db.transaction(async (tx) => {
    const auth = await teacherOfLesson(tx, clock, actor);
    if (auth !== 'ok') return { decision: auth };
    const existing = await readPoll(tx, actor.roomId, input.pollId);
    if (existing) return { decision: 'already_applied' as const, poll: toPoll(existing) };
    const events: RoomEvent[] = [];
    const closed = await rows<{ id: string }>(
      tx,
      sql`UPDATE polls SET status = 'closed', closed_at = ${clock.now()} WHERE room_id = ${actor.roomId}::uuid AND status = 'open' RETURNING id`,
    );
    for (const c of closed) events.push((await pollEvent(tx, clock, actor.roomId, c.id)).event);
    const inserted = await rows<{ id: string }>(
      tx,
      sql`INSERT INTO polls (id, room_id, question, kind, choices, opened_by, opened_at)
          VALUES (${input.pollId}::uuid, ${actor.roomId}::uuid, ${input.question}, ${input.kind},
                  ${JSON.stringify(pollChoices(input.kind, input.choices))}::jsonb, ${actor.userId}::uuid, ${clock.now()})
          ON CONFLICT (id) DO NOTHING RETURNING id`,
    );
    // The id is another lesson's poll: nothing here to open under it.
    if (inserted.length === 0) return { decision: 'not_found' as const };
    const opened = await pollEvent(tx, clock, actor.roomId, input.pollId);
    events.push(opened.event);
    return { decision: 'applied' as const, poll: opened.poll, events };
  });
}

export type AnswerResult =
  | { decision: 'applied'; answer: PollAnswer; poll: Poll; events: RoomEvent[] }
  | { decision: 'already_applied'; answer: PollAnswer }
  | { decision: 'not_found' | 'closed' | 'invalid' }
  | Refused;

interface AnswerRow {
  poll_id: string;
  user_id: string;
  choice: number | null;
  text: string | null;
  answered_at: unknown;
}

const toAnswer = (r: AnswerRow): PollAnswer => ({
  pollId: r.poll_id,
  userId: r.user_id,
  choice: r.choice,
  text: r.text,
  answeredAt: date(r.answered_at).toISOString(),
});

/**
 * Student: answers the open poll, or changes their answer. One row per (poll, student) is the
 * table's key, so however many attempts race, on however many nodes, one answer stands: the first
 * inserts it, every other one updates that row (when it says something else) or changes nothing.
 */
export async function answerPoll(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { pollId: string; choice?: number | undefined; text?: string | undefined },
): Promise<AnswerResult> {
  return db.transaction(async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    if (auth.role !== 'student') return { decision: 'forbidden' as const };
    // FOR SHARE: a close waits for this answer, and this answer waits for a close and sees it.
    const [poll] = await rows<{ kind: PollKind; choices: unknown; status: string }>(
      tx,
      sql`SELECT kind, choices, status FROM polls WHERE id = ${input.pollId}::uuid AND room_id = ${actor.roomId}::uuid FOR SHARE`,
    );
    if (!poll) return { decision: 'not_found' as const };
    if (poll.status !== 'open') return { decision: 'closed' as const };
    const choices = parsed<string[]>(poll.choices);
    const valid =
      poll.kind === 'text'
        ? input.text !== undefined && input.choice === undefined
        : input.choice !== undefined && input.text === undefined && input.choice < choices.length;
    if (!valid) return { decision: 'invalid' as const };
    const choice = input.choice ?? null;
    const text = input.text ?? null;
    const [written] = await rows<AnswerRow>(
      tx,
      sql`INSERT INTO poll_answers AS a (poll_id, user_id, choice, text, answered_at)
          VALUES (${input.pollId}::uuid, ${actor.userId}::uuid, ${choice}::int, ${text}::text, ${clock.now()})
          ON CONFLICT (poll_id, user_id) DO UPDATE
            SET choice = EXCLUDED.choice, text = EXCLUDED.text, answered_at = EXCLUDED.answered_at, changes = a.changes + 1
            WHERE a.choice IS DISTINCT FROM EXCLUDED.choice OR a.text IS DISTINCT FROM EXCLUDED.text
          RETURNING poll_id, user_id, choice, text, answered_at`,
    );
    if (!written) {
      const [same] = await rows<AnswerRow>(
        tx,
        sql`SELECT poll_id, user_id, choice, text, answered_at FROM poll_answers WHERE poll_id = ${input.pollId}::uuid AND user_id = ${actor.userId}::uuid`,
      );
      return { decision: 'already_applied' as const, answer: toAnswer(same!) };
    }
    const { poll: after, event } = await pollEvent(tx, clock, actor.roomId, input.pollId);
    return { decision: 'applied' as const, answer: toAnswer(written), poll: after, events: [event] };
  });
}

/** Teacher: closes the poll (no more answers). Closing a closed one changes nothing. */
export async function closePoll(db: Db, clock: Clock, actor: EditActor, input: { pollId: string }): Promise<PollResult> {
  return changePoll(db, clock, actor, input.pollId, sql`status = 'closed', closed_at = ${clock.now()}`, sql`status = 'open'`);
}

/** Teacher: shows the poll's results to the class (counts, no names) or hides them. */
export async function showPoll(db: Db, clock: Clock, actor: EditActor, input: { pollId: string; shown: boolean }): Promise<PollResult> {
  return changePoll(db, clock, actor, input.pollId, sql`results_shown = ${input.shown}`, sql`results_shown <> ${input.shown}`);
}

async function changePoll(db: Db, clock: Clock, actor: EditActor, pollId: string, set: SQL, expects: SQL): Promise<PollResult> {
  return db.transaction(async (tx) => {
    const auth = await teacherOfLesson(tx, clock, actor);
    if (auth !== 'ok') return { decision: auth };
    const changed = await rows<{ id: string }>(
      tx,
      sql`UPDATE polls SET ${set} WHERE id = ${pollId}::uuid AND room_id = ${actor.roomId}::uuid AND ${expects} RETURNING id`,
    );
    if (changed.length === 0) {
      const row = await readPoll(tx, actor.roomId, pollId);
      return row ? { decision: 'already_applied' as const, poll: toPoll(row) } : { decision: 'not_found' as const };
    }
    const { poll, event } = await pollEvent(tx, clock, actor.roomId, pollId);
    return { decision: 'applied' as const, poll, events: [event] };
  });
}

export type PollView = { decision: 'ok'; poll: Poll | null; answers: PollAnswer[] } | { decision: 'not_a_member' };

/** The lesson's latest poll, with every answer for its teacher and only their own for a student. */
export async function getPoll(db: Db, clock: Clock, actor: EditActor): Promise<PollView> {
  return db.transaction(async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    const poll = await latestPoll(tx, actor.roomId);
    if (!poll) return { decision: 'ok' as const, poll: null, answers: [] };
    const answers = await rows<AnswerRow>(
      tx,
      sql`SELECT poll_id, user_id, choice, text, answered_at FROM poll_answers
          WHERE poll_id = ${poll.id}::uuid ${auth.role === 'teacher' ? sql.empty() : sql`AND user_id = ${actor.userId}::uuid`}
          ORDER BY answered_at, user_id`,
    );
    return { decision: 'ok' as const, poll, answers: answers.map(toAnswer) };
  });
}

/** Every poll of a lesson with every answer, oldest first: the lesson's export. */
export async function listLessonPolls(executor: Executor, lessonId: string): Promise<Array<{ poll: Poll; answers: PollAnswer[] }>> {
  const polls = await rows<PollRow>(executor, sql`SELECT ${pollColumns} FROM polls p WHERE p.room_id = ${lessonId}::uuid ORDER BY p.opened_at, p.id`);
  const answers = await rows<AnswerRow>(
    executor,
    sql`SELECT a.poll_id, a.user_id, a.choice, a.text, a.answered_at FROM poll_answers a JOIN polls p ON p.id = a.poll_id
        WHERE p.room_id = ${lessonId}::uuid ORDER BY a.answered_at, a.user_id`,
  );
  // The teacher's export shows the results whether or not the class saw them.
  return polls.map((p) => ({ poll: toPoll({ ...p, results_shown: true }), answers: answers.filter((a) => a.poll_id === p.id).map(toAnswer) }));
}

async function teacherOfLesson(tx: Tx, clock: Clock, actor: EditActor): Promise<'ok' | 'not_a_member' | 'forbidden'> {
  const auth = await authorizeEdit(tx, clock, actor);
  if (!auth) return 'not_a_member';
  const [room] = await rows<{ parent_id: string | null }>(tx, sql`SELECT parent_id FROM rooms WHERE id = ${actor.roomId}::uuid`);
  return auth.role === 'teacher' && room?.parent_id === null ? 'ok' : 'forbidden';
}

// ---------------------------------------------------------------------------------------------
// Flags on private boards

export type FlagResult =
  | { decision: 'applied'; flag: BoardFlag | null; flaggedAt: string | null; events: RoomEvent[] }
  | { decision: 'already_applied'; flag: BoardFlag | null; flaggedAt: string | null }
  | { decision: 'board_forbidden' }
  | Refused;

/**
 * The board's owner raises `done` or `help` (at the database's clock, which orders the help queue)
 * or clears their flag; the teacher clears one and raises none. Only a board of the actor's lesson
 * whose activity has not ended; the event goes to the board's own log (its owner and the teacher).
 */
export async function setBoardFlag(db: Db, clock: Clock, actor: EditActor, input: { boardId: string; flag: BoardFlag | null }): Promise<FlagResult> {
  return db.transaction(async (tx) => {
    const onBoard: EditActor = { ...actor, roomId: input.boardId };
    const auth = await authorizeEdit(tx, clock, onBoard);
    const [board] = await rows<{ parent_id: string | null; owner_user_id: string | null; flag: BoardFlag | null; flagged_at: unknown; activity_status: string | null }>(
      tx,
      sql`SELECT b.parent_id, b.owner_user_id, b.flag, b.flagged_at, a.status AS activity_status
          FROM rooms b LEFT JOIN activities a ON a.id = b.activity_id WHERE b.id = ${input.boardId}::uuid`,
    );
    if (!board || board.parent_id !== actor.roomId || board.activity_status === 'ended') {
      return (await authorizeEdit(tx, clock, actor)) ? { decision: 'board_forbidden' as const } : { decision: 'not_a_member' as const };
    }
    if (!auth) return (await authorizeEdit(tx, clock, actor)) ? { decision: 'board_forbidden' as const } : { decision: 'not_a_member' as const };
    if (auth.role === 'teacher' && input.flag !== null) return { decision: 'forbidden' as const };
    const [changed] = await rows<{ flag: BoardFlag | null; flagged_at: unknown }>(
      tx,
      sql`UPDATE rooms SET flag = ${input.flag}::text, flagged_at = ${input.flag === null ? sql`NULL` : clock.now()}
          WHERE id = ${input.boardId}::uuid AND parent_id IS NOT NULL AND flag IS DISTINCT FROM ${input.flag}::text
          RETURNING flag, flagged_at`,
    );
    const at = (value: unknown) => (value === null || value === undefined ? null : date(value).toISOString());
    if (!changed) return { decision: 'already_applied' as const, flag: board.flag, flaggedAt: at(board.flagged_at) };
    const flaggedAt = at(changed.flagged_at);
    const event = await appendRoomEvent(tx, clock, input.boardId, 'board.flagged', { occurrence: randomUUID() }, {
      boardId: input.boardId,
      flag: changed.flag,
      flaggedAt,
      by: actor.userId,
    });
    return { decision: 'applied' as const, flag: changed.flag, flaggedAt, events: [event] };
  });
}

/** A board's flag fields for `BoardInfo` (boards.ts reads the columns). */
export function boardFlagOf(r: { flag?: BoardFlag | null; flagged_at?: unknown }): Pick<BoardInfo, 'flag' | 'flaggedAt'> {
  return { flag: r.flag ?? null, flaggedAt: r.flagged_at === null || r.flagged_at === undefined ? null : date(r.flagged_at).toISOString() };
}
