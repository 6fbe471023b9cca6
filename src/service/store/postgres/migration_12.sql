-- 12: a pick waits for its job's pick lock instead of passing the job by (issue 33). With the
-- job's places shared out among the replicas, the replica passed by lost its part until its
-- loop's next pass: the other picks only its own share. The two replicas' refills of one job
-- now take turns on the lock (a pick holds it for one statement), and `sb_pick` no longer
-- answers `(1, NULL)`. A pick waits at most `wait_ms`: a holder stalled inside its
-- transaction fails it, and the replica picks again later. The lock is taken after the checks
-- for retries waiting and a SEQUENTIAL_PROJECT job running, which need none, and that check
-- no longer parses the picked job's own body. Otherwise it is migration 11's.
CREATE OR REPLACE FUNCTION sb_pick(pick TEXT) RETURNS TABLE (answer BIGINT, body TEXT) LANGUAGE plpgsql AS $$
DECLARE
    p JSONB := pick::JSONB;
    job TEXT := p ->> 'job_id';
    job_kind TEXT := p ->> 'job_kind';
    child_kind TEXT := p ->> 'child_kind';
    picker TEXT := p ->> 'owner';
    running_statuses TEXT[] := ARRAY(SELECT jsonb_array_elements_text(p -> 'running'));
    active_statuses TEXT[] := ARRAY(SELECT jsonb_array_elements_text(p -> 'active_jobs'));
    places BIGINT := (p ->> 'max')::BIGINT;
    share BIGINT := (p ->> 'share')::BIGINT;
    room BIGINT;
    held BIGINT;
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
    -- The job's lock, for the room's count and the claim alone (the checks above need none:
    -- a retry that appears meanwhile waits for the next pick, and a SEQUENTIAL_PROJECT pick
    -- holds the scheduling lock alone). Waited for: a pick that meets another for the job
    -- counts after that one's commit. Not for long: a holder stalled inside its transaction
    -- fails this pick (lock_not_available), and the replica's scheduling loop picks again.
    lock_wait := current_setting('lock_timeout');
    PERFORM set_config('lock_timeout', (p ->> 'wait_ms'), true);
    PERFORM pg_advisory_xact_lock((p ->> 'class')::INT, (p ->> 'key')::INT);
    PERFORM set_config('lock_timeout', lock_wait, true);
    SELECT places - coalesce(sum(c.live), 0) INTO room FROM child_counts c
        WHERE c.parent_id = job AND c.kind = child_kind AND c.status = ANY (running_statuses);
    -- The replica's share (none given: alone, the whole room), less what it holds of the job.
    IF share IS NOT NULL THEN
        SELECT count(*) INTO held FROM docs d WHERE d.lease_owner = picker AND d.kind = child_kind AND d.parent_id = job;
        room := least(room, share - held);
    END IF;
    IF room <= 0 THEN
        RETURN;
    END IF;
    -- `claims::move_leased`'s statement: the status set in place, leased to the picker.
    RETURN QUERY WITH picked AS (SELECT d.seq FROM docs d
            WHERE d.kind = child_kind AND d.parent_id = job AND d.status = p ->> 'from' AND d.deleted_at IS NULL
            ORDER BY d.seq LIMIT room FOR UPDATE SKIP LOCKED),
        moved AS (UPDATE docs d SET status = p ->> 'to', body = CAST(sb_set_members(d.body, p -> 'members') AS JSON),
                lease_owner = picker, lease_until = (p ->> 'until_ms')::BIGINT
            FROM picked WHERE d.seq = picked.seq RETURNING d.seq, CAST(d.body AS TEXT) AS body)
        SELECT 0::BIGINT, m.body FROM moved m ORDER BY m.seq;
END $$;
