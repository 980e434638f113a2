-- The cap on elements per board (issue 23, docs/store.md "The element cap"): every room row (a
-- lesson's class board, or a private student board) counts its live (not deleted) elements. The
-- count moves in the same UPDATE of the room row as the revision bump of the event that makes an
-- element live or deleted (element.created, element.restored, element.deleted), so it is exact
-- and costs no statement of its own; a create is refused when the count is at the cap.
-- Rooms made before it start from their real count. Runs on PGlite and Postgres alike.
ALTER TABLE "rooms" ADD COLUMN "live_elements" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "rooms" r SET "live_elements" = c."n"
FROM (SELECT "room_id", count(*)::int AS "n" FROM "elements" WHERE NOT "deleted" GROUP BY "room_id") c
WHERE c."room_id" = r."id";--> statement-breakpoint
ALTER TABLE "rooms" ADD CONSTRAINT "rooms_live_elements_check" CHECK ("live_elements" >= 0);
