-- 16: a pick's claim walks an index of the waiting simulations alone (issue 33).
--
-- The claim of a job's waiting simulations could walk `docs_parent_status` (the waiting ones)
-- or `docs_parent` (every simulation of the job in order, the waiting ones filtered). Planned
-- for no job in particular (PL/pgSQL's generic plan, kept once a statement has run five
-- times), or for a job the statistics did not know yet, the planner estimated one row either
-- way and chose by a hair: `docs_parent` in 103 of 338 slow claims of a 4,000-simulation run
-- with one replica, 170 of 357 with two. Those walked every simulation of the job already
-- picked, at each pick: 10 ms a claim against 4-5 at 4,000, the longer the run the longer.
--
-- `docs_waiting` holds the waiting simulations alone. The claim names the status itself, not
-- a value of the pick's, so that its conditions imply the index's in every plan, generic or
-- not; no other index serves it as cheaply. Only PENDING simulations are picked in one
-- statement (the transaction picks retries), so `sb_pick` refuses any other.
CREATE INDEX docs_waiting ON docs (kind, parent_id, seq) WHERE status = 'PENDING' AND deleted_at IS NULL;

CREATE OR REPLACE FUNCTION sb_pick(pick TEXT) RETURNS TABLE (answer BIGINT, body TEXT) LANGUAGE plpgsql AS $$
DECLARE
    p JSONB := pick::JSONB;
    job TEXT := p ->> 'job_id';
    job_kind TEXT := p ->> 'job_kind';
    child_kind TEXT := p ->> 'child_kind';
    picker TEXT := p ->> 'owner';
    running_statuses TEXT[] := ARRAY(SELECT jsonb_array_elements_text(p -> 'running'));
    active_statuses TEXT[] := ARRAY(SELECT jsonb_array_elements_text(p -> 'active_jobs'));
    places INT := (p ->> 'max')::INT;
    share BIGINT := (p ->> 'share')::BIGINT;
    job_key INT := (p ->> 'key')::INT;
    alone BOOLEAN;
    room BIGINT;
    held BIGINT;
    running BIGINT;
    placed BIGINT;
    taken INT[];
    free INT[];
    lock_wait TEXT;
BEGIN
    IF p ->> 'from' IS DISTINCT FROM 'PENDING' THEN
        RAISE EXCEPTION 'sb_pick claims PENDING simulations, not %', p ->> 'from';
    END IF;
    -- An engine's progress, as every pick is (a replica that dies has its leases lapse).
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM pg_advisory_xact_lock_shared((p ->> 'scheduling')::BIGINT);
    IF (SELECT coalesce(sum(c.live), 0) FROM child_counts c
            WHERE c.parent_id = job AND c.kind = child_kind AND c.status = p ->> 'retry') > 0 THEN
        RETURN QUERY SELECT 2::BIGINT, NULL::TEXT;
        RETURN;
    END IF;
    -- A SEQUENTIAL_PROJECT simulation runs alone. The job itself is not one (it would be
    -- picked alone, by the transaction): its body, a plan of some kilobytes, is not parsed.
    IF EXISTS (SELECT 1 FROM docs d
            WHERE d.kind = job_kind AND d.status = ANY (active_statuses) AND d.deleted_at IS NULL
            AND d.id <> job
            AND (d.body #>> '{plan,executionMode}') = p ->> 'alone_mode'
            AND (SELECT coalesce(sum(c.live), 0) FROM child_counts c
                 WHERE c.parent_id = d.id AND c.kind = child_kind AND c.status = ANY (running_statuses)) > 0) THEN
        RETURN;
    END IF;
    -- The job's lock, shared unless simulations without a place run (the running ones, counted
    -- as the counts triggers keep them, more than those holding places); waited for, not for
    -- long: a holder stalled inside its transaction fails this pick (lock_not_available).
    SELECT (SELECT coalesce(sum(c.live), 0) FROM child_counts c
                WHERE c.parent_id = job AND c.kind = child_kind AND c.status = ANY (running_statuses)),
            (SELECT count(*) FROM docs d WHERE d.parent_id = job AND d.place IS NOT NULL
                AND d.status IN ('QUEUED', 'PROCESSING'))
        INTO running, placed;
    alone := running > placed;
    lock_wait := current_setting('lock_timeout');
    PERFORM set_config('lock_timeout', (p ->> 'wait_ms'), true);
    IF alone THEN
        PERFORM pg_advisory_xact_lock((p ->> 'class')::INT, job_key);
    ELSE
        PERFORM pg_advisory_xact_lock_shared((p ->> 'class')::INT, job_key);
    END IF;
    PERFORM set_config('lock_timeout', lock_wait, true);
    -- Counted again after the lock, in one snapshot: the running simulations, the places held,
    -- by this replica, and which.
    SELECT (SELECT coalesce(sum(c.live), 0) FROM child_counts c
                WHERE c.parent_id = job AND c.kind = child_kind AND c.status = ANY (running_statuses)),
            h.placed, h.held, h.taken
        INTO running, placed, held, taken
        FROM (SELECT count(*) AS placed, count(*) FILTER (WHERE d.lease_owner = picker) AS held,
                coalesce(array_agg(d.place), '{}') AS taken
            FROM docs d WHERE d.parent_id = job AND d.place IS NOT NULL
                AND d.status IN ('QUEUED', 'PROCESSING')) h;
    IF running > placed AND NOT alone THEN
        RETURN; -- the transaction picked meanwhile: counted alone, by the loop's next pick
    END IF;
    room := places - running;
    -- The replica's share (none given: alone, the whole room), less what it holds of the job
    -- (shared, every simulation it holds holds a place).
    IF share IS NOT NULL THEN
        IF alone THEN
            SELECT count(*) INTO held FROM (SELECT kind, parent_id FROM docs WHERE lease_owner = picker OFFSET 0) AS l
                WHERE l.kind = child_kind AND l.parent_id = job;
        END IF;
        room := least(room, share - held);
    END IF;
    IF room <= 0 THEN
        RETURN;
    END IF;
    IF alone THEN
        free := ARRAY(SELECT n FROM generate_series(0, places - 1) n WHERE n <> ALL (taken) ORDER BY n LIMIT room);
    ELSE
        -- The free places' locks, those another pick holds passed by; then which of them are
        -- still free, read after the locks.
        free := ARRAY(SELECT n FROM generate_series(0, places - 1) n
            WHERE n <> ALL (taken) AND pg_try_advisory_xact_lock(job_key, n) LIMIT room);
        taken := ARRAY(SELECT d.place FROM docs d WHERE d.parent_id = job AND d.place = ANY (free)
            AND d.status IN ('QUEUED', 'PROCESSING'));
        free := ARRAY(SELECT n FROM unnest(free) n WHERE n <> ALL (taken) ORDER BY n);
    END IF;
    -- `claims::move_leased`'s statement: the status set in place, leased to the picker, each
    -- simulation given a free place. The waiting ones by `docs_waiting`, whose conditions the
    -- claim's spell out, so that every plan of it, for any job, walks them alone.
    RETURN QUERY WITH picked AS (SELECT d.seq FROM docs d
            WHERE d.kind = child_kind AND d.parent_id = job AND d.status = 'PENDING' AND d.deleted_at IS NULL
            ORDER BY d.seq LIMIT cardinality(free) FOR UPDATE SKIP LOCKED),
        numbered AS (SELECT picked.seq, row_number() OVER (ORDER BY picked.seq) AS n FROM picked),
        moved AS (UPDATE docs d SET status = p ->> 'to', body = CAST(sb_set_members(d.body, p -> 'members') AS JSON),
                lease_owner = picker, lease_until = (p ->> 'until_ms')::BIGINT, place = free[numbered.n::INT]
            FROM numbered WHERE d.seq = numbered.seq RETURNING d.seq, CAST(d.body AS TEXT) AS body)
        SELECT 0::BIGINT, m.body FROM moved m ORDER BY m.seq;
END $$;

-- Set again: `CREATE OR REPLACE` cleared migration 15's setting.
ALTER FUNCTION sb_pick(TEXT) SET enable_bitmapscan = off;
