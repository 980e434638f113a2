/**
 * The client side of checking for understanding, with no React and no socket (ports passed in):
 * - the clock: this screen's offset from the server's clock (the database's, where the timer's
 *   deadline is), estimated from `clock.now` samples; the timer counts down to `endsAt` on it;
 * - the poll: the teacher's live answers (`poll.get`, then `poll.answers`), a student's own answer;
 * - the actions on the timer, the poll and a board's flag (the server decides every one).
 */
import {
  ClientEvent,
  type Ack,
  type BoardFlag,
  type PollAnswer,
  type PollAnswers,
  type PollKind,
  type ProtocolError,
  type TimerAction,
} from '@wb/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Request } from '../connection/request.ts';
import { randomId, randomUuid } from '../session/randomId.ts';

/** How many `clock.now` round trips one estimate takes (the shortest one wins). */
export const CLOCK_SAMPLES = 5;

/** One round trip: sent and answered at `sentAt` and `receivedAt` (this screen's clock), the server's `serverNow`. */
export interface ClockSample {
  sentAt: number;
  receivedAt: number;
  serverNow: number;
}

/**
 * The offset (server minus local, ms) from the sample with the shortest round trip, assuming the
 * server read its clock half way through it. Whatever the split of the trip, the error is at most
 * half the round trip (`errorMs`): on a classroom network a few ms, so two screens agree well
 * within the 100 ms a person could notice.
 */
export function estimateOffset(samples: readonly ClockSample[]): { offsetMs: number; errorMs: number } | null {
  let best: ClockSample | null = null;
  for (const s of samples) if (!best || s.receivedAt - s.sentAt < best.receivedAt - best.sentAt) best = s;
  if (!best) return null;
  const rtt = Math.max(0, best.receivedAt - best.sentAt);
  return { offsetMs: best.serverNow - (best.sentAt + rtt / 2), errorMs: rtt / 2 };
}

export interface ChecksView {
  /** Server clock minus this screen's (ms); 0 until measured. */
  readonly offsetMs: number;
  /** The estimate's bound (half the best round trip), or null until measured. */
  readonly offsetErrorMs: number | null;
  /** Teacher: the current poll's answers by student. */
  readonly answers: ReadonlyMap<string, PollAnswer>;
  /** The poll those answers (or my answer) belong to. */
  readonly pollId: string | null;
  /** Student: my answer to the current poll. */
  readonly mine: PollAnswer | null;
  /** The last refusal, for a notice. */
  readonly error: ProtocolError | null;
}

export class ChecksClient {
  readonly view: StoreApi<ChecksView> = createStore<ChecksView>(() => ({
    offsetMs: 0,
    offsetErrorMs: null,
    answers: new Map(),
    pollId: null,
    mine: null,
    error: null,
  }));

  constructor(
    private readonly request: Request,
    private readonly self: { role: 'teacher' | 'student' },
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The server's clock now, as this screen estimates it. */
  serverNow(): number {
    return this.now() + this.view.getState().offsetMs;
  }

  /** After every (re)connect: measure the clock again, and read the poll's answers. */
  async reconnected(): Promise<void> {
    await Promise.all([this.measureClock(), this.loadPoll()]);
  }

  async measureClock(): Promise<void> {
    const samples: ClockSample[] = [];
    for (let i = 0; i < CLOCK_SAMPLES; i++) {
      const sentAt = this.now();
      const reply = await this.request(ClientEvent.CLOCK_NOW, {});
      const receivedAt = this.now();
      if (!reply.ok) return;
      samples.push({ sentAt, receivedAt, serverNow: reply.serverNow });
    }
    const estimate = estimateOffset(samples);
    if (estimate) this.view.setState({ offsetMs: estimate.offsetMs, offsetErrorMs: estimate.errorMs });
  }

  async loadPoll(): Promise<void> {
    const reply = await this.request(ClientEvent.POLL_GET, {});
    if (!reply.ok) return;
    const pollId = reply.poll?.id ?? null;
    const answers = new Map(reply.answers.map((a) => [a.userId, a]));
    this.view.setState({ pollId, answers: this.self.role === 'teacher' ? answers : new Map(), mine: this.self.role === 'student' ? (reply.answers[0] ?? null) : null });
  }

  /** Teacher: answers given or changed (`poll.answers`). */
  receiveAnswers(update: PollAnswers): void {
    const state = this.view.getState();
    const answers = new Map(state.pollId === update.pollId ? state.answers : []);
    for (const a of update.answers) {
      const known = answers.get(a.userId);
      if (!known || Date.parse(known.answeredAt) <= Date.parse(a.answeredAt)) answers.set(a.userId, a);
    }
    this.view.setState({ pollId: update.pollId, answers });
  }

  /** A poll the class log says is new: forget the answers of the one before. */
  pollSeen(pollId: string): void {
    if (this.view.getState().pollId !== pollId) this.view.setState({ pollId, answers: new Map(), mine: null });
  }

  private settle<T>(reply: Ack<T>): T | null {
    if (reply.ok) return reply;
    this.view.setState({ error: reply.error });
    return null;
  }

  async timer(action: TimerAction): Promise<boolean> {
    return this.settle(await this.request(ClientEvent.TIMER_SET, { requestId: randomId(), timer: action })) !== null;
  }

  async openPoll(question: string, kind: PollKind, choices?: string[]): Promise<ProtocolError | null> {
    const pollId = randomUuid();
    const reply = await this.request(ClientEvent.POLL_OPEN, { requestId: randomId(), pollId, question, kind, ...(kind === 'custom' ? { choices: choices ?? [] } : {}) });
    if (!reply.ok) return reply.error;
    this.pollSeen(pollId);
    return null;
  }

  async answer(pollId: string, answer: { choice: number } | { text: string }): Promise<boolean> {
    const reply = this.settle(await this.request(ClientEvent.POLL_ANSWER, { requestId: randomId(), pollId, ...answer }));
    if (reply) this.view.setState({ pollId, mine: reply.answer });
    return reply !== null;
  }

  async closePoll(pollId: string): Promise<void> {
    this.settle(await this.request(ClientEvent.POLL_CLOSE, { requestId: randomId(), pollId }));
  }

  async showPoll(pollId: string, shown: boolean): Promise<void> {
    this.settle(await this.request(ClientEvent.POLL_SHOW, { requestId: randomId(), pollId, shown }));
  }

  async flag(boardId: string, flag: BoardFlag | null): Promise<boolean> {
    return this.settle(await this.request(ClientEvent.BOARD_FLAG, { requestId: randomId(), boardId, flag })) !== null;
  }

  /** A refusal shown once. */
  clearError(): void {
    if (this.view.getState().error) this.view.setState({ error: null });
  }
}

