import type { SessionEndReason } from '@wb/protocol';
import { listAttendance, loadAttendanceReport } from './attendance.ts';
import { databaseClock, type Clock } from './clock.ts';
import type { Database } from './database.ts';
import {
  deleteLeaseIfRevision,
  findExpiredLeases,
  graceLeases,
  restoreLostLeases,
  listPresence,
  openLease,
  renewLeases,
  setLeaseConnected,
  type Lease,
  type RenewRequest,
} from './leases.ts';
import {
  createElement,
  deleteElement,
  pruneAppliedRequests,
  setElementPinned,
  updateElement,
  type EditActor,
} from './elements.ts';
import {
  acquireLock,
  breakLock,
  expireLockIfGeneration,
  extendLock,
  findExpiredLocks,
  graceLocks,
  readLock,
  releaseLock,
  type HeldLock,
} from './locks.ts';
import { createElements, type CreateRequest } from './createBatch.ts';
import { acquireLocks } from './groupLocks.ts';
import { clearBoard, listHistory, restoreBatch, restoreElementVersion } from './history.ts';
import { pruneElementVersions } from './elementVersions.ts';
import {
  createShareLink,
  decodeReplayCursor,
  lessonBoardsForReplay,
  openSharedLesson,
  readLessonReplay,
  readSharedBoard,
  readSharedReplay,
  setShareOptions,
  shareLinkState,
  sharedLessonId,
  turnOffShareLink,
} from './shareLinks.ts';
import { setLessonSettings, setPenMuted } from './lessonRights.ts';
import { lowerAllHands, setHand } from './hands.ts';
import { answerPoll, clockNow, closePoll, getPoll, listLessonPolls, openPoll, setBoardFlag, setTimer, showPoll } from './checks.ts';
import { endLesson, reopenLesson } from './lessonEnd.ts';
import { eventsAfter, findRoomEvent, pruneRoomLog } from './roomLog.ts';
import { createRoom, findRoomByCode, findRoomById, joinRoom, listMembers, readDrawRights } from './rooms.ts';
import { restoreMember } from './memberships.ts';
import { admitAllPending, admitMember, denyMember, setRequireApproval, withdrawFromLobby } from './lobby.ts';
import {
  archiveRoom,
  authenticateTeacherSession,
  closeTeacherSession,
  createTeacher,
  findTeacherCredentials,
  findTeacherRoom,
  listOpenTeacherLessons,
  listTeacherRooms,
  openTeacherSession,
  renameRoom,
  roomTeacherMember,
} from './teachers.ts';
import {
  consumePasswordReset,
  createPasswordReset,
  findTeacherById,
  listTeachers,
  openTeachingSessions,
  setTeacherStatus,
  signInWithIdentity,
} from './teacherDirectory.ts';
import { deleteTeacherAccount, purgeLesson, sweepRetention } from './retention.ts';
import { authenticateSession, closeSession, openSession, revokeMember } from './sessions.ts';
import { loadRoomSnapshot } from './snapshot.ts';
import {
  boardEventsAfter,
  currentActivity,
  listBoards,
  listLessonBoards,
  loadBoardSnapshot,
  openMyBoard,
  readableBoard,
  setActivityStatus,
  setBoardsShown,
  startActivity,
  type Reader,
} from './boards.ts';
import {
  addPage,
  deletePage,
  duplicatePage,
  gotoPage,
  lessonPages,
  lessonThumbnail,
  listPages,
  loadPageSnapshot,
  movePage,
  pageEventsAfter,
  readablePage,
  readablePageFor,
  readPageContent,
  restorePage,
  setPacing,
  startLesson,
  updatePage,
  type PageReader,
} from './pages.ts';
import { Lane, PRIORITY_OPERATIONS, inLane } from './lanes.ts';
import { getImage, hasImage, listLessonImages, putImage, type ImageCaps, type StoredImage } from './images.ts';
import { DEFAULT_ELEMENT_CAPS, type ElementCaps } from './elementCap.ts';
import { inOperation } from './statements.ts';

/**
 * The store's public face: named operations, each one conditional statement or one short
 * transaction, each returning a decision rather than throwing on a lost race (I3).
 * Every comparison against time uses `clock` (the database's `now()` in production, I2).
 */
export function createStore(database: Database, clock: Clock = databaseClock, elementCaps: ElementCaps = DEFAULT_ELEMENT_CAPS) {
  const { db } = database;
  return {
    database,
    clock,
    /** The cap on live elements per board every create is checked against (elementCap.ts). */
    elementCaps,
    ...countedOperations(operations(db, clock, elementCaps)),
  };
}

/** The store's operations; `createStore` counts each one's statements under its name. */
function operations(db: Database['db'], clock: Clock, caps: ElementCaps) {
  return {
    createRoom: (input: Parameters<typeof createRoom>[2]) => createRoom(db, clock, input, caps),
    findRoomByCode: (code: string) => findRoomByCode(db, code),
    findRoomById: (roomId: string) => findRoomById(db, roomId),
    readDrawRights: (roomId: string) => readDrawRights(db, roomId),
    joinRoom: (input: Parameters<typeof joinRoom>[2]) => joinRoom(db, clock, input),
    listMembers: (roomId: string) => listMembers(db, roomId),
    revokeMember: (input: Parameters<typeof revokeMember>[2]) => revokeMember(db, clock, input),
    restoreMember: (input: Parameters<typeof restoreMember>[2]) => restoreMember(db, clock, input),

    setRequireApproval: (input: Parameters<typeof setRequireApproval>[2]) => setRequireApproval(db, clock, input),
    admitMember: (input: Parameters<typeof admitMember>[2]) => admitMember(db, clock, input),
    admitAllPending: (input: Parameters<typeof admitAllPending>[2]) => admitAllPending(db, clock, input),
    denyMember: (input: Parameters<typeof denyMember>[2]) => denyMember(db, clock, input),
    withdrawFromLobby: (sessionId: string) => withdrawFromLobby(db, clock, { sessionId }),

    openSession: (input: Parameters<typeof openSession>[2]) => openSession(db, clock, input),
    authenticateSession: (tokenHash: string) => authenticateSession(db, clock, tokenHash),
    closeSession: (input: { sessionId: string; reason: SessionEndReason; requestId: string | null }) =>
      closeSession(db, clock, input),

    openLease: (input: Parameters<typeof openLease>[2]) => openLease(db, clock, input),
    renewLeases: (requests: readonly RenewRequest[], ttlMs: number) => renewLeases(db, clock, requests, ttlMs),
    findExpiredLeases: (limit: number) => findExpiredLeases(db, clock, limit),
    deleteLeaseIfRevision: (lease: Pick<Lease, 'roomId' | 'userId' | 'sessionId' | 'revision'>, requestId?: string) =>
      deleteLeaseIfRevision(db, clock, lease, requestId ?? null),
    graceLeases: (ttlMs: number) => graceLeases(db, clock, ttlMs),
    restoreLostLeases: (ttlMs: number) => restoreLostLeases(db, clock, ttlMs),
    setLeaseConnected: (sessionId: string, connected: boolean) => setLeaseConnected(db, sessionId, connected),
    listPresence: (roomId: string) => listPresence(db, roomId),

    loadRoomSnapshot: (roomId: string) => loadRoomSnapshot(db, roomId),
    eventsAfter: (roomId: string, afterRevision: number, limit: number) => eventsAfter(db, roomId, afterRevision, limit),
    pruneRoomLog: (keepPerRoom: number) => pruneRoomLog(db, keepPerRoom),
    findRoomEvent: (eventId: string) => findRoomEvent(db, eventId),
    listAttendance: (roomId: string) => listAttendance(db, roomId),
    loadAttendanceReport: (roomId: string) => loadAttendanceReport(db, clock, roomId),

    createTeacher: (input: Parameters<typeof createTeacher>[2]) => createTeacher(db, clock, input),
    findTeacherCredentials: (email: string) => findTeacherCredentials(db, email),
    openTeacherSession: (input: Parameters<typeof openTeacherSession>[2]) => openTeacherSession(db, clock, input),
    authenticateTeacherSession: (tokenHash: string) => authenticateTeacherSession(db, clock, tokenHash),
    closeTeacherSession: (tokenHash: string) => closeTeacherSession(db, clock, tokenHash),
    listTeacherRooms: (teacherId: string) => listTeacherRooms(db, teacherId),
    listOpenTeacherLessons: (teacherId: string, page: Parameters<typeof listOpenTeacherLessons>[2]) => listOpenTeacherLessons(db, teacherId, page),
    findTeacherRoom: (teacherId: string, code: string) => findTeacherRoom(db, teacherId, code),
    renameRoom: (input: Parameters<typeof renameRoom>[2]) => renameRoom(db, clock, input),
    archiveRoom: (input: Parameters<typeof archiveRoom>[2]) => archiveRoom(db, clock, input),
    roomTeacherMember: (roomId: string) => roomTeacherMember(db, roomId),
    /** Deletes one lesson with everything in it and its audit fact (retention.ts); null when nothing was deleted. */
    purgeLesson: (input: Parameters<typeof purgeLesson>[1]) => purgeLesson(db, input),
    /** One pass of the retention schedule: lessons unused for `days` days by this store's clock. */
    sweepRetention: (options: { days: number; batch: number }) => sweepRetention(db, clock, options),
    deleteTeacherAccount: (input: Parameters<typeof deleteTeacherAccount>[1]) => deleteTeacherAccount(db, input),
    signInWithIdentity: (input: Parameters<typeof signInWithIdentity>[2]) => signInWithIdentity(db, clock, input),
    listTeachers: (limit: number, teacherId?: string) => listTeachers(db, limit, teacherId ?? null),
    findTeacherById: (teacherId: string) => findTeacherById(db, teacherId),
    openTeachingSessions: (teacherId: string, limit: number) => openTeachingSessions(db, teacherId, limit),
    setTeacherStatus: (input: Parameters<typeof setTeacherStatus>[2]) => setTeacherStatus(db, clock, input),
    createPasswordReset: (input: Parameters<typeof createPasswordReset>[2]) => createPasswordReset(db, clock, input),
    consumePasswordReset: (input: Parameters<typeof consumePasswordReset>[2]) => consumePasswordReset(db, clock, input),

    createElement: (actor: EditActor, input: Parameters<typeof createElement>[3]) => createElement(db, clock, actor, input, caps),
    /** The creates of a batch (one room, or a lesson's boards) in one statement (createBatch.ts); results in request order. */
    createElements: (requests: readonly CreateRequest[]) => createElements(db, clock, requests, caps),
    updateElement: (actor: EditActor, input: Parameters<typeof updateElement>[3]) => updateElement(db, clock, actor, input),
    deleteElement: (actor: EditActor, input: Parameters<typeof deleteElement>[3]) => deleteElement(db, clock, actor, input),
    setElementPinned: (actor: EditActor, input: Parameters<typeof setElementPinned>[3]) =>
      setElementPinned(db, clock, actor, input),
    setLessonSettings: (actor: EditActor, patch: Parameters<typeof setLessonSettings>[3]) => setLessonSettings(db, clock, actor, patch),
    setPenMuted: (actor: EditActor, input: Parameters<typeof setPenMuted>[3]) => setPenMuted(db, clock, actor, input),
    setHand: (actor: EditActor, input: Parameters<typeof setHand>[3]) => setHand(db, clock, actor, input),
    lowerAllHands: (actor: EditActor) => lowerAllHands(db, clock, actor),

    // Checking for understanding (checks.ts): the timer, quick polls, flags on private boards.
    setTimer: (actor: EditActor, action: Parameters<typeof setTimer>[3], requestId: string) => setTimer(db, clock, actor, action, requestId),
    clockNow: () => clockNow(db, clock),
    openPoll: (actor: EditActor, input: Parameters<typeof openPoll>[3]) => openPoll(db, clock, actor, input),
    answerPoll: (actor: EditActor, input: Parameters<typeof answerPoll>[3]) => answerPoll(db, clock, actor, input),
    closePoll: (actor: EditActor, input: Parameters<typeof closePoll>[3]) => closePoll(db, clock, actor, input),
    showPoll: (actor: EditActor, input: Parameters<typeof showPoll>[3]) => showPoll(db, clock, actor, input),
    getPoll: (actor: EditActor) => getPoll(db, clock, actor),
    listLessonPolls: (lessonId: string) => listLessonPolls(db, lessonId),
    setBoardFlag: (actor: EditActor, input: Parameters<typeof setBoardFlag>[3]) => setBoardFlag(db, clock, actor, input),
    listHistory: (roomId: string, input: Parameters<typeof listHistory>[2]) => listHistory(db, roomId, input),
    restoreElementVersion: (actor: EditActor, input: Parameters<typeof restoreElementVersion>[3]) =>
      restoreElementVersion(db, clock, actor, input, caps),
    clearBoard: (actor: EditActor, input: Parameters<typeof clearBoard>[3]) => clearBoard(db, clock, actor, input),
    restoreBatch: (actor: EditActor, input: Parameters<typeof restoreBatch>[3]) => restoreBatch(db, clock, actor, input, caps),
    pruneElementVersions: (keepPerRoom: number) => pruneElementVersions(db, keepPerRoom),
    endLesson: (actor: EditActor) => endLesson(db, clock, actor),
    reopenLesson: (actor: EditActor) => reopenLesson(db, clock, actor),
    pruneAppliedRequests: (maxAgeMs: number) => pruneAppliedRequests(db, clock, maxAgeMs),

    // Activities and private boards (boards.ts, docs/boards.md). Element and lock operations work
    // on a board when the actor's `roomId` names it.
    startActivity: (actor: EditActor, input: Parameters<typeof startActivity>[3]) => startActivity(db, clock, actor, input, caps),
    openMyBoard: (actor: EditActor) => openMyBoard(db, clock, actor, caps),
    setActivityStatus: (actor: EditActor, input: Parameters<typeof setActivityStatus>[3]) => setActivityStatus(db, clock, actor, input),
    setBoardsShown: (actor: EditActor, input: Parameters<typeof setBoardsShown>[3]) => setBoardsShown(db, clock, actor, input),
    currentActivity: (lessonId: string) => currentActivity(db, lessonId),
    listLessonBoards: (lessonId: string) => listLessonBoards(db, lessonId),
    listBoards: (reader: Reader, activityId?: string) => listBoards(db, clock, reader, activityId),
    readableBoard: (reader: Reader, boardId: string) => readableBoard(db, clock, reader, boardId),
    loadBoardSnapshot: (reader: Reader, boardId: string) => loadBoardSnapshot(db, clock, reader, boardId),
    boardEventsAfter: (reader: Reader, boardId: string, afterRevision: number, limit: number) =>
      boardEventsAfter(db, clock, reader, boardId, afterRevision, limit),

    // Pages (pages.ts, docs/boards.md "Pages"): each page is a board; element and lock operations
    // work on a page when the actor's `roomId` names it. The list changes are the teacher's.
    lessonPages: (lessonId: string) => lessonPages(db, lessonId),
    lessonThumbnail: (lessonId: string) => lessonThumbnail(db, lessonId),
    listPages: (reader: PageReader) => listPages(db, clock, reader),
    readablePage: (reader: PageReader, pageId: string) => readablePage(db, clock, reader, pageId),
    /** `readablePage` for readers of one lesson at once (a class following the teacher), in one statement. */
    readablePageFor: (lessonId: string, readers: readonly PageReader[], pageId: string) => readablePageFor(db, clock, lessonId, readers, pageId),
    loadPageSnapshot: (reader: PageReader, pageId: string) => loadPageSnapshot(db, clock, reader, pageId),
    /** A page's revision and live elements, unchecked: call `readablePage` for the reader first. */
    readPageContent: (pageId: string) => readPageContent(db, pageId),
    pageEventsAfter: (reader: PageReader, pageId: string, afterRevision: number, limit: number) =>
      pageEventsAfter(db, clock, reader, pageId, afterRevision, limit),
    addPage: (actor: EditActor, input: Parameters<typeof addPage>[3]) => addPage(db, clock, actor, input),
    duplicatePage: (actor: EditActor, input: Parameters<typeof duplicatePage>[3]) => duplicatePage(db, clock, actor, input, caps),
    updatePage: (actor: EditActor, input: Parameters<typeof updatePage>[3]) => updatePage(db, clock, actor, input),
    movePage: (actor: EditActor, input: Parameters<typeof movePage>[3]) => movePage(db, clock, actor, input),
    deletePage: (actor: EditActor, input: Parameters<typeof deletePage>[3]) => deletePage(db, clock, actor, input),
    restorePage: (actor: EditActor, input: Parameters<typeof restorePage>[3]) => restorePage(db, clock, actor, input),
    gotoPage: (actor: EditActor, input: Parameters<typeof gotoPage>[3]) => gotoPage(db, clock, actor, input),
    setPacing: (actor: EditActor, input: Parameters<typeof setPacing>[3]) => setPacing(db, clock, actor, input),
    startLesson: (actor: EditActor) => startLesson(db, clock, actor),

    acquireLock: (actor: EditActor, input: Parameters<typeof acquireLock>[3]) => acquireLock(db, clock, actor, input),
    acquireLocks: (actor: EditActor, input: Parameters<typeof acquireLocks>[3]) => acquireLocks(db, clock, actor, input),
    extendLock: (input: Parameters<typeof extendLock>[2]) => extendLock(db, clock, input),
    releaseLock: (actor: EditActor, input: Parameters<typeof releaseLock>[3]) => releaseLock(db, clock, actor, input),
    breakLock: (actor: EditActor, input: Parameters<typeof breakLock>[3]) => breakLock(db, clock, actor, input),
    findExpiredLocks: (limit: number) => findExpiredLocks(db, clock, limit),
    expireLockIfGeneration: (lock: HeldLock) => expireLockIfGeneration(db, clock, lock),
    graceLocks: (ttlMs: number) => graceLocks(db, clock, ttlMs),
    readLock: (roomId: string, elementId: string) => readLock(db, roomId, elementId),

    // Images of a lesson (images.ts): the database implementation of `ImageStore`.
    putImage: (actor: EditActor, image: StoredImage, caps: ImageCaps) => putImage(db, clock, actor, image, caps),
    getImage: (lessonId: string, sha256: string) => getImage(db, lessonId, sha256),
    hasImage: (lessonId: string, sha256: string) => hasImage(db, lessonId, sha256),
    listLessonImages: (lessonId: string) => listLessonImages(db, lessonId),

    // Share links and replay (shareLinks.ts): the teacher's link to an ended lesson, what it shows.
    createShareLink: (input: Parameters<typeof createShareLink>[2]) => createShareLink(db, clock, input),
    setShareOptions: (input: Parameters<typeof setShareOptions>[1]) => setShareOptions(db, input),
    turnOffShareLink: (lessonId: string) => turnOffShareLink(db, clock, lessonId),
    shareLinkState: (lessonId: string) => shareLinkState(db, lessonId),
    openSharedLesson: (tokenHash: string) => openSharedLesson(db, tokenHash),
    sharedLessonId: (tokenHash: string) => sharedLessonId(db, tokenHash),
    readSharedBoard: (tokenHash: string, index: number) => readSharedBoard(db, tokenHash, index),
    readSharedReplay: (tokenHash: string, index: number, after: string | null) => readSharedReplay(db, tokenHash, index, cursorOf(after)),
    lessonBoardsForReplay: (lessonId: string, title: string) => lessonBoardsForReplay(db, lessonId, title),
    readLessonReplay: (lessonId: string, index: number, after: string | null) => readLessonReplay(db, lessonId, index, cursorOf(after)),
  };
}

/** A client's replay cursor: absent is the start; one this store did not write reads as the start too. */
const cursorOf = (after: string | null) => (after === null ? null : decodeReplayCursor(after));

/**
 * Each operation runs in a scope naming it, so the statements it sends are counted under its name,
 * and in its lane (lanes.ts): renewals and the handshake's operations take connections first.
 */
function countedOperations<T extends Record<string, (...args: never[]) => unknown>>(ops: T): T {
  const counted: Record<string, (...args: never[]) => unknown> = {};
  for (const [name, op] of Object.entries(ops)) {
    const lane = PRIORITY_OPERATIONS.has(name) ? Lane.PRIORITY : Lane.NORMAL;
    counted[name] = (...args) => inOperation(name, () => inLane(lane, () => op(...args)));
  }
  return counted as T;
}

export type Store = ReturnType<typeof createStore>;
