/**
 * Per-window accounting of a cursor load, on the generator thread that owns the room (one clock
 * for sends and receives). Pure: no sockets, no timers; the generator feeds it sends and receives.
 *
 * A packet carries its sender's index in the room and a per-sender sequence number. A receiver
 * that gets sequence n after n - k (k > 1) has not seen the k - 1 packets between: the product's
 * batcher keeps only each sender's latest position per tick, so they were merged into this one
 * (or, at the bare relay, dropped). Two latency figures come out of the same receives:
 * - *today's* (`hist`): only the packets that arrived themselves;
 * - *merged counted* (`mergedHist`): every skipped in-window packet as well, as arriving with the
 *   packet that replaced it (its latency is the replacement's arrival minus its own send). What a
 *   person sees of a superseded position is its replacement, so this is the honest figure: a merge
 *   that made a position wait a whole tick shows up instead of vanishing from the histogram.
 * Delivery counts a skipped packet as delivered only if its replacement came within 100 ms.
 *
 * What a receiver is owed depends on the lesson's cursor visibility (issue 21): under `everyone`
 * each of the 30 others gets a sender's position; under `teacher` (a new lesson's default) a
 * student gets only the teacher's and the teacher gets everyone's; under `none` only the teacher
 * gets anyone's. Expected deliveries, latencies and gaps are counted over the (receiver, sender)
 * pairs the mode allows; an entry a receiver was not allowed to get is counted apart
 * (`forbidden`), never as a delivery, and fails the window.
 */
import { seesCursor, type CursorVisibility } from '@wb/protocol';
import { LatencyHistogram } from './latencyHistogram.ts';

export const USERS_PER_ROOM = Number(process.env.BENCH_USERS_PER_ROOM ?? 31);
/** A replaced update counts as delivered only if its replacement arrived within this budget. */
export const SUPERSEDE_BUDGET_MS = 100;
/** The room's teacher is its first client (the generator creates the room as it). */
export const TEACHER_LOCAL = 0;

const roleOf = (local: number) => (local === TEACHER_LOCAL ? 'teacher' : 'student');

/** Whether the member at `receiverLocal` is sent the cursor of the one at `senderLocal` under the mode. */
export function receiverSees(mode: CursorVisibility, receiverLocal: number, senderLocal: number): boolean {
  return receiverLocal !== senderLocal && seesCursor(mode, roleOf(receiverLocal), roleOf(senderLocal));
}

/** How many members of a full room are sent one position of the sender at `senderLocal`. */
export function receiversOf(mode: CursorVisibility, senderLocal: number): number {
  let receivers = 0;
  for (let local = 0; local < USERS_PER_ROOM; local++) if (receiverSees(mode, local, senderLocal)) receivers += 1;
  return receivers;
}

/** What the accounting needs of a receiving client. */
export interface CursorReceiver {
  readonly room: number;
  readonly local: number;
  /** The highest sequence number seen from each sender of the room (-1: none yet). */
  readonly lastSeqFrom: Int32Array;
}

export class CursorAccounting {
  /** Today's figure: packets that arrived themselves. */
  readonly hist = new LatencyHistogram();
  /** Arrived packets plus superseded ones, counted as arriving with their replacement. */
  readonly mergedHist = new LatencyHistogram();
  readonly stamps: Float64Array[];
  sent = 0;
  discardedByClient = 0;
  received = 0;
  supersededInTime = 0;
  /** Of `received` + `supersededInTime`: those delivered to the room's teacher (the rest reached students). */
  deliveredAtTeacher = 0;
  supersededLate = 0;
  duplicates = 0;
  /** In-window entries that reached a receiver the visibility mode does not allow them (must stay 0). */
  forbidden = 0;
  messagesInWindow = 0;
  readonly sentBySender: Uint32Array;
  windowStart = Number.POSITIVE_INFINITY;
  windowEnd = Number.POSITIVE_INFINITY;

  /**
   * `senders`: every client slot of the generator (room * USERS_PER_ROOM + local); `visibility`:
   * the rooms' cursor visibility (the bare relay relays to everyone).
   */
  constructor(
    senders: number,
    maxSeq: number,
    readonly visibility: CursorVisibility = 'everyone',
  ) {
    this.stamps = Array.from({ length: senders }, () => new Float64Array(maxSeq));
    this.sentBySender = new Uint32Array(senders);
  }

  /**
   * (update, receiver) pairs owed for the in-window packets of `senders` (global slots): `atTeacher`
   * only those owed to the room's teacher (under `teacher` every student's, under `everyone` too).
   */
  expectedFrom(senders: Iterable<number>, atTeacher = false): number {
    const perSender = Array.from({ length: USERS_PER_ROOM }, (_, local) =>
      atTeacher ? (receiverSees(this.visibility, TEACHER_LOCAL, local) ? 1 : 0) : receiversOf(this.visibility, local),
    );
    let expected = 0;
    for (const global of senders) expected += (this.sentBySender[global] ?? 0) * (perSender[global % USERS_PER_ROOM] ?? 0);
    return expected;
  }

  inWindow(stamp: number): boolean {
    return stamp >= this.windowStart && stamp < this.windowEnd;
  }

  /**
   * After the send: the packet left (`sent`), or the client library dropped it because the
   * transport was busy (then it was never sent, and receivers must not count it as lost).
   */
  afterSend(senderGlobal: number, seq: number, now: number, sent: boolean): void {
    const stamps = this.stamps[senderGlobal];
    if (!sent && stamps && seq < stamps.length) stamps[seq] = 0;
    if (!this.inWindow(now)) return;
    if (!sent) {
      this.discardedByClient += 1;
      return;
    }
    this.sent += 1;
    this.sentBySender[senderGlobal] = (this.sentBySender[senderGlobal] ?? 0) + 1;
  }

  /** Records the stamp before the packet is sent (a synchronous receive path must find it). */
  stampBeforeSend(senderGlobal: number, seq: number, now: number): void {
    const stamps = this.stamps[senderGlobal];
    if (stamps && seq < stamps.length) stamps[seq] = now;
  }

  onReceive(receiver: CursorReceiver, senderLocal: number, seq: number, now: number): void {
    if (senderLocal === receiver.local || senderLocal < 0 || senderLocal >= USERS_PER_ROOM) return;
    const stamps = this.stamps[receiver.room * USERS_PER_ROOM + senderLocal];
    if (!stamps || !Number.isInteger(seq) || seq < 0) return;
    // 0 when this thread never sent it (or past the recorded range): then it is outside the window.
    const stamp = stamps[seq] ?? 0;
    if (!receiverSees(this.visibility, receiver.local, senderLocal)) {
      if (this.inWindow(stamp)) this.forbidden += 1;
      return;
    }
    const last = receiver.lastSeqFrom[senderLocal] ?? -1;
    if (seq <= last) {
      if (this.inWindow(stamp)) this.duplicates += 1;
      return;
    }
    for (let missing = last + 1; missing < seq; missing++) {
      const missingStamp = stamps[missing] ?? 0;
      if (!this.inWindow(missingStamp)) continue;
      const waited = now - missingStamp;
      if (waited <= SUPERSEDE_BUDGET_MS) {
        this.supersededInTime += 1;
        if (receiver.local === TEACHER_LOCAL) this.deliveredAtTeacher += 1;
      } else this.supersededLate += 1;
      this.mergedHist.record(waited);
    }
    receiver.lastSeqFrom[senderLocal] = seq;
    if (this.inWindow(stamp)) {
      this.received += 1;
      if (receiver.local === TEACHER_LOCAL) this.deliveredAtTeacher += 1;
      const latency = now - stamp;
      this.hist.record(latency);
      this.mergedHist.record(latency);
    }
  }
}
