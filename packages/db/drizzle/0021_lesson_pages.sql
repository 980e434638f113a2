-- Pages (issue 39, docs/boards.md "Pages"): a lesson is an ordered list of pages and each page is a
-- board, a `rooms` row of its own (revision, log, elements, locks, history, edit policy) whose
-- `parent_id` is the lesson, like a private board but with no owner and no activity. The lesson's
-- own row is its first page, so every lesson made before keeps working.
ALTER TABLE "rooms" DROP CONSTRAINT "rooms_board_shape_check";--> statement-breakpoint
ALTER TABLE "rooms" ADD CONSTRAINT "rooms_board_shape_check" CHECK (
	("parent_id" IS NULL AND "owner_user_id" IS NULL AND "activity_id" IS NULL AND "shown_label" IS NULL)
	OR ("parent_id" IS NOT NULL AND "owner_user_id" IS NOT NULL AND "activity_id" IS NOT NULL)
	OR ("parent_id" IS NOT NULL AND "owner_user_id" IS NULL AND "activity_id" IS NULL AND "shown_label" IS NULL));--> statement-breakpoint
-- The lesson's page list. `room_id` is the lesson (so the purge, which empties every table with a
-- `room_id` of the lesson's rows, takes its pages with it); `board_id` the page's board (the
-- lesson's own id for its first page). `position` orders every page, deleted ones too, so a
-- restored page comes back where it was; positions are renumbered 0..n-1 under the lesson row's
-- lock on each move (unique, checked at commit). A deleted page is kept (`deleted_at`) for the
-- lesson's life: the teacher may restore it.
CREATE TABLE "lesson_pages" (
	"room_id" uuid NOT NULL REFERENCES "rooms"("id"),
	"board_id" uuid PRIMARY KEY NOT NULL REFERENCES "rooms"("id"),
	"position" integer NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "lesson_pages_position_unique" UNIQUE ("room_id", "position") DEFERRABLE INITIALLY DEFERRED
);--> statement-breakpoint
-- Every lesson made before has one page: its own board.
INSERT INTO "lesson_pages" ("room_id", "board_id", "position", "created_at")
	SELECT "id", "id", 0, "created_at" FROM "rooms" WHERE "parent_id" IS NULL;--> statement-breakpoint
-- The page the teacher is on (null: the lesson's own page) and whether students follow her.
ALTER TABLE "rooms" ADD COLUMN "current_page_id" uuid;--> statement-breakpoint
ALTER TABLE "rooms" ADD COLUMN "page_pacing" text DEFAULT 'paced' NOT NULL;--> statement-breakpoint
ALTER TABLE "rooms" ADD CONSTRAINT "rooms_page_pacing_check" CHECK ("page_pacing" IN ('paced', 'free'));--> statement-breakpoint
-- A prepared lesson (issue 39) has no start yet: students wait until its teacher starts it. Every
-- lesson made before started when it was made.
ALTER TABLE "rooms" ADD COLUMN "started_at" timestamp with time zone;--> statement-breakpoint
UPDATE "rooms" SET "started_at" = "created_at" WHERE "parent_id" IS NULL;--> statement-breakpoint
-- The batched create decides a page's rights as authorizeEdit does (editRights.ts): any member of
-- the lesson edits a page under the lesson's policy (mirrored on the page's row), a student only
-- looks at a deleted page or, while the class is paced, at any page but the teacher's; the
-- timer's freeze stays a private board's. Otherwise unchanged from migration 0018.
CREATE OR REPLACE FUNCTION wb_create_batch(requests jsonb, at timestamptz, max_per_board int8) RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  rights jsonb;
  writing jsonb;
  refused jsonb;
  locked jsonb;
  written jsonb;
BEGIN
  -- 1. Rights, with authorizeEdit's rows and locks.
  SELECT coalesce(jsonb_agg(to_jsonb(g)), '[]'::jsonb) INTO rights FROM (
    SELECT b.id AS room_id, s.id AS session_id, m.role, m.pen_muted,
      CASE WHEN b.owner_user_id IS NOT NULL AND r.timer_freeze AND r.timer_ends_at <= at THEN 'look'
           WHEN m.role <> 'teacher' AND b.owner_user_id IS NULL AND (
                  (r.page_pacing = 'paced' AND coalesce(r.current_page_id, r.id) <> b.id)
                  OR EXISTS (SELECT 1 FROM lesson_pages p WHERE p.board_id = b.id AND p.deleted_at IS NOT NULL)) THEN 'look'
           ELSE b.edit_policy END AS edit_policy,
      b.status
    FROM (SELECT DISTINCT q.room_id, q.session_id, q.user_id
          FROM jsonb_to_recordset(requests) AS q(room_id uuid, session_id uuid, user_id uuid)) q
    JOIN rooms b ON b.id = q.room_id
    JOIN rooms r ON r.id = coalesce(b.parent_id, b.id)
    JOIN sessions s ON s.id = q.session_id AND s.user_id = q.user_id AND s.room_id = r.id
    JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id
    WHERE s.status = 'open' AND s.expires_at > at AND m.status = 'active'
      AND (r.status = 'open' OR (r.status = 'ended' AND m.role = 'teacher'))
      AND (b.parent_id IS NULL OR b.owner_user_id IS NULL OR m.role = 'teacher' OR b.owner_user_id = s.user_id)
    ORDER BY b.id
    FOR KEY SHARE OF r, b FOR SHARE OF m
  ) g;

  -- 2. Each request's refusal, or its place in the write.
  WITH req AS (
    SELECT * FROM jsonb_to_recordset(requests)
      AS q(ord int, room_id uuid, session_id uuid, user_id uuid, id uuid, kind text, data jsonb, event_id text)
  ),
  granted AS (
    SELECT * FROM jsonb_to_recordset(rights)
      AS g(room_id uuid, session_id uuid, role text, pen_muted boolean, edit_policy text, status text)
  ),
  decided AS (
    SELECT req.*, granted.role, granted.edit_policy, granted.status,
      CASE
        WHEN granted.room_id IS NULL THEN 'not_a_member'
        WHEN granted.role <> 'teacher' AND granted.pen_muted THEN 'pen_muted'
        WHEN granted.role <> 'teacher' AND granted.edit_policy = 'look' THEN 'look_only'
        WHEN req.data->>'kind' = 'image' AND NOT EXISTS (
          SELECT 1 FROM rooms b JOIN lesson_images l ON l.room_id = coalesce(b.parent_id, b.id)
          WHERE b.id = req.room_id AND l.sha256 = req.data->>'sha256') THEN 'image_unknown'
      END AS refusal
    FROM req LEFT JOIN granted ON granted.room_id = req.room_id AND granted.session_id = req.session_id
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object('ord', ord, 'decision', refusal)) FILTER (WHERE refusal IS NOT NULL), '[]'::jsonb),
         coalesce(jsonb_agg(to_jsonb(decided) - 'refusal') FILTER (WHERE refusal IS NULL), '[]'::jsonb)
  INTO refused, writing
  FROM decided;
  IF jsonb_array_length(writing) = 0 THEN
    RETURN jsonb_build_object('refused', refused, 'rows', '[]'::jsonb);
  END IF;

  -- 3. The rooms' rows; near the cap, or where the rights read in step 1 are no longer the room's,
  -- the batch goes one by one.
  SELECT coalesce(jsonb_agg(to_jsonb(x)), '[]'::jsonb) INTO locked FROM (
    SELECT id, edit_policy, status, live_elements FROM rooms
    WHERE id IN (SELECT DISTINCT (w->>'room_id')::uuid FROM jsonb_array_elements(writing) w)
    ORDER BY id FOR NO KEY UPDATE
  ) x;
  IF EXISTS (
    WITH held AS (
      SELECT * FROM jsonb_to_recordset(locked) AS h(id uuid, edit_policy text, status text, live_elements int8)
    ),
    w AS (
      SELECT * FROM jsonb_to_recordset(writing) AS w(room_id uuid, role text, edit_policy text, status text)
    )
    SELECT 1 FROM held
    WHERE held.live_elements + (SELECT count(*) FROM w WHERE w.room_id = held.id) > max_per_board
       OR EXISTS (SELECT 1 FROM w WHERE w.room_id = held.id AND w.role <> 'teacher'
                  AND (w.edit_policy <> held.edit_policy OR w.status <> held.status))
  ) THEN
    RAISE EXCEPTION 'create batch raced' USING ERRCODE = 'WB409';
  END IF;

  -- 4. The write, as the transaction's last statement did.
  WITH req AS (
    SELECT q.*, r.revision AS base FROM jsonb_to_recordset(writing)
      AS q(ord int, room_id uuid, id uuid, user_id uuid, kind text, data jsonb, event_id text)
    JOIN rooms r ON r.id = q.room_id
  ),
  existing AS (
    SELECT room_id, id, kind, version, deleted, pinned, created_by, updated_by, z, lock_generation,
           lock_session_id, lock_user_id, lock_expires_at, lock_request_id,
           (SELECT ev.data FROM element_versions ev WHERE ev.room_id = elements.room_id AND ev.element_id = elements.id
              AND ev.version <= elements.version ORDER BY ev.version DESC LIMIT 1) AS data
    FROM elements WHERE (room_id, id) IN (SELECT room_id, id FROM req)
  ),
  fresh AS (
    SELECT req.*, req.base + row_number() OVER (PARTITION BY req.room_id ORDER BY req.ord) AS revision
    FROM req WHERE (req.room_id, req.id) NOT IN (SELECT room_id, id FROM existing)
  ),
  ins AS (
    INSERT INTO elements (room_id, id, kind, version, created_by, updated_by, created_at, updated_at, z)
    SELECT room_id, id, kind, 1, user_id, user_id, at, at, revision FROM fresh
    ON CONFLICT (room_id, id) DO NOTHING
    RETURNING room_id, id, kind, version, deleted, pinned, created_by, updated_by, z, lock_generation,
              lock_session_id, lock_user_id, lock_expires_at, lock_request_id
  ),
  ver AS (
    INSERT INTO element_versions (room_id, element_id, version, data, deleted, action, by, at, batch_id)
    SELECT ins.room_id, ins.id, 1, fresh.data, false, 'created', ins.created_by, at, NULL
    FROM ins JOIN fresh ON fresh.room_id = ins.room_id AND fresh.id = ins.id
    ON CONFLICT DO NOTHING
  ),
  ev AS (
    INSERT INTO room_events (room_id, revision, event_id, kind, payload, at, element_id, element_version)
    SELECT fresh.room_id, fresh.revision, fresh.event_id, 'element.created',
           jsonb_build_object('element', jsonb_build_object(
             'id', ins.id, 'version', 1, 'pinned', false,
             'createdBy', ins.created_by, 'updatedBy', ins.updated_by, 'z', fresh.revision, 'lock', NULL)),
           at, ins.id, 1
    FROM fresh JOIN ins ON ins.room_id = fresh.room_id AND ins.id = fresh.id
    ON CONFLICT (event_id) DO NOTHING
    RETURNING room_id
  ),
  counts AS (SELECT room_id, count(*) AS n FROM ins GROUP BY room_id),
  bump AS (
    UPDATE rooms SET revision = rooms.revision + counts.n, live_elements = rooms.live_elements + counts.n
    FROM counts WHERE rooms.id = counts.room_id
    RETURNING rooms.id, rooms.revision
  ),
  out AS (
    SELECT to_jsonb(ins) || jsonb_build_object('data', fresh.data, 'ord', fresh.ord, 'event_revision', fresh.revision, 'found', true) AS item
    FROM ins JOIN fresh ON fresh.room_id = ins.room_id AND fresh.id = ins.id
    UNION ALL
    SELECT to_jsonb(existing) || jsonb_build_object('ord', req.ord, 'event_revision', NULL, 'found', false)
    FROM existing JOIN req ON req.room_id = existing.room_id AND req.id = existing.id
  )
  SELECT CASE
           -- With the rooms' rows held, only a writer that skipped them could make these disagree.
           WHEN (SELECT count(*) FROM out) <> jsonb_array_length(writing)
             OR (SELECT count(*) FROM ev) <> (SELECT count(*) FROM ins)
             OR EXISTS (SELECT 1 FROM bump JOIN counts ON counts.room_id = bump.id
                        JOIN (SELECT DISTINCT room_id, base FROM req) b ON b.room_id = bump.id
                        WHERE bump.revision <> b.base + counts.n)
           THEN NULL
           ELSE coalesce((SELECT jsonb_agg(item ORDER BY (item->>'ord')::int) FROM out), '[]'::jsonb)
         END
  INTO written;
  IF written IS NULL THEN
    RAISE EXCEPTION 'create batch raced' USING ERRCODE = 'WB409';
  END IF;
  RETURN jsonb_build_object('refused', refused, 'rows', written);
END;
$$;
