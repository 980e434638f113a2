/**
 * An account's data as one zip archive (docs/privacy.md, "Answering a request"), for an admin
 * answering a request for a teacher's data, or keeping it before deleting the account:
 *
 *   account.json                       the account and the list of its lessons
 *   lessons/<code>/lesson.json         the lesson, its class board's elements, its activities with
 *                                      every student's board and elements
 *   lessons/<code>/lesson.pdf          the lesson's boards as the teacher downloads them (pdf/lessonPdf.ts)
 *   lessons/<code>/attendance.csv      the attendance report (the same CSV the teacher downloads)
 *   lessons/<code>/images/<sha256>.<ext>  every picture the lesson holds
 *
 * Built in memory with fflate (the zip library the web app uses too); bounded by the account's
 * lessons (MAX_LISTED_ROOMS) and each lesson's image quota.
 */
import type { Store } from '@wb/db';
import { attendanceCsv, type AdminTeacher } from '@wb/protocol';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { lessonPdf } from './pdf/lessonPdf.ts';

const EXTENSIONS: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

export async function exportAccount(store: Store, teacher: AdminTeacher, exportedAt: Date): Promise<Uint8Array> {
  const lessons = await store.listTeacherRooms(teacher.id);
  const files: Zippable = {
    'account.json': json({ exportedAt: exportedAt.toISOString(), account: teacher, lessons }),
  };
  for (const lesson of lessons) {
    const folder = `lessons/${lesson.code}`;
    const snapshot = await store.loadRoomSnapshot(lesson.id);
    const boards = await store.listLessonBoards(lesson.id);
    files[`${folder}/lesson.json`] = json({ lesson, board: { elements: snapshot?.elements ?? [] }, activities: boards.activities });
    // Already compressed streams inside: stored, not deflated again.
    files[`${folder}/lesson.pdf`] = [await lessonPdf(store, lesson), { level: 0 }];
    const report = await store.loadAttendanceReport(lesson.id);
    if (report) files[`${folder}/attendance.csv`] = strToU8(attendanceCsv(report));
    for (const meta of await store.listLessonImages(lesson.id)) {
      const image = await store.getImage(lesson.id, meta.sha256);
      // Already compressed formats: stored as they are (level 0) rather than deflated again.
      if (image) files[`${folder}/images/${meta.sha256}.${EXTENSIONS[meta.mime] ?? 'bin'}`] = [new Uint8Array(image.data), { level: 0 }];
    }
  }
  return zipSync(files, { level: 6 });
}

const json = (value: unknown) => strToU8(`${JSON.stringify(value, null, 2)}\n`);
