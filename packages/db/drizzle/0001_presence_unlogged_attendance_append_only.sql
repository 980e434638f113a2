-- Things drizzle-kit cannot express: an UNLOGGED presence table, the append-only attendance
-- triggers, and CHECK constraints on the lifecycle columns.

-- I6 presence is ephemeral: no WAL, truncated after a crash. Clients renew again within a term.
ALTER TABLE "presence_leases" SET UNLOGGED;
--> statement-breakpoint
-- I6 attendance is append-only: the database itself refuses to change or remove a fact.
CREATE OR REPLACE FUNCTION attendance_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'attendance is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER attendance_no_update_delete
  BEFORE UPDATE OR DELETE ON "attendance"
  FOR EACH ROW EXECUTE FUNCTION attendance_refuse_change();
--> statement-breakpoint
-- Row triggers do not fire on TRUNCATE; a statement-level trigger does.
CREATE TRIGGER attendance_no_truncate
  BEFORE TRUNCATE ON "attendance"
  FOR EACH STATEMENT EXECUTE FUNCTION attendance_refuse_change();
--> statement-breakpoint
ALTER TABLE "attendance" ADD CONSTRAINT "attendance_kind_check" CHECK ("kind" IN
  ('joined', 'reconnected', 'signed_out', 'lease_expired', 'membership_revoked', 'session_closed'));
--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_role_check" CHECK ("role" IN ('teacher', 'student'));
--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_status_check" CHECK ("status" IN ('active', 'revoked'));
--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_status_check" CHECK ("status" IN ('open', 'closed'));
--> statement-breakpoint
ALTER TABLE "rooms" ADD CONSTRAINT "rooms_status_check" CHECK ("status" IN ('open', 'archived'));
--> statement-breakpoint
ALTER TABLE "rooms" ADD CONSTRAINT "rooms_revision_nonnegative" CHECK ("revision" >= 0);
