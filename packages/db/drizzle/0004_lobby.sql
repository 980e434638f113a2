ALTER TABLE "memberships" ADD COLUMN "lobby_decided_by" uuid;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "lobby_decided_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "lobby_reason" text;--> statement-breakpoint
ALTER TABLE "rooms" ADD COLUMN "require_approval" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- The lobby's two membership statuses (pending, denied), checked by the database as in 0001.
ALTER TABLE "memberships" DROP CONSTRAINT "memberships_status_check";--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_status_check" CHECK ("status" IN ('active', 'revoked', 'pending', 'denied'));
