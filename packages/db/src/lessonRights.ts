/**
 * The teacher's control of students' rights (I11): the lesson's edit policy and each student's
 * pen. Each change is one transaction that takes the row every edit share-locks (the room FOR
 * UPDATE, the membership FOR UPDATE, see editRights.ts), so it is serialised against edits the
 * way revocation is. A change that reduces rights ends, in the same transaction, every drag lock
 * the new rule would refuse: a student never keeps dragging what they may no longer change.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { maySetSetting, namedSettings, reducesStudentRights, sameSettings, type EditPolicy, type LessonSettings, type LessonSettingsPatch, type Member, type RoomEvent, type RoomInfo } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { authorizeEdit, type EditActor } from './editRights.ts';
import { settingAssignments, settingsStillAre } from './lessonSettingsColumns.ts';
import { FREE_LOCK, releasedEvent } from './lockRelease.ts';
import { lockMembership } from './memberships.ts';
import { appendRoomEvent, nextRoomRevision } from './roomLog.ts';
import { definedSettings, memberColumns, roomColumns, toMember, toRoom, type MemberRow, type RoomRow } from './rooms.ts';
import { int, rows, type Db, type Tx } from './sql.ts';

export type LessonSettingsResult =
  | { decision: 'applied'; room: RoomInfo; events: RoomEvent[] }
  | { decision: 'already_applied'; room: RoomInfo }
  | { decision: 'not_a_member' | 'forbidden' };

/**
 * Teacher: changes some of the lesson's settings. The room row is locked FOR UPDATE before
 * anything else, so edits that read the old policy commit first and later ones read the new one.
 */
export async function setLessonSettings(
  db: Db,
  clock: Clock,
  actor: EditActor,
  patch: LessonSettingsPatch,
): Promise<LessonSettingsResult> {
  return db.transaction(async (tx) => {
    const [current] = await rows<RoomRow>(tx, sql`SELECT ${roomColumns} FROM rooms WHERE id = ${actor.roomId}::uuid FOR UPDATE`);
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth || !current) return { decision: 'not_a_member' as const };
    // Who may set each setting is its declaration's (LESSON_SETTINGS): any one refused refuses the change.
    if (!namedSettings(patch).every((name) => maySetSetting(auth.role, name))) return { decision: 'forbidden' as const };
    const before: LessonSettings = toRoom(current).settings;
    const next: LessonSettings = { ...before, ...definedSettings(patch) };
    if (sameSettings(next, before)) return { decision: 'already_applied' as const, room: toRoom(current) };
    const [updated] = await rows<RoomRow>(
      tx,
      sql`UPDATE rooms SET ${settingAssignments(next)}
          WHERE id = ${actor.roomId}::uuid AND ${settingsStillAre(before)}
          RETURNING ${roomColumns}`,
    );
    if (!updated) throw new Error('room changed under its own row lock');
    // The lesson's pages take its policy (pages.ts): their rows mirror it, so each page's revision
    // bump checks it as the class board's does.
    if (next.editPolicy !== before.editPolicy) {
      await tx.execute(
        sql`UPDATE rooms SET edit_policy = ${next.editPolicy} WHERE parent_id = ${actor.roomId}::uuid AND owner_user_id IS NULL`,
      );
    }
    const events: RoomEvent[] = [];
    if (reducesStudentRights(before.editPolicy, next.editPolicy)) {
      events.push(...(await endLocksBeyondPolicy(tx, clock, actor.roomId, next.editPolicy)));
    }
    const room = toRoom(updated);
    const roomRevision = await nextRoomRevision(tx, actor.roomId);
    events.push(await appendRoomEvent(tx, clock, actor.roomId, 'room.updated', { roomRevision }, room));
    return { decision: 'applied' as const, room, events };
  });
}

/** Frees the students' drag locks the policy no longer allows, each with `lock.released` (broken). */
async function endLocksBeyondPolicy(tx: Tx, clock: Clock, roomId: string, policy: EditPolicy): Promise<RoomEvent[]> {
  if (policy === 'everyone') return [];
  const broken = await rows<{ id: string; lock_generation: unknown }>(
    tx,
    sql`UPDATE elements e SET ${FREE_LOCK}
        FROM memberships m
        WHERE e.room_id = ${roomId}::uuid AND e.lock_session_id IS NOT NULL
          AND m.room_id = e.room_id AND m.user_id = e.lock_user_id AND m.role = 'student'
          AND (${policy === 'look'} OR e.created_by <> e.lock_user_id)
        RETURNING e.id, e.lock_generation`,
  );
  const events: RoomEvent[] = [];
  for (const b of broken) events.push(await releasedEvent(tx, clock, roomId, b.id, int(b.lock_generation), 'broken'));
  return events;
}

export type PenResult =
  | { decision: 'applied'; member: Member; events: RoomEvent[] }
  | { decision: 'already_applied'; member: Member }
  | { decision: 'not_a_member' | 'forbidden' | 'not_found' | 'not_a_student' };

/**
 * Teacher: mutes a student's pen (they only look, whatever the policy) or gives it back. Takes
 * the student's membership FOR UPDATE, as revocation does, so it is serialised against their
 * edits; muting ends their drag locks in the same transaction.
 */
export async function setPenMuted(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { userId: string; muted: boolean },
): Promise<PenResult> {
  return db.transaction(async (tx) => {
    // No room row FOR UPDATE here: the student's edits hold their membership FOR SHARE while they
    // take the room's KEY SHARE, so this change must wait on the membership alone.
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    if (auth.role !== 'teacher') return { decision: 'forbidden' as const };
    const target = await lockMembership(tx, actor.roomId, input.userId);
    if (!target) return { decision: 'not_found' as const };
    if (target.role !== 'student') return { decision: 'not_a_student' as const };
    const [changed] = await rows<MemberRow>(
      tx,
      sql`UPDATE memberships SET pen_muted = ${input.muted}
          WHERE room_id = ${actor.roomId}::uuid AND user_id = ${input.userId}::uuid AND pen_muted <> ${input.muted}
          RETURNING ${memberColumns}`,
    );
    if (!changed) {
      const [row] = await rows<MemberRow>(
        tx,
        sql`SELECT ${memberColumns} FROM memberships WHERE room_id = ${actor.roomId}::uuid AND user_id = ${input.userId}::uuid`,
      );
      return { decision: 'already_applied' as const, member: toMember(row!) };
    }
    const events: RoomEvent[] = [];
    if (input.muted) {
      const broken = await rows<{ id: string; lock_generation: unknown }>(
        tx,
        sql`UPDATE elements SET ${FREE_LOCK}
            WHERE room_id = ${actor.roomId}::uuid AND lock_user_id = ${input.userId}::uuid AND lock_session_id IS NOT NULL
            RETURNING id, lock_generation`,
      );
      for (const b of broken) events.push(await releasedEvent(tx, clock, actor.roomId, b.id, int(b.lock_generation), 'broken'));
    }
    events.push(
      await appendRoomEvent(tx, clock, actor.roomId, 'member.pen', { userId: input.userId, occurrence: randomUUID() }, {
        userId: input.userId,
        muted: input.muted,
        by: actor.userId,
      }),
    );
    return { decision: 'applied' as const, member: toMember(changed), events };
  });
}
