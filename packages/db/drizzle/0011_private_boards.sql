-- Private student boards and activities (issue 22, docs/boards.md). A private board is a child
-- room of its lesson: a `rooms` row with `parent_id`, so it has its own revision, event log,
-- elements and locks, and everything keyed by a room id works per board. The class board (the
-- lesson's own row, `parent_id` NULL) is unchanged. Memberships and sessions stay on the lesson.
CREATE TABLE "activities" (
	"id" uuid PRIMARY KEY NOT NULL,
	"room_id" uuid NOT NULL REFERENCES "rooms"("id"),
	"title" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL CHECK ("status" IN ('running', 'frozen', 'ended')),
	"start_kind" text NOT NULL CHECK ("start_kind" IN ('blank', 'board', 'selection')),
	-- The starting content (copied shapes, drawing order), so a student joining later gets it too.
	"template" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"started_by" uuid NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone
);--> statement-breakpoint
-- At most one activity of a lesson is not ended.
CREATE UNIQUE INDEX "activities_current" ON "activities" ("room_id") WHERE "status" <> 'ended';--> statement-breakpoint
CREATE INDEX "activities_room" ON "activities" ("room_id", "started_at");--> statement-breakpoint
ALTER TABLE "rooms" ADD COLUMN "parent_id" uuid REFERENCES "rooms"("id");--> statement-breakpoint
ALTER TABLE "rooms" ADD COLUMN "owner_user_id" uuid;--> statement-breakpoint
ALTER TABLE "rooms" ADD COLUMN "activity_id" uuid REFERENCES "activities"("id");--> statement-breakpoint
-- Not null while the teacher shows the board to the class: the label it is shown under.
ALTER TABLE "rooms" ADD COLUMN "shown_label" text;--> statement-breakpoint
ALTER TABLE "rooms" ADD CONSTRAINT "rooms_board_shape_check" CHECK (
	("parent_id" IS NULL AND "owner_user_id" IS NULL AND "activity_id" IS NULL AND "shown_label" IS NULL)
	OR ("parent_id" IS NOT NULL AND "owner_user_id" IS NOT NULL AND "activity_id" IS NOT NULL));--> statement-breakpoint
-- One board per student and activity: a late or repeated open finds the one there is.
CREATE UNIQUE INDEX "rooms_board_owner" ON "rooms" ("activity_id", "owner_user_id") WHERE "parent_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "rooms_parent" ON "rooms" ("parent_id") WHERE "parent_id" IS NOT NULL;
