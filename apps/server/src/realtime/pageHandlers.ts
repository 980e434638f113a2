/**
 * Pages (issue 39, docs/boards.md "Pages"). A page is a board: its events go to its room channel
 * (`roomChannel(pageId)`), which a socket joins by `page.sync` once the store said it may read the
 * page (a live page of its lesson; for a student while paced, the teacher's page only). Element
 * edits and locks on a page take the class board's handlers with the page's id as `boardId`, and
 * the store decides them (a paced student off the teacher's page only looks, I11).
 *
 * The list changes are the teacher's (a student's, hand-written or not, is refused `forbidden`
 * with nothing changed); each applied one publishes `pages.updated` to the lesson. When the class
 * is paced and the teacher's page changes (or pacing comes back), the students' sockets leave the
 * channel of every other page, so a paced student receives only the page they are on (I12) besides
 * the lesson's own board, whose channel is the lesson's.
 */
import type { PagesResult, Store } from '@wb/db';
import { ClientEvent, ErrorCode, forbiddenText, refusalText, type LessonPages, type ProtocolError } from '@wb/protocol';
import type { BoardAccess } from './boardAccess.ts';
import { roleChannel, roomChannel } from './channels.ts';
import type { ClientEventHandlers } from './clientEvents.ts';
import { Refusal } from './requests.ts';
import type { RoomPublisher } from './roomPublisher.ts';
import type { SocketSession } from './socketSession.ts';
import { BOARD_SYNCS_PER_TEACHER } from './boardHandlers.ts';
import { REPLAY_LIMIT, SYNC_REQUESTS_PER_MEMBER } from './syncHandlers.ts';
import { TokenBucket } from './tokenBucket.ts';
import type { WbServer } from './types.ts';

type PageEvents =
  | typeof ClientEvent.PAGE_ADD
  | typeof ClientEvent.PAGE_DUPLICATE
  | typeof ClientEvent.PAGE_UPDATE
  | typeof ClientEvent.PAGE_MOVE
  | typeof ClientEvent.PAGE_DELETE
  | typeof ClientEvent.PAGE_RESTORE
  | typeof ClientEvent.PAGE_GOTO
  | typeof ClientEvent.PAGE_PACING
  | typeof ClientEvent.PAGE_LIST
  | typeof ClientEvent.PAGE_SYNC
  | typeof ClientEvent.LESSON_START;

export interface PageDeps {
  io: WbServer;
  store: Store;
  publisher: RoomPublisher;
  endRevoked(session: SocketSession): void;
  access: BoardAccess;
}

export const pageRefusals = {
  forbidden: { code: ErrorCode.FORBIDDEN, message: forbiddenText.teacherOnly },
  not_found: { code: ErrorCode.NOT_FOUND, message: 'This lesson has no such page.' },
  last_page: { code: ErrorCode.LAST_PAGE, message: refusalText.last_page },
  too_many_pages: { code: ErrorCode.CONFLICT, message: 'This lesson has as many pages as it may hold; delete one to add another.' },
  board_full: { code: ErrorCode.BOARD_FULL, message: refusalText.board_full },
  paced: { code: ErrorCode.PAGE_PACED, message: refusalText.page_paced },
} as const satisfies Record<string, ProtocolError>;

export function pageHandlers(deps: PageDeps): Pick<ClientEventHandlers, PageEvents> {
  const { io, store, publisher, access } = deps;
  const budgets = new WeakMap<SocketSession, TokenBucket>();
  /**
   * The page reads in flight, by page: a read asked for while one is due or runs shares it, when
   * that read starts after the asker joined the page's channel (so every event after the read
   * reaches the asker); otherwise a new read is due and later askers share that one. A read starts
   * at the end of the turn it is asked in (`setImmediate`), not at once: a class's checks end
   * together (`checkReader`) and each asker joins the channel in its own continuation, so a read
   * started by the first would be older than the second's join, and each student read the page
   * alone (30 reads a switch on one connection).
   */
  interface Read {
    startedAt: number | null;
    readonly read: ReturnType<Store['readPageContent']>;
  }
  const reading = new Map<string, Read>();
  const sharedContent = (pageId: string, joinedAt: number) => {
    const running = reading.get(pageId);
    if (running && (running.startedAt === null || running.startedAt >= joinedAt)) return running.read;
    const entry: Read = {
      startedAt: null,
      read: new Promise<void>((start) => setImmediate(start)).then(() => {
        entry.startedAt = performance.now();
        return store.readPageContent(pageId);
      }),
    };
    reading.set(pageId, entry);
    void entry.read.finally(() => reading.get(pageId) === entry && reading.delete(pageId)).catch(() => {});
    return entry.read;
  };
  /**
   * Reader checks of one page, batched: a class following the teacher asks for her new page within
   * a few milliseconds, and one statement per student kept the embedded database (one connection)
   * busy for most of the switch. The first check runs at once; those asked while it runs wait for
   * it and then go together in one statement (`readablePageFor`), each still decided on its own and
   * by a statement that began after it was asked.
   */
  type Readable = Awaited<ReturnType<Store['readablePage']>>;
  interface Waiting {
    readonly reader: ReturnType<typeof reader>;
    readonly done: (readable: Readable) => void;
    readonly failed: (error: unknown) => void;
  }
  const checking = new Map<string, Waiting[]>();
  const checkReader = (who: ReturnType<typeof reader>, pageId: string) =>
    new Promise<Readable>((done, failed) => {
      const key = `${who.lessonId} ${pageId}`;
      const line = checking.get(key);
      if (line) {
        line.push({ reader: who, done, failed });
        return;
      }
      const waiting: Waiting[] = [{ reader: who, done, failed }];
      checking.set(key, waiting);
      void (async () => {
        while (waiting.length > 0) {
          const batch = waiting.splice(0);
          try {
            const decided = await store.readablePageFor(who.lessonId, batch.map((w) => w.reader), pageId);
            for (const w of batch) w.done(decided.get(w.reader.sessionId) ?? { decision: 'not_a_member' });
          } catch (error) {
            for (const w of batch) w.failed(error);
          }
        }
        checking.delete(key);
      })();
    });
  const reader = (session: SocketSession) => ({ lessonId: session.roomId, sessionId: session.sessionId, userId: session.userId });
  const refuseMember = (session: SocketSession): never => {
    deps.endRevoked(session);
    throw new Refusal({ code: ErrorCode.MEMBERSHIP_REVOKED, message: refusalText.membership_revoked });
  };

  /** Paced: every student socket of the lesson leaves every page channel but the teacher's page. */
  const keepStudentsOn = (lessonId: string, pages: LessonPages) => {
    if (pages.pacing !== 'paced') return;
    for (const page of pages.pages) {
      if (page.id === pages.currentPageId || page.id === lessonId) continue;
      io.in(roleChannel(lessonId, 'student')).socketsLeave(roomChannel(page.id));
    }
  };

  const settle = (session: SocketSession, result: PagesResult): { pages: LessonPages } => {
    switch (result.decision) {
      case 'applied':
        keepStudentsOn(session.roomId, result.pages);
        publisher.publish(result.events);
        return { pages: result.pages };
      case 'already_applied':
        return { pages: result.pages };
      case 'not_a_member':
        return refuseMember(session);
      default:
        throw new Refusal(pageRefusals[result.decision]);
    }
  };

  return {
    [ClientEvent.PAGE_ADD]: async (session, request) => settle(session, await store.addPage(session.actor, request)),
    [ClientEvent.PAGE_DUPLICATE]: async (session, request) => settle(session, await store.duplicatePage(session.actor, request)),
    [ClientEvent.PAGE_UPDATE]: async (session, request) => settle(session, await store.updatePage(session.actor, request)),
    [ClientEvent.PAGE_MOVE]: async (session, request) => settle(session, await store.movePage(session.actor, request)),
    [ClientEvent.PAGE_DELETE]: async (session, request) => settle(session, await store.deletePage(session.actor, request)),
    [ClientEvent.PAGE_RESTORE]: async (session, request) => settle(session, await store.restorePage(session.actor, request)),
    [ClientEvent.PAGE_GOTO]: async (session, request) => settle(session, await store.gotoPage(session.actor, request)),
    [ClientEvent.PAGE_PACING]: async (session, request) => settle(session, await store.setPacing(session.actor, request)),

    [ClientEvent.PAGE_LIST]: async (session) => {
      const listed = await store.listPages(reader(session));
      if (listed === 'not_a_member') return refuseMember(session);
      return listed;
    },

    [ClientEvent.PAGE_SYNC]: async (session, request) => {
      let budget = budgets.get(session);
      if (!budget) {
        const { perSec, burst } = session.role === 'teacher' ? BOARD_SYNCS_PER_TEACHER : SYNC_REQUESTS_PER_MEMBER;
        budgets.set(session, (budget = new TokenBucket(perSec, burst, Date.now())));
      }
      if (!budget.take(Date.now())) throw new Refusal({ code: ErrorCode.RATE_LIMITED, message: refusalText.rate_limited });
      const who = reader(session);
      const readable = await checkReader(who, request.pageId);
      if (readable.decision === 'not_a_member') return refuseMember(session);
      if (readable.decision !== 'ok') throw new Refusal(pageRefusals[readable.decision]);
      // Joined before the read, so no event between the read and the join is missed.
      await session.socket.join(roomChannel(request.pageId));
      const joinedAt = performance.now();
      access.subscribedPage(session, request.pageId);
      if (request.lastRevision !== undefined) {
        const replay = await store.pageEventsAfter(who, request.pageId, request.lastRevision, REPLAY_LIMIT);
        if ('decision' in replay) {
          if (replay.decision === 'not_a_member') return refuseMember(session);
          throw new Refusal(pageRefusals[replay.decision]);
        }
        if (replay.kind === 'replay') {
          return { sync: { kind: 'replay' as const, pageId: request.pageId, fromRevision: request.lastRevision, events: replay.events } };
        }
      }
      // A class moving to the page at once shares one read of it (I14); each reader was checked above.
      const content = await sharedContent(request.pageId, joinedAt);
      return { sync: { kind: 'snapshot' as const, snapshot: { page: readable.page, ...content } } };
    },

    [ClientEvent.LESSON_START]: async (session) => {
      const result = await store.startLesson(session.actor);
      switch (result.decision) {
        case 'applied':
          publisher.publish(result.events);
          return { room: result.room };
        case 'already_applied':
          return { room: result.room };
        case 'forbidden':
          throw new Refusal(pageRefusals.forbidden);
        case 'not_a_member':
          return refuseMember(session);
      }
    },
  };
}
