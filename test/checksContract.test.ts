/**
 * The fuzzer's oracle (test/faults/support/contract.ts, a reading of docs/protocol.md) and the
 * server's schemas agree on the timer, poll and flag requests at their bounds: the packets a random
 * fuzz run meets rarely (a question of exactly 200 characters, or 201; choices with a poll that is
 * not custom), decided here one by one. Where the two disagree, the document or the schema is wrong.
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, clientEventSchemas } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { validByContract } from './faults/support/contract.ts';

const requestId = 'req-0001-abcd';
const pollId = randomUUID();
const x = (n: number) => 'x'.repeat(n);

const cases: Array<[event: string, payload: unknown, valid: boolean]> = [
  [ClientEvent.TIMER_SET, { requestId, timer: { action: 'start', durationMs: 1_000 } }, true],
  [ClientEvent.TIMER_SET, { requestId, timer: { action: 'start', durationMs: 7_200_000, freezeAtZero: true, sound: false } }, true],
  [ClientEvent.TIMER_SET, { requestId, timer: { action: 'start', durationMs: 999 } }, false],
  [ClientEvent.TIMER_SET, { requestId, timer: { action: 'start', durationMs: 7_200_001 } }, false],
  [ClientEvent.TIMER_SET, { requestId, timer: { action: 'start', durationMs: 1_500.5 } }, false],
  [ClientEvent.TIMER_SET, { requestId, timer: { action: 'add' } }, true],
  [ClientEvent.TIMER_SET, { requestId, timer: { action: 'add', durationMs: 60_000 } }, false],
  [ClientEvent.TIMER_SET, { requestId, timer: { action: 'options', sound: true } }, true],
  [ClientEvent.TIMER_SET, { requestId, timer: { action: 'restart' } }, false],
  [ClientEvent.TIMER_SET, { timer: { action: 'stop' } }, false],
  [ClientEvent.CLOCK_NOW, {}, true],
  [ClientEvent.CLOCK_NOW, { at: 1 }, false],
  [ClientEvent.POLL_GET, {}, true],
  [ClientEvent.POLL_OPEN, { requestId, pollId, question: x(200), kind: 'yesno' }, true],
  [ClientEvent.POLL_OPEN, { requestId, pollId, question: ` ${x(200)} `, kind: 'yesno' }, true],
  [ClientEvent.POLL_OPEN, { requestId, pollId, question: x(201), kind: 'yesno' }, false],
  [ClientEvent.POLL_OPEN, { requestId, pollId, question: '   ', kind: 'yesno' }, false],
  [ClientEvent.POLL_OPEN, { requestId, pollId, question: 'a\u0007b', kind: 'yesno' }, false],
  [ClientEvent.POLL_OPEN, { requestId, pollId, question: 'Which?', kind: 'essay' }, false],
  [ClientEvent.POLL_OPEN, { requestId, pollId, question: 'Which?', kind: 'custom', choices: ['3/4', '2/3'] }, true],
  [ClientEvent.POLL_OPEN, { requestId, pollId, question: 'Which?', kind: 'custom', choices: [x(40), 'b', 'c', 'd', 'e', 'f', 'g', 'h'] }, true],
  [ClientEvent.POLL_OPEN, { requestId, pollId, question: 'Which?', kind: 'custom', choices: ['only one'] }, false],
  [ClientEvent.POLL_OPEN, { requestId, pollId, question: 'Which?', kind: 'custom', choices: [x(41), 'b'] }, false],
  [ClientEvent.POLL_OPEN, { requestId, pollId, question: 'Which?', kind: 'custom' }, false],
  [ClientEvent.POLL_OPEN, { requestId, pollId, question: 'Which?', kind: 'abcd', choices: ['a', 'b'] }, false],
  [ClientEvent.POLL_ANSWER, { requestId, pollId, choice: 0 }, true],
  [ClientEvent.POLL_ANSWER, { requestId, pollId, choice: 7 }, true],
  [ClientEvent.POLL_ANSWER, { requestId, pollId, choice: 8 }, false],
  [ClientEvent.POLL_ANSWER, { requestId, pollId, choice: -1 }, false],
  [ClientEvent.POLL_ANSWER, { requestId, pollId, text: x(80) }, true],
  [ClientEvent.POLL_ANSWER, { requestId, pollId, text: x(81) }, false],
  [ClientEvent.POLL_ANSWER, { requestId, pollId, text: ' ' }, false],
  [ClientEvent.POLL_CLOSE, { requestId, pollId }, true],
  [ClientEvent.POLL_CLOSE, { requestId, pollId: 'not-a-uuid' }, false],
  [ClientEvent.POLL_SHOW, { requestId, pollId, shown: true }, true],
  [ClientEvent.POLL_SHOW, { requestId, pollId, shown: 'yes' }, false],
  [ClientEvent.BOARD_FLAG, { requestId, boardId: pollId, flag: 'help' }, true],
  [ClientEvent.BOARD_FLAG, { requestId, boardId: pollId, flag: null }, true],
  [ClientEvent.BOARD_FLAG, { requestId, boardId: pollId, flag: 'raised' }, false],
  [ClientEvent.BOARD_FLAG, { requestId, boardId: pollId }, false],
];

describe('timer, poll and flag requests: the documented contract and the schemas agree at the bounds', () => {
  test.each(cases)('%s %j is valid: %s', (event, payload, valid) => {
    expect(validByContract(event, payload, { leaseRevision: 0 })).toBe(valid);
    const schema = clientEventSchemas[event as keyof typeof clientEventSchemas];
    expect(schema.safeParse(payload).success).toBe(valid);
  });

  test('a student\'s answer to the open poll must be one it takes: a choice it has, text to a text poll only', () => {
    const open = { id: pollId, kind: 'yesno', choices: 2 };
    const judge = (payload: unknown, role: 'teacher' | 'student' = 'student') => validByContract(ClientEvent.POLL_ANSWER, payload, { leaseRevision: 0, role, openPoll: open });
    expect(judge({ requestId, pollId, choice: 1 })).toBe(true);
    expect(judge({ requestId, pollId, choice: 2 })).toBe(false);
    expect(judge({ requestId, pollId, text: 'yes' })).toBe(false);
    expect(judge({ requestId, pollId, choice: 0, text: 'yes' })).toBe(false);
    // A teacher is refused forbidden first; another poll is closed or unknown first.
    expect(judge({ requestId, pollId, choice: 2 }, 'teacher')).toBe(true);
    expect(judge({ requestId, pollId: randomUUID(), choice: 5 })).toBe(true);
    expect(validByContract(ClientEvent.POLL_ANSWER, { requestId, pollId, text: 'a' }, { leaseRevision: 0, role: 'student', openPoll: { id: pollId, kind: 'text', choices: 0 } })).toBe(true);
  });
});
