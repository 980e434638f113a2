/**
 * Teacher accounts: sign-up, sign-in and the teacher's own rooms (docs/protocol.md, "Teacher
 * accounts"). Students never need an account.
 */
import { z } from 'zod';
import { DisplayName } from './primitives.ts';
import { RoomInfo, RoomTitle } from './schemas.ts';

/** Trimmed and lowercased, so one address is one account however it is typed. */
export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'an email address looks like name@school.example');

/**
 * At least 10 characters (length is what makes a password strong); at most 200, so a hostile
 * body cannot make the memory-hard hash spend more than it should (I10).
 */
export const Password = z.string().min(10, 'a password is at least 10 characters').max(200);

export const SignUpRequest = z.strictObject({ email: Email, password: Password, displayName: DisplayName });
export type SignUpRequest = z.infer<typeof SignUpRequest>;

/** Sign-in does not re-check the password rules: an old password must still be able to sign in. */
export const SignInRequest = z.strictObject({ email: Email, password: z.string().min(1).max(200) });
export type SignInRequest = z.infer<typeof SignInRequest>;

export const TeacherAccount = z.object({ id: z.uuid(), email: z.string(), displayName: z.string() });
export type TeacherAccount = z.infer<typeof TeacherAccount>;

export const TeacherRoom = RoomInfo.extend({ createdAt: z.iso.datetime({ offset: true }) });
export type TeacherRoom = z.infer<typeof TeacherRoom>;

/** Newest first; at most `MAX_LISTED_ROOMS`. */
export const TeacherRoomList = z.object({ rooms: z.array(TeacherRoom) });
export type TeacherRoomList = z.infer<typeof TeacherRoomList>;

/** A teacher's room list is bounded (I10); older lessons stay in the database and their reports. */
export const MAX_LISTED_ROOMS = 200;

export const RenameRoomRequest = z.strictObject({ title: RoomTitle });
export type RenameRoomRequest = z.infer<typeof RenameRoomRequest>;

/** What rename and archive answer: the decision and the room as it is now. */
export const RoomChangeReply = z.object({
  ok: z.literal(true),
  decision: z.enum(['renamed', 'unchanged', 'archived', 'already_archived']),
  room: RoomInfo,
});
export type RoomChangeReply = z.infer<typeof RoomChangeReply>;
