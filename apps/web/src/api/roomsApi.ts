import {
  AdmissionStatus,
  ErrorCode,
  JoinAddress,
  RoomInfo,
  SessionGrant,
  isErrorCode,
  type CreateRoomRequest,
  type JoinRoomRequest,
  type ProtocolError,
} from '@wb/protocol';

/** The one thing this module needs of a schema; keeps zod itself out of the web app's imports. */
export interface Schema<T> {
  safeParse(input: unknown): { success: true; data: T } | { success: false };
}

/** A refused or failed HTTP call, carrying the server's error code so the UI can explain it. */
export class ApiError extends Error implements ProtocolError {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export async function call<T>(path: string, init: RequestInit, schema: Schema<T>): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  } catch {
    throw new ApiError(0, ErrorCode.UNAVAILABLE, 'Cannot reach the server. Check your connection and try again.');
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw errorFrom(response.status, body);
  const parsed = schema.safeParse(body);
  // A body we cannot read is the server's fault, not the user's: say so plainly.
  if (!parsed.success) throw new ApiError(response.status, ErrorCode.UNAVAILABLE, 'The server sent an unexpected reply.');
  return parsed.data;
}

export function errorFrom(status: number, body: unknown): ApiError {
  if (typeof body === 'object' && body !== null && 'error' in body) {
    const error: unknown = body.error;
    if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && isErrorCode(error.code)) {
      const message = 'message' in error && typeof error.message === 'string' ? error.message : error.code;
      return new ApiError(status, error.code, message);
    }
  }
  const code = status === 429 ? ErrorCode.RATE_LIMITED : ErrorCode.UNAVAILABLE;
  return new ApiError(status, code, `The server answered ${status}. Try again in a moment.`);
}

export function createRoom(request: CreateRoomRequest): Promise<SessionGrant> {
  return call('/api/rooms', { method: 'POST', body: JSON.stringify(request) }, SessionGrant);
}

export function getRoom(code: string): Promise<RoomInfo> {
  return call(`/api/rooms/${encodeURIComponent(code)}`, { method: 'GET' }, RoomInfo);
}

/** Where students open a lesson: the base of the join link and who can reach it (issue 35). */
export function getJoinAddress(): Promise<JoinAddress> {
  return call('/api/join-address', { method: 'GET' }, JoinAddress);
}

export function joinRoom(code: string, request: JoinRoomRequest): Promise<SessionGrant> {
  return call(`/api/rooms/${encodeURIComponent(code)}/join`, { method: 'POST', body: JSON.stringify(request) }, SessionGrant);
}

const SignOutReply: Schema<{ ok: true }> = {
  safeParse: (input) =>
    typeof input === 'object' && input !== null && 'ok' in input && input.ok === true
      ? { success: true, data: { ok: true } }
      : { success: false },
};

export async function signOut(token: string): Promise<void> {
  await call('/api/session/sign-out', { method: 'POST', body: '{}', headers: { authorization: `Bearer ${token}` } }, SignOutReply);
}

/**
 * The waiting page's question: has the teacher let this session's member in? The server holds the
 * request up to `waitMs` while the answer is still `pending`, so a decision arrives within moments.
 */
export function getAdmission(token: string, waitMs: number, signal?: AbortSignal): Promise<AdmissionStatus> {
  return call(
    `/api/session/admission?waitMs=${waitMs}`,
    { method: 'GET', headers: { authorization: `Bearer ${token}` }, ...(signal ? { signal } : {}) },
    AdmissionStatus,
  );
}
