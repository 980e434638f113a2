/**
 * A PDF imported by the teacher as lesson pages (issue 39, "PDF and images in as pages"): each PDF
 * page becomes a new page of the lesson, inserted after the page she was on (the PDF's first page
 * right after it, its second after that, ...), titled "worksheet.pdf · 2", with the page's picture
 * as the board's pinned background at (0, 0), so the class writes on it and nothing lands on
 * existing work. After the first page is made she goes to it (a paced class with her), so it is
 * usable while the rest import.
 *
 * Every step is an ordinary request the server decides (I11): `page.add` (teacher-only), then
 * `element.create` on the new page's board, then `element.pin` (teacher-only). Each is idempotent
 * by the ids chosen here, so a retry after `unavailable` asks the same thing again. A refused step
 * stops the import and is told: a page whose picture could not be pinned is left as it is, for
 * the teacher to see (and delete), never silently half-made.
 */
import { ClientEvent, ErrorCode, type ClientRequest, type ElementShape, type ProtocolError } from '@wb/protocol';
import type { Request } from '../connection/request.ts';
import { randomUuid } from '../session/randomId.ts';
import type { PlacedPicture } from '../images/imagePlacement.ts';
import type { PagesClient } from './pagesClient.ts';

/**
 * A page picture's longer side on the board, in board units. Pages are rendered at up to 1,600
 * pixels (pdfImport.ts `PDF_PAGE_SIDE`): shown at half that, an A4 page (566 × 800) fits a laptop's
 * view at 100 % and stays sharp at 200 %.
 */
export const PAGE_PICTURE_SIDE = 800;
/** A page title's most characters (protocol `PageTitle`). */
const PAGE_TITLE_MAX = 60;
/** Times a step is asked again when the server did not answer (each is idempotent). */
const RETRIES = 2;

type ImageShape = Extract<ElementShape, { kind: 'image' }>;
type Step = typeof ClientEvent.PAGE_ADD | typeof ClientEvent.ELEMENT_CREATE | typeof ClientEvent.ELEMENT_PIN;

/** The picture of an imported page: at the board's origin, its proportions kept, never larger than its pixels. */
export function pageBackgroundShape(picture: PlacedPicture, side = PAGE_PICTURE_SIDE): ImageShape {
  const scale = Math.min(1, side / Math.max(picture.width, picture.height));
  const w = Math.round(picture.width * scale * 100) / 100;
  const h = Math.round(picture.height * scale * 100) / 100;
  return { kind: 'image', x: 0, y: 0, w, h, sha256: picture.sha256, naturalWidth: picture.width, naturalHeight: picture.height };
}

/**
 * "worksheet.pdf · 2": the file's name and the page's number, the name shortened (with "…") so the
 * whole fits a page title. `format` is the catalog's pattern; `name` may be empty (a pasted PDF).
 */
export function importedPageTitle(format: (name: string, page: number) => string, fileName: string, page: number): string {
  // Control characters and bidi overrides are refused in a title (protocol `printable`).
  const clean = fileName.replace(/[\p{Cc}\u202A-\u202E\u2066-\u2069]/gu, ' ').trim();
  const whole = format(clean, page);
  if (whole.length <= PAGE_TITLE_MAX) return whole;
  const room = PAGE_TITLE_MAX - (whole.length - clean.length) - 1;
  return format(`${clean.slice(0, Math.max(0, room)).trimEnd()}…`, page).slice(0, PAGE_TITLE_MAX);
}

export interface PdfPagesPorts {
  readonly request: Request;
  readonly pages: Pick<PagesClient, 'store' | 'go'>;
}

/** One imported page's outcome: its page id, or the refusal that stopped the import (and the page it left, if any). */
export type PagePlaced = { ok: true; pageId: string } | { ok: false; error: ProtocolError; pageId: string | null };

/** Places one PDF's pages as lesson pages, in order, after the page the teacher was on when it began. */
export class PdfPageMaker {
  private after: string | null;
  private made = 0;

  constructor(
    private readonly ports: PdfPagesPorts,
    private readonly title: (page: number) => string,
  ) {
    this.after = ports.pages.store.getState().pages?.currentPageId ?? null;
  }

  /** Makes page `pageIndex + 1` of the PDF with `picture` as its pinned background; the first one made is gone to. */
  async place(pageIndex: number, picture: PlacedPicture): Promise<PagePlaced> {
    const pageId = randomUuid();
    const added = await this.ask(ClientEvent.PAGE_ADD, { pageId, afterPageId: this.after, title: this.title(pageIndex + 1) });
    if (!added.ok) return { ok: false, error: added.error, pageId: null };
    this.after = pageId;
    const elementId = randomUuid();
    const created = await this.ask(ClientEvent.ELEMENT_CREATE, { requestId: requestId(), id: elementId, shape: pageBackgroundShape(picture), boardId: pageId });
    if (!created.ok) return { ok: false, error: created.error, pageId };
    const pinned = await this.ask(ClientEvent.ELEMENT_PIN, { requestId: requestId(), elementId, pinned: true, boardId: pageId });
    if (!pinned.ok) return { ok: false, error: pinned.error, pageId };
    this.made += 1;
    // The first page is ready: the teacher (and a paced class) goes to it while the rest import.
    if (this.made === 1) await this.ports.pages.go(pageId);
    return { ok: true, pageId };
  }

  /** A step, asked again (same ids, so the same request) while the server does not answer. */
  private async ask<E extends Step>(event: E, payload: ClientRequest<E>): Promise<{ ok: true } | { ok: false; error: ProtocolError }> {
    let reply = await this.ports.request(event, payload);
    for (let retry = 0; !reply.ok && reply.error.code === ErrorCode.UNAVAILABLE && retry < RETRIES; retry++) reply = await this.ports.request(event, payload);
    return reply.ok ? { ok: true } : { ok: false, error: reply.error };
  }
}

const requestId = () => randomUuid().replaceAll('-', '');
