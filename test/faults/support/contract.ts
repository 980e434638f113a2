/**
 * The fuzzer's oracle: whether a client packet is valid, decided from the contract written in
 * docs/protocol.md ("Conventions", the element shapes, "Client → server"), apart from the zod schemas
 * the server validates with. An oracle that shared the server's schemas could not find what they get
 * wrong; this one is a second reading of the documentation, so where the two disagree either the
 * server or the document is wrong, and the fuzzer says which packet showed it.
 *
 * Only acknowledged requests are judged (an unacknowledged packet has no answer to compare).
 */

type Check = (value: unknown) => boolean;
type Fields = Record<string, { check: Check; optional?: boolean }>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const between = (min: number, max: number): Check => (v) => finite(v) && v >= min && v <= max;
const below = (min: number, max: number): Check => (v) => finite(v) && v >= min && v < max;
const integerIn = (min: number, max: number): Check => (v) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const oneOf = (...allowed: unknown[]): Check => (v) => allowed.includes(v);
const boolean: Check = (v) => typeof v === 'boolean';

// Conventions: ids are UUIDs (RFC 9562: version 1-8, variant 10, or the nil and max UUIDs);
// revisions, versions and generations are integers 0 ... 2^53 - 1 (exact in JSON); coordinates are
// finite and within +-10,000,000.
const uuid: Check = (v) =>
  typeof v === 'string' &&
  (/^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(v) ||
    v === '00000000-0000-0000-0000-000000000000' ||
    v.toLowerCase() === 'ffffffff-ffff-ffff-ffff-ffffffffffff');
const revision = integerIn(0, 2 ** 53 - 1);
const coordinate = between(-10_000_000, 10_000_000);
// `lease.renew`: requestId 8-64 characters of [A-Za-z0-9_-] (the same for every requestId).
const requestId: Check = (v) => typeof v === 'string' && /^[A-Za-z0-9_-]{8,64}$/.test(v);

// Element shapes: sizes 0-100,000, offsets (a line's dx, dy; a pen point's) within +-100,000,
// colours #rrggbb, stroke width 0.5-64, font size 4-400, rotation in [0, 360), text up to 4,000
// characters with no control character but newline and tab, and no bidi override.
const size = between(0, 100_000);
const offset = between(-100_000, 100_000);
const colour: Check = (v) => typeof v === 'string' && /^#[0-9a-fA-F]{6}$/.test(v);
const fill: Check = (v) => v === 'transparent' || colour(v);
const strokeWidth = between(0.5, 64);
const fontSize = between(4, 400);
const rotation = below(0, 360);
const align = oneOf('left', 'center', 'right');
const BIDI_OVERRIDES = /[\u202A-\u202E\u2066-\u2069]/u;
const noControls = (s: string) => ![...s].some((ch) => ch !== '\n' && ch !== '\t' && (/\p{Cc}/u.test(ch) || BIDI_OVERRIDES.test(ch)));
const text: Check = (v) => typeof v === 'string' && v.length <= 4_000 && noControls(v);
const latex: Check = (v) => typeof v === 'string' && v.length >= 1 && v.length <= 2_000 && v.trim() !== '' && noControls(v);
const sha256: Check = (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
const penPoints: Check = (v) =>
  Array.isArray(v) &&
  v.length >= 1 &&
  v.length <= 1_500 &&
  v.every((p) => Array.isArray(p) && p.length === 3 && offset(p[0]) && offset(p[1]) && between(0, 1)(p[2]));

const req = (check: Check) => ({ check });
const opt = (check: Check) => ({ check, optional: true });

/** A strict object: every required field present and valid, optional ones valid when present, no other field. */
const object =
  (fields: Fields): Check =>
  (v) => {
    if (!isRecord(v)) return false;
    if (Object.keys(v).some((k) => !(k in fields))) return false;
    return Object.entries(fields).every(([k, f]) => (k in v ? f.check(v[k]) : f.optional === true));
  };

const box = { x: req(coordinate), y: req(coordinate), w: req(size), h: req(size) };
const shapes: Record<string, Check> = {
  rect: object({ kind: req(oneOf('rect')), ...box, stroke: req(colour), fill: req(fill), strokeWidth: req(strokeWidth), rotation: opt(rotation) }),
  ellipse: object({ kind: req(oneOf('ellipse')), ...box, stroke: req(colour), fill: req(fill), strokeWidth: req(strokeWidth), rotation: opt(rotation) }),
  line: object({ kind: req(oneOf('line')), x: req(coordinate), y: req(coordinate), dx: req(offset), dy: req(offset), stroke: req(colour), strokeWidth: req(strokeWidth) }),
  arrow: object({ kind: req(oneOf('arrow')), x: req(coordinate), y: req(coordinate), dx: req(offset), dy: req(offset), stroke: req(colour), strokeWidth: req(strokeWidth) }),
  pen: object({ kind: req(oneOf('pen')), x: req(coordinate), y: req(coordinate), points: req(penPoints), stroke: req(colour), strokeWidth: req(strokeWidth) }),
  text: object({ kind: req(oneOf('text')), ...box, text: req(text), stroke: req(colour), fontSize: req(fontSize), align: opt(align), rotation: opt(rotation) }),
  sticky: object({ kind: req(oneOf('sticky')), ...box, text: req(text), fill: req(colour), fontSize: opt(fontSize), align: opt(align), rotation: opt(rotation) }),
  image: object({
    kind: req(oneOf('image')),
    ...box,
    sha256: req(sha256),
    naturalWidth: req(integerIn(1, 4_096)),
    naturalHeight: req(integerIn(1, 4_096)),
    rotation: opt(rotation),
  }),
  equation: object({ kind: req(oneOf('equation')), ...box, latex: req(latex), stroke: req(colour), fontSize: req(fontSize), rotation: opt(rotation) }),
};
const shape: Check = (v) => isRecord(v) && typeof v.kind === 'string' && Object.hasOwn(shapes, v.kind) && shapes[v.kind]!(v);

// lesson.settings: at least one key, unknown keys refused; values as "Lessons" and "Paper" list them.
const settings: Check = (v) =>
  isRecord(v) &&
  Object.keys(v).length > 0 &&
  object({
    editPolicy: opt(oneOf('everyone', 'own', 'look')),
    cursorVisibility: opt(oneOf('everyone', 'teacher', 'none')),
    laserAllowed: opt(boolean),
    paper: opt(oneOf('blank', 'dots', 'grid', 'lined', 'graph', 'staff')),
  })(v);

// "Timer, polls and flags": a timer action is one of six shapes; a poll's question (1-200), a
// custom label (1-40) and a typed answer (1-80) are trimmed text with no control or bidi-override
// character, as display names are; a choice is an index 0-7.
const timerOptions = { freezeAtZero: opt(boolean), sound: opt(boolean) };
const timerAction: Check = (v) => {
  if (!isRecord(v)) return false;
  switch (v.action) {
    case 'start':
      return object({ action: req(oneOf('start')), durationMs: req(integerIn(1_000, 7_200_000)), ...timerOptions })(v);
    case 'pause':
    case 'resume':
    case 'add':
    case 'stop':
      return object({ action: req(oneOf(v.action)) })(v);
    case 'options':
      return object({ action: req(oneOf('options')), ...timerOptions })(v);
    default:
      return false;
  }
};
const trimmedText =
  (max: number): Check =>
  (v) => {
    if (typeof v !== 'string') return false;
    const t = v.trim();
    return t.length >= 1 && t.length <= max && ![...t].some((ch) => /\p{Cc}/u.test(ch) || BIDI_OVERRIDES.test(ch));
  };
const pollKind = oneOf('yesno', 'abcd', 'scale', 'thumbs', 'custom', 'text');
const pollChoices: Check = (v) => Array.isArray(v) && v.length >= 2 && v.length <= 8 && v.every(trimmedText(40));
const pollOpen: Check = (v) =>
  object({ requestId: req(requestId), pollId: req(uuid), question: req(trimmedText(200)), kind: req(pollKind), choices: opt(pollChoices) })(v) &&
  // `choices` with `custom` only, and always with it.
  ((v as { kind: string }).kind === 'custom') === ('choices' in (v as object));

/** "Client → server": each acknowledged request's payload, field by field. */
export const ACKED_REQUESTS: Record<string, Check> = {
  'lease.renew': object({ revision: req(revision), requestId: req(requestId) }),
  'sync.request': object({ lastRevision: opt(revision) }),
  'element.create': object({ requestId: req(requestId), id: req(uuid), shape: req(shape), boardId: opt(uuid) }),
  'element.update': object({ requestId: req(requestId), id: req(uuid), baseVersion: req(revision), shape: req(shape), boardId: opt(uuid) }),
  'element.delete': object({ requestId: req(requestId), id: req(uuid), erased: opt(boolean), boardId: opt(uuid) }),
  'lock.acquire': object({ requestId: req(requestId), elementId: req(uuid), boardId: opt(uuid) }),
  'lock.release': object({ requestId: req(requestId), elementId: req(uuid), generation: req(revision), shape: opt(shape), boardId: opt(uuid) }),
  'element.pin': object({ requestId: req(requestId), elementId: req(uuid), pinned: req(boolean) }),
  'lock.break': object({ requestId: req(requestId), elementId: req(uuid), boardId: opt(uuid) }),
  'lesson.settings': object({ requestId: req(requestId), settings: req(settings) }),
  'member.pen': object({ requestId: req(requestId), userId: req(uuid), muted: req(boolean) }),
  'history.list': object({ by: opt(uuid), limit: opt(integerIn(1, 200)) }),
  'element.restore': object({ requestId: req(requestId), elementId: req(uuid), version: req(revision) }),
  'board.clear': object({ requestId: req(requestId), of: opt(uuid) }),
  'batch.restore': object({ requestId: req(requestId), batchId: req(uuid) }),
  'timer.set': object({ requestId: req(requestId), timer: req(timerAction) }),
  'clock.now': object({}),
  'poll.open': pollOpen,
  'poll.answer': object({ requestId: req(requestId), pollId: req(uuid), choice: opt(integerIn(0, 7)), text: opt(trimmedText(80)) }),
  'poll.close': object({ requestId: req(requestId), pollId: req(uuid) }),
  'poll.show': object({ requestId: req(requestId), pollId: req(uuid), shown: req(boolean) }),
  'poll.get': object({}),
  'board.flag': object({ requestId: req(requestId), boardId: req(uuid), flag: req(oneOf('done', 'help', null)) }),
};

/** The lesson's open poll as the fuzzer last read it: what a student's answer to it must be. */
export interface OpenPoll {
  id: string;
  kind: string;
  /** How many choices it offers (none for `text`). */
  choices: number;
}

/** `lease.renew`: a revision more than this past the stored one is refused bad_request. */
const MAX_LEASE_REVISION_STEP = 1_000_000;

/**
 * Whether docs/protocol.md calls this acknowledged request's payload valid (as it arrives: its
 * JSON). `leaseRevision` is the sender's stored lease revision, which bounds a renewal's. A
 * student's answer to the open poll (`openPoll`) must also be what that poll takes ("exactly the
 * one the poll's kind takes", a choice it has): else `bad_request`. A teacher's answer is refused
 * `forbidden` and one to a closed or unknown poll `poll_closed` / `not_found` before that is judged.
 */
export function validByContract(
  event: string,
  payload: unknown,
  state: { leaseRevision: number; role?: 'teacher' | 'student'; openPoll?: OpenPoll | null },
): boolean {
  const check = ACKED_REQUESTS[event];
  if (!check) throw new Error(`no documented contract for ${event}`);
  if (!check(payload)) return false;
  if (event === 'lease.renew') return (payload as { revision: number }).revision <= state.leaseRevision + MAX_LEASE_REVISION_STEP;
  if (event === 'poll.answer' && state.role === 'student' && state.openPoll && (payload as { pollId: string }).pollId === state.openPoll.id) {
    const { choice, text } = payload as { choice?: number; text?: string };
    return state.openPoll.kind === 'text' ? text !== undefined && choice === undefined : choice !== undefined && text === undefined && choice < state.openPoll.choices;
  }
  return true;
}
