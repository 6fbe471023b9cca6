-- 11: a pick of a job's simulations in one statement (`store::picks`, issue 33), where the
-- refill's pick was a transaction of its own: BEGIN with its SET LOCAL and the job's lock, the
-- due retries, the room's count, the claim, COMMIT (about three round trips a simulation).
--
-- `sb_pick(pick)`: under the scheduling lock held shared and the job's pick lock tried (taken
-- by another pick: one row `(1, NULL)`, passed by, as `Pick::job`'s transaction is), counts the
-- job's room and moves that many of its oldest PENDING simulations to QUEUED, leased to the
-- picking replica, answering their bodies as `(0, body)` rows, oldest first (no row: no room
-- or nothing waiting). A job with retries waiting answers `(2, NULL)` and writes nothing: which
-- retry is due is decided on the job's clock by the transaction (`sim::pick`), which runs then.
-- Each statement here reads a fresh snapshot (READ COMMITTED, a volatile function), so the
-- counts follow the last pick's commit, as the transaction's do after its lock.
--
-- The room is `limits::room_in`'s for a job whose limits are its own (a sequential mode is
-- picked alone, by the transaction): nothing while a SEQUENTIAL_PROJECT job has a simulation
-- running, else the job's free places, no more than the replica's share less what it holds.
-- `store::tests::picking` holds the two to the same answers on the same rows.
CREATE FUNCTION sb_pick(pick TEXT) RETURNS TABLE (answer BIGINT, body TEXT) LANGUAGE plpgsql AS $$
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
BEGIN
    -- An engine's progress, as every pick is (a replica that dies has its leases lapse).
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM pg_advisory_xact_lock_shared((p ->> 'scheduling')::BIGINT);
    IF NOT pg_try_advisory_xact_lock((p ->> 'class')::INT, (p ->> 'key')::INT) THEN
        RETURN QUERY SELECT 1::BIGINT, NULL::TEXT;
        RETURN;
    END IF;
    IF (SELECT coalesce(sum(c.live), 0) FROM child_counts c
            WHERE c.parent_id = job AND c.kind = child_kind AND c.status = p ->> 'retry') > 0 THEN
        RETURN QUERY SELECT 2::BIGINT, NULL::TEXT;
        RETURN;
    END IF;
    -- A SEQUENTIAL_PROJECT simulation runs alone.
    IF EXISTS (SELECT 1 FROM docs d
            WHERE d.kind = job_kind AND d.status = ANY (active_statuses) AND d.deleted_at IS NULL
            AND (d.body #>> '{plan,executionMode}') = p ->> 'alone_mode'
            AND (SELECT coalesce(sum(c.live), 0) FROM child_counts c
                 WHERE c.parent_id = d.id AND c.kind = child_kind AND c.status = ANY (running_statuses)) > 0) THEN
        RETURN;
    END IF;
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
