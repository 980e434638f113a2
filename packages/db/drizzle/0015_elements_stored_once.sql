-- One copy of an element's content (issue 19, docs/store.md "One copy of an element's content"):
-- the shape lives in element_versions only. Element events name the version instead of carrying
-- the shape, and elements loses its data column. Runs on PGlite and Postgres alike.
ALTER TABLE "room_events" ADD COLUMN "element_id" uuid;--> statement-breakpoint
ALTER TABLE "room_events" ADD COLUMN "element_version" bigint;--> statement-breakpoint
ALTER TABLE "room_events" ADD CONSTRAINT "room_events_element_ref_check" CHECK (("element_id" IS NULL) = ("element_version" IS NULL));--> statement-breakpoint
-- Every element has a version row at its current version: the elements from before 0007, or
-- whose version the sweeper pruned, get one (the only new history entries). Where both exist and
-- differ, the element's content is the current one.
INSERT INTO "element_versions" ("room_id", "element_id", "version", "data", "deleted", "action", "by", "at", "batch_id")
SELECT "room_id", "id", "version", "data", "deleted", CASE WHEN "version" = 1 THEN 'created' ELSE 'restyled' END, "updated_by", "updated_at", NULL
FROM "elements"
ON CONFLICT ("room_id", "element_id", "version") DO UPDATE SET "data" = EXCLUDED."data"
  WHERE "element_versions"."data" IS DISTINCT FROM EXCLUDED."data";--> statement-breakpoint
-- An element event whose shape is its version row's becomes a reference; one whose version row is
-- gone keeps its shape inline (read as before until the log drops it).
UPDATE "room_events" e
SET "element_id" = v."element_id", "element_version" = v."version",
    "payload" = jsonb_set(e."payload", '{element}', (e."payload" -> 'element') - 'shape')
FROM "element_versions" v
WHERE e."kind" IN ('element.created', 'element.updated', 'element.restored')
  AND v."room_id" = e."room_id"
  AND v."element_id" = (e."payload" -> 'element' ->> 'id')::uuid
  AND v."version" = (e."payload" -> 'element' ->> 'version')::bigint
  AND v."data" = e."payload" -> 'element' -> 'shape';--> statement-breakpoint
ALTER TABLE "elements" DROP COLUMN "data";--> statement-breakpoint
-- What the history's pruning asks: does an event still in the log name this version?
CREATE INDEX "room_events_element_version" ON "room_events" ("room_id", "element_id", "element_version") WHERE "element_id" IS NOT NULL;
