/**
 * An equation's LaTeX as SVG paths for the PDF export: MathJax (mathjax-full, TeX input, SVG
 * output with `fontCache: 'none'`, so every glyph is a path and no font is needed in the PDF).
 * The board typesets with KaTeX in the browser; MathJax is the maintained typesetter that gives
 * vector paths on the server. Their layouts differ by a few percent; the formula is placed at the
 * equation box's top-left corner at the element's font size, as the board places it.
 */
import type { LiteElement } from 'mathjax-full/js/adaptors/lite/Element.js';
import { liteAdaptor } from 'mathjax-full/js/adaptors/liteAdaptor.js';
import { RegisterHTMLHandler } from 'mathjax-full/js/handlers/html.js';
import { TeX } from 'mathjax-full/js/input/tex.js';
import { AllPackages } from 'mathjax-full/js/input/tex/AllPackages.js';
import { mathjax } from 'mathjax-full/js/mathjax.js';
import { SVG } from 'mathjax-full/js/output/svg.js';

export interface EquationSvg {
  /** A standalone SVG document, drawn in `color`. */
  readonly markup: string;
  /** Its size in ems (MathJax's viewBox is in thousandths of an em). */
  readonly widthEm: number;
  readonly heightEm: number;
}

let converter: ((latex: string) => string) | null = null;

function typesetter(): (latex: string) => string {
  if (converter) return converter;
  const adaptor = liteAdaptor();
  RegisterHTMLHandler(adaptor);
  // `noerrors`/`noundefined` (in AllPackages) draw a bad formula's source instead of throwing.
  const document = mathjax.document('', { InputJax: new TeX({ packages: AllPackages }), OutputJax: new SVG({ fontCache: 'none' }) });
  converter = (latex) => adaptor.innerHTML(document.convert(latex, { display: false }) as LiteElement);
  return converter;
}

/** Typeset formulas by source and colour: a class pack repeats the same equation on every page. */
const cache = new Map<string, EquationSvg>();
const CACHE_LIMIT = 500;

export function equationSvg(latex: string, color: string): EquationSvg {
  const key = `${color}\n${latex}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const raw = typesetter()(latex);
  const box = /viewBox="([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)"/.exec(raw);
  const widthEm = box ? Number(box[3]) / 1000 : 1;
  const heightEm = box ? Number(box[4]) / 1000 : 1;
  const result = { markup: raw.replaceAll('currentColor', color), widthEm, heightEm };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, result);
  return result;
}
