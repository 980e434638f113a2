-- Deleting lessons and accounts from the running server (docs/privacy.md; docs/store.md,
-- "Deletion"): by retention on a schedule, by a teacher from her lessons, by an admin with an
-- account. The app role may not delete attendance, teachers or their sign-ins directly
-- (sql/app-role.sql); it may only call these two functions, which run as their owner
-- (SECURITY DEFINER), delete one whole lesson (or one whole account) and append the audit fact.
ALTER TABLE "retention_purges" ALTER COLUMN "room_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "retention_purges" ADD COLUMN "teacher_id" uuid;--> statement-breakpoint
-- Who asked: `operator` (pnpm db:purge), `retention` (the schedule), `teacher`, `admin`.
ALTER TABLE "retention_purges" ADD COLUMN "requested_by" text NOT NULL DEFAULT 'operator';--> statement-breakpoint
ALTER TABLE "retention_purges" DROP CONSTRAINT IF EXISTS "retention_purges_scope_check";--> statement-breakpoint
ALTER TABLE "retention_purges" ADD CONSTRAINT "retention_purges_scope_check" CHECK ("scope" IN ('room', 'member', 'teacher'));--> statement-breakpoint
ALTER TABLE "retention_purges" ADD CONSTRAINT "retention_purges_requested_by_check" CHECK ("requested_by" IN ('operator', 'retention', 'teacher', 'admin'));--> statement-breakpoint
CREATE INDEX "rooms_teacher" ON "rooms" USING btree ("teacher_id");--> statement-breakpoint
-- One lesson, everything in it, in the caller's transaction, exactly once: the lesson's row is
-- locked first (SKIP LOCKED for the schedule, so two nodes never wait on each other; waiting for
-- a person's request), and whoever finds it gone or no longer matching deletes nothing and
-- appends no fact. Matching: `p_teacher` (when not null) owns it; `p_unused_since` (when not
-- null) is later than its creation and its latest attendance fact, checked under the lock, so a
-- lesson used again since the schedule chose it is kept.
--
-- The cascade is by lesson: every table of this schema with a `room_id` column is emptied of the
-- lesson's and its private boards' rows, so a table added later joins the purge by having one
-- (the audit of purges excepted). Tables are retried in passes when a foreign key makes one wait
-- for another, so their order needs no list.
CREATE OR REPLACE FUNCTION wb_purge_lesson(p_room uuid, p_reason text, p_requested_by text, p_teacher uuid, p_unused_since timestamptz, p_wait boolean)
RETURNS TABLE (audit_id bigint, attendance_rows integer, total_rows integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  lesson record;
  ids uuid[];
  pending text[];
  failed text[];
  statement text;
  progressed boolean;
  n integer;
  att integer := 0;
  total integer := 0;
BEGIN
  IF p_wait THEN
    SELECT r.id, r.teacher_id, r.created_at INTO lesson FROM rooms r WHERE r.id = p_room AND r.parent_id IS NULL FOR UPDATE;
  ELSE
    SELECT r.id, r.teacher_id, r.created_at INTO lesson FROM rooms r WHERE r.id = p_room AND r.parent_id IS NULL FOR UPDATE SKIP LOCKED;
  END IF;
  IF lesson.id IS NULL THEN RETURN; END IF;
  IF p_teacher IS NOT NULL AND lesson.teacher_id IS DISTINCT FROM p_teacher THEN RETURN; END IF;
  IF p_unused_since IS NOT NULL AND (lesson.created_at >= p_unused_since
      OR EXISTS (SELECT 1 FROM attendance a WHERE a.room_id = p_room AND a.at >= p_unused_since)) THEN
    RETURN;
  END IF;
  SELECT array_agg(r.id) INTO ids FROM rooms r WHERE r.id = p_room OR r.parent_id = p_room;
  -- Attendance through its one controlled path (migration 0008), closed again when this transaction ends.
  PERFORM set_config('wb.retention_purge', 'on', true);
  DELETE FROM attendance WHERE room_id = ANY (ids);
  GET DIAGNOSTICS att = ROW_COUNT;
  total := att;
  -- The lesson's images, and the bytes no other lesson names (the statement sees lesson_images as
  -- before its own delete, hence the lesson's rows are excluded by hand).
  WITH gone AS (DELETE FROM lesson_images WHERE room_id = ANY (ids) RETURNING sha256)
  DELETE FROM image_blobs b WHERE b.sha256 IN (SELECT sha256 FROM gone)
    AND NOT EXISTS (SELECT 1 FROM lesson_images l WHERE l.sha256 = b.sha256 AND NOT (l.room_id = ANY (ids)));
  GET DIAGNOSTICS n = ROW_COUNT;
  total := total + n;
  SELECT array_agg(format('DELETE FROM %I WHERE room_id = ANY ($1)', c.table_name) ORDER BY c.table_name) INTO pending
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = 'public' AND c.column_name = 'room_id' AND t.table_type = 'BASE TABLE'
      AND c.table_name NOT IN ('attendance', 'lesson_images', 'retention_purges');
  pending := pending || ARRAY['DELETE FROM rooms WHERE parent_id = $2', 'DELETE FROM rooms WHERE id = $2'];
  LOOP
    failed := ARRAY[]::text[];
    progressed := false;
    FOREACH statement IN ARRAY pending LOOP
      BEGIN
        EXECUTE statement USING ids, p_room;
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n;
        progressed := true;
      EXCEPTION WHEN foreign_key_violation THEN
        failed := failed || statement;
      END;
    END LOOP;
    EXIT WHEN cardinality(failed) = 0;
    IF NOT progressed THEN
      RAISE EXCEPTION 'lesson % cannot be purged: % still referenced', p_room, failed;
    END IF;
    pending := failed;
  END LOOP;
  INSERT INTO retention_purges (scope, room_id, teacher_id, user_id, reason, attendance_rows, rows, requested_by)
    VALUES ('room', p_room, lesson.teacher_id, NULL, p_reason, att, total, p_requested_by)
    RETURNING id INTO audit_id;
  attendance_rows := att;
  total_rows := total;
  RETURN NEXT;
END;
$$;
--> statement-breakpoint
-- One teacher account: every lesson it owns (each its own audit fact), then its sign-ins, reset
-- links and the account itself, and the account's audit fact (its id; not its email or name).
CREATE OR REPLACE FUNCTION wb_delete_teacher(p_teacher uuid, p_reason text)
RETURNS TABLE (audit_id bigint, lessons integer, total_rows integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  account record;
  lesson uuid;
  purged record;
  n integer;
  count_lessons integer := 0;
  total integer := 0;
BEGIN
  SELECT t.id INTO account FROM teachers t WHERE t.id = p_teacher FOR UPDATE;
  IF account.id IS NULL THEN RETURN; END IF;
  FOR lesson IN SELECT r.id FROM rooms r WHERE r.teacher_id = p_teacher AND r.parent_id IS NULL ORDER BY r.created_at, r.id LOOP
    SELECT * INTO purged FROM wb_purge_lesson(lesson, p_reason, 'admin', p_teacher, NULL, true);
    IF purged.audit_id IS NOT NULL THEN
      count_lessons := count_lessons + 1;
      total := total + purged.total_rows;
    END IF;
  END LOOP;
  DELETE FROM teacher_sessions WHERE teacher_id = p_teacher;
  GET DIAGNOSTICS n = ROW_COUNT;
  total := total + n;
  DELETE FROM teacher_identities WHERE teacher_id = p_teacher;
  GET DIAGNOSTICS n = ROW_COUNT;
  total := total + n;
  DELETE FROM password_resets WHERE teacher_id = p_teacher;
  GET DIAGNOSTICS n = ROW_COUNT;
  total := total + n;
  DELETE FROM teachers WHERE id = p_teacher;
  total := total + 1;
  INSERT INTO retention_purges (scope, room_id, teacher_id, user_id, reason, attendance_rows, rows, requested_by)
    VALUES ('teacher', NULL, p_teacher, NULL, p_reason, 0, total, 'admin')
    RETURNING id INTO audit_id;
  lessons := count_lessons;
  total_rows := total;
  RETURN NEXT;
END;
$$;
--> statement-breakpoint
-- Only the app role (sql/app-role.sql) and the owner may call them.
REVOKE ALL ON FUNCTION wb_purge_lesson(uuid, text, text, uuid, timestamptz, boolean) FROM PUBLIC;--> statement-breakpoint
REVOKE ALL ON FUNCTION wb_delete_teacher(uuid, text) FROM PUBLIC;
