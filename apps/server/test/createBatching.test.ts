/**
 * Issue 19, strokes at scale: a room's `element.create`s arriving together are written in batches
 * (createBatcher.ts over the store's createElements), so the statements per stroke that /metrics
 * counts fall well below one transaction per stroke, while every stroke is still answered, applied
 * at its own consecutive revision and seen by everyone in revision order. PGlite and Postgres.
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, type ElementShape } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs } from './support.ts';

const STUDENTS = 6;
const STROKES_EACH = 10;
const stroke = (x: number): ElementShape => ({
  kind: 'pen',
  x,
  y: 40,
  points: Array.from({ length: 65 }, (_, p) => [p, (p * 3) % 20, 0.5] as [number, number, number]),
  stroke: '#1e1e1e',
  strokeWidth: 3,
});

describeOnEachDatabase('batched creates', {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  const scrape = async () => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    const sum = (prefix: string, filter: (line: string) => boolean = () => true) =>
      text
        .split('\n')
        .filter((line) => line.startsWith(prefix) && filter(line))
        .reduce((total, line) => total + Number(line.split(' ').at(-1)), 0);
    return {
      createStatements: sum('wb_db_statements_total{', (line) => line.includes('kind="create"')),
      batches: sum('wb_create_batch_size_count'),
    };
  };

  test('issue 19: 60 strokes sent together by 6 students cost under 2 statements each, every one applied at consecutive revisions and seen in order', async () => {
    const teacher = await createRoom(app);
    const t = client(app, teacher.token);
    await t.ready();
    const students = [];
    for (let i = 0; i < STUDENTS; i++) {
      const grant = await joinAs(app, teacher.room.code, `Student ${i}`);
      const c = client(app, grant.token);
      await c.ready();
      students.push(c);
    }
    const before = await scrape();
    const sent = students.flatMap((c, i) =>
      Array.from({ length: STROKES_EACH }, (_, j) => {
        const id = randomUUID();
        return c.socket
          .timeout(10_000)
          .emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: `req-${randomUUID()}`, id, shape: stroke(i * 100 + j) })
          .then((reply) => ({ id, reply }));
      }),
    );
    const replies = await Promise.all(sent);
    expect(replies.filter((r) => !r.reply.ok)).toEqual([]);
    const after = await scrape();
    const strokes = STUDENTS * STROKES_EACH;
    const perStroke = (after.createStatements - before.createStatements) / strokes;
    expect(after.batches - before.batches).toBeLessThan(strokes / 2);
    expect(perStroke).toBeLessThan(2);

    // The teacher sees every stroke once, at consecutive revisions.
    await t.until(() => t.eventsOfKind('element.created').length >= strokes, 'every stroke');
    const created = t.eventsOfKind('element.created');
    expect(new Set(created.map((e) => e.payload.element.id))).toEqual(new Set(replies.map((r) => r.id)));
    const revisions = created.map((e) => e.revision);
    expect(revisions).toEqual(revisions.map((_, i) => revisions[0]! + i));
    // Each stroke's element sits at its own revision (drawing order).
    expect(created.every((e) => e.payload.element.z === e.revision)).toBe(true);
  });
});
