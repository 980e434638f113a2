CREATE TABLE "teacher_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"teacher_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone,
	CONSTRAINT "teacher_sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "teachers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"display_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teachers_email_unique" UNIQUE("email")
);
--> statement-breakpoint
ALTER TABLE "rooms" ADD COLUMN "teacher_id" uuid;--> statement-breakpoint
ALTER TABLE "teacher_sessions" ADD CONSTRAINT "teacher_sessions_teacher_id_teachers_id_fk" FOREIGN KEY ("teacher_id") REFERENCES "public"."teachers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "teacher_sessions_teacher" ON "teacher_sessions" USING btree ("teacher_id");--> statement-breakpoint
ALTER TABLE "rooms" ADD CONSTRAINT "rooms_teacher_id_teachers_id_fk" FOREIGN KEY ("teacher_id") REFERENCES "public"."teachers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Lifecycle columns are checked by the database, as in 0001: a bad write fails loudly.
ALTER TABLE "teacher_sessions" ADD CONSTRAINT "teacher_sessions_status_check" CHECK ("status" IN ('open', 'closed'));--> statement-breakpoint
-- Emails are stored lowercased (the store does it); this keeps a second spelling out for good.
ALTER TABLE "teachers" ADD CONSTRAINT "teachers_email_lowercase" CHECK ("email" = lower("email"));
