import type { ElementShape, TextAlign } from '@wb/protocol';

/**
 * How a text box's and a sticky note's lines are laid out: wrapped by an approximate character
 * width (no DOM measuring), each line's baseline, the text's direction. The board's SVG, its
 * canvas and the server's PDF export all place text with it, so a page of the PDF wraps as the
 * board does.
 */

/** A note's text size when it has none of its own (board units): notes are read from across a classroom. */
export const STICKY_DEFAULT_FONT_SIZE = 20;
export const STICKY_FONT_SIZE = STICKY_DEFAULT_FONT_SIZE;
export const STICKY_TEXT_COLOR = '#1e1e1e';

/** Lines of a text box, wrapped by an approximate character width (no DOM measuring here). */
export function wrapLines(text: string, width: number, fontSize: number): string[] {
  const perLine = Math.max(1, Math.floor(width / (fontSize * 0.55)));
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    const words = raw.split(/(\s+)/);
    let line = '';
    for (const word of words) {
      if ([...line].length + [...word].length > perLine && line.trim() !== '') {
        lines.push(line.trimEnd());
        line = word.trimStart();
      } else {
        line += word;
      }
    }
    lines.push(line);
  }
  return lines;
}

/** Baseline-to-baseline distance of wrapped lines, in font sizes. */
const LINE_HEIGHT = 1.25;

/** Letters of the scripts written right to left. */
const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}]/u;

/**
 * A text's base direction as `dir="auto"` decides it: by its first strong (letter) character, so
 * "12 طالبًا" reads right to left with its number on the right, "x = 12" left to right, and the
 * text box being typed (a `dir="auto"` textarea) shows the same as the board. No letter: ltr.
 */
export function textDirection(text: string): 'ltr' | 'rtl' {
  const first = /\p{L}/u.exec(text);
  return first && RTL_LETTER.test(first[0]) ? 'rtl' : 'ltr';
}

/** A laid-out text box: each line with the y of its baseline, anchored at `x` as `align` says. */
export interface TextBlock {
  /** Where lines are anchored: the box's left edge, middle or right edge (by `align`). */
  readonly x: number;
  /** Physical, whatever the direction: `left` is the box's left edge for Arabic text too. */
  readonly align: TextAlign;
  /** The text's base direction (`textDirection`): the bidi algorithm orders each line by it. */
  readonly direction: 'ltr' | 'rtl';
  readonly fontSize: number;
  readonly fill: string;
  readonly lines: ReadonlyArray<{ readonly text: string; readonly y: number }>;
}

function layoutText(text: string, x: number, y: number, width: number, fontSize: number, fill: string, maxHeight: number, align: TextAlign): TextBlock {
  const lineHeight = fontSize * LINE_HEIGHT;
  const maxLines = Math.max(1, Math.floor(maxHeight / lineHeight));
  const lines = wrapLines(text, width, fontSize)
    .slice(0, maxLines)
    .map((l, i) => ({ text: l, y: y + fontSize + i * lineHeight }));
  const anchor = align === 'center' ? x + width / 2 : align === 'right' ? x + width : x;
  return { x: anchor, align, direction: textDirection(text), fontSize, fill, lines };
}

/** The lines of a text box or a sticky note and where they sit (lines that do not fit are cut). */
export function textBlock(shape: Extract<ElementShape, { kind: 'text' | 'sticky' }>): TextBlock {
  const align = shape.align ?? 'left';
  return shape.kind === 'text'
    ? layoutText(shape.text, shape.x + 4, shape.y + 2, shape.w - 8, shape.fontSize, shape.stroke, Math.max(shape.h, shape.fontSize * LINE_HEIGHT), align)
    : layoutText(shape.text, shape.x + 14, shape.y + 10, shape.w - 28, shape.fontSize ?? STICKY_FONT_SIZE, STICKY_TEXT_COLOR, shape.h - 20, align);
}

