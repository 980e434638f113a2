-- The role the application connects as in a deployment (docs/store.md, "Database roles").
--
-- `pnpm db:migrate` runs it as the owner of the tables, in the app's database, right after the
-- migrations, and sets the role's password from WB_APP_PASSWORD_FILE when given; the server then
-- starts with DATABASE_MIGRATE=false on a URL naming wb_app. By hand:
-- `psql "$OWNER_DATABASE_URL" -f packages/db/sql/app-role.sql`. Safe to run again.
--
-- Why a separate role: the attendance triggers (migration 0001) refuse UPDATE, DELETE and TRUNCATE,
-- but the table's owner can drop or disable a trigger. The app role owns nothing, so it can neither
-- change attendance nor switch its guard off; a compromised app can only append facts.

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'wb_app') THEN
    CREATE ROLE wb_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
  END IF;
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO wb_app', current_database());
END
$$;

GRANT USAGE ON SCHEMA public TO wb_app;

-- Presence, membership, sessions and the room log change in place: conditional UPDATEs and
-- DELETEs are how the store decides (I3). The sweeper prunes room_events (I10).
-- Raised hands (migration 0010) are a memberships column: `memberships` UPDATE covers them.
GRANT SELECT, INSERT, UPDATE, DELETE ON rooms, memberships, sessions, presence_leases, room_events, elements, applied_requests TO wb_app;
-- Every kept element version, for the teacher's history (migration 0007): written with each edit,
-- pruned by the sweeper to the newest versions per room.
GRANT SELECT, INSERT, DELETE ON element_versions TO wb_app;
-- Activities (migration 0011): started, frozen, ended by the teacher; kept with the lesson. The
-- private boards themselves are `rooms` rows (parent_id), covered by the grant on rooms above.
GRANT SELECT, INSERT, UPDATE ON activities TO wb_app;
-- A lesson's pages (migration 0021): added, renamed, reordered, deleted and restored in place (a
-- delete is `deleted_at`); the rows go only with their lesson, through wb_purge_lesson. The pages'
-- boards are `rooms` rows, covered by the grant on rooms above.
GRANT SELECT, INSERT, UPDATE ON lesson_pages TO wb_app;
-- Quick polls and their answers (migration 0018): opened, answered (an answer changes in place),
-- closed; kept with the lesson. The timer and the boards' flags are `rooms` columns.
GRANT SELECT, INSERT, UPDATE ON polls, poll_answers TO wb_app;
-- Images (migration 0012): uploads insert (the same bytes once), reads select; a lesson purge
-- deletes the lesson's rows and the blobs no other lesson names.
GRANT SELECT, INSERT, DELETE ON image_blobs, lesson_images TO wb_app;
-- Teacher accounts and their signed-in sessions (migration 0003): sign-up, sign-in, sign-out.
GRANT SELECT, INSERT, UPDATE ON teachers, teacher_sessions TO wb_app;
-- Sign-in through an OpenID provider links identities; an admin issues reset links, which are
-- used once (migration 0019). Nothing here is deleted by the app.
GRANT SELECT, INSERT ON teacher_identities TO wb_app;
GRANT SELECT, INSERT, UPDATE ON password_resets TO wb_app;
-- Share links (migration 0022): made, their options changed, turned off (a stamp, never a delete).
GRANT SELECT, INSERT, UPDATE ON share_links TO wb_app;

-- Deleting a lesson or an account (migration 0020): only through the two functions that delete
-- one whole lesson, or one whole account, and append the audit fact. They run as their owner;
-- the role itself still has no DELETE on attendance, teachers, their sign-ins or the audit.
GRANT EXECUTE ON FUNCTION wb_purge_lesson(uuid, text, text, uuid, timestamptz, boolean) TO wb_app;
GRANT EXECUTE ON FUNCTION wb_delete_teacher(uuid, text) TO wb_app;

-- Attendance is append-only (I6): read and append, nothing else. The REVOKE makes a rerun correct
-- even where someone granted more by hand.
REVOKE ALL ON attendance FROM wb_app;
GRANT SELECT, INSERT ON attendance TO wb_app;
GRANT USAGE ON SEQUENCE attendance_seq_seq TO wb_app;
