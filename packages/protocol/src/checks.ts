/**
 * Checking for understanding: the lesson's timer, its quick polls, and the "I'm done" / "I need
 * help" flags on private boards (docs/protocol.md, "Timer, polls and flags"). Every rule is the
 * server's; these are the shapes on the wire.
 */
import { z } from 'zod';
import { RequestId, UserId, printable } from './primitives.ts';

// ---------------------------------------------------------------------------------------------
// Timer

/** The longest countdown the teacher may set (ms): two hours. */
export const TIMER_MAX_MS = 2 * 60 * 60 * 1000;
/** What "add a minute" adds (ms). */
export const TIMER_ADD_MS = 60_000;
/** The presets the teacher's menu offers (ms); any other length up to `TIMER_MAX_MS` is allowed too. */
export const TIMER_PRESETS_MS = [30_000, 60_000, 120_000, 180_000, 300_000, 600_000] as const;

/**
 * The lesson's countdown, carried by `RoomInfo.timer` (so by the snapshot and every `room.updated`).
 * - `running`: it reaches zero at `endsAt` (the database's clock, ISO 8601); past it, time is up;
 * - `paused`: `remainingMs` are left, and nothing moves until the teacher resumes.
 * `durationMs`: the length it was started with, plus every minute added (for a progress ring).
 * `freezeAtZero`: at zero, students' private boards refuse edits (`forbidden_by_policy`) while the
 * timer stays; `sound`: the teacher's screen and the students' play a short tone at zero.
 */
export const Timer = z.object({
  status: z.enum(['running', 'paused']),
  endsAt: z.string().nullable(),
  remainingMs: z.number().int().min(0).nullable(),
  durationMs: z.number().int().min(1),
  freezeAtZero: z.boolean(),
  sound: z.boolean(),
});
export type Timer = z.infer<typeof Timer>;

/** Timer options the teacher may set when starting, or change while it runs. */
const TimerOptions = { freezeAtZero: z.boolean().optional(), sound: z.boolean().optional() };

/**
 * `timer.set` (teacher): one action on the lesson's timer.
 * - `start`: a new countdown of `durationMs` (replacing any other);
 * - `pause` / `resume`: stop the clock and start it again from what was left;
 * - `add`: `TIMER_ADD_MS` more (to a running or paused timer; a timer at zero starts again from one minute);
 * - `stop`: no timer;
 * - `options`: change `freezeAtZero` or `sound`.
 */
export const TimerAction = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('start'), durationMs: z.number().int().min(1_000).max(TIMER_MAX_MS), ...TimerOptions }),
  z.strictObject({ action: z.literal('pause') }),
  z.strictObject({ action: z.literal('resume') }),
  z.strictObject({ action: z.literal('add') }),
  z.strictObject({ action: z.literal('stop') }),
  z.strictObject({ action: z.literal('options'), ...TimerOptions }),
]);
export type TimerAction = z.infer<typeof TimerAction>;

export const TimerSetRequest = z.strictObject({ requestId: RequestId, timer: TimerAction });
export type TimerSetRequest = z.infer<typeof TimerSetRequest>;

/**
 * `clock.now` (anyone): the database's clock now, in ms since the epoch. A client estimates its
 * clock's offset from a few of these (the sample with the shortest round trip: error at most half
 * of it) and counts down to `endsAt` on that estimate, so every screen shows the same time.
 */
export const ClockNowRequest = z.strictObject({});
export type ClockNowRequest = z.infer<typeof ClockNowRequest>;
export interface ClockNowReply {
  serverNow: number;
}

/** Milliseconds left on `timer` when the server's clock reads `serverNow` (never negative). */
export function timerRemainingMs(timer: Timer, serverNow: number): number {
  if (timer.status === 'paused') return timer.remainingMs ?? 0;
  return Math.max(0, Date.parse(timer.endsAt ?? '') - serverNow);
}

// ---------------------------------------------------------------------------------------------
// Quick polls

/**
 * The kinds of poll and their choices: `yesno` (Yes, No), `abcd` (A-D), `scale` (1-5), `thumbs`
 * (up, not sure, down), `custom` (2-8 labels of the teacher's), `text` (a short typed answer).
 */
export const PollKind = z.enum(['yesno', 'abcd', 'scale', 'thumbs', 'custom', 'text']);
export type PollKind = z.infer<typeof PollKind>;

export const POLL_CHOICES: Readonly<Record<Exclude<PollKind, 'custom' | 'text'>, readonly string[]>> = {
  yesno: ['Yes', 'No'],
  abcd: ['A', 'B', 'C', 'D'],
  scale: ['1', '2', '3', '4', '5'],
  thumbs: ['Thumbs up', 'Not sure', 'Thumbs down'],
};

/** The longest typed answer (characters). */
export const POLL_TEXT_MAX = 80;

export const PollQuestion = z.string().trim().min(1).max(200).regex(printable);
export const PollChoiceLabel = z.string().trim().min(1).max(40).regex(printable);

/** `poll.open` (teacher): a new poll (the open one, if any, closes first). `pollId` makes a retry the same request. */
export const PollOpenRequest = z.strictObject({
  requestId: RequestId,
  pollId: z.uuid(),
  question: PollQuestion,
  kind: PollKind,
  /** With `custom` only: the labels, 2 to 8. */
  choices: z.array(PollChoiceLabel).min(2).max(8).optional(),
}).refine((r) => (r.kind === 'custom') === (r.choices !== undefined), 'choices go with a custom poll, and only with one');
export type PollOpenRequest = z.infer<typeof PollOpenRequest>;

/** `poll.answer` (student): my answer, a choice's index or (for `text`) a short text; sent again, it replaces mine. */
export const PollAnswerRequest = z.strictObject({
  requestId: RequestId,
  pollId: z.uuid(),
  choice: z.number().int().min(0).max(7).optional(),
  text: z.string().trim().min(1).max(POLL_TEXT_MAX).regex(printable).optional(),
});
export type PollAnswerRequest = z.infer<typeof PollAnswerRequest>;

/** `poll.close` (teacher): no more answers. `poll.show` (teacher): results to the class, or hidden again. */
export const PollCloseRequest = z.strictObject({ requestId: RequestId, pollId: z.uuid() });
export type PollCloseRequest = z.infer<typeof PollCloseRequest>;
export const PollShowRequest = z.strictObject({ requestId: RequestId, pollId: z.uuid(), shown: z.boolean() });
export type PollShowRequest = z.infer<typeof PollShowRequest>;

/** `poll.get`: the lesson's latest poll; the teacher gets every answer, a student their own. */
export const PollGetRequest = z.strictObject({});
export type PollGetRequest = z.infer<typeof PollGetRequest>;

/**
 * Counts with no names: one count per choice (in the choices' order), and for `text` the typed
 * answers with how many gave each (the same text, ignoring case and outer spaces), most first.
 */
export const PollResults = z.object({
  counts: z.array(z.number().int().min(0)),
  texts: z.array(z.object({ text: z.string(), count: z.number().int().min(1) })),
});
export type PollResults = z.infer<typeof PollResults>;

/**
 * A poll as every member may know it (`poll.updated`, the snapshot's `poll`): the question, the
 * choices, whether it is open, how many have answered, and the results only while the teacher shows
 * them. It never names a student.
 */
export const Poll = z.object({
  id: z.uuid(),
  question: z.string(),
  kind: PollKind,
  choices: z.array(z.string()),
  status: z.enum(['open', 'closed']),
  resultsShown: z.boolean(),
  answered: z.number().int().min(0),
  results: PollResults.nullable(),
  openedAt: z.string(),
});
export type Poll = z.infer<typeof Poll>;

/** One student's answer: to the teacher (every one), or to the student (their own). */
export const PollAnswer = z.object({
  pollId: z.uuid(),
  userId: UserId,
  choice: z.number().int().nullable(),
  text: z.string().nullable(),
  answeredAt: z.string(),
});
export type PollAnswer = z.infer<typeof PollAnswer>;

/** The teacher's live view of the answers (`poll.answers`, to the lesson's teachers only). */
export const PollAnswers = z.object({ pollId: z.uuid(), answers: z.array(PollAnswer) });
export type PollAnswers = z.infer<typeof PollAnswers>;

// ---------------------------------------------------------------------------------------------
// Flags on private boards

/** `done`: "I'm done"; `help`: "I need help" (queued in the order raised, like hands). */
export const BoardFlag = z.enum(['done', 'help']);
export type BoardFlag = z.infer<typeof BoardFlag>;

/** `board.flag`: the board's owner sets or clears their flag; the teacher clears one (`flag: null`). */
export const BoardFlagRequest = z.strictObject({ requestId: RequestId, boardId: z.uuid(), flag: BoardFlag.nullable() });
export type BoardFlagRequest = z.infer<typeof BoardFlagRequest>;

/** The boards flagged `help`, in the order the flags went up (the teacher's queue). */
export function helpQueue<B extends { id: string; flag?: BoardFlag | null; flaggedAt?: string | null }>(boards: Iterable<B>): B[] {
  const asking = [...boards].filter((b) => b.flag === 'help' && typeof b.flaggedAt === 'string');
  return asking.sort((a, b) => Date.parse(a.flaggedAt ?? '') - Date.parse(b.flaggedAt ?? '') || a.id.localeCompare(b.id));
}
