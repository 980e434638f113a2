import {
  AdminTeacherList,
  DeletionReply,
  LessonBoards,
  LessonThumbnail,
  PasswordResetLink,
  RoomChangeReply,
  SessionGrant,
  SignInOptions,
  TeacherAccount,
  TeacherRoomList,
  TeacherStatusReply,
  type AdminTeacher,
  type SignInRequest,
  type SignUpRequest,
} from '@wb/protocol';
import { ApiError, call, type Schema } from './roomsApi.ts';

/**
 * The teacher-account API. The session is an httpOnly cookie the browser sends by itself on
 * same-origin requests; page scripts never see it.
 */

export function signUp(request: SignUpRequest): Promise<TeacherAccount> {
  return call('/api/teacher/sign-up', { method: 'POST', body: JSON.stringify(request) }, TeacherAccount);
}

export function signIn(request: SignInRequest): Promise<TeacherAccount> {
  return call('/api/teacher/sign-in', { method: 'POST', body: JSON.stringify(request) }, TeacherAccount);
}

const Ok: Schema<{ ok: true }> = {
  safeParse: (input) =>
    typeof input === 'object' && input !== null && 'ok' in input && input.ok === true ? { success: true, data: { ok: true } } : { success: false },
};

export async function signOutTeacher(): Promise<void> {
  await call('/api/teacher/sign-out', { method: 'POST', body: '{}' }, Ok);
}

/** The signed-in teacher, or null when this browser is not signed in (or the sign-in ended). */
export async function currentTeacher(): Promise<TeacherAccount | null> {
  try {
    return await call('/api/teacher/me', { method: 'GET' }, TeacherAccount);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export async function listMyRooms(): Promise<TeacherRoomList['rooms']> {
  return (await call('/api/teacher/rooms', { method: 'GET' }, TeacherRoomList)).rooms;
}

export function renameMyRoom(code: string, title: string): Promise<RoomChangeReply> {
  return call(`/api/teacher/rooms/${encodeURIComponent(code)}/rename`, { method: 'POST', body: JSON.stringify({ title }) }, RoomChangeReply);
}

export function archiveMyRoom(code: string): Promise<RoomChangeReply> {
  return call(`/api/teacher/rooms/${encodeURIComponent(code)}/archive`, { method: 'POST', body: '{}' }, RoomChangeReply);
}

/** A teacher session in one of the account's open lessons, from any browser. */
export function enterMyRoom(code: string): Promise<SessionGrant> {
  return call(`/api/teacher/rooms/${encodeURIComponent(code)}/enter`, { method: 'POST', body: '{}' }, SessionGrant);
}

/** The boards kept with one of my lessons: every activity's students' boards with their content. */
export function listMyLessonBoards(code: string): Promise<LessonBoards> {
  return call(`/api/teacher/rooms/${encodeURIComponent(code)}/boards`, { method: 'GET' }, LessonBoards);
}

/** The library's thumbnail of one of my lessons: its first page and that page's first elements. */
export function myLessonThumbnail(code: string): Promise<LessonThumbnail> {
  return call(`/api/teacher/rooms/${encodeURIComponent(code)}/thumbnail`, { method: 'GET' }, LessonThumbnail);
}

/** How teachers sign in here: the school's providers, and whether sign-up is open. */
export function signInOptions(): Promise<SignInOptions> {
  return call('/api/teacher/sign-in-options', { method: 'GET' }, SignInOptions);
}

/** Where a provider's button sends the browser (a navigation, not a fetch: the provider's page opens). */
export function providerSignInPath(providerId: string): string {
  return `/api/teacher/oidc/${encodeURIComponent(providerId)}/start`;
}

/** A new password through an admin's one-time link; signs this browser in. */
export function resetPassword(token: string, password: string): Promise<TeacherAccount> {
  return call('/api/teacher/password-reset', { method: 'POST', body: JSON.stringify({ token, password }) }, TeacherAccount);
}

export async function listTeachers(): Promise<AdminTeacher[]> {
  return (await call('/api/admin/teachers', { method: 'GET' }, AdminTeacherList)).teachers;
}

export function setTeacherDisabled(teacherId: string, disabled: boolean): Promise<TeacherStatusReply> {
  return call(`/api/admin/teachers/${encodeURIComponent(teacherId)}/${disabled ? 'disable' : 'enable'}`, { method: 'POST', body: '{}' }, TeacherStatusReply);
}

export function issuePasswordReset(teacherId: string): Promise<PasswordResetLink> {
  return call(`/api/admin/teachers/${encodeURIComponent(teacherId)}/password-reset`, { method: 'POST', body: '{}' }, PasswordResetLink);
}

/** Deletes one of my lessons for good, with everything in it. */
export function deleteMyRoom(code: string): Promise<DeletionReply> {
  return call(`/api/teacher/rooms/${encodeURIComponent(code)}/delete`, { method: 'POST', body: '{}' }, DeletionReply);
}

/** Where an account's export downloads from (a navigation: the browser saves the zip). */
export function accountExportPath(teacherId: string): string {
  return `/api/admin/teachers/${encodeURIComponent(teacherId)}/export`;
}

/** Deletes an account with all its lessons; `confirmEmail` is the account's email typed again. */
export function deleteTeacherAccount(teacherId: string, confirmEmail: string): Promise<DeletionReply> {
  return call(`/api/admin/teachers/${encodeURIComponent(teacherId)}/delete`, { method: 'POST', body: JSON.stringify({ confirmEmail }) }, DeletionReply);
}
