import { z } from 'zod';
import { ElementShape } from './elements.ts';

/**
 * What a copy puts on the clipboard for another board (of this lesson or another, in this
 * browser or another): the shapes only, in drawing order. Ids, authors, versions and locks stay
 * behind: a paste creates new elements through `element.create`, under the server's rules.
 * Never sent to the server as such; validated here because it comes from outside the app.
 */
export const CLIPBOARD_TYPE = 'classroom-whiteboard/elements';
/** The clipboard's own MIME type (beside `image/svg+xml` and `text/plain` for other apps). */
export const CLIPBOARD_MIME = 'application/x-classroom-whiteboard+json';
/** Most elements one copy carries: a paste is this many creates, inside the unsynced-edit bound (500). */
export const MAX_CLIPBOARD_ELEMENTS = 200;
/** Largest clipboard text read (characters): 200 long pen strokes are about 9 MB; refuse past it. */
export const MAX_CLIPBOARD_CHARS = 10_000_000;

export const ClipboardPayload = z.strictObject({
  type: z.literal(CLIPBOARD_TYPE),
  version: z.literal(1),
  shapes: z.array(ElementShape).min(1).max(MAX_CLIPBOARD_ELEMENTS),
});
export type ClipboardPayload = z.infer<typeof ClipboardPayload>;

export type ClipboardRead =
  | { readonly ok: true; readonly payload: ClipboardPayload }
  /** `not_ours`: not a whiteboard copy at all (leave it to others); `malformed`: ours, but broken. */
  | { readonly ok: false; readonly reason: 'not_ours' | 'malformed' | 'too_large' };

/** The clipboard text of a copy of these shapes. */
export function writeClipboard(shapes: readonly ElementShape[]): string {
  const payload: ClipboardPayload = { type: CLIPBOARD_TYPE, version: 1, shapes: [...shapes] };
  return JSON.stringify(payload);
}

/**
 * Reads clipboard text: a whole, valid copy, or a refusal that takes nothing (one bad shape
 * refuses the whole paste, so nothing half-arrives).
 */
export function readClipboard(text: string): ClipboardRead {
  if (text.length > MAX_CLIPBOARD_CHARS) return { ok: false, reason: 'too_large' };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not_ours' };
  }
  if (typeof data !== 'object' || data === null || (data as { type?: unknown }).type !== CLIPBOARD_TYPE) return { ok: false, reason: 'not_ours' };
  const parsed = ClipboardPayload.safeParse(data);
  if (!parsed.success) return { ok: false, reason: parsed.error.issues.some((i) => i.code === 'too_big' && i.path.length === 1) ? 'too_large' : 'malformed' };
  return { ok: true, payload: parsed.data };
}
