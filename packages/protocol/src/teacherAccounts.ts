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

/** `admin` (in `GET /api/teacher/me` only): the operator named this account an admin. */
export const TeacherAccount = z.object({ id: z.uuid(), email: z.string(), displayName: z.string(), admin: z.boolean().optional() });
export type TeacherAccount = z.infer<typeof TeacherAccount>;

/**
 * How teachers may sign in here (`GET /api/teacher/sign-in-options`): with a password (always),
 * through each OpenID provider the operator configured (a link to `/api/teacher/oidc/:id/start`),
 * and whether a new account may be made with a password.
 */
export const SignInOptions = z.object({
  providers: z.array(z.object({ id: z.string(), name: z.string() })),
  signUp: z.enum(['open', 'domains', 'closed']),
});
export type SignInOptions = z.infer<typeof SignInOptions>;

/**
 * Why a sign-in through an OpenID provider was refused: the callback redirects to
 * `/teacher?signInError=<code>` and sets no cookie (docs/protocol.md, "Sign-in through an OpenID
 * provider"). A person reads `signInErrorText`.
 */
export const OidcSignInError = {
  /** No provider with this id is configured. */
  UNKNOWN_PROVIDER: 'oidc_unknown_provider',
  /** The provider could not be reached or its discovery document read. Retry later. */
  PROVIDER_UNAVAILABLE: 'oidc_provider_unavailable',
  /** The callback's `state` is not the one this browser started with (forged, replayed or expired). */
  STATE_MISMATCH: 'oidc_state_mismatch',
  /** The provider answered with an error, or refused the authorization code (used, expired, not ours). */
  CODE_REJECTED: 'oidc_code_rejected',
  /** The ID token failed validation: issuer, audience, expiry, nonce or signature. */
  TOKEN_INVALID: 'oidc_token_invalid',
  /** The provider vouched for no verified email address. */
  EMAIL_MISSING: 'oidc_email_missing',
  /** No account has this address and sign-up is closed to it. */
  SIGN_UP_CLOSED: 'sign_up_closed',
  /** An admin disabled the account. */
  ACCOUNT_DISABLED: 'account_disabled',
} as const;
export type OidcSignInError = (typeof OidcSignInError)[keyof typeof OidcSignInError];

export const signInErrorText: Readonly<Record<OidcSignInError, string>> = {
  [OidcSignInError.UNKNOWN_PROVIDER]: 'This sign-in option is not set up here.',
  [OidcSignInError.PROVIDER_UNAVAILABLE]: 'Your school’s sign-in service could not be reached. Try again in a moment.',
  [OidcSignInError.STATE_MISMATCH]: 'This sign-in was not started here, or took too long. Start again.',
  [OidcSignInError.CODE_REJECTED]: 'Your school’s sign-in service did not complete the sign-in. Start again.',
  [OidcSignInError.TOKEN_INVALID]: 'The answer of your school’s sign-in service could not be trusted. Start again.',
  [OidcSignInError.EMAIL_MISSING]: 'Your school’s sign-in service did not share a verified email address.',
  [OidcSignInError.SIGN_UP_CLOSED]: 'New accounts cannot be made here with this address. Ask your school’s administrator.',
  [OidcSignInError.ACCOUNT_DISABLED]: 'This account has been disabled. Ask your school’s administrator.',
};

/** `POST /api/teacher/password-reset`: the token of an admin's one-time link and the new password. */
export const PasswordResetRequest = z.strictObject({ token: z.string().regex(/^[A-Za-z0-9_-]{20,200}$/), password: Password });
export type PasswordResetRequest = z.infer<typeof PasswordResetRequest>;

/** One account as an admin sees it (`GET /api/admin/teachers`). */
export const AdminTeacher = TeacherAccount.extend({
  status: z.enum(['active', 'disabled']),
  createdAt: z.iso.datetime({ offset: true }),
  lessons: z.number().int().nonnegative(),
  password: z.boolean(),
  providers: z.array(z.string()),
});
export type AdminTeacher = z.infer<typeof AdminTeacher>;

/** Oldest first; at most `MAX_LISTED_TEACHERS`. */
export const AdminTeacherList = z.object({ teachers: z.array(AdminTeacher) });
export type AdminTeacherList = z.infer<typeof AdminTeacherList>;

export const MAX_LISTED_TEACHERS = 1_000;

/** `POST /api/admin/teachers/:id/disable` and `/enable`. */
export const TeacherStatusReply = z.object({
  ok: z.literal(true),
  decision: z.enum(['disabled', 'enabled', 'unchanged']),
  closedSessions: z.number().int().nonnegative(),
});
export type TeacherStatusReply = z.infer<typeof TeacherStatusReply>;

/** `POST /api/admin/teachers/:id/password-reset`: the one-time link to hand to the teacher. */
export const PasswordResetLink = z.object({ url: z.url(), expiresAt: z.iso.datetime({ offset: true }) });
export type PasswordResetLink = z.infer<typeof PasswordResetLink>;

export const TeacherRoom = RoomInfo.extend({
  createdAt: z.iso.datetime({ offset: true }),
  /** The lesson's live pages (issue 39: the lesson library). Absent from old servers' lists. */
  pageCount: z.number().int().min(0).optional(),
});
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

/** `POST /api/teacher/rooms/:code/delete` and `POST /api/admin/teachers/:id/delete` answer this. */
export const DeletionReply = z.object({
  ok: z.literal(true),
  decision: z.literal('deleted'),
  /** Lessons deleted (1 for a lesson; all the account's for an account). */
  lessons: z.number().int().nonnegative(),
});
export type DeletionReply = z.infer<typeof DeletionReply>;

/** `POST /api/teacher/rooms/:code/delete`: no body, or `{}`; the confirmation is the page's. */
export const DeleteLessonRequest = z.strictObject({});
export type DeleteLessonRequest = z.infer<typeof DeleteLessonRequest>;

/**
 * `POST /api/admin/teachers/:id/delete`: the account's email typed again, so a wrong row or a
 * replayed request cannot delete another account.
 */
export const DeleteAccountRequest = z.strictObject({ confirmEmail: Email });
export type DeleteAccountRequest = z.infer<typeof DeleteAccountRequest>;
