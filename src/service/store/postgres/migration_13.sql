-- 13: a job's places, so that two replicas' picks of one job stop taking turns (issue 33). A
-- pick held the job's lock to count its room, and the replicas' refills of a job met on it:
-- with two replicas a quarter of the database's busy time was a pick waiting for the other's.
--
-- A running simulation picked here holds one of its job's `maxConcurrentJobs` places, by
-- number (`docs.place`, 0 to max - 1): a place is free when no QUEUED or PROCESSING
-- simulation of the job holds it. A pick takes the job's lock SHARED, so picks of one job run
-- side by side; each tries the free places' own locks (`pg_try_advisory_xact_lock(job's key,
-- place)`) and passes by those another pick holds, reads again which of the places it locked
-- are free (after its lock, so a pick that took one and committed meanwhile is seen), and
-- claims that many simulations, each with a place of its own. The places cap the job: no two
-- running simulations hold one place (`sim::pick::tests` holds picks to it; a unique index
-- would check every earlier holder of the place, dead rows included, at every pick).
--
-- Simulations running without a place — picked by the transaction (`sim::pick`, a job with
-- retries waiting), or before this migration — are counted the old way: while the job has
-- any, a pick takes its lock alone and counts the room (`max` less every running one), as the
-- transaction does under the same lock, and gives the simulations it picks places too. A
-- shared pick that finds such a simulation committed after its look picks nothing: the
-- scheduler's loop picks again. Otherwise it is migration 12's.
ALTER TABLE docs ADD COLUMN place INTEGER;
-- The places held, found without walking the job's simulations by status (every simulation
-- that ever ran leaves dead QUEUED and PROCESSING rows there until vacuumed: such scans took
-- 7-9 ms each, on average over a 4,000-simulation run). The statuses are `sim::limits`' RUNNING,
-- spelled here so that the planner can use the index; the queries below spell them alike.
CREATE INDEX docs_placed ON docs (parent_id, place) WHERE place IS NOT NULL AND status IN ('QUEUED', 'PROCESSING');

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
    -- A plain value, so that the claim's plan finds the waiting ones by the status index: as
    -- an expression of `p` it walked every earlier simulation of the job (3 ms a pick at
    -- 3,000, growing with the run).
    waiting TEXT := p ->> 'from';
    alone BOOLEAN;
    room BIGINT;
    held BIGINT;
    running BIGINT;
    placed BIGINT;
    taken INT[];
    free INT[];
    lock_wait TEXT;
BEGIN
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
                AND d.status IN ('QUEUED', 'PROCESSING') AND d.kind = child_kind)
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
                AND d.status IN ('QUEUED', 'PROCESSING') AND d.kind = child_kind) h;
    IF running > placed AND NOT alone THEN
        RETURN; -- the transaction picked meanwhile: counted alone, by the loop's next pick
    END IF;
    room := places - running;
    -- The replica's share (none given: alone, the whole room), less what it holds of the job
    -- (shared, every simulation it holds holds a place).
    IF share IS NOT NULL THEN
        IF alone THEN
            SELECT count(*) INTO held FROM docs d WHERE d.lease_owner = picker AND d.kind = child_kind AND d.parent_id = job;
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
            AND d.status IN ('QUEUED', 'PROCESSING') AND d.kind = child_kind);
        free := ARRAY(SELECT n FROM unnest(free) n WHERE n <> ALL (taken) ORDER BY n);
    END IF;
    -- `claims::move_leased`'s statement: the status set in place, leased to the picker, each
    -- simulation given a free place.
    RETURN QUERY WITH picked AS (SELECT d.seq FROM docs d
            WHERE d.kind = child_kind AND d.parent_id = job AND d.status = waiting AND d.deleted_at IS NULL
            ORDER BY d.seq LIMIT cardinality(free) FOR UPDATE SKIP LOCKED),
        numbered AS (SELECT picked.seq, row_number() OVER (ORDER BY picked.seq) AS n FROM picked),
        moved AS (UPDATE docs d SET status = p ->> 'to', body = CAST(sb_set_members(d.body, p -> 'members') AS JSON),
                lease_owner = picker, lease_until = (p ->> 'until_ms')::BIGINT, place = free[numbered.n::INT]
            FROM numbered WHERE d.seq = numbered.seq RETURNING d.seq, CAST(d.body AS TEXT) AS body)
        SELECT 0::BIGINT, m.body FROM moved m ORDER BY m.seq;
END $$;
