-- 14: less of PostgreSQL's CPU a simulation (issue 33), the same rows and bytes as before.
--
-- A simulation's document (about 3 KB) is kept whole in its row, not compressed and moved out
-- to the TOAST table: lz4 brings 3 KB of JSON to about 2.2 KB, still past the 2 KB from which
-- PostgreSQL moves a value out of line, so every rewrite of a simulation (three a run)
-- compressed it, wrote its chunks and their index entries, and every read fetched and
-- decompressed them. Rows up to a page stay whole in place; a larger one is compressed, and
-- moved out only if it is still larger than a page (a long transcript has a table of its own).
-- Only rows written from now on. Events stay as
-- they were: an event is written once and then numbered, and numbering a row that holds its
-- document whole copies the document (tried: the publisher's numbering took 3.6 times as long).
ALTER TABLE docs SET (toast_tuple_target = 8160);

-- `sb_set_members` (migration 9) with its members found by position: the body's names and
-- members read in one `json_each` into two arrays, each member given set at its name's first
-- place (`array_position`) or appended, and the members joined again. Half its CPU: the window,
-- grouping, join and union that matched names were most of its cost (0.2 ms a simulation's
-- document, now 0.1). The same bytes as `members::set` (`store::tests::migrating`).
CREATE OR REPLACE FUNCTION sb_set_members(body JSON, members JSONB) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    names TEXT[];
    pairs TEXT[];
    name TEXT;
    pair TEXT;
    at INT;
BEGIN
    -- As migration 9: no members, the body as it is; a member given without a value, skipped.
    members := coalesce(members, '[]');
    SELECT coalesce(array_agg(e.key ORDER BY e.n), '{}'),
            coalesce(array_agg(to_json(e.key)::TEXT || ':' || e.value::TEXT ORDER BY e.n), '{}')
        INTO names, pairs
        FROM json_each(body) WITH ORDINALITY AS e (key, value, n);
    FOR i IN 0 .. jsonb_array_length(members) - 1 LOOP
        name := members -> i ->> 0;
        pair := to_json(name)::TEXT || ':' || (members -> i ->> 1);
        CONTINUE WHEN pair IS NULL;
        at := array_position(names, name);
        IF at IS NULL THEN
            names := names || name;
            pairs := pairs || pair;
        ELSE
            pairs[at] := pair;
        END IF;
    END LOOP;
    RETURN '{' || array_to_string(pairs, ',') || '}';
END $$;

-- `sb_apply` (migration 10) with the texts it writes beside its batch, not inside it: a batch
-- was one JSON text that the function parsed whole into `jsonb`, a simulation's document, its
-- event's copy of it, its call, transcript and values with it (most of the parse's cost, and
-- the texts were then parsed again as they were written). Now the batch names each text by its
-- place in `texts`, and one text written twice (a document and its event) is sent once. The
-- one-argument `sb_apply` is kept, so that a replica not yet upgraded keeps writing.
CREATE FUNCTION sb_apply(batch TEXT, texts TEXT[]) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    -- Parsed once (a `json` value is parsed again at every `->`); the texts it writes are
    -- numbers, each its place in `texts`.
    b JSONB := batch::JSONB;
    g JSONB := b -> 'guard';
    now_ms BIGINT := (b ->> 'now_ms')::BIGINT;
    webhook TEXT := b ->> 'webhook';
    alert_webhook TEXT := b ->> 'alert_webhook';
    found_status TEXT;
    found_owner TEXT;
    found_parent TEXT;
    seen BOOLEAN;
    -- The guarded document, when its lease is given back by its rewrite below.
    releasing_kind TEXT;
    releasing_id TEXT;
    u RECORD;
    ev RECORD;
    new_seq BIGINT;
BEGIN
    IF (b ->> 'lazy')::BOOLEAN THEN
        -- Until the commit that ends this statement's transaction.
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    IF jsonb_typeof(g) = 'object' THEN
        SELECT status, lease_owner, parent_id, true INTO found_status, found_owner, found_parent, seen FROM docs
            WHERE kind = g ->> 'kind' AND id = g ->> 'id' FOR UPDATE;
        IF seen IS NULL OR found_owner IS DISTINCT FROM g ->> 'owner' THEN
            RETURN 2;
        END IF;
        IF found_status IS DISTINCT FROM g ->> 'status' THEN
            RETURN 1;
        END IF;
        IF g ->> 'parent_kind' IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM docs WHERE kind = g ->> 'parent_kind' AND id = g ->> 'parent_id'
                AND status IN (SELECT jsonb_array_elements_text(g -> 'parent_in'))) THEN
            RETURN 1;
        END IF;
        IF (g ->> 'release')::BOOLEAN THEN
            IF EXISTS (SELECT 1 FROM jsonb_array_elements(b -> 'updates') AS x (d)
                       WHERE x.d ->> 'kind' = g ->> 'kind' AND x.d ->> 'id' = g ->> 'id') THEN
                releasing_kind := g ->> 'kind';
                releasing_id := g ->> 'id';
                -- The release's own write of a child: its parent's revision, as its update
                -- counted it.
                IF found_parent IS NOT NULL THEN
                    INSERT INTO child_revisions AS r (parent_id, revision, shard)
                        VALUES (found_parent, 1, pg_backend_pid())
                        ON CONFLICT (parent_id, shard) DO UPDATE SET revision = r.revision + excluded.revision;
                END IF;
            ELSE
                UPDATE docs SET lease_owner = NULL, lease_until = NULL WHERE kind = g ->> 'kind' AND id = g ->> 'id';
            END IF;
        END IF;
    END IF;
    IF jsonb_array_length(b -> 'inserts') > 0 THEN
    INSERT INTO docs (kind, id, body, status, parent_id, created_at)
            SELECT x.kind, x.id, texts[x.body]::JSON, x.status, x.parent_id, x.created_at
            FROM ROWS FROM (jsonb_to_recordset(b -> 'inserts')
                AS (kind TEXT, id TEXT, body INT, status TEXT, parent_id TEXT, created_at TEXT))
                WITH ORDINALITY AS x (kind, id, body, status, parent_id, created_at, n)
            ORDER BY x.n;
    END IF;
    IF jsonb_array_length(b -> 'transcripts') > 0 THEN
    INSERT INTO transcripts (call_id, body)
            SELECT x.id, texts[x.body] FROM jsonb_to_recordset(b -> 'transcripts') AS x (id TEXT, body INT);
    END IF;
    IF jsonb_array_length(b -> 'values') > 0 THEN
    INSERT INTO metric_values (job_id, definition_id, call_id, chat_id, capture_status, body, value,
                context, participant_role, label)
            SELECT x.job_id, x.definition_id, x.call_id, x.chat_id, x.capture_status, texts[x.body], x.value,
                x.context, x.participant_role, x.label
            FROM ROWS FROM (jsonb_to_recordset(b -> 'values')
                AS (job_id TEXT, definition_id TEXT, call_id TEXT, chat_id TEXT, capture_status TEXT, body INT,
                    value DOUBLE PRECISION, context TEXT, participant_role TEXT, label TEXT))
                WITH ORDINALITY AS x (job_id, definition_id, call_id, chat_id, capture_status, body, value,
                    context, participant_role, label, n)
            ORDER BY x.n;
    END IF;
    FOR u IN SELECT * FROM jsonb_to_recordset(b -> 'updates')
            AS x (kind TEXT, id TEXT, body INT, status TEXT, parent_id TEXT) LOOP
        IF u.kind = releasing_kind AND u.id = releasing_id THEN
            UPDATE docs SET body = texts[u.body]::JSON, status = u.status, parent_id = u.parent_id,
                    lease_owner = NULL, lease_until = NULL
                WHERE kind = u.kind AND id = u.id;
        ELSE
            UPDATE docs SET body = texts[u.body]::JSON, status = u.status, parent_id = u.parent_id
                WHERE kind = u.kind AND id = u.id;
        END IF;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'no % %', u.kind, u.id USING ERRCODE = 'P0002';
        END IF;
    END LOOP;
    -- Each event and its webhook deliveries, as `outbox::append` writes them.
    FOR ev IN SELECT * FROM ROWS FROM (jsonb_to_recordset(b -> 'events')
            AS (type TEXT, kind TEXT, id TEXT, parent_id TEXT, at TEXT, data INT, alert_id TEXT))
            WITH ORDINALITY AS x (type, kind, id, parent_id, at, data, alert_id, n) ORDER BY x.n LOOP
        INSERT INTO events (type, resource_kind, resource_id, parent_id, created_at, body)
            VALUES (ev.type, ev.kind, ev.id, ev.parent_id, ev.at, texts[ev.data]) RETURNING seq INTO new_seq;
        INSERT INTO webhook_deliveries (id, webhook_id, event_seq, status, attempts, next_attempt_at, created_at)
            SELECT 'msg_' || substr(md5(random()::text || clock_timestamp()::text), 1, 24), w.id, new_seq,
                'PENDING', 0, now_ms, ev.at FROM docs w
            WHERE w.kind IN (webhook, alert_webhook) AND w.deleted_at IS NULL
            AND (EXISTS (SELECT 1 FROM json_array_elements_text(w.body -> 'events') AS t (value)
                         WHERE t.value = ev.type)
                 OR (w.kind = alert_webhook AND w.parent_id = ev.alert_id));
    END LOOP;
    IF jsonb_array_length(b -> 'ends') > 0 THEN
    INSERT INTO job_ends (job_id, part, collection_id, item_failed, item_at)
            SELECT x.job_id, texts[x.part], x.collection_id, x.item_failed, x.item_at
            FROM ROWS FROM (jsonb_to_recordset(b -> 'ends')
                AS (job_id TEXT, part INT, collection_id TEXT, item_failed BIGINT, item_at TEXT))
                WITH ORDINALITY AS x (job_id, part, collection_id, item_failed, item_at, n)
            ORDER BY x.n;
    END IF;
    RETURN 0;
END $$;

-- `sb_pick` (migration 13) with its reads of the places held bound to `docs_placed`. They
-- named the job's kind of child too, which let the planner, its statistics taken before the
-- run was created (a job of one or two simulations, by them), walk the job's simulations by
-- `docs_parent_status` instead: 10-20 ms a pick at 4,000, every dead row of the run visited.
-- Only a pick's simulations hold places, so the places' reads name the job and the statuses
-- alone, and only `docs_placed` leads with the job. A replica's count of what it holds, on
-- the pick that counts alone, is read by its leases (`docs_leased`) for the same reason
-- (`store::places` reads it so).
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
