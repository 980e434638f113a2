import { z } from 'zod';
import { RequestId } from './primitives.ts';

/**
 * A lesson's settings: what students may do on the board and how it looks, decided by the teacher
 * and enforced by the server inside the same conditional write as each edit (I11). One validated
 * object, carried by the snapshot (`room.settings`) and by every `room.updated`; the teacher changes
 * any subset of it with `lesson.settings`.
 *
 * Each setting is declared once, in LESSON_SETTINGS below: its schema, its default, who may set
 * it. The object's schema, the defaults, the patch a teacher sends, the settings a new lesson may
 * start with, the server's check of who may change what and the store's columns (one rooms column
 * per setting, named after it in snake_case: packages/db/src/lessonSettingsColumns.ts) all derive
 * from that table. Adding a setting: its declaration here, a migration for its column
 * (`pnpm db:generate`), its line in docs/protocol.md, its control, and the rule that reads it.
 */
/**
 * Who may change which elements:
 * - `everyone`: every member edits every element (pins still hold);
 * - `own`: a student moves, restyles, erases or deletes only elements they created;
 * - `look`: students only look (they cannot create or change anything).
 * The teacher edits everything under every policy.
 */
export const EditPolicy = z.enum(['everyone', 'own', 'look']);
export type EditPolicy = z.infer<typeof EditPolicy>;

/** A new lesson protects each student's work from the others (and the teacher's from all). */
export const DEFAULT_EDIT_POLICY: EditPolicy = 'own';

/**
 * Whose cursors a student's socket receives, on every page of the lesson (the server filters
 * before fan-out, I12; a private board's audience sees every pointer on it):
 * - `everyone`: every member's;
 * - `teacher`: only the teacher's (each student's batch then carries one entry: O(n) per room);
 * - `none`: no one's.
 * The teacher always receives everyone's. Drag previews and live ink are not cursors: they reach
 * everyone under every mode.
 */
export const CursorVisibility = z.enum(['everyone', 'teacher', 'none']);
export type CursorVisibility = z.infer<typeof CursorVisibility>;

/** A new lesson shows students only the teacher's cursor (lessons made before it keep `everyone`). */
export const DEFAULT_CURSOR_VISIBILITY: CursorVisibility = 'teacher';

/** Whether a receiver of `role` is sent the cursor of a sender of `senderRole` under the mode. */
export function seesCursor(mode: CursorVisibility, role: 'teacher' | 'student', senderRole: 'teacher' | 'student'): boolean {
  if (role === 'teacher' || mode === 'everyone') return true;
  return mode === 'teacher' && senderRole === 'teacher';
}

/**
 * The board's paper, drawn under every element for everyone (the teacher's choice for the lesson):
 * - `blank`: no pattern;
 * - `dots`: a dot every 24 board units (the board before paper could be chosen);
 * - `grid`: square grid lines every 24 units;
 * - `lined`: horizontal rules every 48 units, like a writing book;
 * - `graph`: graph paper (a fine line every 24 units, a bold one every 5 squares) with the x and y
 *   axes through the board's origin;
 * - `staff`: music staves (five lines 12 units apart, a staff every 96 units).
 */
export const Paper = z.enum(['blank', 'dots', 'grid', 'lined', 'graph', 'staff']);
export type Paper = z.infer<typeof Paper>;

/** A new lesson, and one made before paper could be chosen, is on dotted paper. */
export const DEFAULT_PAPER: Paper = 'dots';

/** Who may change a setting with `lesson.settings`: today every one is the teacher's alone. */
export type SettingSetter = 'teacher';

/** One setting: its values, the value a new lesson (and an old copy without it) takes, who sets it. */
export interface SettingDeclaration<S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  readonly default: z.output<S>;
  readonly setBy: SettingSetter;
}

const declare = <S extends z.ZodType>(declaration: SettingDeclaration<S>): SettingDeclaration<S> => declaration;

/** Every lesson setting, declared once. */
export const LESSON_SETTINGS = {
  /** Who may change which elements (EditPolicy above). */
  editPolicy: declare({ schema: EditPolicy, default: DEFAULT_EDIT_POLICY, setBy: 'teacher' }),
  /** Whose cursors a student receives (CursorVisibility above). */
  cursorVisibility: declare({ schema: CursorVisibility, default: DEFAULT_CURSOR_VISIBILITY, setBy: 'teacher' }),
  /** Students may use the laser pointer (the teacher's is always allowed). */
  laserAllowed: declare({ schema: z.boolean(), default: false, setBy: 'teacher' }),
  /** The board's background pattern (a look, not a right: it changes nothing students may do). */
  paper: declare({ schema: Paper, default: DEFAULT_PAPER, setBy: 'teacher' }),
} as const;

type Declared = typeof LESSON_SETTINGS;
export type SettingName = keyof Declared;
/** The settings' names, in declaration order. */
export const SETTING_NAMES = Object.keys(LESSON_SETTINGS) as SettingName[];

function shapeOf<T>(each: (declaration: SettingDeclaration) => T): Record<SettingName, T> {
  return Object.fromEntries(SETTING_NAMES.map((name) => [name, each(LESSON_SETTINGS[name])])) as Record<SettingName, T>;
}

/** The whole object: a copy without a setting (an older lesson's) reads as its default. */
export const LessonSettings = z.object(
  shapeOf((d) => d.schema.default(d.default)) as { [K in SettingName]: z.ZodDefault<Declared[K]['schema']> },
);
export type LessonSettings = z.infer<typeof LessonSettings>;

export const DEFAULT_LESSON_SETTINGS: LessonSettings = shapeOf((d) => d.default) as LessonSettings;

const optionalShape = () => shapeOf((d) => d.schema.optional()) as { [K in SettingName]: z.ZodOptional<Declared[K]['schema']> };

/** Some settings, unknown keys refused: a new lesson's start (`POST /api/rooms`'s `settings`). */
export const LessonSettingsChoice = z.strictObject(optionalShape());
export type LessonSettingsChoice = z.infer<typeof LessonSettingsChoice>;

/** A teacher's change of some settings: at least one key, unknown keys refused. */
export const LessonSettingsPatch = z
  .strictObject(optionalShape())
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), 'name at least one setting to change');
export type LessonSettingsPatch = z.infer<typeof LessonSettingsPatch>;

/** The roles each kind of setter stands for. */
const SETTERS: Record<SettingSetter, readonly ('teacher' | 'student')[]> = { teacher: ['teacher'] };

/** Whether a member of `role` may change the setting: the check the store makes in its transaction. */
export function maySetSetting(role: 'teacher' | 'student', name: SettingName): boolean {
  return SETTERS[LESSON_SETTINGS[name].setBy].includes(role);
}

/** The settings a patch names (an explicit `undefined` is not a change). */
export function namedSettings(patch: Partial<LessonSettings>): SettingName[] {
  return SETTING_NAMES.filter((name) => patch[name] !== undefined);
}

/**
 * Every value a setting may take, for tests that go through them all: a setting of a kind not
 * listed here (a number, say) needs its own line before its tests can cover it.
 */
export function everySettingValue<K extends SettingName>(name: K): LessonSettings[K][] {
  const schema: z.ZodType = LESSON_SETTINGS[name].schema;
  if (schema instanceof z.ZodEnum) return schema.options as LessonSettings[K][];
  if (schema instanceof z.ZodBoolean) return [false, true] as LessonSettings[K][];
  throw new Error(`no list of values for the setting ${name}`);
}

/** Whether two copies of the settings agree on every one. */
export function sameSettings(a: LessonSettings, b: LessonSettings): boolean {
  return SETTING_NAMES.every((name) => a[name] === b[name]);
}

/** `lesson.settings` (teacher): change some of the lesson's settings. */
export const LessonSettingsRequest = z.strictObject({ requestId: RequestId, settings: LessonSettingsPatch });
export type LessonSettingsRequest = z.infer<typeof LessonSettingsRequest>;

/** The answer: the settings as they stand after the change. */
export const LessonSettingsReply = z.object({ settings: LessonSettings });
export type LessonSettingsReply = z.infer<typeof LessonSettingsReply>;

/** Whether a policy gives students fewer rights than another: their drags in progress then end. */
const studentRights: Record<EditPolicy, number> = { look: 0, own: 1, everyone: 2 };
export function reducesStudentRights(from: EditPolicy, to: EditPolicy): boolean {
  return studentRights[to] < studentRights[from];
}

/**
 * Whether a member may change an existing element under the policy: the rule the store enforces,
 * shared so the board can mirror it (read-only visuals) without deciding anything itself.
 */
export function mayChangeElement(input: {
  role: 'teacher' | 'student';
  policy: EditPolicy;
  penMuted: boolean;
  userId: string;
  createdBy: string;
}): boolean {
  if (input.role === 'teacher') return true;
  if (input.penMuted || input.policy === 'look') return false;
  return input.policy === 'everyone' || input.createdBy === input.userId;
}

/** Whether a member may draw a new element. */
export function mayCreateElement(input: { role: 'teacher' | 'student'; policy: EditPolicy; penMuted: boolean }): boolean {
  return input.role === 'teacher' || (!input.penMuted && input.policy !== 'look');
}

/** `member.pen` (teacher): mute a student's pen (they only look) or give it back. */
export const MemberPenRequest = z.strictObject({ requestId: RequestId, userId: z.uuid(), muted: z.boolean() });
export type MemberPenRequest = z.infer<typeof MemberPenRequest>;

/** `lesson.end` and `lesson.reopen` (teacher): end the lesson for every student, or open it again. */
export const LessonStateRequest = z.strictObject({ requestId: RequestId });
export type LessonStateRequest = z.infer<typeof LessonStateRequest>;

/** `hand.raise` (student): raise your hand; the teacher sees the queue in the order hands went up. */
export const HandRaiseRequest = z.strictObject({ requestId: RequestId });
export type HandRaiseRequest = z.infer<typeof HandRaiseRequest>;

/**
 * `hand.lower`: a student lowers their own hand (no `userId`, or their own); the teacher lowers a
 * student's (`userId`). `hand.lowerAll` (teacher): every raised hand at once.
 */
export const HandLowerRequest = z.strictObject({ requestId: RequestId, userId: z.uuid().optional() });
export type HandLowerRequest = z.infer<typeof HandLowerRequest>;
export const HandLowerAllRequest = z.strictObject({ requestId: RequestId });
export type HandLowerAllRequest = z.infer<typeof HandLowerAllRequest>;

/** The raised hands among `members`, in the order they went up (the teacher's queue). */
export function raisedHandQueue<M extends { userId: string; handRaisedAt: string | null }>(members: Iterable<M>): (M & { handRaisedAt: string })[] {
  const raised = [...members].filter((m): m is M & { handRaisedAt: string } => m.handRaisedAt !== null);
  return raised.sort((a, b) => Date.parse(a.handRaisedAt) - Date.parse(b.handRaisedAt) || a.userId.localeCompare(b.userId));
}
