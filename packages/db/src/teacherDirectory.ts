/**
 * The district's side of teacher accounts: sign-in through an OpenID provider, the admin's list,
 * disabling an account, and one-time password-reset links. Every transition is one conditional
 * write (I3):
 *
 *   account:  active --disable--> disabled --enable--> active   (disable closes every open session)
 *   reset:    issued --consume (unused, unexpired)--> used       (a second consume finds nothing)
 *
 * Who may do these (an admin named by the operator, sign-up open or limited to some domains) is
 * the server's decision; the store receives it as an argument.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { TeacherAccount } from '@wb/protocol';
import { msFromNow, type Clock } from './clock.ts';
import { date, int, rows, type Db, type Executor } from './sql.ts';

interface TeacherRow {
  id: string;
  email: string;
  display_name: string;
  status: string;
}

const toAccount = (r: Pick<TeacherRow, 'id' | 'email' | 'display_name'>): TeacherAccount => ({ id: r.id, email: r.email, displayName: r.display_name });

export type IdentitySignInResult =
  | { decision: 'signed_in' | 'linked' | 'created'; teacher: TeacherAccount }
  | { decision: 'disabled' }
  | { decision: 'sign_up_closed' };

/**
 * A person the provider vouched for (its `sub`, and an email it says it verified). The identity
 * already known signs into its account; else an account with that email gets the identity added
 * (the operator trusts the provider with its domain's addresses); else, when `mayCreate`, a new
 * account without a password. In one transaction, so two first sign-ins at once make one account.
 */
export async function signInWithIdentity(
  db: Db,
  clock: Clock,
  input: { provider: string; subject: string; email: string; displayName: string; mayCreate: boolean },
): Promise<IdentitySignInResult> {
  const email = input.email.toLowerCase();
  return db.transaction(async (tx) => {
    const [known] = await rows<TeacherRow>(
      tx,
      sql`SELECT t.id, t.email, t.display_name, t.status FROM teacher_identities i JOIN teachers t ON t.id = i.teacher_id
          WHERE i.provider = ${input.provider} AND i.subject = ${input.subject}`,
    );
    if (known) return known.status === 'active' ? { decision: 'signed_in' as const, teacher: toAccount(known) } : { decision: 'disabled' as const };
    let decision: 'linked' | 'created' = 'linked';
    let [account] = await rows<TeacherRow>(tx, sql`SELECT id, email, display_name, status FROM teachers WHERE email = ${email}`);
    if (!account) {
      if (!input.mayCreate) return { decision: 'sign_up_closed' as const };
      [account] = await rows<TeacherRow>(
        tx,
        sql`INSERT INTO teachers (id, email, password_hash, display_name, created_at)
            VALUES (${randomUUID()}::uuid, ${email}, NULL, ${input.displayName}, ${clock.now()})
            ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email
            RETURNING id, email, display_name, status`,
      );
      decision = 'created';
    }
    if (account!.status !== 'active') return { decision: 'disabled' as const };
    const linked = await rows<{ teacher_id: string }>(
      tx,
      sql`INSERT INTO teacher_identities (provider, subject, teacher_id, created_at)
          VALUES (${input.provider}, ${input.subject}, ${account!.id}::uuid, ${clock.now()})
          ON CONFLICT (provider, subject) DO NOTHING RETURNING teacher_id`,
    );
    // A concurrent first sign-in of the same identity linked it meanwhile: sign into that one.
    if (linked.length === 0) {
      const [winner] = await rows<TeacherRow>(
        tx,
        sql`SELECT t.id, t.email, t.display_name, t.status FROM teacher_identities i JOIN teachers t ON t.id = i.teacher_id
            WHERE i.provider = ${input.provider} AND i.subject = ${input.subject}`,
      );
      return winner!.status === 'active' ? { decision: 'signed_in' as const, teacher: toAccount(winner!) } : { decision: 'disabled' as const };
    }
    return { decision, teacher: toAccount(account!) };
  });
}

export interface DirectoryTeacher extends TeacherAccount {
  status: 'active' | 'disabled';
  createdAt: string;
  lessons: number;
  /** How the account signs in: a password of its own, and/or the providers that vouch for it. */
  password: boolean;
  providers: string[];
}

/** Every account for the admin's list (or only `teacherId`'s), oldest first, bounded (I10). */
export async function listTeachers(executor: Executor, limit: number, teacherId: string | null = null): Promise<DirectoryTeacher[]> {
  const found = await rows<TeacherRow & { created_at: unknown; lessons: unknown; has_password: boolean; providers: string[] | null }>(
    executor,
    sql`SELECT t.id, t.email, t.display_name, t.status, t.created_at, t.password_hash IS NOT NULL AS has_password,
               (SELECT count(*) FROM rooms r WHERE r.teacher_id = t.id AND r.parent_id IS NULL) AS lessons,
               (SELECT array_agg(DISTINCT i.provider ORDER BY i.provider) FROM teacher_identities i WHERE i.teacher_id = t.id) AS providers
        FROM teachers t WHERE ${teacherId}::uuid IS NULL OR t.id = ${teacherId}::uuid
        ORDER BY t.created_at, t.id LIMIT ${limit}`,
  );
  return found.map((r) => ({
    ...toAccount(r),
    status: r.status === 'active' ? 'active' : 'disabled',
    createdAt: date(r.created_at).toISOString(),
    lessons: int(r.lessons),
    password: r.has_password,
    providers: r.providers ?? [],
  }));
}

export type SetTeacherStatusResult = { decision: 'disabled' | 'enabled'; closedSessions: number } | { decision: 'unchanged' | 'not_found' };

/**
 * Disables an account (every open session of it is closed in the same transaction, and
 * `authenticateTeacherSession` refuses a disabled account's sessions whatever their state) or
 * enables it again. Conditional on the status it expects.
 */
export async function setTeacherStatus(db: Db, clock: Clock, input: { teacherId: string; disabled: boolean }): Promise<SetTeacherStatusResult> {
  return db.transaction(async (tx) => {
    const from = input.disabled ? 'active' : 'disabled';
    const to = input.disabled ? 'disabled' : 'active';
    const changed = await rows<{ id: string }>(
      tx,
      sql`UPDATE teachers SET status = ${to}, disabled_at = ${input.disabled ? clock.now() : null}
          WHERE id = ${input.teacherId}::uuid AND status = ${from} RETURNING id`,
    );
    if (changed.length === 0) {
      const [exists] = await rows<{ id: string }>(tx, sql`SELECT id FROM teachers WHERE id = ${input.teacherId}::uuid`);
      return { decision: exists ? ('unchanged' as const) : ('not_found' as const) };
    }
    if (!input.disabled) return { decision: 'enabled' as const, closedSessions: 0 };
    const closed = await rows<{ id: string }>(
      tx,
      sql`UPDATE teacher_sessions SET status = 'closed', closed_at = ${clock.now()}
          WHERE teacher_id = ${input.teacherId}::uuid AND status = 'open' RETURNING id`,
    );
    return { decision: 'disabled' as const, closedSessions: closed.length };
  });
}

/** Issues a reset link's token (the caller keeps the token, the store only its hash). */
export async function createPasswordReset(
  executor: Executor,
  clock: Clock,
  input: { teacherId: string; tokenHash: string; ttlMs: number },
): Promise<{ decision: 'issued'; expiresAt: Date } | { decision: 'not_found' }> {
  const [row] = await rows<{ expires_at: unknown }>(
    executor,
    sql`INSERT INTO password_resets (id, teacher_id, token_hash, created_at, expires_at)
        SELECT ${randomUUID()}::uuid, id, ${input.tokenHash}, ${clock.now()}, ${msFromNow(clock, input.ttlMs)}
        FROM teachers WHERE id = ${input.teacherId}::uuid
        RETURNING expires_at`,
  );
  return row ? { decision: 'issued', expiresAt: date(row.expires_at) } : { decision: 'not_found' };
}

export type ConsumePasswordResetResult = { decision: 'reset'; teacher: TeacherAccount } | { decision: 'invalid' } | { decision: 'disabled' };

/**
 * Sets a new password through a reset link: the link's one transition (unused and unexpired to
 * used) and the password in one transaction, and every other session of the account closed (a
 * reset is often the answer to a lost or shared password). A used, expired or unknown token is
 * `invalid`, with no hint which.
 */
export async function consumePasswordReset(
  db: Db,
  clock: Clock,
  input: { tokenHash: string; passwordHash: string },
): Promise<ConsumePasswordResetResult> {
  return db.transaction(async (tx) => {
    const [used] = await rows<{ teacher_id: string }>(
      tx,
      sql`UPDATE password_resets SET used_at = ${clock.now()}
          WHERE token_hash = ${input.tokenHash} AND used_at IS NULL AND expires_at > ${clock.now()}
          RETURNING teacher_id`,
    );
    if (!used) return { decision: 'invalid' as const };
    const [teacher] = await rows<TeacherRow>(
      tx,
      sql`UPDATE teachers SET password_hash = ${input.passwordHash} WHERE id = ${used.teacher_id}::uuid AND status = 'active'
          RETURNING id, email, display_name, status`,
    );
    if (!teacher) return { decision: 'disabled' as const };
    await tx.execute(
      sql`UPDATE teacher_sessions SET status = 'closed', closed_at = ${clock.now()} WHERE teacher_id = ${teacher.id}::uuid AND status = 'open'`,
    );
    return { decision: 'reset' as const, teacher: toAccount(teacher) };
  });
}

/** The account by id, for the admin's routes. */
export async function findTeacherById(executor: Executor, teacherId: string): Promise<(TeacherAccount & { status: string }) | null> {
  const [row] = await rows<TeacherRow>(executor, sql`SELECT id, email, display_name, status FROM teachers WHERE id = ${teacherId}::uuid`);
  return row ? { ...toAccount(row), status: row.status } : null;
}

/**
 * The open sessions in which this account teaches one of its lessons (bearer tokens of the
 * lessons' teacher memberships), bounded (I10): disabling the account closes them too, so a
 * disabled teacher's live lesson does not go on under her.
 */
export async function openTeachingSessions(executor: Executor, teacherId: string, limit: number): Promise<string[]> {
  const found = await rows<{ id: string }>(
    executor,
    sql`SELECT s.id FROM sessions s
        JOIN rooms r ON r.id = s.room_id
        JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id
        WHERE r.teacher_id = ${teacherId}::uuid AND m.role = 'teacher' AND s.status = 'open'
        ORDER BY s.id LIMIT ${limit}`,
  );
  return found.map((r) => r.id);
}
