CREATE TABLE "applied_requests" (
	"session_id" uuid NOT NULL,
	"request_id" text NOT NULL,
	"room_id" uuid NOT NULL,
	"result" jsonb NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "applied_requests_session_id_request_id_pk" PRIMARY KEY("session_id","request_id")
);
--> statement-breakpoint
CREATE TABLE "elements" (
	"room_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"kind" text NOT NULL,
	"data" jsonb NOT NULL,
	"version" bigint DEFAULT 1 NOT NULL,
	"deleted" boolean DEFAULT false NOT NULL,
	"pinned" boolean DEFAULT false NOT NULL,
	"created_by" uuid NOT NULL,
	"updated_by" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"z" bigint NOT NULL,
	"lock_generation" bigint DEFAULT 0 NOT NULL,
	"lock_session_id" uuid,
	"lock_user_id" uuid,
	"lock_expires_at" timestamp with time zone,
	"lock_request_id" text,
	"lock_confirmed" boolean DEFAULT false NOT NULL,
	CONSTRAINT "elements_room_id_id_pk" PRIMARY KEY("room_id","id")
);
--> statement-breakpoint
ALTER TABLE "rooms" ADD COLUMN "board_locked" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "applied_requests_at" ON "applied_requests" USING btree ("at");--> statement-breakpoint
CREATE INDEX "elements_lock_expires" ON "elements" USING btree ("lock_expires_at");--> statement-breakpoint
CREATE INDEX "elements_lock_session" ON "elements" USING btree ("lock_session_id");