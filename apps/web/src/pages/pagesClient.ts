/**
 * The lesson's pages on the client (issue 39, docs/boards.md "Pages"). Decides only *which* page a
 * person looks at and asks the connection to follow that page's engine; the server decides every
 * rule (a paced student's read of another page is refused `page_paced`, a student's list change
 * `forbidden`), and this mirrors its decisions:
 *
 * - the teacher is on the lesson's current page (her `page.goto` moves it);
 * - a paced student is on the teacher's page and moves when she moves (`pages.updated`);
 * - a free student chooses; when pacing comes back they are on the teacher's page again.
 *
 * The lesson's own page is the class board (always followed); another page gets an engine of its
 * own while looked at (the teacher keeps the ones she visited, for the strip's live thumbnails).
 */
import { ClientEvent, type ClientRequest, type LessonPages, type Pacing, type Page, type Paper, type ProtocolError, type RoomEvent } from '@wb/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Request } from '../connection/request.ts';
import { randomUuid } from '../session/randomId.ts';

type PageChange =
  | typeof ClientEvent.PAGE_ADD
  | typeof ClientEvent.PAGE_DUPLICATE
  | typeof ClientEvent.PAGE_UPDATE
  | typeof ClientEvent.PAGE_MOVE
  | typeof ClientEvent.PAGE_DELETE
  | typeof ClientEvent.PAGE_RESTORE
  | typeof ClientEvent.PAGE_GOTO
  | typeof ClientEvent.PAGE_PACING;

export interface PagesView {
  /** The lesson's pages as last heard (null until the first `page.list`). */
  pages: LessonPages | null;
  /** Teacher only: deleted pages she may restore, newest last. */
  deleted: Page[];
  /** The page on this person's stage. */
  viewing: string | null;
  /** The last refusal of one of this person's page requests, for a notice. */
  refusal: ProtocolError | null;
}

export interface PagesPorts {
  request: Request;
  /** Follow a page's engine (not the lesson's own page: that is the class board). */
  show(page: Page): void;
  /** Stop following a page's engine. */
  hide(pageId: string): void;
  /** A free student went to a page (their own choice, or taken to the teacher's by the attention kit). */
  chose?(pageId: string): void;
}

/** Pages whose engines a teacher keeps for the strip's live thumbnails, at most (I10). */
export const KEPT_PAGE_ENGINES = 12;

export class PagesClient {
  readonly store: StoreApi<PagesView> = createStore<PagesView>(() => ({ pages: null, deleted: [], viewing: null, refusal: null }));
  /** Pages with an engine, in the order they were last looked at. */
  private followed: string[] = [];
  /** The lesson revision of the newest `pages.updated` applied. */
  private appliedRevision = -1;

  constructor(
    private readonly ports: PagesPorts,
    private readonly self: { lessonId: string; role: 'teacher' | 'student' },
  ) {}

  /** After every (re)connect: page subscriptions are per socket, so list and follow again. */
  async reconnected(): Promise<void> {
    const listed = await this.ports.request(ClientEvent.PAGE_LIST, {});
    if (!listed.ok) return;
    const { deleted, ...pages } = listed;
    this.store.setState({ deleted });
    // Subscriptions are per socket: every followed page is asked for again.
    for (const id of this.followed) this.ports.hide(id);
    this.followed = [];
    this.apply(pages);
  }

  /** A room event: the lesson's `pages.updated`. */
  receiveEvent(event: RoomEvent): void {
    if (event.roomId !== this.self.lessonId || event.kind !== 'pages.updated') return;
    // Newest first wins (I1): a late or repeated event older than the one applied changes nothing.
    if (event.revision <= this.appliedRevision) return;
    this.appliedRevision = event.revision;
    this.apply(event.payload);
  }

  private apply(pages: LessonPages): void {
    const { viewing } = this.store.getState();
    const live = (id: string | null) => id !== null && pages.pages.some((p) => p.id === id);
    const next = this.self.role === 'student' && pages.pacing === 'free' && live(viewing) ? viewing! : pages.currentPageId;
    this.store.setState({ pages, viewing: next });
    this.follow(pages, next);
  }

  /** Follows the page on the stage; drops the engines no longer needed. */
  private follow(pages: LessonPages, viewing: string): void {
    const page = pages.pages.find((p) => p.id === viewing);
    if (page && page.id !== this.self.lessonId) {
      this.ports.show(page);
      this.followed = [...this.followed.filter((id) => id !== page.id), page.id];
    }
    // A student keeps only the page they look at (the server takes a paced one out of the others);
    // the teacher the pages she visited last, for the strip's live thumbnails.
    const livePages = new Set(pages.pages.map((p) => p.id));
    const teacher = this.self.role === 'teacher';
    const wanted = this.followed.filter((id) => livePages.has(id) && (teacher || id === viewing)).slice(teacher ? -KEPT_PAGE_ENGINES : -1);
    for (const id of this.followed) if (!wanted.includes(id)) this.ports.hide(id);
    this.followed = wanted;
  }

  /** Go to a page: the teacher moves the class (paced); a free student moves alone (to a live page). */
  async go(pageId: string): Promise<void> {
    const pages = this.store.getState().pages;
    if (!pages) return;
    if (this.self.role === 'teacher') {
      await this.ask(ClientEvent.PAGE_GOTO, { pageId });
      return;
    }
    if (pages.pacing !== 'free' || !pages.pages.some((p) => p.id === pageId) || this.store.getState().viewing === pageId) return;
    this.store.setState({ viewing: pageId });
    this.follow(pages, pageId);
    this.ports.chose?.(pageId);
  }

  /** Teacher: a new blank page (on the paper given) after the one she is on, and go there. */
  async add(background?: Paper): Promise<void> {
    const pages = this.store.getState().pages;
    const pageId = randomUuid();
    const added = await this.ask(ClientEvent.PAGE_ADD, { pageId, afterPageId: pages?.currentPageId ?? null, ...(background ? { background } : {}) });
    if (added) await this.go(pageId);
  }

  /** Teacher: a copy of a page right after it, and go there. */
  async duplicate(sourcePageId: string): Promise<void> {
    const pageId = randomUuid();
    if (await this.ask(ClientEvent.PAGE_DUPLICATE, { pageId, sourcePageId })) await this.go(pageId);
  }

  async rename(pageId: string, title: string): Promise<void> {
    await this.ask(ClientEvent.PAGE_UPDATE, { pageId, title });
  }

  async setBackground(pageId: string, background: Paper): Promise<void> {
    await this.ask(ClientEvent.PAGE_UPDATE, { pageId, background });
  }

  /** Teacher: move a page one place earlier (-1) or later (+1). */
  async shift(pageId: string, by: -1 | 1): Promise<void> {
    const order = this.store.getState().pages?.pages.map((p) => p.id) ?? [];
    const at = order.indexOf(pageId);
    const to = at + by;
    if (at < 0 || to < 0 || to >= order.length) return;
    const rest = order.filter((id) => id !== pageId);
    const afterPageId = to === 0 ? null : rest[to - 1]!;
    await this.ask(ClientEvent.PAGE_MOVE, { pageId, afterPageId });
  }

  /** Teacher: delete a page (restorable with `undoDelete`). */
  async remove(pageId: string): Promise<void> {
    const page = this.store.getState().pages?.pages.find((p) => p.id === pageId);
    if (!page) return;
    if (await this.ask(ClientEvent.PAGE_DELETE, { pageId })) this.store.setState((s) => ({ deleted: [...s.deleted.filter((p) => p.id !== pageId), page] }));
  }

  /** Teacher: restore the page deleted last. */
  async undoDelete(): Promise<void> {
    const last = this.store.getState().deleted.at(-1);
    if (!last) return;
    if (await this.ask(ClientEvent.PAGE_RESTORE, { pageId: last.id })) this.store.setState((s) => ({ deleted: s.deleted.filter((p) => p.id !== last.id) }));
  }

  /** Teacher: let students browse, or pace them again ("bring everyone to this page"). */
  async setPacing(pacing: Pacing): Promise<void> {
    await this.ask(ClientEvent.PAGE_PACING, { pacing });
  }

  /** Teacher: start a prepared lesson. */
  async startLesson(): Promise<boolean> {
    const reply = await this.ports.request(ClientEvent.LESSON_START, {});
    if (!reply.ok) this.store.setState({ refusal: reply.error });
    return reply.ok;
  }

  dismissRefusal(): void {
    this.store.setState({ refusal: null });
  }

  /**
   * A teacher's list change. Its outcome arrives as `pages.updated` in the lesson's log (published
   * before the reply is sent), ordered by revision with every other change, so the reply's list is
   * not applied: a reply may overtake a newer tab's event, the log never does.
   */
  private async ask<E extends PageChange>(event: E, payload: ClientRequest<E>): Promise<boolean> {
    const reply = await this.ports.request(event, payload);
    if (!reply.ok) {
      this.store.setState({ refusal: reply.error });
      return false;
    }
    return true;
  }
}
