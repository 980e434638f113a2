import { ErrorCode, ImageUploadReply, MAX_IMAGE_BYTES, type ImageMime } from '@wb/protocol';
import { ApiError, errorFrom } from '../api/roomsApi.ts';
import { imageBecameReady, type ImagePictures } from './imageRefs.ts';

type Entry =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly url: string; readonly picture: HTMLImageElement; readonly blob: Blob }
  /** Not in this lesson (another lesson's copy pasted here), or refused: the placeholder stays. */
  | { readonly status: 'missing' };

/** After a failed load (network, busy server) the image is asked for again no sooner than this (ms). */
const RETRY_AFTER_MS = 5_000;

/**
 * The lesson's images as the page shows them. Each picture is fetched once per hash with the
 * session's bearer token (the same credentials as every other lesson request: an `<img>` could not
 * send them), kept as an object URL for the SVG layer and a decoded `<img>` for the canvas, and
 * given back when the page leaves. The server answers with `Cache-Control: private, immutable`, so
 * a reload reads the browser's cache. Bounded by the lesson's image cap (docs/protocol.md).
 */
export class ImageLibrary implements ImagePictures {
  private readonly entries = new Map<string, Entry>();
  private readonly failedAt = new Map<string, number>();
  private disposed = false;

  /**
   * `base` is where the lesson's images are: by default the lesson's own route (with the bearer
   * token); a share link's viewer reads them from the link's (`/api/shared/<token>/images`, token null).
   */
  constructor(
    lessonId: string,
    private readonly token: string | null,
    private readonly base = `/api/rooms/${encodeURIComponent(lessonId)}/images`,
  ) {}

  private url(sha256?: string): string {
    return `${this.base}${sha256 ? `/${sha256}` : ''}`;
  }

  private get headers(): Record<string, string> {
    return this.token === null ? {} : { authorization: `Bearer ${this.token}` };
  }

  href(sha256: string): string | null {
    const entry = this.load(sha256);
    return entry?.status === 'ready' ? entry.url : null;
  }

  picture(sha256: string): HTMLImageElement | null {
    const entry = this.load(sha256);
    return entry?.status === 'ready' ? entry.picture : null;
  }

  async dataUri(sha256: string): Promise<string | null> {
    const entry = this.entries.get(sha256) ?? (await this.fetchEntry(sha256));
    if (entry.status !== 'ready') return null;
    return new Promise((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : null);
      reader.onerror = () => resolve(null);
      reader.readAsDataURL(entry.blob);
    });
  }

  /** The picture's bytes (loaded here, else fetched), or null when the lesson has none. */
  async blob(sha256: string): Promise<Blob | null> {
    const known = this.entries.get(sha256);
    const entry = known?.status === 'ready' ? known : await this.fetchEntry(sha256);
    return entry.status === 'ready' ? entry.blob : null;
  }

  /** Whether the lesson holds the picture: shown here already, or found on the server. */
  async has(sha256: string): Promise<boolean> {
    return (await this.blob(sha256)) !== null;
  }

  /**
   * Uploads checked bytes (imageUpload.ts) of the given kind; the answer names the stored image.
   * Refusals arrive as ApiError with the server's code (`unsupported_image`, `payload_too_large`,
   * `quota_exceeded`, `forbidden_by_policy`, `rate_limited`).
   */
  async upload(bytes: Blob, mime: ImageMime): Promise<ImageUploadReply> {
    if (bytes.size > MAX_IMAGE_BYTES) throw new ApiError(413, ErrorCode.PAYLOAD_TOO_LARGE, 'This image is larger than 10 MB.');
    let response: Response;
    try {
      response = await fetch(this.url(), { method: 'POST', headers: { ...this.headers, 'content-type': mime }, body: bytes });
    } catch {
      throw new ApiError(0, ErrorCode.UNAVAILABLE, 'Cannot reach the server. Check your connection and try again.');
    }
    const body: unknown = await response.json().catch(() => null);
    if (!response.ok) throw errorFrom(response.status, body);
    const reply = ImageUploadReply.safeParse(body);
    if (!reply.success) throw new ApiError(response.status, ErrorCode.UNAVAILABLE, 'The server sent an unexpected reply.');
    // The bytes are here already: no need to download them again to show them.
    if (this.entries.get(reply.data.sha256)?.status !== 'ready') await this.keep(reply.data.sha256, bytes);
    return reply.data;
  }

  /** Gives every object URL back (the page is leaving the lesson). */
  dispose(): void {
    this.disposed = true;
    for (const entry of this.entries.values()) if (entry.status === 'ready') URL.revokeObjectURL(entry.url);
    this.entries.clear();
  }

  private load(sha256: string): Entry | undefined {
    const entry = this.entries.get(sha256);
    if (entry) return entry;
    if (Date.now() - (this.failedAt.get(sha256) ?? -Infinity) < RETRY_AFTER_MS) return undefined;
    void this.fetchEntry(sha256);
    return this.entries.get(sha256);
  }

  private async fetchEntry(sha256: string): Promise<Entry> {
    this.entries.set(sha256, { status: 'loading' });
    try {
      const response = await fetch(this.url(sha256), { headers: this.headers });
      if (response.status === 404 || response.status === 403) {
        const missing = { status: 'missing' } as const;
        this.entries.set(sha256, missing);
        return missing;
      }
      if (!response.ok) throw new Error(`image ${sha256}: ${response.status}`);
      return await this.keep(sha256, await response.blob());
    } catch {
      // Network or server trouble: asked again on a later draw, after RETRY_AFTER_MS.
      this.entries.delete(sha256);
      this.failedAt.set(sha256, Date.now());
      return { status: 'missing' };
    }
  }

  private async keep(sha256: string, blob: Blob): Promise<Entry> {
    const url = URL.createObjectURL(blob);
    const picture = new Image();
    picture.src = url;
    try {
      await picture.decode();
    } catch {
      URL.revokeObjectURL(url);
      const missing = { status: 'missing' } as const;
      this.entries.set(sha256, missing);
      return missing;
    }
    if (this.disposed) {
      URL.revokeObjectURL(url);
      return { status: 'missing' };
    }
    const ready = { status: 'ready', url, picture, blob } as const;
    this.entries.set(sha256, ready);
    imageBecameReady(sha256);
    return ready;
  }
}
