import type { Page } from '@playwright/test';

/** The part of the page's read-only `window.__wb` debug hook the board tests read. */
export interface BoardElementInfo {
  id: string;
  kind: string;
  version: number;
  x: number;
  y: number;
  pinned: boolean;
  lockedBy: string | null;
  /** The whole shape (size, rotation, text, …) as the room has it. */
  shape: Record<string, unknown> & { kind: string };
}

interface BoardHook {
  boardHash(): string | null;
  elements(): BoardElementInfo[];
  state(): { presence: Array<{ sessionId: string }> };
}

type WithHook = { __wb?: BoardHook };

/** Confirmed elements on this screen (from room events, not local drafts). */
export const elementsOf = (page: Page) => page.evaluate(() => (window as unknown as WithHook).__wb?.elements() ?? []);

/** Hash of the durable board: equal on two screens that applied the same state. */
export const hashOf = (page: Page) => page.evaluate(() => (window as unknown as WithHook).__wb?.boardHash() ?? null);

export const sessionsOf = (page: Page) =>
  page.evaluate(() => ((window as unknown as WithHook).__wb?.state().presence ?? []).map((p) => p.sessionId).sort());
