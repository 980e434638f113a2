-- The board's paper (issue 23): a lesson setting like the edit policy, one column per key of the
-- protocol's LessonSettings. Lessons made before it keep the dotted board they had.
ALTER TABLE "rooms" ADD COLUMN "paper" text DEFAULT 'dots' NOT NULL;--> statement-breakpoint
ALTER TABLE "rooms" ADD CONSTRAINT "rooms_paper_check" CHECK ("paper" IN ('blank', 'dots', 'grid', 'lined', 'graph', 'staff'));
