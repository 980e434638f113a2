-- The teacher's attention kit (issue 21): whose cursors students see, and whether students may
-- use the laser pointer. Lessons made before this migration keep today's behaviour (everyone sees
-- everyone's cursor); new lessons show students only the teacher's, and keep the laser the teacher's.
ALTER TABLE "rooms" ADD COLUMN "cursor_visibility" text DEFAULT 'everyone' NOT NULL;--> statement-breakpoint
ALTER TABLE "rooms" ALTER COLUMN "cursor_visibility" SET DEFAULT 'teacher';--> statement-breakpoint
ALTER TABLE "rooms" ADD CONSTRAINT "rooms_cursor_visibility_check" CHECK ("cursor_visibility" IN ('everyone', 'teacher', 'none'));--> statement-breakpoint
ALTER TABLE "rooms" ADD COLUMN "laser_allowed" boolean DEFAULT false NOT NULL;
