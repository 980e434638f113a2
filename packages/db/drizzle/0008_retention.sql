-- Retention (docs/operations.md, "Retention"): a controlled path around the append-only guard of
-- attendance, taken only by the purge (packages/db/src/retention.ts) run as the owner, and the
-- audit fact every purge leaves. The app role has no DELETE on attendance at all (sql/app-role.sql),
-- so this path is closed to it whatever it sets.
CREATE TABLE IF NOT EXISTS "retention_purges" (
  "id" bigserial PRIMARY KEY,
  "scope" text NOT NULL CHECK ("scope" IN ('room', 'member')),
  "room_id" uuid NOT NULL,
  "user_id" uuid,
  "reason" text NOT NULL CHECK (length("reason") BETWEEN 1 AND 500),
  "attendance_rows" integer NOT NULL,
  "rows" integer NOT NULL,
  "purged_at" timestamptz NOT NULL DEFAULT now()
);
--> statement-breakpoint
-- The guard now lets a DELETE through only inside a transaction that set wb.retention_purge
-- (SET LOCAL: it ends with the transaction). UPDATE and TRUNCATE stay refused, always.
CREATE OR REPLACE FUNCTION attendance_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('wb.retention_purge', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'attendance is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
-- The audit of purges is itself append-only, with no way around.
CREATE OR REPLACE FUNCTION retention_purges_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'retention_purges is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER retention_purges_no_update_delete
  BEFORE UPDATE OR DELETE ON "retention_purges"
  FOR EACH ROW EXECUTE FUNCTION retention_purges_refuse_change();
--> statement-breakpoint
CREATE TRIGGER retention_purges_no_truncate
  BEFORE TRUNCATE ON "retention_purges"
  FOR EACH STATEMENT EXECUTE FUNCTION retention_purges_refuse_change();
