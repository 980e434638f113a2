import { ErrorCode, type ErrorCode as ErrorCodeT } from '@wb/protocol';
import type { FastifyReply } from 'fastify';

/** The HTTP status each error code answers with; the body is always `{ error: { code, message } }`. */
export const httpStatus: Record<ErrorCodeT, number> = {
  [ErrorCode.BAD_REQUEST]: 400,
  [ErrorCode.NOT_AUTHENTICATED]: 401,
  [ErrorCode.TOKEN_EXPIRED]: 401,
  [ErrorCode.SESSION_CLOSED]: 401,
  [ErrorCode.MEMBERSHIP_REVOKED]: 403,
  [ErrorCode.ADMISSION_DENIED]: 403,
  [ErrorCode.AWAITING_APPROVAL]: 403,
  [ErrorCode.FORBIDDEN]: 403,
  [ErrorCode.FORBIDDEN_BY_POLICY]: 403,
  [ErrorCode.BOARD_FORBIDDEN]: 403,
  [ErrorCode.FEEDBACK_LOCKED]: 403,
  [ErrorCode.ORIGIN_NOT_ALLOWED]: 403,
  [ErrorCode.ROOM_NOT_FOUND]: 404,
  [ErrorCode.NOT_FOUND]: 404,
  [ErrorCode.ROOM_ARCHIVED]: 409,
  [ErrorCode.LESSON_ENDED]: 409,
  [ErrorCode.CONFLICT]: 409,
  [ErrorCode.LOCKED]: 409,
  [ErrorCode.STALE_GENERATION]: 409,
  [ErrorCode.NAME_RESERVED]: 409,
  [ErrorCode.PROTOCOL_MISMATCH]: 400,
  [ErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [ErrorCode.UNSUPPORTED_IMAGE]: 415,
  [ErrorCode.QUOTA_EXCEEDED]: 409,
  [ErrorCode.BOARD_FULL]: 409,
  [ErrorCode.IMAGE_UNKNOWN]: 409,
  [ErrorCode.POLL_CLOSED]: 409,
  [ErrorCode.ACCOUNT_DISABLED]: 403,
  [ErrorCode.SIGN_UP_CLOSED]: 403,
  [ErrorCode.RESET_LINK_INVALID]: 410,
  [ErrorCode.SHARE_LINK_OFF]: 410,
  [ErrorCode.RATE_LIMITED]: 429,
  [ErrorCode.UNAVAILABLE]: 503,
  [ErrorCode.SERVER_RESTARTING]: 503,
  [ErrorCode.BUSY]: 503,
  [ErrorCode.PAGE_PACED]: 403,
  [ErrorCode.LAST_PAGE]: 409,
  [ErrorCode.LESSON_NOT_STARTED]: 409,
};

export function sendError(reply: FastifyReply, code: ErrorCodeT, message: string): FastifyReply {
  return reply.code(httpStatus[code]).send({ error: { code, message } });
}
