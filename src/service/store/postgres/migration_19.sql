-- 19: a pick's claim starts where the picker's last claim ended (issue 33).
--
-- Every simulation a claim moves on leaves its entry in `docs_waiting` until the table is
-- vacuumed, and each claim walked the job's entries from its first: at 10,000 simulations the
-- walk read 95 pages and took 1.4 ms at the end of a run against 0.13 ms at its start
-- (`auto_explain`), and a second replica, which claims twice as often, walked twice as often.
-- The picker now gives the sequence number after the last simulation it claimed of the job
-- (`after`), and the claim walks from there. What waits below it (a simulation handed back
-- after its replica stopped, one another pick left locked and then rolled back) is claimed
-- when the walk from `after` finds fewer than the pick's free places, and by the walk from the
-- first that the picker makes after every 32 claims from its floor (`postgres::floors`). `sb_pick` answers each simulation's sequence number
-- beside its body; a replica not yet upgraded reads the two columns it names and gives no
-- `after`, and walks from the first as before.
DROP FUNCTION sb_pick(TEXT);

CREATE FUNCTION sb_pick(pick TEXT) RETURNS TABLE (answer BIGINT, body TEXT, seq BIGINT) LANGUAGE plpgsql AS $$
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
    after BIGINT := (p ->> 'after')::BIGINT;
    walk_from BIGINT := coalesce(after, 0);
    claimed INT;
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
        RETURN QUERY SELECT 2::BIGINT, NULL::TEXT, NULL::BIGINT;
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
    -- claim's spell out, so that every plan of it, for any job, walks them alone; from `after`
    -- on where the picker gives it, and from the job's first where that finds too few.
    FOR walk IN 1 .. 2 LOOP
        RETURN QUERY WITH picked AS (SELECT d.seq FROM docs d
                WHERE d.kind = child_kind AND d.parent_id = job AND d.status = 'PENDING' AND d.deleted_at IS NULL
                AND d.seq >= walk_from
                ORDER BY d.seq LIMIT cardinality(free) FOR UPDATE SKIP LOCKED),
            numbered AS (SELECT picked.seq, row_number() OVER (ORDER BY picked.seq) AS n FROM picked),
            moved AS (UPDATE docs d SET status = p ->> 'to', body = CAST(sb_set_members(d.body, p -> 'members') AS JSON),
                    lease_owner = picker, lease_until = (p ->> 'until_ms')::BIGINT, place = free[numbered.n::INT]
                FROM numbered WHERE d.seq = numbered.seq RETURNING d.seq, CAST(d.body AS TEXT) AS body)
            SELECT 0::BIGINT, m.body, m.seq FROM moved m ORDER BY m.seq;
        GET DIAGNOSTICS claimed = ROW_COUNT;
        EXIT WHEN walk_from = 0 OR claimed >= cardinality(free);
        free := free[claimed + 1 :];
        walk_from := 0;
    END LOOP;
END $$;

-- As migration 15 set it: the pick's reads by plain index scans, which mark dead entries.
ALTER FUNCTION sb_pick(TEXT) SET enable_bitmapscan = off;
