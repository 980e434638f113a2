CREATE TABLE "attendance" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"room_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"session_id" uuid,
	"kind" text NOT NULL,
	"request_id" text,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "attendance_event_id_unique" UNIQUE("event_id")
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"room_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"display_name" text NOT NULL,
	"role" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"member_key_hash" text NOT NULL,
	"revoked_by" uuid,
	"revoked_at" timestamp with time zone,
	"revoke_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_room_id_user_id_pk" PRIMARY KEY("room_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "presence_leases" (
	"room_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"revision" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"last_request_id" text,
	"connected" boolean DEFAULT true NOT NULL,
	CONSTRAINT "presence_leases_room_id_user_id_session_id_pk" PRIMARY KEY("room_id","user_id","session_id")
);
--> statement-breakpoint
CREATE TABLE "room_events" (
	"room_id" uuid NOT NULL,
	"revision" bigint NOT NULL,
	"event_id" text NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "room_events_room_id_revision_pk" PRIMARY KEY("room_id","revision"),
	CONSTRAINT "room_events_event_id_unique" UNIQUE("event_id")
);
--> statement-breakpoint
CREATE TABLE "rooms" (
	"id" uuid PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"title" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"revision" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rooms_code_unique" UNIQUE("code")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"room_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone,
	"closed_reason" text,
	"lease_floor" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attendance_room" ON "attendance" USING btree ("room_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "memberships_room_key" ON "memberships" USING btree ("room_id","member_key_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "presence_leases_session" ON "presence_leases" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "presence_leases_expires" ON "presence_leases" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "sessions_member" ON "sessions" USING btree ("room_id","user_id");