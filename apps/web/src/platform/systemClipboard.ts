import { i18n } from '../i18n/i18n.ts';

/**
 * The system clipboard, on any origin (issue 35, I15). The async Clipboard API (`navigator.clipboard`,
 * `ClipboardItem`) exists only in a secure context (HTTPS or localhost): a student's tablet on
 * `http://<teacher's laptop>:3000` has neither. So text is copied through the API where it works
 * and through a selected, hidden textarea and `document.execCommand('copy')` where it does not;
 * rich content (a picture of copied shapes, for other apps) needs the API, and the caller says
 * what is missing. Copy and paste of shapes between boards use the copy and paste events, which
 * work everywhere (board/clipboardKeys.ts). `pnpm lint` keeps `navigator.clipboard` and
 * `ClipboardItem` in this file.
 */

/** What a plain-http page cannot do with the clipboard, in one line for the person. */
export function noRichClipboard(): string {
  return i18n._('copy.noRich');
}

/** Whether this page can put rich content (pictures) on the system clipboard. */
export function richClipboardAvailable(): boolean {
  return window.isSecureContext && typeof ClipboardItem !== 'undefined' && typeof navigator.clipboard?.write === 'function';
}

/** Whether the rich clipboard takes `type` (`image/svg+xml` is newer than `image/png`). */
export function richClipboardTakes(type: string): boolean {
  return richClipboardAvailable() && typeof ClipboardItem.supports === 'function' && ClipboardItem.supports(type);
}

/**
 * Copies `text` to the system clipboard. Call it from the person's click (or key), before any
 * other await: the fallback needs the gesture. False when neither way worked, so the caller can
 * ask the person to copy it by hand.
 */
export async function copyText(text: string): Promise<boolean> {
  if (window.isSecureContext && typeof navigator.clipboard?.writeText === 'function') {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Refused (no focus, a permission policy): the selection below may still work.
    }
  }
  return copyBySelection(text);
}

/**
 * Writes one clipboard item (its types to their data) through the async Clipboard API. False
 * where the page has no such API (plain http) or the browser refused.
 */
export async function writeRich(types: Record<string, Blob | Promise<Blob>>): Promise<boolean> {
  if (!richClipboardAvailable()) return false;
  try {
    await navigator.clipboard.write([new ClipboardItem(types)]);
    return true;
  } catch {
    return false;
  }
}

/** The way that works on every origin: select the text in a textarea and copy the selection. */
function copyBySelection(text: string): boolean {
  const before = document.activeElement;
  const area = document.createElement('textarea');
  area.value = text;
  area.readOnly = true;
  area.setAttribute('aria-hidden', 'true');
  area.style.cssText = 'position:fixed;top:0;left:0;width:1px;height:1px;opacity:0;pointer-events:none';
  // Inside an open modal dialog everything else is inert, and an inert textarea cannot be selected.
  (before?.closest('dialog[open]') ?? document.body).append(area);
  area.select();
  let copied: boolean;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  area.remove();
  if (before instanceof HTMLElement) before.focus();
  return copied;
}
