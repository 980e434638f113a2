import { expect, test } from 'vitest';
import { parseRoute } from './routing.ts';

test.each([
  ['/', { page: 'home' }],
  ['/teacher', { page: 'teacher' }],
  ['/teacher/', { page: 'teacher' }],
  ['/r/k7qm2x', { page: 'room', code: 'K7QM2X' }],
  ['/shared/Ab-_9xY', { page: 'shared', token: 'Ab-_9xY' }],
  ['/shared/', { page: 'not_found' }],
  ['/teacher/extra', { page: 'not_found' }],
])('%s is the %o page', (path, route) => {
  expect(parseRoute(path)).toEqual(route);
});
