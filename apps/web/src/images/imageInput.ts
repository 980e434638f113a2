import type { BoardEditor } from '../elements/boardEditor.ts';
import type { Bounds, Point } from '../elements/geometry.ts';
import { ApiError } from '../api/roomsApi.ts';
import type { ImageLibrary } from './imageLibrary.ts';
import { rotatedBounds } from '../elements/geometry.ts';
import { IMAGE_GAP, imageShapesAt, inFreeSpot, type PlacedPicture } from './imagePlacement.ts';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { prepareImage } from './imageUpload.ts';
import { errorMessage, refusalMessage } from '../i18n/errors.ts';
import type { PagePlaced } from '../pages/pdfPages.ts';
import { i18n } from '../i18n/i18n.ts';

/** Files handled from one drop or pick at most (a folder's worth dropped by mistake is not uploaded whole). */
export const MAX_FILES_AT_ONCE = 20;

export interface ImageInputPorts {
  readonly editor: BoardEditor;
  readonly library: ImageLibrary;
  /** Where a paste or a pick lands: the last board point under the pointer, else the middle of the view. */
  readonly placeAt: () => Point;
  /** The board point under a drop. */
  readonly boardPointOf: (e: { clientX: number; clientY: number }) => Point;
  /** The teacher imports PDF worksheets; for anyone else a PDF is refused like any other non-image. */
  readonly acceptPdf: boolean;
  /** Where a PDF import in progress is told, for its progress bar (PdfImportBar.tsx). */
  readonly pdfImports: StoreApi<PdfImportView | null>;
  /**
   * The teacher's: a PDF's pages become lesson pages (pages/pdfPages.ts), one per PDF page, and
   * never land on this board. Absent, each page is placed on this board at a free spot.
   */
  readonly pdfPages?: PdfPagesPort | undefined;
}

/** Where a PDF's pages go as lesson pages: one maker per import, and where its messages are told (the board on the stage). */
export interface PdfPagesPort {
  start(fileName: string): { place(pageIndex: number, picture: PlacedPicture): Promise<PagePlaced> };
  tell(text: string): void;
}

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/** A PDF import in progress: its name, pages placed, pages to import (null until the file is open). */
export interface PdfImportView {
  readonly name: string;
  readonly done: number;
  readonly total: number | null;
  readonly cancel: () => void;
}

/** The page's PDF import state, shared by the board's image input and the progress bar over the board. */
export const createPdfImports = (): StoreApi<PdfImportView | null> => createStore<PdfImportView | null>(() => null);

/** Where an import's pages go: the point asked for, and the last page placed. */
interface PageColumn {
  readonly at: Point;
  last: Bounds | null;
}

const isPdf = (file: File) => file.type === 'application/pdf' || /\.pdf$/i.test(file.name);

/**
 * Pictures added to the board: pasted (Ctrl+V with an image on the clipboard), dropped on the board,
 * or picked with the toolbar's Image button. Each file is checked and, when needed, scaled down in
 * the browser (imageUpload.ts), uploaded to the lesson (imageLibrary.ts) and then created as an
 * image element through the editor's normal create path: the server decides, as for any element.
 * Files added together are placed one below the other. A refused file is explained and skipped.
 */
export class ImageInput {
  /** The PDF import in progress; null when none. */
  private readonly pdfImport: StoreApi<PdfImportView | null>;

  constructor(private readonly ports: ImageInputPorts) {
    this.pdfImport = ports.pdfImports;
  }

  /** Uploads and places files; resolves when every one is placed or refused. */
  async addFiles(files: readonly File[], at: Point = this.ports.placeAt()): Promise<void> {
    const { editor } = this.ports;
    if (editor.board.getState().readOnly) {
      editor.tell(i18n._('image.cannotAdd'));
      return;
    }
    if (files.length > MAX_FILES_AT_ONCE) editor.tell(i18n._('image.tooMany', { max: MAX_FILES_AT_ONCE }));
    const placed: PlacedPicture[] = [];
    for (const file of files.slice(0, MAX_FILES_AT_ONCE)) {
      if (isPdf(file) && this.ports.acceptPdf) {
        await this.importPdf(file, at);
        continue;
      }
      const picture = await this.upload(file, file.name ? i18n._('image.quotedName', { name: file.name }) : i18n._('image.pasted'));
      if (picture) placed.push(picture);
    }
    this.place(placed, at);
  }

  /** Checks and uploads one picture; null (after telling why) when it is refused. */
  async upload(file: Blob, name: string, tell = (text: string) => this.ports.editor.tell(text)): Promise<PlacedPicture | null> {
    const { library } = this.ports;
    const prepared = await prepareImage(file, name);
    if (!prepared.ok) {
      tell(prepared.message);
      return null;
    }
    try {
      const stored = await library.upload(prepared.bytes, prepared.mime);
      return { sha256: stored.sha256, width: stored.width, height: stored.height };
    } catch (error) {
      tell(error instanceof ApiError ? i18n._('image.notAddedBecause', { name, reason: errorMessage(error, 'image.notAddedPlain') }) : i18n._('image.notAdded', { name }));
      return null;
    }
  }

  /**
   * A PDF worksheet (pdfImport.ts, loaded with pdf.js on first use): its pages rendered off the
   * main thread one by one, each uploaded and placed as it lands, so the first page is there to
   * write on while the rest import. The teacher's (`pdfPages`) become lesson pages, one per PDF
   * page, the first gone to as soon as it is made; without that port they are placed on this board.
   * `pdfImport` tells the progress bar the page count; its Cancel stops between pages (the pages
   * already made stay: lesson pages the teacher may delete, or board images one undo step each).
   * One import at a time. Resolves with what was made: page ids, or element ids on this board.
   */
  async importPdf(file: File, at: Point): Promise<string[]> {
    const { editor, pdfPages } = this.ports;
    // Once the first page is made the stage moves to it: messages go to the board on the stage.
    const tell = (text: string) => (pdfPages ? pdfPages.tell(text) : editor.tell(text));
    const name = file.name ? i18n._('image.quotedName', { name: file.name }) : i18n._('image.thePdf');
    if (this.pdfImport.getState() !== null) {
      tell(i18n._('image.pdfBusy'));
      return [];
    }
    const controller = new AbortController();
    this.pdfImport.setState({ name, done: 0, total: null, cancel: () => controller.abort() }, true);
    const placed: string[] = [];
    const column: PageColumn = { at, last: null };
    const asPages = pdfPages?.start(file.name);
    try {
      const pdf = await import('./pdfImport.ts');
      const result = await pdf.importPdfPages(file, {
        signal: controller.signal,
        onOpened: (pages, total) => {
          this.pdfImport.setState((s) => s && { ...s, total: pages }, true);
          if (total > pages) tell(i18n._('image.pdfTooLong', { name, total, max: pages }));
        },
        onPage: async (pageIndex, image) => {
          const picture = await this.upload(image, i18n._('image.pdfPage', { page: pageIndex + 1, name }), tell);
          if (!picture || controller.signal.aborted) return false;
          if (asPages) {
            const made = await asPages.place(pageIndex, picture);
            if (!made.ok) {
              tell(i18n._('image.pdfPageRefused', { page: pageIndex + 1, name, reason: refusalMessage(made.error.code) }));
              return false;
            }
            placed.push(made.pageId);
          } else {
            placed.push(...this.placeImportedPage(pageIndex, picture, column));
          }
          this.pdfImport.setState((s) => s && { ...s, done: pageIndex + 1 }, true);
          return true;
        },
      });
      if (result.cancelled) tell(i18n._('image.pdfCancelled', { name, count: placed.length }));
    } catch {
      tell(i18n._('image.pdfUnreadable', { name }));
    } finally {
      this.pdfImport.setState(null, true);
    }
    return placed;
  }

  /**
   * Where one imported PDF page goes on this board, when it does not become a lesson page: below
   * the import's previous page, moved to a free spot when that would cover anything on the board
   * (issue 40: never on top of existing work).
   */
  placeImportedPage(pageIndex: number, picture: PlacedPicture, column: PageColumn): string[] {
    const [shape] = imageShapesAt(column.at, [picture]);
    if (!shape) return [];
    const below = column.last && { ...shape, x: column.last.x + (column.last.w - shape.w) / 2, y: column.last.y + column.last.h + IMAGE_GAP };
    const existing = this.ports.editor.board.getState().ordered.map((e) => rotatedBounds(e.shape));
    const [free] = inFreeSpot([below ?? shape], existing);
    if (!free) return [];
    column.last = { x: free.x, y: free.y, w: free.w, h: free.h };
    return this.ports.editor.createMany([free]);
  }

  /** Creates image elements for uploaded pictures, one below the other, as one undoable step, selected. */
  place(pictures: readonly PlacedPicture[], at: Point): string[] {
    return this.ports.editor.createMany(imageShapesAt(at, pictures));
  }

  /** Listens for pasted and dropped files on the page and the board; returns the detach function. */
  attach(surface: HTMLElement): () => void {
    const paste = (e: ClipboardEvent) => {
      // The board's own copies are pasted by clipboardKeys.ts (it claims the event first).
      if (e.defaultPrevented || isTyping(e.target) || !e.clipboardData) return;
      const files = [...e.clipboardData.files].filter((f) => f.type.startsWith('image/') || isPdf(f));
      if (files.length === 0) return;
      e.preventDefault();
      void this.addFiles(files);
    };
    const dragover = (e: DragEvent) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    };
    const drop = (e: DragEvent) => {
      const files = [...(e.dataTransfer?.files ?? [])];
      if (files.length === 0) return;
      e.preventDefault();
      void this.addFiles(files, this.ports.boardPointOf(e));
    };
    document.addEventListener('paste', paste);
    surface.addEventListener('dragover', dragover);
    surface.addEventListener('drop', drop);
    return () => {
      document.removeEventListener('paste', paste);
      surface.removeEventListener('dragover', dragover);
      surface.removeEventListener('drop', drop);
    };
  }
}
