import type { Element, ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { EditQueue, type ConfirmedElements } from './editQueue.ts';
import { History } from './history.ts';

const SELF = '00000000-0000-4000-8000-0000000000a1';
const E1 = '00000000-0000-4000-8000-0000000000e1';
const rect = (x: number): ElementShape => ({ kind: 'rect', x, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 2 });
const el = (version: number, x: number): Element => ({ id: E1, shape: rect(x), version, pinned: false, createdBy: SELF, updatedBy: SELF, z: 5, lock: null });
const confirmed = (elements: Element[] = [], tombstones: string[] = []): ConfirmedElements => ({
  elements: new Map(elements.map((e) => [e.id, e])),
  tombstones: new Map(tombstones.map((id) => [id, 9])),
});

describe('optimistic edits', () => {
  test('a create shows at once, goes out, and settles when the room event brings it', () => {
    const q = new EditQueue(SELF);
    q.enqueue({ kind: 'create', requestId: 'r1', id: E1, shape: rect(1) });
    expect(q.view(confirmed()).get(E1)?.shape).toEqual(rect(1));
    expect(q.unsynced).toBe(1);
    expect(q.nextToSend()).toMatchObject({ kind: 'create', requestId: 'r1' });
    q.acknowledged('r1', 1);
    expect(q.unsynced).toBe(0);
    expect(q.view(confirmed()).get(E1)?.shape).toEqual(rect(1)); // still drawn before the event
    q.settle(confirmed([el(1, 1)]));
    expect(q.size).toBe(0);
  });

  test('edits go one at a time, and a later edit names the version the earlier one produced', () => {
    const q = new EditQueue(SELF);
    const c = confirmed([el(3, 0)]);
    q.enqueue({ kind: 'update', requestId: 'r1', id: E1, shape: rect(1), base: q.baseFor(E1, c) ?? 0 });
    q.enqueue({ kind: 'update', requestId: 'r2', id: E1, shape: rect(2), base: q.baseFor(E1, c) ?? 0 });
    expect(q.nextToSend()).toMatchObject({ requestId: 'r1', baseVersion: 3 });
    expect(q.nextToSend()).toBeNull();
    q.acknowledged('r1', 4);
    expect(q.nextToSend()).toMatchObject({ requestId: 'r2', baseVersion: 4 });
    expect(q.view(c).get(E1)?.shape).toEqual(rect(2));
  });

  test('a conflict drops the edit and the edits built on it, and the element shows the truth', () => {
    const q = new EditQueue(SELF);
    const c = confirmed([el(3, 0)]);
    q.enqueue({ kind: 'update', requestId: 'r1', id: E1, shape: rect(1), base: 3 });
    q.enqueue({ kind: 'update', requestId: 'r2', id: E1, shape: rect(2), base: { after: 'r1' } });
    q.nextToSend();
    expect(q.refused('r1').map((o) => o.requestId)).toEqual(['r1', 'r2']);
    expect(q.view(c).get(E1)?.shape).toEqual(rect(0));
  });

  test('offline: edits queue up, and an in-flight edit lost with the socket is sent again with the same request id', () => {
    const q = new EditQueue(SELF);
    q.enqueue({ kind: 'create', requestId: 'r1', id: E1, shape: rect(1) });
    q.nextToSend();
    q.requeueInFlight();
    expect(q.nextToSend()).toMatchObject({ requestId: 'r1' });
  });

  test('I10: the queue is bounded; a full queue refuses new edits and keeps the old', () => {
    const q = new EditQueue(SELF, 2);
    expect(q.enqueue({ kind: 'delete', requestId: 'a', id: E1 })).toBe(true);
    expect(q.enqueue({ kind: 'delete', requestId: 'b', id: E1 })).toBe(true);
    expect(q.enqueue({ kind: 'delete', requestId: 'c', id: E1 })).toBe(false);
    expect(q.pending().map((o) => o.requestId)).toEqual(['a', 'b']);
  });

  test('I1: our pending create never resurrects an element someone deleted', () => {
    const q = new EditQueue(SELF);
    q.enqueue({ kind: 'create', requestId: 'r1', id: E1, shape: rect(1) });
    expect(q.view(confirmed([], [E1])).has(E1)).toBe(false);
  });

  test('unchanged elements keep their identity in the view (renderers cache by identity)', () => {
    const q = new EditQueue(SELF);
    const other = { ...el(1, 0), id: 'other' };
    const c = { elements: new Map([[other.id, other]]), tombstones: new Map<string, number>() };
    q.enqueue({ kind: 'create', requestId: 'r1', id: E1, shape: rect(1) });
    const first = q.view(c);
    const second = q.view(c);
    expect(second.get('other')).toBe(other);
    expect(second.get(E1)).toBe(first.get(E1));
  });
});

describe('undo and redo of own actions', () => {
  test('undo of a move moves back, redo moves again', () => {
    const h = new History();
    h.record([{ id: E1, before: rect(0), after: rect(50) }]);
    expect(h.undo()).toEqual([{ id: E1, from: rect(50), to: rect(0) }]);
    expect(h.redo()).toEqual([{ id: E1, from: rect(0), to: rect(50) }]);
  });

  test('undo of a delete re-creates under a new id, and later steps follow the new id', () => {
    const h = new History();
    h.record([{ id: E1, before: null, after: rect(0) }]); // created
    h.record([{ id: E1, before: rect(0), after: null }]); // deleted
    expect(h.undo()).toEqual([{ id: E1, from: null, to: rect(0) }]);
    h.alias(E1, 'new-id');
    expect(h.undo()).toEqual([{ id: 'new-id', from: rect(0), to: null }]);
  });

  test('a new action clears the redo stack', () => {
    const h = new History();
    h.record([{ id: E1, before: null, after: rect(0) }]);
    h.undo();
    h.record([{ id: 'x', before: null, after: rect(1) }]);
    expect(h.canRedo).toBe(false);
  });
});

test('I1: a delete acknowledged before the create event arrives does not let the element flash back', () => {
  const q = new EditQueue(SELF);
  q.enqueue({ kind: 'create', requestId: 'r1', id: E1, shape: rect(1) });
  q.nextToSend();
  q.acknowledged('r1', 1);
  q.enqueue({ kind: 'delete', requestId: 'r2', id: E1 });
  q.nextToSend();
  q.acknowledged('r2', 2);
  q.settle(confirmed()); // neither event has arrived
  expect(q.view(confirmed()).has(E1)).toBe(false);
  q.settle(confirmed([el(1, 1)])); // the create event
  expect(q.view(confirmed([el(1, 1)])).has(E1)).toBe(false);
  q.settle(confirmed([], [E1])); // the delete event
  expect(q.size).toBe(0);
});
