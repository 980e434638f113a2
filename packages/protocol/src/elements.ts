import { z } from 'zod';
import { ImageHash, MAX_IMAGE_SIDE } from './images.ts';
import { Coordinate, RequestId, Revision, SessionId, UserId } from './primitives.ts';

/**
 * Board elements. Every shape is in board coordinates. Limits keep one element well under the
 * 64 KB message limit (a pen stroke of 1,500 points is about 45 KB as JSON).
 */
export const MAX_PEN_POINTS = 1_500;
export const MAX_TEXT_LENGTH = 4_000;
/**
 * Longest LaTeX source of an equation, in characters: a page of working fits, a KaTeX layout of it
 * stays well under a frame. Longer is refused `bad_request` (the message names `shape.latex`).
 */
export const MAX_LATEX_LENGTH = 2_000;
/** Largest width or height of a box element, in board units. */
export const MAX_ELEMENT_SIZE = 100_000;

export const ElementId = z.uuid();
export const Color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour is #rrggbb');
export const Fill = z.union([Color, z.literal('transparent')]);
export const StrokeWidth = z.number().finite().min(0.5).max(64);
const Size = z.number().finite().min(0).max(MAX_ELEMENT_SIZE);
const Offset = z.number().finite().min(-MAX_ELEMENT_SIZE).max(MAX_ELEMENT_SIZE);
// Text may hold newlines and tabs; other control characters and bidi overrides are refused.
const printableText = /^(?:[\n\t]|[^\p{Cc}\u202A-\u202E\u2066-\u2069])*$/u;
const ElementText = z.string().max(MAX_TEXT_LENGTH).regex(printableText, 'text cannot contain control characters');
const LatexSource = z
  .string()
  .min(1)
  .max(MAX_LATEX_LENGTH, `an equation is at most ${MAX_LATEX_LENGTH} characters of LaTeX`)
  .regex(printableText, 'an equation cannot contain control characters')
  .refine((latex) => latex.trim() !== '', 'an equation needs some LaTeX');

/**
 * A box's turn about its centre, in degrees clockwise, [0, 360). Optional: left out means 0, so
 * elements stored before rotation existed stay valid. Lines, arrows and pen strokes have none:
 * turning them moves their points.
 */
export const Rotation = z.number().finite().min(0).lt(360);
const FontSize = z.number().finite().min(4).max(400);
/** How a text box's or note's lines sit in it; left out means `left`. */
export const TextAlign = z.enum(['left', 'center', 'right']);
export type TextAlign = z.infer<typeof TextAlign>;
const ImagePixels = z.number().int().min(1).max(MAX_IMAGE_SIDE);
const box = { x: Coordinate, y: Coordinate, w: Size, h: Size, rotation: Rotation.optional() };

/** The drawable part of an element, one strict shape per kind (unknown fields are refused). */
export const ElementShape = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('rect'), ...box, stroke: Color, fill: Fill, strokeWidth: StrokeWidth }),
  z.strictObject({ kind: z.literal('ellipse'), ...box, stroke: Color, fill: Fill, strokeWidth: StrokeWidth }),
  /** A straight segment from (x, y) to (x + dx, y + dy). */
  z.strictObject({ kind: z.literal('line'), x: Coordinate, y: Coordinate, dx: Offset, dy: Offset, stroke: Color, strokeWidth: StrokeWidth }),
  z.strictObject({ kind: z.literal('arrow'), x: Coordinate, y: Coordinate, dx: Offset, dy: Offset, stroke: Color, strokeWidth: StrokeWidth }),
  /** Freehand: points relative to (x, y), each [dx, dy, pressure 0..1]. */
  z.strictObject({
    kind: z.literal('pen'),
    x: Coordinate,
    y: Coordinate,
    points: z.array(z.tuple([Offset, Offset, z.number().finite().min(0).max(1)])).min(1).max(MAX_PEN_POINTS),
    stroke: Color,
    strokeWidth: StrokeWidth,
  }),
  z.strictObject({ kind: z.literal('text'), ...box, text: ElementText, stroke: Color, fontSize: FontSize, align: TextAlign.optional() }),
  /** `fontSize` and `align` are optional: left out, a note's text is 20 and left-aligned. */
  z.strictObject({ kind: z.literal('sticky'), ...box, text: ElementText, fill: Color, fontSize: FontSize.optional(), align: TextAlign.optional() }),
  /**
   * A picture stored in the lesson (images.ts), drawn stretched to its box. `naturalWidth` and
   * `naturalHeight` are the stored pixels (for proportions and a placeholder while it loads).
   */
  z.strictObject({ kind: z.literal('image'), ...box, sha256: ImageHash, naturalWidth: ImagePixels, naturalHeight: ImagePixels }),
  /**
   * An equation: LaTeX source typeset by the client (KaTeX) in `stroke` at `fontSize`, laid out
   * from the box's top-left corner. The box is the size the author's client measured; the server
   * checks only the source (non-empty, at most MAX_LATEX_LENGTH, printable), never parses it.
   */
  z.strictObject({ kind: z.literal('equation'), ...box, latex: LatexSource, stroke: Color, fontSize: FontSize }),
]);
export type ElementShape = z.infer<typeof ElementShape>;
export type ElementKind = ElementShape['kind'];

/** A drag lock: a server-granted lease with a fencing generation (I4). */
export const LockGeneration = Revision;
export const ElementLock = z.object({
  sessionId: SessionId,
  userId: UserId,
  generation: LockGeneration,
});
export type ElementLock = z.infer<typeof ElementLock>;

export const Element = z.object({
  id: ElementId,
  shape: ElementShape,
  /** Bumped by every accepted change; a change names the version it was made against. */
  version: Revision,
  pinned: z.boolean(),
  /** The member who drew it (durable membership id): under the `own` policy, whose it is. */
  createdBy: UserId,
  /** The member whose change is the current version. */
  updatedBy: UserId,
  /** Drawing order: later elements are drawn above earlier ones. */
  z: Revision,
  lock: ElementLock.nullable(),
});
export type Element = z.infer<typeof Element>;

export const LockReleaseReason = z.enum(['released', 'expired', 'holder_gone', 'broken']);
export type LockReleaseReason = z.infer<typeof LockReleaseReason>;

// ---------------------------------------------------------------------------------------------
// Requests (all acknowledged, all idempotent by requestId per session)

/**
 * `boardId` (issue 22): the private board the change is for (docs/boards.md); absent, the class
 * board. The same on update, delete, pin and the drag lock's acquire (one or many), move, release
 * and break: every element request takes the one path, keyed by board.
 */
const OnBoard = { boardId: z.uuid().optional() };

export const CreateElementRequest = z.strictObject({ requestId: RequestId, id: ElementId, shape: ElementShape, ...OnBoard });
export type CreateElementRequest = z.infer<typeof CreateElementRequest>;

/**
 * Changes an element the sender does not hold a lock on (style, text, a resize from a handle):
 * accepted only against the current version. A drag goes through a lock instead.
 */
export const UpdateElementRequest = z.strictObject({
  requestId: RequestId,
  id: ElementId,
  baseVersion: Revision,
  shape: ElementShape,
  ...OnBoard,
});
export type UpdateElementRequest = z.infer<typeof UpdateElementRequest>;

/** `erased`: the eraser took it, not the Delete key (the teacher's history tells them apart). */
export const DeleteElementRequest = z.strictObject({ requestId: RequestId, id: ElementId, erased: z.boolean().optional(), ...OnBoard });
export type DeleteElementRequest = z.infer<typeof DeleteElementRequest>;

export const ElementReply = z.object({ element: Element });
export type ElementReply = z.infer<typeof ElementReply>;

export const LockAcquireRequest = z.strictObject({ requestId: RequestId, elementId: ElementId, ...OnBoard });
export type LockAcquireRequest = z.infer<typeof LockAcquireRequest>;

export const LockGrant = z.object({
  elementId: ElementId,
  generation: LockGeneration,
  /** The grant's first term is short until the first move confirms it arrived. */
  expiresInMs: z.number().int().positive(),
});
export type LockGrant = z.infer<typeof LockGrant>;

/** Most elements one group lock request may name (a multi-selection drag). */
export const MAX_GROUP_LOCK_ELEMENTS = 50;

/**
 * A multi-selection drag: every element's drag lock is granted in one transaction, or none is.
 * The ids are distinct; their order decides which conflict the refusal names (the first).
 */
export const LockAcquireManyRequest = z.strictObject({
  requestId: RequestId,
  elementIds: z
    .array(ElementId)
    .min(1)
    .max(MAX_GROUP_LOCK_ELEMENTS)
    .refine((ids) => new Set(ids).size === ids.length, 'element ids must be distinct'),
  ...OnBoard,
});
export type LockAcquireManyRequest = z.infer<typeof LockAcquireManyRequest>;

/** One grant per requested element, in the request's order. */
export const LockManyReply = z.object({ grants: z.array(LockGrant) });
export type LockManyReply = z.infer<typeof LockManyReply>;

/** Who holds the first element of a refused group lock (the refusal's `heldBy`). */
export const LockHolder = z.object({ elementId: ElementId, userId: UserId });
export type LockHolder = z.infer<typeof LockHolder>;

/**
 * Where a resize or turn in progress has taken an element: the box it is handled by (a box
 * element's own `x, y, w, h`, unturned, and its `rotation`; a line's, arrow's or stroke's upright
 * bounds with `rotation` 0 at the drag's start) as that box now stands. A receiver draws the
 * element it holds mapped from its own frame onto this one: the shape the holder will drop,
 * without sending its points (a stroke's may be thousands).
 */
export const DragFrame = z.strictObject({ x: Coordinate, y: Coordinate, w: Size, h: Size, rotation: Rotation });
export type DragFrame = z.infer<typeof DragFrame>;

/**
 * A drag move: volatile, never stored, dropped unless `generation` is the element's current one.
 * `x, y` is where the element's own `x, y` is now; a resize or turn in progress adds its `frame`.
 */
export const LockMove = z.strictObject({ elementId: ElementId, generation: LockGeneration, x: Coordinate, y: Coordinate, frame: DragFrame.optional(), ...OnBoard });
export type LockMove = z.infer<typeof LockMove>;

/** Pointer-up: ends the drag, writing the final shape only if the generation still holds. */
export const LockReleaseRequest = z.strictObject({
  requestId: RequestId,
  elementId: ElementId,
  generation: LockGeneration,
  shape: ElementShape.optional(),
  ...OnBoard,
});
export type LockReleaseRequest = z.infer<typeof LockReleaseRequest>;

export const PinElementRequest = z.strictObject({ requestId: RequestId, elementId: ElementId, pinned: z.boolean(), ...OnBoard });
export type PinElementRequest = z.infer<typeof PinElementRequest>;

export const BreakLockRequest = z.strictObject({ requestId: RequestId, elementId: ElementId, ...OnBoard });
export type BreakLockRequest = z.infer<typeof BreakLockRequest>;

/** Other people's drags (moves, resizes, turns) in progress, batched with cursors. */
export const DragEntry = z.object({
  elementId: ElementId,
  generation: LockGeneration,
  sessionId: SessionId,
  userId: UserId,
  x: z.number(),
  y: z.number(),
  /** A resize or turn in progress (`LockMove.frame`); absent for a move. */
  frame: DragFrame.optional(),
});
export type DragEntry = z.infer<typeof DragEntry>;
