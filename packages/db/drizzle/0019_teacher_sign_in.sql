-- Teacher sign-in for a district (docs/operations.md, "Teacher sign-in"): accounts made by a
-- school's OpenID provider (no password of their own), an admin's switch to disable an account,
-- and one-time password-reset links.
ALTER TABLE "teachers" ALTER COLUMN "password_hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "teachers" ADD COLUMN "status" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "teachers" ADD CONSTRAINT "teachers_status_check" CHECK ("status" IN ('active', 'disabled'));--> statement-breakpoint
ALTER TABLE "teachers" ADD COLUMN "disabled_at" timestamp with time zone;--> statement-breakpoint
-- One account per (provider, subject): the provider's stable id of the person, never the email,
-- which a person can change at the provider.
CREATE TABLE "teacher_identities" (
  "provider" text NOT NULL,
  "subject" text NOT NULL,
  "teacher_id" uuid NOT NULL REFERENCES "teachers"("id"),
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  PRIMARY KEY ("provider", "subject")
);--> statement-breakpoint
CREATE INDEX "teacher_identities_teacher" ON "teacher_identities" USING btree ("teacher_id");--> statement-breakpoint
-- A reset link's token is stored only as its sha256 hash; `used_at` makes it single use.
CREATE TABLE "password_resets" (
  "id" uuid PRIMARY KEY NOT NULL,
  "teacher_id" uuid NOT NULL REFERENCES "teachers"("id"),
  "token_hash" text NOT NULL UNIQUE,
  "created_at" timestamp with time zone NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  "used_at" timestamp with time zone
);--> statement-breakpoint
CREATE INDEX "password_resets_teacher" ON "password_resets" USING btree ("teacher_id");
