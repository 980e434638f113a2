import { z } from 'zod';
import { RequestId } from './primitives.ts';

/**
 * A lesson's settings: what students may do on the board, decided by the teacher and enforced by
 * the server inside the same conditional write as each edit (I11). One validated object, carried
 * by the snapshot (`room.settings`) and by every `room.updated`; the teacher changes any subset of
 * it with `lesson.settings`. A new setting is a new optional key here with its default, a rooms
 * column, and a line in docs/protocol.md: old copies without it read as the default.
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
 * Whose cursors a student's socket receives (the server filters before fan-out, I12):
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

export const LessonSettings = z.object({
  editPolicy: EditPolicy.default(DEFAULT_EDIT_POLICY),
  cursorVisibility: CursorVisibility.default(DEFAULT_CURSOR_VISIBILITY),
  /** Students may use the laser pointer (the teacher's is always allowed). */
  laserAllowed: z.boolean().default(false),
});
export type LessonSettings = z.infer<typeof LessonSettings>;

export const DEFAULT_LESSON_SETTINGS: LessonSettings = {
  editPolicy: DEFAULT_EDIT_POLICY,
  cursorVisibility: DEFAULT_CURSOR_VISIBILITY,
  laserAllowed: false,
};

/** A teacher's change of some settings: at least one key, unknown keys refused. */
export const LessonSettingsPatch = z
  .strictObject({ editPolicy: EditPolicy.optional(), cursorVisibility: CursorVisibility.optional(), laserAllowed: z.boolean().optional() })
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), 'name at least one setting to change');
export type LessonSettingsPatch = z.infer<typeof LessonSettingsPatch>;

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
