import type { ElementShape, TextAlign } from '@wb/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { STICKY_FILL, type Bounds, type Point, type ToolStyle } from '../elements/geometry.ts';
import { FONT_SIZES, fontSizeOf, type TextSize } from '../elements/textStyle.ts';
import type { MessageId } from '@lingui/core';

export type Tool = 'select' | 'pen' | 'rect' | 'ellipse' | 'line' | 'arrow' | 'text' | 'sticky' | 'eraser';

/** Every tool with its label and single-key shortcut, in toolbar order (shown in the UI). */
export const TOOLS: ReadonlyArray<{ readonly tool: Tool; readonly label: MessageId; readonly key: string }> = [
  { tool: 'select', label: 'tool.select', key: 'V' },
  { tool: 'pen', label: 'tool.pen', key: 'P' },
  { tool: 'rect', label: 'tool.rect', key: 'R' },
  { tool: 'ellipse', label: 'tool.ellipse', key: 'O' },
  { tool: 'line', label: 'tool.line', key: 'L' },
  { tool: 'arrow', label: 'tool.arrow', key: 'A' },
  { tool: 'text', label: 'tool.text', key: 'T' },
  { tool: 'sticky', label: 'tool.sticky', key: 'S' },
  { tool: 'eraser', label: 'tool.eraser', key: 'E' },
];

/** Colours chosen for contrast on the light board; names (catalog ids) are what a screen reader says. */
export const COLORS: ReadonlyArray<{ readonly value: string; readonly name: MessageId }> = [
  { value: '#1e1e1e', name: 'color.black' },
  { value: '#e03131', name: 'color.red' },
  { value: '#2f9e44', name: 'color.green' },
  { value: '#1971c2', name: 'color.blue' },
  { value: '#f08c00', name: 'color.orange' },
  { value: '#9c36b5', name: 'color.purple' },
];

export const STROKE_WIDTHS: ReadonlyArray<{ readonly value: number; readonly name: MessageId }> = [
  { value: 2, name: 'width.thin' },
  { value: 4, name: 'width.medium' },
  { value: 8, name: 'width.thick' },
];

export interface ToolState {
  readonly tool: Tool;
  readonly style: ToolStyle;
  /** Shapes are filled with a light tint of the stroke colour. */
  readonly filled: boolean;
  /** How the next text box or note is set, and the next note's colour. */
  readonly text: { readonly size: TextSize; readonly align: TextAlign; readonly stickyFill: string };
}

export function createToolStore(tool: ToolState['tool'] = 'select'): StoreApi<ToolState> {
  return createStore<ToolState>(() => ({
    tool,
    style: { stroke: '#1e1e1e', fill: 'transparent', strokeWidth: 2 },
    filled: false,
    text: { size: 'M', align: 'left', stickyFill: STICKY_FILL },
  }));
}

/** The fill a shape tool uses: transparent, or the stroke colour mixed with white. */
export function fillFor(state: ToolState): string {
  if (!state.filled) return 'transparent';
  return tint(state.style.stroke, 0.8);
}

function tint(hex: string, amount: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const mix = (c: number) => Math.round(c + (255 - c) * amount).toString(16).padStart(2, '0');
  return `#${mix((n >> 16) & 255)}${mix((n >> 8) & 255)}${mix(n & 255)}`;
}

/** A shape being drawn (not yet an element): fast-changing, drawn from a subscription. */
export interface DraftView {
  readonly shape: ElementShape | null;
  /** The selection marquee being dragged, in board coordinates. */
  readonly marquee?: Bounds | null;
}

/** A text box or sticky note being typed into. */
export interface TextEdit {
  /** The element being edited, or null for a new one. */
  readonly elementId: string | null;
  readonly kind: 'text' | 'sticky';
  /** Top-left in board coordinates. */
  readonly at: Point;
  readonly text: string;
  /** How the field shows the text while it is typed: as the element will draw it. */
  readonly fontSize: number;
  readonly align: TextAlign;
  /** A note's colour. */
  readonly fill?: string;
  /** The box's size when editing an existing one (board units); a new one's is the default. */
  readonly size?: { readonly w: number; readonly h: number };
}

/** Editing an existing text box or note. */
export function editOf(elementId: string, shape: Extract<ElementShape, { kind: 'text' | 'sticky' }>): TextEdit {
  return {
    elementId,
    kind: shape.kind,
    at: { x: shape.x, y: shape.y },
    text: shape.text,
    fontSize: fontSizeOf(shape),
    align: shape.align ?? 'left',
    ...(shape.kind === 'sticky' ? { fill: shape.fill } : {}),
    size: { w: shape.w, h: shape.h },
  };
}

/** A new text box or note at `at`, set as the toolbar's text choices say. */
export function newEditAt(kind: 'text' | 'sticky', at: Point, state: ToolState): TextEdit {
  return {
    elementId: null,
    kind,
    at,
    text: '',
    fontSize: FONT_SIZES[kind][state.text.size],
    align: state.text.align,
    ...(kind === 'sticky' ? { fill: state.text.stickyFill } : {}),
  };
}
