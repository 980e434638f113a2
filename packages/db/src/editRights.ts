/**
 * Who may change what on the board (I11): read inside the edit's own transaction with the rows
 * that decide it locked until that transaction ends, so the check and the write are one decision.
 *
 *   room row:       FOR KEY SHARE -- a lesson-settings change and the end of a lesson take it FOR
 *                                    UPDATE first; other edits' revision bumps (NO KEY UPDATE) do
 *                                    not conflict with it, so edits never wait on one another here
 *   membership row: FOR SHARE   -- revocation and pen mute take it FOR UPDATE (they wait, or we do)
 *
 * In that order: the room row first. The end of a lesson holds the room row and then writes
 * memberships (it lowers hands); an edit holding its membership while waiting for the room row
 * deadlocked with it (found by the end-of-lesson race on Postgres).
 *
 * So an edit that read the policy commits before a policy change that would refuse it (its room
 * revision is below the change's), and one arriving during the change waits and reads the new
 * policy. Nothing is ever applied at a revision after a change that forbids it.
 *
 * The room revision an edit lands at is what orders it against the change, so the bump itself
 * repeats the check (`stillHeld`): a student's `UPDATE rooms SET revision` matches only while the
 * room's policy and status are the ones the edit was authorised under. If they are not (a change
 * committed between the read and the bump), the bump throws `RightsChanged`, the transaction rolls
 * back and `editTransaction` runs it again, authorising afresh. The locks make that rare; the
 * condition makes it impossible for an edit to land after a change that forbids it (CI once saw one
 * on Postgres, under load, in 120 trials).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { EditPolicy, Role } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { rows, type Db, type Executor, type Tx } from './sql.ts';

/** Who is acting: a session of a member in a room. */
export interface EditActor {
  roomId: string;
  sessionId: string;
  userId: string;
}

export interface Authorized {
  role: Role;
  editPolicy: EditPolicy;
  penMuted: boolean;
  /** The lesson's status the decision was made under (`open`, or `ended` for its teacher). */
  roomStatus: RoomStatus;
  /**
   * A private board whose lesson's timer is up with "freeze at zero" set (migration 0018): the
   * student only looks (`drawingRefusal` says `look_only`) until the teacher adds time or stops it.
   */
  timeUp?: boolean;
  /** The room is a private board (docs/boards.md): what the teacher made on it is their feedback. */
  privateBoard: boolean;
}

type RoomStatus = 'open' | 'ended';

/** Thrown by a revision bump whose room rights changed after the edit was authorised (rolled back, run again). */
export class RightsChanged extends Error {
  constructor(readonly roomId: string) {
    super(`the rights in room ${roomId} changed before the edit's revision bump`);
  }
}

/**
 * Why the policy refused a student: the lesson is look-only, their pen is muted, it is not theirs,
 * or it is the teacher's feedback on their private board (`feedback`, whatever the board's policy).
 */
export type PolicyRefusal = 'look_only' | 'pen_muted' | 'not_own' | 'feedback';

/**
 * The acting session's right to change the room: an open, unexpired session of an active member of
 * an open room (or the teacher of an ended one: the board stays theirs), with the lesson's edit
 * policy and the member's pen, rows locked as above.
 *
 * The room may be a private board (docs/boards.md): a child room whose `parent_id` is the lesson
 * and `owner_user_id` its student; or a page (no owner), which every member edits as the class board.
 * Sessions and memberships are the lesson's; the board's owner and the lesson's teacher may edit
 * it, under the board's own edit policy and status (its row is the one the edit's revision bump
 * names). For the class board (no parent) `b` and `r` are the same row and this is the check it
 * always was.
 */
export async function authorizeEdit(tx: Executor, clock: Clock, actor: EditActor): Promise<Authorized | null> {
  const [row] = await rows<{ role: Role; edit_policy: EditPolicy; pen_muted: boolean; status: RoomStatus; private_board: boolean; time_up: boolean; off_page: boolean }>(
    tx,
    sql`SELECT m.role, m.pen_muted, b.edit_policy, b.status, b.owner_user_id IS NOT NULL AS private_board,
               (b.owner_user_id IS NOT NULL AND r.timer_freeze AND r.timer_ends_at IS NOT NULL AND r.timer_ends_at <= ${clock.now()}) AS time_up,
               ${offPage} AS off_page
        FROM rooms b
        JOIN rooms r ON r.id = coalesce(b.parent_id, b.id)
        JOIN sessions s ON s.room_id = r.id
        JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id
        WHERE b.id = ${actor.roomId}::uuid AND s.id = ${actor.sessionId}::uuid AND s.user_id = ${actor.userId}::uuid
          AND s.status = 'open' AND s.expires_at > ${clock.now()} AND m.status = 'active'
          AND (r.status = 'open' OR (r.status = 'ended' AND m.role = 'teacher'))
          AND (b.parent_id IS NULL OR b.owner_user_id IS NULL OR m.role = 'teacher' OR b.owner_user_id = s.user_id)
        FOR KEY SHARE OF r, b FOR SHARE OF m`,
  );
  if (!row) return null;
  const auth: Authorized = {
    role: row.role,
    // A student off the teacher's page while paced, or on a deleted page, only looks (pages.ts).
    editPolicy: row.off_page ? 'look' : row.edit_policy,
    penMuted: row.pen_muted,
    roomStatus: row.status,
    privateBoard: row.private_board,
  };
  return row.time_up ? { ...auth, timeUp: true } : auth;
}

/**
 * A page (a board with no owner: the lesson's own or one of its pages, docs/boards.md "Pages") a
 * student may only look at: deleted, or, while the class is paced, not the teacher's page. Read
 * with the lesson row `r` share-locked, and every page change takes that row FOR UPDATE
 * (pages.ts), so a student's edit and the teacher's move to another page are serialised (I11).
 * The batched create decides the same (`wb_create_batch`, migration 0021).
 */
const offPage = sql`(m.role <> 'teacher' AND b.owner_user_id IS NULL AND (
    (r.page_pacing = 'paced' AND coalesce(r.current_page_id, r.id) <> b.id)
    OR EXISTS (SELECT 1 FROM lesson_pages p WHERE p.board_id = b.id AND p.deleted_at IS NOT NULL)))`;

/**
 * The condition a revision bump of the room row adds for an edit made under `auth`: a student's
 * rights come from the room's policy and status, so the bump matches only while both are unchanged.
 * A teacher's rights do not depend on the room row.
 */
export function stillHeld(auth: Authorized | undefined): SQL {
  if (!auth || auth.role === 'teacher') return sql`true`;
  return sql`edit_policy = ${auth.editPolicy} AND status = ${auth.roomStatus}`;
}

/** Runs an edit's transaction, again (at most twice more) when its rights changed before its bump. */
export async function editTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (error) {
      if (!(error instanceof RightsChanged) || attempt === 3) throw error;
    }
  }
}

/**
 * A refusal that holds for every element (drawing included), or null when the member may draw. A
 * private board whose timer is up (`timeUp`) is look-only for its student.
 * The batched create decides the same in SQL (`wb_create_batch`, migration 0017, step 2): a change
 * here is a new migration replacing that function too.
 */
export function drawingRefusal(auth: Authorized): Exclude<PolicyRefusal, 'not_own' | 'feedback'> | null {
  if (auth.role === 'teacher') return null;
  if (auth.penMuted) return 'pen_muted';
  if (auth.editPolicy === 'look' || auth.timeUp === true) return 'look_only';
  return null;
}

/**
 * Whether this member may change only elements they created: a student under `own`, and a student
 * on a private board under any policy (the teacher's feedback there is never theirs to change).
 */
export function ownWorkOnly(auth: Authorized): boolean {
  return auth.role === 'student' && (auth.editPolicy === 'own' || auth.privateBoard);
}

/**
 * Why this member may not change (move, edit, erase, lock) an element made by `createdBy`, or null
 * when the policy lets them: on a private board, a student's refusal of the teacher's element is
 * `feedback` (the teacher's layer); elsewhere `not_own` under the `own` policy.
 */
export function ownershipRefusal(auth: Authorized, actor: EditActor, createdBy: string): 'feedback' | 'not_own' | null {
  if (!ownWorkOnly(auth) || createdBy === actor.userId) return null;
  return auth.privateBoard ? 'feedback' : 'not_own';
}

/**
 * The WHERE condition of an element change that the policy adds: under `own`, a student's write
 * matches only their own elements. Part of the conditional write itself, never a check beforehand.
 */
export function mayChangeCondition(auth: Authorized, actor: EditActor): SQL {
  return ownWorkOnly(auth) ? sql`created_by = ${actor.userId}::uuid` : sql`true`;
}

