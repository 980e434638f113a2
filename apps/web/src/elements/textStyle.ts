import type { ElementShape, TextAlign } from '@wb/protocol';
import { STICKY_FONT_SIZE } from './elementSvg.ts';
import { fitText } from './geometry.ts';
import type { MessageId } from '@lingui/core';

/**
 * Text boxes' and sticky notes' style, pure: the four sizes, the alignments and the note colours
 * the toolbar offers, which of them a shape has, and the shape a choice makes of it.
 */

export type TextSize = 'S' | 'M' | 'L' | 'XL';
export const TEXT_SIZES: readonly TextSize[] = ['S', 'M', 'L', 'XL'];
export const TEXT_SIZE_NAMES: Record<TextSize, MessageId> = { S: 'size.small', M: 'size.medium', L: 'size.large', XL: 'size.extraLarge' };
/** Font sizes (board units) per size: a text box's M is the old default, 24; a note's M is 20. */
export const FONT_SIZES: Record<'text' | 'sticky', Record<TextSize, number>> = {
  text: { S: 16, M: 24, L: 36, XL: 56 },
  sticky: { S: 16, M: STICKY_FONT_SIZE, L: 28, XL: 40 },
};

export const TEXT_ALIGNS: ReadonlyArray<{ readonly value: TextAlign; readonly name: MessageId }> = [
  { value: 'left', name: 'align.left' },
  { value: 'center', name: 'align.center' },
  { value: 'right', name: 'align.right' },
];

/** Note colours: light enough for the notes' dark text (#1e1e1e on each is at least 10:1). */
export const STICKY_COLORS: ReadonlyArray<{ readonly value: string; readonly name: MessageId }> = [
  { value: '#fff3a8', name: 'color.yellow' },
  { value: '#ffd8a8', name: 'color.orange' },
  { value: '#ffc9de', name: 'color.pink' },
  { value: '#d0bfff', name: 'color.purple' },
  { value: '#c5e4ff', name: 'color.blue' },
  { value: '#c3f0c8', name: 'color.green' },
];

type TextShape = Extract<ElementShape, { kind: 'text' | 'sticky' }>;

export function isTextShape(shape: ElementShape): shape is TextShape {
  return shape.kind === 'text' || shape.kind === 'sticky';
}

export function fontSizeOf(shape: TextShape): number {
  return shape.kind === 'text' ? shape.fontSize : (shape.fontSize ?? STICKY_FONT_SIZE);
}

/** The named size a shape's font has, or null for a size set otherwise (none of the four). */
export function textSizeOf(shape: TextShape): TextSize | null {
  const size = fontSizeOf(shape);
  return TEXT_SIZES.find((s) => FONT_SIZES[shape.kind][s] === size) ?? null;
}

/** The text style a choice in the toolbar asks for (any part of it). */
export interface TextStylePatch {
  readonly size?: TextSize;
  readonly align?: TextAlign;
  /** A note's colour. */
  readonly fill?: string;
}

/**
 * The shape with the chosen style, or the same object when nothing changes (so the toolbar sends
 * no edit). A text box grows to fit a larger font; `left` is stored as no field.
 */
export function restyleText(shape: ElementShape, patch: TextStylePatch): ElementShape {
  if (!isTextShape(shape)) return shape;
  const fontSize = patch.size ? FONT_SIZES[shape.kind][patch.size] : fontSizeOf(shape);
  const align = patch.align ?? shape.align ?? 'left';
  const fill = shape.kind === 'sticky' && patch.fill ? patch.fill : undefined;
  if (fontSize === fontSizeOf(shape) && align === (shape.align ?? 'left') && (fill === undefined || (shape.kind === 'sticky' && fill === shape.fill))) return shape;
  const { align: _old, ...rest } = shape;
  const aligned = align === 'left' ? rest : { ...rest, align };
  if (aligned.kind === 'text') return fitText({ ...aligned, fontSize });
  const { fontSize: _size, ...note } = aligned;
  return { ...note, fill: fill ?? note.fill, ...(fontSize === STICKY_FONT_SIZE ? {} : { fontSize }) };
}
