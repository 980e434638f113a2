-- Member colours are assigned by the server and kept with the membership (protocol: MEMBER_PALETTE).
ALTER TABLE "memberships" ADD COLUMN "color_index" smallint;--> statement-breakpoint
-- Existing members get the palette in the order they joined their room (24 colours, then round again).
UPDATE "memberships" m SET "color_index" = ((n.rank - 1) % 24)::smallint
  FROM (SELECT room_id, user_id, row_number() OVER (PARTITION BY room_id ORDER BY created_at, user_id) AS rank FROM "memberships") n
  WHERE m.room_id = n.room_id AND m.user_id = n.user_id;--> statement-breakpoint
ALTER TABLE "memberships" ALTER COLUMN "color_index" SET NOT NULL;
