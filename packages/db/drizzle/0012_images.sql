-- Images on the board (issue 23, docs/protocol.md "Images", packages/db/src/images.ts). The bytes
-- are content-addressed: one `image_blobs` row per distinct SHA-256, however many lessons use it.
-- `lesson_images` says which lesson has which image: a read is authorised by the lesson holding a
-- row, and the per-lesson caps count its rows (and their blobs' sizes).
CREATE TABLE "image_blobs" (
	"sha256" text PRIMARY KEY NOT NULL CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
	"mime" text NOT NULL CHECK ("mime" IN ('image/png', 'image/jpeg', 'image/webp', 'image/gif')),
	"width" integer NOT NULL CHECK ("width" > 0),
	"height" integer NOT NULL CHECK ("height" > 0),
	"byte_size" integer NOT NULL CHECK ("byte_size" > 0),
	"data" bytea NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);--> statement-breakpoint
CREATE TABLE "lesson_images" (
	"room_id" uuid NOT NULL REFERENCES "rooms"("id"),
	"sha256" text NOT NULL REFERENCES "image_blobs"("sha256"),
	"uploaded_by" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	PRIMARY KEY ("room_id", "sha256")
);--> statement-breakpoint
-- A lesson purge deletes a blob only when no other lesson still names it.
CREATE INDEX "lesson_images_sha256" ON "lesson_images" ("sha256");
