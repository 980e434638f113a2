-- Raise hand (issue 21): a raised hand is lesson state, not presence. It lives on the membership
-- (so it survives a reload, a reconnect and an expired lease) until the student lowers it, the
-- teacher lowers it, or the student leaves (signs out, is removed, or the lesson ends). NULL: no
-- hand raised; otherwise when it was raised, by the database's clock (I2), which orders the queue.
ALTER TABLE "memberships" ADD COLUMN "hand_raised_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "memberships_raised_hands" ON "memberships" ("room_id", "hand_raised_at") WHERE "hand_raised_at" IS NOT NULL;
