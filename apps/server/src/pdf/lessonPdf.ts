/**
 * What a lesson's PDFs hold, read from the store and drawn by boardsPdf.ts:
 *
 *   - the lesson: its pages in order, one PDF page each (`exportedBoardsOf`);
 *   - a class pack: one activity's private boards, one page per student, named on the page,
 *     ordered by name (the teacher's feedback on a board is part of the board, so it is there).
 *
 * `exportedBoardsOf` is the one place that decides which boards make up "the lesson": its pages
 * in their order (issue 39 part 1).
 */
import type { Store } from '@wb/db';
import type { RoomInfo } from '@wb/protocol';
import { boardsPdf, type PdfBoard, type PictureOf } from './boardsPdf.ts';

/**
 * The lesson's boards as the PDF's pages: its live pages in their order (pages.ts; the lesson's own
 * board is one of them, a deleted page is left out), each on its own paper, captioned with the
 * lesson's title and the page's title (or its number).
 */
export async function exportedBoardsOf(store: Store, lesson: RoomInfo): Promise<PdfBoard[]> {
  const found = await store.lessonPages(lesson.id);
  const pages = found?.pages ?? [{ id: lesson.id, title: '', background: lesson.settings.paper }];
  const boards: PdfBoard[] = [];
  for (const [i, page] of pages.entries()) {
    const snapshot = await store.loadRoomSnapshot(page.id);
    const name = page.title || `${i + 1} / ${pages.length}`;
    boards.push({ caption: `${lesson.title} · ${name}`, elements: snapshot?.elements ?? [], paper: page.background });
  }
  return boards;
}

/** The pictures of a lesson (every board of a lesson, private ones too, draws from its library). */
const picturesOf =
  (store: Store, lessonId: string): PictureOf =>
  async (sha256) => {
    const image = await store.getImage(lessonId, sha256);
    return image ? { data: new Uint8Array(image.data), mime: image.mime } : null;
  };

/** The whole lesson as one PDF. */
export async function lessonPdf(store: Store, lesson: RoomInfo): Promise<Uint8Array> {
  return boardsPdf(await exportedBoardsOf(store, lesson), picturesOf(store, lesson.id), { title: lesson.title });
}

/** One activity's private boards as one PDF, a page per student; null when the lesson has no such activity. */
export async function classPackPdf(store: Store, lesson: RoomInfo, activityId: string): Promise<Uint8Array | null> {
  const { activities } = await store.listLessonBoards(lesson.id);
  const found = activities.find((a) => a.activity.id === activityId);
  if (!found) return null;
  const title = `${lesson.title} · ${found.activity.title}`;
  const pages: PdfBoard[] = [...found.boards]
    .sort((a, b) => a.board.ownerName.localeCompare(b.board.ownerName))
    .map(({ board, elements }) => ({ caption: `${board.ownerName} · ${found.activity.title}`, elements, paper: lesson.settings.paper }));
  return boardsPdf(pages, picturesOf(store, lesson.id), { title });
}

/** A file name's safe part of a title: letters and digits of any script, the rest a dash. */
export function fileSlug(title: string): string {
  return title.normalize('NFKC').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '').slice(0, 60) || 'lesson';
}
