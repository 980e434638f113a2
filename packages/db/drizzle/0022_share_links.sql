-- Read-only share links to an ended lesson (issue 39, docs/privacy.md "Share links"): the teacher
-- makes one for absent students, chooses what it includes, and turns it off. The token is a
-- secret shown once: only its SHA-256 is kept. At most one link of a lesson is on at a time (the
-- partial unique index); a link turned off keeps its row, stamped, and never works again.
-- The table has a `room_id`, so wb_purge_lesson (migration 0020) deletes a lesson's links with it.
CREATE TABLE "share_links" (
	"id" uuid PRIMARY KEY NOT NULL,
	"room_id" uuid NOT NULL REFERENCES "rooms"("id"),
	"token_hash" text NOT NULL UNIQUE,
	"include_names" boolean DEFAULT false NOT NULL,
	"include_private" boolean DEFAULT false NOT NULL,
	"include_replay" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"turned_off_at" timestamp with time zone
);--> statement-breakpoint
CREATE UNIQUE INDEX "share_links_one_on" ON "share_links" USING btree ("room_id") WHERE "turned_off_at" IS NULL;
--> statement-breakpoint
-- Replay reads a board's versions in (at, element_id, version) order, a page after a cursor of
-- those three: the history's index on (room_id, at) grows the two tie-breakers, so each page is an
-- index range read in order and stops at its limit, instead of sorting the rest of the board's
-- history for every page (20,000 versions: 10 pages in 2.9 s on Postgres before, each a sort of
-- all that remained). Its readers by (room_id, at) read its prefix as before.
DROP INDEX IF EXISTS "element_versions_room_at";--> statement-breakpoint
CREATE INDEX "element_versions_room_at" ON "element_versions" USING btree ("room_id","at","element_id","version");
