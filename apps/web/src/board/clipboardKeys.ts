import { CLIPBOARD_MIME, MAX_CLIPBOARD_ELEMENTS, imageKindOf, readClipboard, type ClipboardRead, type ElementShape } from '@wb/protocol';
import { browserPictureStash, pastablePictures, stashCopiedPictures, type LessonPictures } from '../images/copiedPictures.ts';
import type { ImageLibrary } from '../images/imageLibrary.ts';
import type { BoardEditor } from '../elements/boardEditor.ts';
import { DUPLICATE_OFFSET, clipboardContent, clipboardPicture, placedAt, selectedShapes, shiftedBy, type ClipboardContent } from '../elements/clipboard.ts';
import type { Point } from '../elements/geometry.ts';
import { noRichClipboard, richClipboardAvailable, richClipboardTakes, writeRich } from '../platform/systemClipboard.ts';
import { pngOf } from './exportImage.ts';
import type { MessageId } from '@lingui/core';
import { i18n } from '../i18n/i18n.ts';

/**
 * The last copy, kept in this browser (localStorage) with the plain text it put on the system
 * clipboard: a browser that drops the whiteboard's own type from the clipboard still pastes the
 * elements when the clipboard's text is still what that copy wrote (another lesson, another tab).
 */
const LAST_COPY_KEY = 'wb.clipboard.v1';

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/** The page has text selected (the roster, a dialog): a copy of it is the browser's, not ours. */
function pageTextSelected(): boolean {
  const selection = document.getSelection();
  return selection !== null && !selection.isCollapsed && selection.toString().trim() !== '';
}

function remember(text: string, elements: string): void {
  try {
    localStorage.setItem(LAST_COPY_KEY, JSON.stringify({ text, elements }));
  } catch {
    // Storage full or blocked: the system clipboard still has the copy.
  }
}

function rememberedFor(text: string): string | null {
  try {
    const raw = localStorage.getItem(LAST_COPY_KEY);
    const kept = raw ? (JSON.parse(raw) as { text?: unknown; elements?: unknown }) : null;
    return kept && kept.text === text && typeof kept.elements === 'string' ? kept.elements : null;
  } catch {
    return null;
  }
}

/** What the paste event's clipboard holds for us: our type, else text that is our copy. */
function readPaste(data: DataTransfer): ClipboardRead {
  const own = data.getData(CLIPBOARD_MIME);
  if (own) return readClipboard(own);
  const text = data.getData('text/plain');
  if (!text) return { ok: false, reason: 'not_ours' };
  const direct = readClipboard(text);
  if (direct.ok || direct.reason !== 'not_ours') return direct;
  const kept = rememberedFor(text);
  return kept ? readClipboard(kept) : direct;
}

/**
 * Puts a PNG of the copy (and its SVG where the browser takes one) on the clipboard for other
 * apps, beside the same text, through the async Clipboard API: the copy event's clipboard takes
 * text types only. Both carry the copied images' pictures (`clipboardPicture`: fetched with the
 * session's token, as the export does); the write is asked for in the copy's task, with the
 * pictures as promises, so the browser still counts it as the person's gesture. That write
 * replaces the copy event's types, so the whiteboard's own type is then found through the
 * remembered copy (by its text). Only where `richClipboardAvailable()` (a secure context); a
 * browser that refuses (no focus, no permission) keeps what the copy event wrote.
 */
function addPicture(content: ClipboardContent, shapes: readonly ElementShape[]): void {
  const picture = clipboardPicture(shapes);
  void writeRich({
    'text/plain': new Blob([content.text], { type: 'text/plain' }),
    'image/png': picture.then(({ svg, bounds }) => pngOf(svg, bounds)),
    ...(richClipboardTakes('image/svg+xml')
      ? { 'image/svg+xml': picture.then(({ svg }) => new Blob([svg], { type: 'image/svg+xml' })) }
      : {}),
  });
}

const PASTE_REFUSED: Record<Exclude<ClipboardRead, { ok: true }>['reason'], MessageId | null> = {
  not_ours: null,
  malformed: 'paste.malformed',
  too_large: 'paste.tooLarge',
};

/** The open lesson's pictures as a paste needs them: known here, or uploaded from a copy's bytes. */
function lessonPicturesOf(images: ImageLibrary): LessonPictures {
  return {
    has: (sha256) => images.has(sha256),
    async upload(bytes) {
      const mime = imageKindOf(new Uint8Array(await bytes.slice(0, 16).arrayBuffer()));
      if (!mime) throw new Error('it is not a picture this board takes.');
      return (await images.upload(bytes, mime)).sha256;
    },
  };
}

/**
 * Ctrl/Cmd+C, X, V and D on the board: copy and cut write the selection to the system clipboard
 * (the whiteboard's own type, an SVG and text for other apps); paste creates the copied shapes
 * at the pointer through the editor's normal create path; duplicate copies the selection beside
 * itself. Typing and selected page text keep the browser's own copy and paste. A copy keeps its
 * images' bytes for the browser's other tabs (copiedPictures.ts); a paste uploads the pictures
 * its lesson lacks (`images`, the open lesson's library) before creating the shapes.
 * `pointer` is the last board point under the pointer (null: none yet), `viewCentre` the middle
 * of the view. Returns the detach function.
 */
export function attachClipboard(editor: BoardEditor, images: ImageLibrary, pointer: () => Point | null, viewCentre: () => Point): () => void {
  const stash = browserPictureStash();
  const lesson = lessonPicturesOf(images);
  let toldNoPicture = false;
  /** The selection's shapes, at most MAX_CLIPBOARD_ELEMENTS; past that the person is told. */
  const selection = () => {
    const { ordered, selection: ids } = editor.board.getState();
    if (ids.size > MAX_CLIPBOARD_ELEMENTS) editor.tell(i18n._('copy.tooMany', { max: MAX_CLIPBOARD_ELEMENTS }));
    return selectedShapes(ordered, ids);
  };

  const onCopy = (e: ClipboardEvent, cut: boolean) => {
    if (isTyping(e.target) || pageTextSelected() || !e.clipboardData) return;
    const shapes = selection();
    const content = clipboardContent(shapes);
    if (!content) return;
    e.preventDefault();
    e.clipboardData.setData(CLIPBOARD_MIME, content.elements);
    e.clipboardData.setData('image/svg+xml', content.svg);
    e.clipboardData.setData('text/plain', content.text);
    remember(content.text, content.elements);
    void stashCopiedPictures(shapes, (sha256) => images.blob(sha256), stash);
    if (richClipboardAvailable()) {
      addPicture(content, shapes);
    } else if (!toldNoPicture) {
      // Plain http (a LAN address): the copy pastes into any board; other apps get text. Said once.
      toldNoPicture = true;
      editor.tell(noRichClipboard());
    }
    if (cut) editor.delete(editor.board.getState().selection);
  };
  const copy = (e: ClipboardEvent) => onCopy(e, false);
  const cut = (e: ClipboardEvent) => onCopy(e, true);

  const paste = (e: ClipboardEvent) => {
    if (isTyping(e.target) || !e.clipboardData) return;
    const read = readPaste(e.clipboardData);
    if (!read.ok) {
      // Not ours (an image, some text): left alone. Ours but broken: nothing is created.
      const text = PASTE_REFUSED[read.reason];
      if (text) {
        e.preventDefault();
        editor.tell(i18n._(text));
      }
      return;
    }
    e.preventDefault();
    const placed = placedAt(read.payload.shapes, pointer() ?? viewCentre());
    if (!placed.some((s) => s.kind === 'image')) {
      editor.createMany(placed);
      return;
    }
    void pastablePictures(placed, lesson, stash, (text) => editor.tell(text)).then((shapes) => editor.createMany(shapes));
  };

  const keydown = (e: KeyboardEvent) => {
    if (isTyping(e.target) || e.altKey || e.shiftKey || !(e.ctrlKey || e.metaKey) || e.key.toLowerCase() !== 'd') return;
    const shapes = selection();
    if (shapes.length === 0) return;
    // Not the browser's bookmark shortcut: the selection is duplicated beside itself.
    e.preventDefault();
    editor.createMany(shiftedBy(shapes, DUPLICATE_OFFSET, DUPLICATE_OFFSET));
  };

  document.addEventListener('copy', copy);
  document.addEventListener('cut', cut);
  document.addEventListener('paste', paste);
  window.addEventListener('keydown', keydown);
  return () => {
    document.removeEventListener('copy', copy);
    document.removeEventListener('cut', cut);
    document.removeEventListener('paste', paste);
    window.removeEventListener('keydown', keydown);
  };
}
