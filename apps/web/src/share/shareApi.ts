import { ReplayPage, SharedBoard, SharedLesson, ShareLinkCreated, ShareLinkState, type ShareLinkRequest } from '@wb/protocol';
import { call } from '../api/roomsApi.ts';
import type { ReportSource } from '../api/teacherApi.ts';

/**
 * The share link and replay routes (docs/protocol.md, "Share links and replay"). The teacher's
 * come for her lesson session or her account (`ReportSource`, as the attendance report's); the
 * viewer's carry only the link's token, in the path.
 */
const lessonPath = (source: ReportSource, rest: string) =>
  `${source.kind === 'room' ? '/api/rooms' : '/api/teacher/rooms'}/${encodeURIComponent(source.code)}/${rest}`;
const headersOf = (source: ReportSource): Record<string, string> => (source.kind === 'room' ? { authorization: `Bearer ${source.token}` } : {});

export function getShareLink(source: ReportSource): Promise<ShareLinkState> {
  return call(lessonPath(source, 'share'), { method: 'GET', headers: headersOf(source) }, ShareLinkState);
}

export function createShareLink(source: ReportSource, options: ShareLinkRequest): Promise<ShareLinkCreated> {
  return call(lessonPath(source, 'share'), { method: 'POST', body: JSON.stringify(options), headers: headersOf(source) }, ShareLinkCreated);
}

export function setShareOptions(source: ReportSource, options: ShareLinkRequest): Promise<ShareLinkState> {
  return call(lessonPath(source, 'share'), { method: 'PATCH', body: JSON.stringify(options), headers: headersOf(source) }, ShareLinkState);
}

export async function turnOffShareLink(source: ReportSource): Promise<void> {
  await call(lessonPath(source, 'share'), { method: 'DELETE', body: '{}', headers: headersOf(source) }, { safeParse: () => ({ success: true, data: null }) });
}

/** The teacher's list of her lesson's boards for replay. */
export function getLessonReplayBoards(source: ReportSource): Promise<SharedLesson> {
  return call(lessonPath(source, 'replay'), { method: 'GET', headers: headersOf(source) }, SharedLesson);
}

const afterQuery = (after: string | null) => (after ? `?after=${encodeURIComponent(after)}` : '');

export function getLessonReplayPage(source: ReportSource, index: number, after: string | null): Promise<ReplayPage> {
  return call(lessonPath(source, `replay/${index}${afterQuery(after)}`), { method: 'GET', headers: headersOf(source) }, ReplayPage);
}

/** The page a share link opens: `/shared/<token>` on this origin. */
export function sharedPageUrl(token: string, origin: string = location.origin): string {
  return `${origin}/shared/${token}`;
}

const sharedPath = (token: string, rest = '') => `/api/shared/${encodeURIComponent(token)}${rest}`;

export function getSharedLesson(token: string): Promise<SharedLesson> {
  return call(sharedPath(token), { method: 'GET' }, SharedLesson);
}

export function getSharedBoard(token: string, index: number): Promise<SharedBoard> {
  return call(sharedPath(token, `/boards/${index}`), { method: 'GET' }, SharedBoard);
}

export function getSharedReplayPage(token: string, index: number, after: string | null): Promise<ReplayPage> {
  return call(sharedPath(token, `/boards/${index}/replay${afterQuery(after)}`), { method: 'GET' }, ReplayPage);
}

/** Where a share link's viewer reads the lesson's images (ImageLibrary's base). */
export const sharedImagesBase = (token: string) => sharedPath(token, '/images');
