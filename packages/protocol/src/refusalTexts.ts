import {
  FatalErrorCode,
  RequestErrorCode,
  RetryableErrorCode,
  type ErrorCode,
} from './errors.ts';

/**
 * What a person reads for each refusal, by code: the one source of refusal texts for the server's
 * messages and the web client's notices. Each record is total over its class of codes, so a new
 * code does not compile until it has its text. Clients still branch on the code, never on the text.
 */

/** The connection is over for good (the client stops reconnecting and shows this). */
export const fatalRefusalText: Readonly<Record<FatalErrorCode, string>> = {
  [FatalErrorCode.NOT_AUTHENTICATED]: 'Your session is no longer valid. Join again to continue.',
  [FatalErrorCode.TOKEN_EXPIRED]: 'Your session expired. Join again to continue.',
  [FatalErrorCode.SESSION_CLOSED]: 'You left this lesson (perhaps in another tab).',
  [FatalErrorCode.MEMBERSHIP_REVOKED]: 'You were removed from this lesson.',
  [FatalErrorCode.ROOM_NOT_FOUND]: 'This lesson does not exist.',
  [FatalErrorCode.ROOM_ARCHIVED]: 'This lesson has ended.',
  [FatalErrorCode.ORIGIN_NOT_ALLOWED]: 'This page is not allowed to connect to the lesson server.',
  [FatalErrorCode.PROTOCOL_MISMATCH]: 'This page is out of date. Reload to continue.',
  [FatalErrorCode.ADMISSION_DENIED]: 'The teacher declined your request to join this lesson.',
  [FatalErrorCode.LESSON_ENDED]: 'The lesson has ended.',
};

/** The same request may succeed later. */
export const retryableRefusalText: Readonly<Record<RetryableErrorCode, string>> = {
  [RetryableErrorCode.RATE_LIMITED]: 'Too many messages; slow down.',
  [RetryableErrorCode.UNAVAILABLE]: 'The server could not complete this request. Retry.',
  [RetryableErrorCode.SERVER_RESTARTING]: 'The server is restarting. Retrying.',
  [RetryableErrorCode.BUSY]: 'The board is catching up. Your change will be sent again.',
  [RetryableErrorCode.AWAITING_APPROVAL]: 'Waiting for the teacher to let you in.',
  [RetryableErrorCode.LESSON_NOT_STARTED]: 'This lesson has not started yet. This page opens it as soon as the teacher starts.',
};

/** One request was refused for good; the connection stays usable. */
export const requestRefusalText: Readonly<Record<RequestErrorCode, string>> = {
  [RequestErrorCode.BAD_REQUEST]: 'The server could not read this request.',
  [RequestErrorCode.PAYLOAD_TOO_LARGE]: 'This is too large to send.',
  [RequestErrorCode.FORBIDDEN]: 'This is not allowed: the element is pinned, or only the teacher may do it.',
  [RequestErrorCode.NOT_FOUND]: 'This element no longer exists.',
  [RequestErrorCode.CONFLICT]: 'The element changed meanwhile; your view has the latest version.',
  [RequestErrorCode.LOCKED]: 'Someone else is moving this element.',
  [RequestErrorCode.STALE_GENERATION]: 'Your hold on this element ended; it stays where it is.',
  [RequestErrorCode.NAME_RESERVED]: 'This is your teacher’s name in this lesson. Please join under your own name.',
  [RequestErrorCode.FORBIDDEN_BY_POLICY]: 'The teacher has not allowed this in this lesson.',
  [RequestErrorCode.BOARD_FORBIDDEN]: 'This board is not yours to see or change.',
  [RequestErrorCode.UNSUPPORTED_IMAGE]: 'This file is not a PNG, JPEG, WebP or GIF image, or it is damaged.',
  [RequestErrorCode.QUOTA_EXCEEDED]: 'This lesson has no room for more images.',
  [RequestErrorCode.BOARD_FULL]: 'This board is full. Delete something (or clear the board) to add more.',
  [RequestErrorCode.IMAGE_UNKNOWN]: 'This picture is not in this lesson. Paste or upload the picture itself.',
  [RequestErrorCode.POLL_CLOSED]: 'The teacher has closed this poll.',
  [RequestErrorCode.FEEDBACK_LOCKED]: 'This is your teacher’s feedback: it stays as the teacher left it.',
  [RequestErrorCode.ACCOUNT_DISABLED]: 'This account has been disabled. Ask your school’s administrator.',
  [RequestErrorCode.SIGN_UP_CLOSED]: 'New accounts cannot be made here with this address. Ask your school’s administrator.',
  [RequestErrorCode.RESET_LINK_INVALID]: 'This reset link has been used or has expired. Ask your administrator for a new one.',
  [RequestErrorCode.SHARE_LINK_OFF]: 'This link has been turned off. Ask your teacher for a new one.',
  [RequestErrorCode.PAGE_PACED]: 'Your teacher is keeping the class on one page.',
  [RequestErrorCode.LAST_PAGE]: 'A lesson always keeps at least one page.',
};

/** `forbidden` is the one code with causes a person should tell apart; the server names which. */
export const forbiddenText = {
  pinned: 'The teacher pinned this element.',
  teacherOnly: 'Only the teacher can do this.',
  ownHand: 'You can raise or lower only your own hand.',
  teacherHand: 'The teacher lowers hands but does not raise one.',
  laserNotAllowed: 'The teacher has not shared the laser pointer.',
  studentsAnswer: 'Only students answer a poll.',
  teacherFlag: 'The teacher clears a flag but does not raise one.',
} as const;

/** `forbidden_by_policy` names which rule refused: the lesson's policy, or a muted pen. */
export const policyText = {
  lookOnly: 'The teacher has set this lesson to look only.',
  notOwn: 'In this lesson you can change only your own work.',
  penMuted: 'The teacher has paused your pen.',
} as const;

/** Every code's text. */
export const refusalText: Readonly<Record<ErrorCode, string>> = {
  ...fatalRefusalText,
  ...retryableRefusalText,
  ...requestRefusalText,
};
