import { ClientEvent, CreateElementRequest, InkUpdate, MAX_INK_POINTS_PER_PACKET, MAX_MESSAGE_BYTES, ServerEvent } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { drawingWindowFailures, overloadWindowFailures, renewalsLostBy, statementsPerStroke, type DrawingWindowFigures } from '../bench/drawingClass.ts';
import { LIVE_INK_WIRE, PAUSE_MS, STROKE_MS, STROKES_PER_MEMBER_PER_SEC } from '../bench/drawingWorkload.ts';
import type { BenchSocket } from '../bench/benchSocket.ts';
import { statementCounters } from '../bench/serverUnderTest.ts';
import { cpuSecondsBetween } from '../bench/postgresBackends.ts';
import { addStrokeCounts, StrokeAccounting } from '../bench/strokeAccounting.ts';
import { penStrokeRequest, seededRandom } from '../bench/strokeShape.ts';

/** The drawing class of issue 19: its load, its accounting and its rules. */

describe('drawing class load', () => {
  test('strokes are what the web client sends: valid element.create, ~65 points, ~1.4 KB', () => {
    const random = seededRandom(19);
    let bytes = 0;
    let points = 0;
    const strokes = 1_000;
    for (let i = 0; i < strokes; i++) {
      const request = penStrokeRequest(STROKE_MS.min + random() * (STROKE_MS.max - STROKE_MS.min), random);
      expect(CreateElementRequest.safeParse(request).success).toBe(true);
      const size = JSON.stringify(request).length;
      expect(size).toBeLessThan(MAX_MESSAGE_BYTES);
      bytes += size;
      points += request.shape.kind === 'pen' ? request.shape.points.length : 0;
    }
    // The stroke (~65 points, ~1.4 KB) within about a tenth either way: the mean of 1,000
    // seeded strokes (seed 19) is fixed, the band says which figure the bench claims.
    expect(points / strokes).toBeGreaterThan(58);
    expect(points / strokes).toBeLessThan(72);
    expect(bytes / strokes).toBeGreaterThan(1_250);
    expect(bytes / strokes).toBeLessThan(1_550);
  });

  test('a 31-member room draws about 26 strokes a second', () => {
    // About 26 (the class): computed from the stroke and pause lengths, so exact; the band
    // only names the claim.
    expect(STROKES_PER_MEMBER_PER_SEC * 31).toBeGreaterThan(24);
    expect(STROKES_PER_MEMBER_PER_SEC * 31).toBeLessThan(28);
    expect(PAUSE_MS.max).toBeLessThan(STROKE_MS.max);
  });
});

describe('stroke accounting', () => {
  /** Window [1000, 2000) ms, rooms of 4 members (3 receivers per stroke). */
  function accounting(): StrokeAccounting {
    const a = new StrokeAccounting(4);
    a.windowStart = 1_000;
    a.windowEnd = 2_000;
    return a;
  }

  test('latency runs from pointer-up to each other member’s event; the author’s own copy is not counted', () => {
    const a = accounting();
    a.onPointerUp('s1', 0, 1_100, 1_400, 65);
    a.onSend('s1', 1);
    a.onCreated('s1', 0, 1_150); // the author
    a.onCreated('s1', 1, 1_120);
    a.onCreated('s1', 2, 1_130);
    a.onAnswer('s1', { kind: 'ok' }, 1_125);
    expect(a.settled()).toBe(false);
    a.onCreated('s1', 3, 1_190);
    expect(a.settled()).toBe(true);
    expect(a.latency.count).toBe(3);
    expect(a.latency.summary().max).toBeCloseTo(90, 5);
    expect(a.ackLatency.summary().max).toBeCloseTo(25, 5);
    const counts = a.finish(3_000);
    expect(counts).toMatchObject({ drawn: 1, acked: 1, expected: 3, delivered: 3, missingAtEnd: 0, duplicates: 0, acksInWindow: 1 });
  });

  test('a pair still missing at the end counts at the end time; duplicates are counted apart', () => {
    const a = accounting();
    a.onPointerUp('s1', 1, 1_500, 1_400, 65);
    a.onAnswer('s1', { kind: 'timeout' }, 6_500);
    a.onSend('s1', 2);
    a.onCreated('s1', 0, 7_000);
    a.onCreated('s1', 0, 7_010);
    const counts = a.finish(9_500);
    expect(counts).toMatchObject({ timeouts: 1, retries: 1, delivered: 1, missingAtEnd: 2, unansweredAtEnd: 1, duplicates: 1 });
    expect(a.latency.count).toBe(3);
    // The two missing pairs waited 8,000 ms (until the end), not nothing.
    expect(a.latency.summary().max).toBeCloseTo(8_000, 5);
    expect(a.latency.summary().p50).toBeCloseTo(8_000, 0);
  });

  test('errors and refusals by code; a refused stroke is expected nowhere', () => {
    const a = accounting();
    a.onPointerUp('s1', 0, 1_100, 1_400, 65);
    a.onAnswer('s1', { kind: 'error', code: 'unavailable' }, 1_200);
    a.onAnswer('s1', { kind: 'error', code: 'rate_limited' }, 2_300);
    a.onAnswer('s1', { kind: 'refused', code: 'forbidden' }, 3_400);
    expect(a.settled()).toBe(true);
    const counts = a.finish(5_000);
    expect(counts.errors).toEqual({ unavailable: 1, rate_limited: 1 });
    expect(counts.refused).toEqual({ forbidden: 1 });
    expect(counts).toMatchObject({ expected: 0, missingAtEnd: 0, acked: 0 });
    expect(a.latency.count).toBe(0);
  });

  test('strokes drawn outside the window are not followed, but acks during it count as work done', () => {
    const a = accounting();
    a.onPointerUp('early', 0, 900, 1_400, 65);
    a.onAnswer('early', { kind: 'ok' }, 1_050);
    a.onCreated('early', 1, 1_060);
    a.onPointerUp('late', 0, 2_000, 1_400, 65);
    const counts = a.finish(4_000);
    expect(counts).toMatchObject({ drawn: 0, acked: 0, expected: 0, acksInWindow: 1, missingAtEnd: 0 });
    expect(a.latency.count).toBe(0);
  });

  test('two threads’ counts add up', () => {
    const a = accounting();
    const b = accounting();
    a.onPointerUp('a', 0, 1_100, 1_000, 50);
    b.onPointerUp('b', 0, 1_100, 2_000, 80);
    b.onAnswer('b', { kind: 'error', code: 'unavailable' }, 1_200);
    const sum = addStrokeCounts(a.finish(2_500), b.finish(2_500));
    expect(sum).toMatchObject({ drawn: 2, payloadBytes: 3_000, points: 130, maxPayloadBytes: 2_000, expected: 6, missingAtEnd: 6, errors: { unavailable: 1 } });
  });
});

describe('drawing rules', () => {
  const healthy: DrawingWindowFigures = {
    strokeP99Ms: 80,
    strokesDrawn: 500,
    timeouts: 0,
    unavailable: 0,
    otherErrors: 0,
    refused: 0,
    missingAtEnd: 0,
    renewalsLost: 0,
    renewalsLostBy: {},
    expiriesSeen: 0,
    connectFailures: 0,
  };

  test('a window passes at stroke p99 <= 100 ms with nothing lost; the overload rule allows 1 s', () => {
    expect(drawingWindowFailures(healthy)).toEqual([]);
    expect(drawingWindowFailures({ ...healthy, strokeP99Ms: 100 })).toEqual([]);
    expect(drawingWindowFailures({ ...healthy, strokeP99Ms: 101 })).toEqual(['stroke p99 101 ms']);
    expect(overloadWindowFailures({ ...healthy, strokeP99Ms: 950 })).toEqual([]);
    expect(overloadWindowFailures({ ...healthy, strokeP99Ms: 1_200 })).toEqual(['stroke p99 1200 ms']);
  });

  test('timeouts, unavailable, lost renewals and missing strokes fail both rules whatever the latency', () => {
    for (const broken of [{ timeouts: 1 }, { unavailable: 1 }, { renewalsLost: 1 }, { missingAtEnd: 3 }, { refused: 1 }, { expiriesSeen: 1 }, { strokesDrawn: 0 }]) {
      expect(drawingWindowFailures({ ...healthy, ...broken })).toHaveLength(1);
      expect(overloadWindowFailures({ ...healthy, ...broken })).toHaveLength(1);
    }
    expect(drawingWindowFailures({ ...healthy, strokeP99Ms: Number.NaN })).toHaveLength(1);
  });

  test('a renewal is lost when it is not accepted, whatever the reason, and the reasons are named', () => {
    const why = renewalsLostBy({
      sent: 10,
      accepted: 5,
      lost: 5,
      late: 1,
      byDecision: { accepted: 5, ignored_old_revision: 2 },
      errors: { unavailable: 2 },
      unanswered: 1,
      latency: { count: 9, p50: 1, p95: 1, p99: 1, max: 1, mean: 1 },
    });
    expect(why).toEqual({ unavailable: 2, ignored_old_revision: 2, unanswered: 1 });
    expect(drawingWindowFailures({ ...healthy, renewalsLost: 5, renewalsLostBy: why })).toEqual(['5 renewals lost (unavailable 2, ignored_old_revision 2, unanswered 1)']);
  });

  test('statements per stroke leave the renewals’ out, and are unknown while nothing else is counted', () => {
    const start = { wb_lease_renewal_statements_total: 100, wb_edit_statements_total: 40 };
    const end = { wb_lease_renewal_statements_total: 160, wb_edit_statements_total: 240 };
    expect(statementsPerStroke(start, end, 100)).toBe(2);
    expect(statementsPerStroke({ wb_lease_renewal_statements_total: 1 }, { wb_lease_renewal_statements_total: 9 }, 100)).toBeNaN();
    expect(statementsPerStroke(start, end, 0)).toBeNaN();
    // The product's statements by kind: only the creates' count per stroke.
    const byKind = { 'db:create': 500, 'db:renewal': 90, 'db:handshake': 40, wb_lease_renewal_statements_total: 9 };
    expect(statementsPerStroke(byKind, { ...byKind, 'db:create': 1_100, 'db:renewal': 400, 'db:sweep': 30 }, 100)).toBe(6);
  });

  test('Postgres backend CPU: the difference for a backend seen twice, all of a new one', () => {
    const start = new Map([[10, 5], [11, 1]]);
    const end = new Map([[10, 7.5], [12, 0.5]]);
    expect(cpuSecondsBetween(start, end)).toBeCloseTo(3, 10);
  });
});

describe('live ink in the drawing class', () => {
  test('the wire sends valid ink packets in board coordinates, split at the packet bound', () => {
    const sent: Array<{ event: string; payload: unknown }> = [];
    const socket = { emit: (event: string, payload: unknown) => sent.push({ event, payload }) } as unknown as BenchSocket;
    const points = Array.from({ length: MAX_INK_POINTS_PER_PACKET + 6 }, (_, i): [number, number, number] => [i, -i, 0.5]);
    const stroke = { id: '00000000-0000-4000-8000-00000000f001', x: 100, y: 200, stroke: '#1e1e1e', strokeWidth: 4 };
    expect(LIVE_INK_WIRE.send(socket, stroke, points, 10 + points.length)).toBe(true);
    expect(sent.map((s) => s.event)).toEqual([ClientEvent.INK, ClientEvent.INK]);
    const updates = sent.map((s) => InkUpdate.parse(s.payload));
    expect(updates.map((u) => [u.from, u.points.length])).toEqual([
      [10, MAX_INK_POINTS_PER_PACKET],
      [10 + MAX_INK_POINTS_PER_PACKET, 6],
    ]);
    expect(updates[0]!.points[1]).toEqual([101, 199, 0.5]);
  });

  test('a receiver finds every chunk end an ink entry covers: a chunk merged with the next arrives with it', () => {
    const batch = { cursors: [], ink: [{ strokeId: 's', sessionId: 'x', from: 4, points: [[0, 0, 0.5], [1, 1, 0.5], [2, 2, 0.5]], stroke: '#000000', strokeWidth: 2 }] };
    expect(LIVE_INK_WIRE.chunksIn(ServerEvent.CURSORS, batch).map((c) => c.pointCount)).toEqual([5, 6, 7]);
    expect(LIVE_INK_WIRE.chunksIn(ServerEvent.ROOM_EVENT, batch)).toEqual([]);
  });

  test('statement counters: the product\'s statements by kind, other counters by name', () => {
    const metrics = new Map([
      ['wb_db_statements_total{kind="create",operation="createElement"}', 12],
      ['wb_db_statements_total{kind="edit",operation="updateElement"}', 3],
      ['wb_db_statements_total{kind="edit",operation="deleteElement"}', 2],
      ['wb_lease_renewal_statements_total', 7],
    ]);
    expect(statementCounters(metrics)).toEqual({ 'db:create': 12, 'db:edit': 5, wb_lease_renewal_statements_total: 7 });
  });
});
