/**
 * The stroke stored once (issue 19, docs/store.md "One copy of an element's content"): a created
 * pen stroke's JSON is written to `element_versions` only; `elements` keeps no copy and its
 * `element.created` event names the version instead of carrying the shape, while replay, snapshot
 * and history still hand back the stroke whole. Prints the bytes and statements one stroke costs
 * (the figures in docs/store.md). Runs on PGlite and real Postgres.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { ElementShape } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { int, rows } from '../src/sql.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, seatStudent, storeDatabaseKinds, type Seat } from './fixtures.ts';

/** A pen stroke as the web client sends it: ~65 points of [dx, dy, pressure], about 1.4 KB of JSON. */
function stroke(points = 65): ElementShape {
  const pts: Array<[number, number, number]> = [];
  let x = 0;
  let y = 0;
  for (let i = 0; i < points; i++) {
    pts.push([Math.round(x * 100) / 100, Math.round(y * 100) / 100, 0.5]);
    x += 3.1 + (i % 7) * 0.37;
    y += Math.sin(i / 5) * 2.73;
  }
  return { kind: 'pen', x: 1234.5, y: 678.25, color: '#1f2937', width: 3, points: pts } as unknown as ElementShape;
}

const STROKES = 20;

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`the stroke stored once on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let db: TestDatabase;
    let store: Store;
    let seat: Seat;

    beforeAll(async () => {
      db = await openTestDatabase(kind);
      store = createStore(db.database, new FrozenClock(CLOCK_START));
      seat = await seatStudent(store);
    });
    afterAll(async () => {
      await db?.drop();
    });

    const actor = () => ({ roomId: seat.roomId, userId: seat.userId, sessionId: seat.sessionId });

    /** Bytes the database holds for the elements' rows, their versions and their events (pg_column_size). */
    async function bytesOf(ids: string[]): Promise<{ json: number; rows: number; copies: number }> {
      const list = `{${ids.join(',')}}`;
      const [found] = await rows<{ element_rows: unknown; version_rows: unknown; version_json: unknown; event_rows: unknown; event_json: unknown; copies: unknown }>(
        db.database.db,
        sql`SELECT
              (SELECT coalesce(sum(pg_column_size(e.*)), 0) FROM elements e WHERE e.room_id = ${seat.roomId}::uuid AND e.id = ANY(${list}::uuid[])) AS element_rows,
              (SELECT coalesce(sum(pg_column_size(v.*)), 0) FROM element_versions v WHERE v.room_id = ${seat.roomId}::uuid AND v.element_id = ANY(${list}::uuid[])) AS version_rows,
              (SELECT coalesce(sum(pg_column_size(v.data)), 0) FROM element_versions v WHERE v.room_id = ${seat.roomId}::uuid AND v.element_id = ANY(${list}::uuid[])) AS version_json,
              (SELECT coalesce(sum(pg_column_size(r.*)), 0) FROM room_events r WHERE r.room_id = ${seat.roomId}::uuid AND (r.payload->'element'->>'id')::uuid = ANY(${list}::uuid[])) AS event_rows,
              (SELECT coalesce(sum(pg_column_size(r.payload)), 0) FROM room_events r WHERE r.room_id = ${seat.roomId}::uuid AND (r.payload->'element'->>'id')::uuid = ANY(${list}::uuid[])) AS event_json,
              -- Where the stroke's points appear as text, in any table of the element's content.
              (SELECT count(*) FROM element_versions v WHERE v.room_id = ${seat.roomId}::uuid AND v.element_id = ANY(${list}::uuid[]) AND v.data::text LIKE '%points%')
              + (SELECT count(*) FROM room_events r WHERE r.room_id = ${seat.roomId}::uuid AND (r.payload->'element'->>'id')::uuid = ANY(${list}::uuid[]) AND r.payload::text LIKE '%points%')
              + (SELECT count(*) FROM elements e WHERE e.room_id = ${seat.roomId}::uuid AND e.id = ANY(${list}::uuid[]) AND row_to_json(e.*)::text LIKE '%points%') AS copies`,
      );
      return {
        json: int(found!.version_json) + int(found!.event_json),
        rows: int(found!.element_rows) + int(found!.version_rows) + int(found!.event_rows),
        copies: int(found!.copies),
      };
    }

    test("a batch of created strokes: each stroke's JSON is in the database once, and replay, snapshot and history give it back whole", async () => {
      const shape = stroke();
      const before = db.database.statements.snapshot();
      const sentBefore = [...before.values()].reduce((a, b) => a + b, 0);
      const ids: string[] = Array.from({ length: STROKES }, () => randomUUID());
      const results = await store.createElements(ids.map((id) => ({ actor: actor(), id, shape })));
      const sent = [...db.database.statements.snapshot().values()].reduce((a, b) => a + b, 0) - sentBefore;
      expect(results.every((r) => r.decision === 'applied')).toBe(true);

      const bytes = await bytesOf(ids);
      const shapeBytes = Buffer.byteLength(JSON.stringify(shape));
      console.log(
        `[stroke stored once, ${kind}] stroke JSON ${shapeBytes} B as sent; per stroke: ${(bytes.rows / STROKES).toFixed(0)} B of rows ` +
          `(JSON columns ${(bytes.json / STROKES).toFixed(0)} B), ${(bytes.copies / STROKES).toFixed(2)} copies of the points; ` +
          `${(sent / STROKES).toFixed(2)} statements per stroke in a batch of ${STROKES}`,
      );
      expect(bytes.copies).toBe(STROKES);

      // Replay, snapshot and history read the one copy and give back what the write answered.
      const replay = await store.eventsAfter(seat.roomId, 0, 1_000);
      expect(replay.kind).toBe('replay');
      const applied = results.flatMap((r) => (r.decision === 'applied' ? r.events : []));
      if (replay.kind === 'replay') expect(replay.events.filter((e) => e.kind === 'element.created')).toEqual(applied);
      for (const event of applied) expect(await store.findRoomEvent(event.eventId)).toEqual(event);
      const snapshot = await store.loadRoomSnapshot(seat.roomId);
      expect(snapshot!.elements.filter((e) => ids.includes(e.id))).toEqual(results.map((r) => (r.decision === 'applied' ? r.element : null)));
    });

    test("one created stroke (createElement) and its update: one copy of each version's JSON", async () => {
      const ids: string[] = [randomUUID()];
      const created = await store.createElement(actor(), { id: ids[0]!, shape: stroke(40) });
      expect(created.decision).toBe('applied');
      const moved = { ...stroke(40), x: 10 } as ElementShape;
      const updated = await store.updateElement(actor(), { id: ids[0]!, baseVersion: 1, shape: moved, requestId: randomUUID() });
      expect(updated.decision).toBe('applied');
      // Two versions, two copies: one per version, none in elements or the log.
      expect((await bytesOf(ids)).copies).toBe(2);
      const replay = await store.eventsAfter(seat.roomId, 0, 1_000);
      if (replay.kind !== 'replay') throw new Error(replay.kind);
      expect(replay.events.slice(-2)).toEqual([...(created.decision === 'applied' ? created.events : []), ...(updated.decision === 'applied' ? updated.events : [])]);
    });
  });
}
