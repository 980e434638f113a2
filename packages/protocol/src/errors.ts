/**
 * Error codes shared by HTTP responses, socket acknowledgements and socket refusals.
 *
 * Fatal codes mean "retrying will not help": the client stops reconnecting and explains.
 * Retryable codes mean the same request may succeed later (network, load, a restarting server).
 */
export const FatalErrorCode = {
  NOT_AUTHENTICATED: 'not_authenticated',
  TOKEN_EXPIRED: 'token_expired',
  SESSION_CLOSED: 'session_closed',
  MEMBERSHIP_REVOKED: 'membership_revoked',
  ROOM_NOT_FOUND: 'room_not_found',
  ROOM_ARCHIVED: 'room_archived',
  ORIGIN_NOT_ALLOWED: 'origin_not_allowed',
  PROTOCOL_MISMATCH: 'protocol_mismatch',
  /** The teacher declined this member from the lobby. */
  ADMISSION_DENIED: 'admission_denied',
  /** The teacher ended the lesson: joins and edits are refused until they reopen it. */
  LESSON_ENDED: 'lesson_ended',
} as const;
export type FatalErrorCode = (typeof FatalErrorCode)[keyof typeof FatalErrorCode];

export const RetryableErrorCode = {
  RATE_LIMITED: 'rate_limited',
  UNAVAILABLE: 'unavailable',
  SERVER_RESTARTING: 'server_restarting',
  /**
   * The server is past its capacity: its database answers, but this request did not finish within
   * the request deadline (or its room's create queue is full). Nothing was refused: send the same
   * request again after a moment (edits are idempotent by request id and element id).
   */
  BUSY: 'busy',
  /**
   * The member waits in the lobby for the teacher's approval. Retryable, but not by backing off:
   * wait on `GET /api/session/admission`, then connect once it answers `admitted`.
   */
  AWAITING_APPROVAL: 'awaiting_approval',
  /**
   * The lesson is prepared but its teacher has not started it (issue 39): the student waits on
   * "not started yet" and sends the same join again (the web client every few seconds).
   */
  LESSON_NOT_STARTED: 'lesson_not_started',
} as const;
export type RetryableErrorCode = (typeof RetryableErrorCode)[keyof typeof RetryableErrorCode];

/** Refusals of one request that leave the connection usable. */
export const RequestErrorCode = {
  BAD_REQUEST: 'bad_request',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'not_found',
  CONFLICT: 'conflict',
  /** Someone else holds this element's drag lock. */
  LOCKED: 'locked',
  /** The lock generation named is no longer current: a former holder's late packet (I4). */
  STALE_GENERATION: 'stale_generation',
  /** A student asked to join under the name of the lesson's teacher: join again with another name. */
  NAME_RESERVED: 'name_reserved',
  /**
   * The lesson's edit policy or the teacher's mute of this student's pen does not let them do
   * this (a student changing another's element under `own`, anything under `look` or muted).
   */
  FORBIDDEN_BY_POLICY: 'forbidden_by_policy',
  /**
   * A private board the sender may not see or change (another student's, not shown), or no such
   * board in this lesson (docs/boards.md). The reply says nothing of the board's content.
   */
  BOARD_FORBIDDEN: 'board_forbidden',
  /**
   * An upload that is not a PNG, JPEG, WebP or GIF by its content, whose declared type differs
   * from its content, or whose header cannot be read (cut short, zero-sized). Nothing was stored.
   */
  UNSUPPORTED_IMAGE: 'unsupported_image',
  /** The lesson holds as many images, or image bytes, as it may (docs/protocol.md, "Images"). Nothing was stored. */
  QUOTA_EXCEEDED: 'quota_exceeded',
  /**
   * The board (the class board, or a private board) holds as many live elements as it may
   * (`BOARD_ELEMENTS_MAX`): a create, a restore or an activity's board copies were refused whole.
   * Nothing was stored; deleting elements makes room.
   */
  BOARD_FULL: 'board_full',
  /** An image element naming a picture its lesson does not hold (upload it first). Nothing was stored. */
  IMAGE_UNKNOWN: 'image_unknown',
  /** An answer to a poll the teacher has closed: nothing was stored (the answer given before stays). */
  POLL_CLOSED: 'poll_closed',
  /**
   * The teacher's feedback on a student's private board (an element the teacher made there): the
   * student may not move, change, erase or hold it, whatever the board's policy (docs/boards.md).
   */
  FEEDBACK_LOCKED: 'feedback_locked',
  /** An admin disabled this teacher account: sign-in is refused and its sessions no longer work. */
  ACCOUNT_DISABLED: 'account_disabled',
  /** The operator closed sign-up, or limited it to some email domains this address is not in. */
  SIGN_UP_CLOSED: 'sign_up_closed',
  /** A password-reset link that is unknown, already used or expired (no hint which). */
  RESET_LINK_INVALID: 'reset_link_invalid',
  /**
   * A share link that is unknown, turned off by the teacher, or whose lesson is no longer ended
   * (reopened, deleted): it shows nothing (no hint which). Ask the teacher for a new link.
   */
  SHARE_LINK_OFF: 'share_link_off',
  /**
   * A student asked for (or edited) a page other than the teacher's while the lesson is paced
   * (pages.ts): nothing was read or changed; the student's page is the one in `pages.updated`.
   */
  PAGE_PACED: 'page_paced',
  /** The teacher tried to delete the lesson's only live page: a lesson always has one. */
  LAST_PAGE: 'last_page',
} as const;
export type RequestErrorCode = (typeof RequestErrorCode)[keyof typeof RequestErrorCode];

export const ErrorCode = { ...FatalErrorCode, ...RetryableErrorCode, ...RequestErrorCode } as const;
export type ErrorCode = FatalErrorCode | RetryableErrorCode | RequestErrorCode;

const fatalCodes: ReadonlySet<string> = new Set(Object.values(FatalErrorCode));

export function isFatalErrorCode(code: string): code is FatalErrorCode {
  return fatalCodes.has(code);
}

const requestCodes: ReadonlySet<string> = new Set(Object.values(RequestErrorCode));

/** A refusal of one request that retrying will not change (the connection stays usable). */
export function isRequestErrorCode(code: string): code is RequestErrorCode {
  return requestCodes.has(code);
}

export function isErrorCode(code: string): code is ErrorCode {
  return (Object.values(ErrorCode) as string[]).includes(code);
}

export interface ProtocolError {
  code: ErrorCode;
  message: string;
  /**
   * With `locked` on a group lock request (`lock.acquireMany`): the first requested element held
   * by someone else, and who holds it. Nothing of the group was taken.
   */
  heldBy?: { elementId: string; userId: string };
}
