/**
 * Equations are typeset by KaTeX, loaded on first use (a dynamic import: the initial bundle does
 * not carry it). KaTeX writes MathML, which Chromium, Firefox and Safari draw natively: one
 * markup for the board, the SVG export (inside a `foreignObject`) and the PNG export (that SVG
 * drawn on a canvas), with no stylesheet or web fonts to inline. The MathML keeps the LaTeX
 * source as its `annotation`, so an exported SVG still says what was written.
 *
 * Until KaTeX has loaded, `equationMathml` answers null and callers show the source as text; the
 * first such request starts the load, and `onEquationRendererLoaded` listeners redraw.
 */
import type { KatexOptions } from 'katex';
import { LRUCache } from 'lru-cache';

type Katex = typeof import('katex').default;

let katex: Katex | null = null;
let loading: Promise<void> | null = null;
const listeners = new Set<() => void>();

/** Typeset results kept by source (a board shows the same equations on every redraw). */
const MAX_CACHED = 500;
const cache = new LRUCache<string, string>({ max: MAX_CACHED });

/**
 * No `\href`, `\url`, `\includegraphics` or HTML extensions (`trust` off); KaTeX's own limits
 * bound macro expansion (a hostile `\def` loop ends in an error, not a hang).
 */
const OPTIONS: KatexOptions = { output: 'mathml', displayMode: true, throwOnError: false, trust: false, strict: 'ignore', maxExpand: 1000, maxSize: 50 };

/** Starts loading KaTeX (once) and resolves when equations can be typeset. */
export function loadEquationRenderer(): Promise<void> {
  loading ??= import('katex').then((module) => {
    katex = module.default;
    for (const listener of listeners) listener();
  });
  return loading;
}

export function equationRendererReady(): boolean {
  return katex !== null;
}

/**
 * Called once KaTeX has loaded; never if it already had (markup made since was typeset). Returns
 * the unsubscribe.
 */
export function onEquationRendererLoaded(listener: () => void): () => void {
  if (katex) return () => {};
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * The MathML of `latex`, or null while KaTeX is loading (the request starts the load). Invalid
 * LaTeX typesets as KaTeX's error span: the source in red, the message in its title.
 */
export function equationMathml(latex: string): string | null {
  if (!katex) {
    void loadEquationRenderer();
    return null;
  }
  let markup = cache.get(latex);
  if (markup === undefined) {
    markup = katex.renderToString(latex, OPTIONS);
    cache.set(latex, markup);
  }
  return markup;
}

/** KaTeX's message for invalid LaTeX (shown under the preview), null when it parses or before load. */
export function equationError(latex: string): string | null {
  if (!katex) return null;
  try {
    katex.renderToString(latex, { ...OPTIONS, throwOnError: true });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
