/** How an element row is read and turned into the protocol's `Element`, for every statement. */
import { sql } from 'drizzle-orm';
import type { Element, ElementShape } from '@wb/protocol';
import { int, rows, type Executor } from './sql.ts';

export interface ElementRow {
  room_id: string;
  id: string;
  kind: string;
  data: unknown;
  version: unknown;
  deleted: boolean;
  pinned: boolean;
  created_by: string;
  updated_by: string;
  z: unknown;
  lock_generation: unknown;
  lock_session_id: string | null;
  lock_user_id: string | null;
  lock_expires_at: unknown;
  lock_request_id: string | null;
}

/** The columns an element row stores itself (its shape is in `element_versions`). */
export const ELEMENT_STORED_COLUMNS = sql.raw(
  'room_id, id, kind, version, deleted, pinned, created_by, updated_by, z, lock_generation, lock_session_id, lock_user_id, lock_expires_at, lock_request_id',
);

/**
 * The element's shape, from the one copy of it (docs/store.md, "One copy of an element's
 * content"): the newest version row at or below the element's version. In a statement after the
 * change that is the current version; in the RETURNING of an UPDATE that moves the version (the
 * new row comes in the next statement) it is the version before, which is the content of a change
 * that changes no shape (delete, pin, clear). A change of shape puts its shape on the row with
 * `withShape`. Needs the table named `elements`, unaliased.
 */
export const ELEMENT_DATA = sql.raw(
  `(SELECT ev.data FROM element_versions ev WHERE ev.room_id = elements.room_id AND ev.element_id = elements.id
      AND ev.version <= elements.version ORDER BY ev.version DESC LIMIT 1)`,
);

export const ELEMENT_COLUMNS = sql`${ELEMENT_STORED_COLUMNS}, ${ELEMENT_DATA} AS data`;

export const shapeOf = (data: unknown): ElementShape => (typeof data === 'string' ? JSON.parse(data) : data) as ElementShape;

/** The row with the shape a change just gave it (before its version row is written). */
export function withShape<R extends ElementRow>(row: R, shape: ElementShape | unknown): R {
  return { ...row, data: shapeOf(shape) };
}

export function toElement(row: ElementRow): Element {
  return {
    id: row.id,
    shape: shapeOf(row.data),
    version: int(row.version),
    pinned: row.pinned,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    z: int(row.z),
    lock:
      row.lock_session_id && row.lock_user_id
        ? { sessionId: row.lock_session_id, userId: row.lock_user_id, generation: int(row.lock_generation) }
        : null,
  };
}

export async function readElement(executor: Executor, roomId: string, id: string): Promise<ElementRow | null> {
  const [row] = await rows<ElementRow>(
    executor,
    sql`SELECT ${ELEMENT_COLUMNS} FROM elements WHERE room_id = ${roomId}::uuid AND id = ${id}::uuid`,
  );
  return row ?? null;
}

/** Live elements of a room in drawing order. */
export async function listElements(executor: Executor, roomId: string): Promise<Element[]> {
  const found = await rows<ElementRow>(
    executor,
    sql`SELECT ${ELEMENT_COLUMNS} FROM elements WHERE room_id = ${roomId}::uuid AND NOT deleted ORDER BY z, id`,
  );
  return found.map(toElement);
}

/** The element's row, locked until the caller's transaction ends (no change slips in between). */
export async function readElementForUpdate(executor: Executor, roomId: string, id: string): Promise<ElementRow | null> {
  const [row] = await rows<ElementRow>(
    executor,
    sql`SELECT ${ELEMENT_COLUMNS} FROM elements WHERE room_id = ${roomId}::uuid AND id = ${id}::uuid FOR UPDATE`,
  );
  return row ?? null;
}
