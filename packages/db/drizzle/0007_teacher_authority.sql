-- Teacher authority (issue 20): the lesson's edit policy replaces the all-or-nothing board lock,
-- a student's pen can be muted, and every element version is kept for the history panel.

-- Rooms created before this migration keep today's behaviour (everyone edits, or look-only where
-- the board was locked); new lessons start with students editing only their own work.
ALTER TABLE "rooms" ADD COLUMN "edit_policy" text DEFAULT 'everyone' NOT NULL;--> statement-breakpoint
UPDATE "rooms" SET "edit_policy" = 'look' WHERE "board_locked";--> statement-breakpoint
ALTER TABLE "rooms" ALTER COLUMN "edit_policy" SET DEFAULT 'own';--> statement-breakpoint
ALTER TABLE "rooms" ADD CONSTRAINT "rooms_edit_policy_check" CHECK ("edit_policy" IN ('everyone', 'own', 'look'));--> statement-breakpoint
ALTER TABLE "rooms" DROP COLUMN "board_locked";--> statement-breakpoint
-- The board lock's events are gone from the protocol: a client asking to replay across them gets
-- a snapshot instead (the log's gap makes eventsAfter answer `pruned`).
DELETE FROM "room_events" WHERE "kind" = 'board.locked';--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "pen_muted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- A lesson the teacher ended: no one may join or edit; the teacher may read it and reopen it.
ALTER TABLE "rooms" DROP CONSTRAINT "rooms_status_check";--> statement-breakpoint
ALTER TABLE "rooms" ADD CONSTRAINT "rooms_status_check" CHECK ("status" IN ('open', 'ended', 'archived'));--> statement-breakpoint
ALTER TABLE "attendance" DROP CONSTRAINT "attendance_kind_check";--> statement-breakpoint
ALTER TABLE "attendance" ADD CONSTRAINT "attendance_kind_check" CHECK ("kind" IN
  ('joined', 'reconnected', 'signed_out', 'lease_expired', 'membership_revoked', 'session_closed', 'lesson_ended'));--> statement-breakpoint
-- Every accepted version of every element, for the teacher's history and restore (docs/store.md,
-- "History"). `action` says what the change was; `batch_id` groups one teacher action that changed
-- many elements (clear the board, remove a student's work) so it is restored as one.
CREATE TABLE "element_versions" (
  "room_id" uuid NOT NULL,
  "element_id" uuid NOT NULL,
  "version" bigint NOT NULL,
  "data" jsonb NOT NULL,
  "deleted" boolean NOT NULL,
  "action" text NOT NULL,
  "by" uuid NOT NULL,
  "at" timestamp with time zone NOT NULL,
  "batch_id" uuid,
  CONSTRAINT "element_versions_pk" PRIMARY KEY ("room_id", "element_id", "version"),
  CONSTRAINT "element_versions_action_check" CHECK ("action" IN
    ('created', 'moved', 'restyled', 'erased', 'deleted', 'pinned', 'unpinned', 'restored'))
);--> statement-breakpoint
CREATE INDEX "element_versions_room_at" ON "element_versions" ("room_id", "at");--> statement-breakpoint
CREATE INDEX "element_versions_batch" ON "element_versions" ("room_id", "batch_id") WHERE "batch_id" IS NOT NULL;
