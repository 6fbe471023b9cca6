-- 9: PostgreSQL's CPU a simulation (issue 33), the same rows as before.
--
-- `sb_set_members` parses the body once: its members are read by one `json_each` kept in a
-- CTE (migration 8 parsed the body again for every member it set), and it is PL/pgSQL so that
-- its plan is kept for the session (an SQL function that is not inlined is planned again at
-- every statement that calls it). The same text as `members::set`: the first member of a name
-- takes the last value given for it; a name the body lacks is appended, in the order given.
CREATE OR REPLACE FUNCTION sb_set_members(body JSON, members JSONB) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN (
        WITH e AS (
            SELECT e.key, e.value::TEXT AS value, e.n, row_number() OVER (PARTITION BY e.key ORDER BY e.n) = 1 AS first
            FROM json_each(body) WITH ORDINALITY AS e (key, value, n)
        ), m AS (
            SELECT s.key, (array_agg(s.value ORDER BY s.n DESC))[1] AS value, min(s.n) AS n
            FROM (SELECT x.s ->> 0 AS key, x.s ->> 1 AS value, x.n
                  FROM jsonb_array_elements(members) WITH ORDINALITY AS x (s, n)) AS s
            GROUP BY s.key
        )
        SELECT '{' || coalesce(string_agg(to_json(r.key)::TEXT || ':' || r.value, ',' ORDER BY r.n), '') || '}'
        FROM (
            SELECT e.key, coalesce(CASE WHEN e.first THEN m.value END, e.value) AS value, e.n
                FROM e LEFT JOIN m ON m.key = e.key
            UNION ALL
            SELECT m.key, m.value, 1000000000 + m.n FROM m WHERE NOT EXISTS (SELECT 1 FROM e WHERE e.key = m.key)
        ) AS r
    );
END $$;

-- The counts and revisions `docs_counted` kept a row at a time (migration 1: three functions
-- and up to five upserts a row), kept a statement at a time from its transition tables: one
-- statement a trigger, whatever the rows. The rows touched and their sums are the ones the row
-- trigger left (a group whose changes cancel is still written, by 0, as the row trigger wrote
-- its -1 and +1): every live row counted by kind and status, and by parent; every child's
-- write a revision of its parent (an update, of its old parent and of a new one).
CREATE FUNCTION sb_count_inserted() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    WITH added AS (
        SELECT kind, coalesce(status, '') AS status, parent_id, deleted_at IS NULL AS live FROM new_rows
    ), counted AS (
        INSERT INTO doc_counts AS c (kind, status, live, shard)
            SELECT kind, status, count(*), pg_backend_pid() FROM added WHERE live GROUP BY kind, status
            ON CONFLICT (kind, status, shard) DO UPDATE SET live = c.live + excluded.live
    ), children AS (
        INSERT INTO child_counts AS c (parent_id, kind, status, live, shard)
            SELECT parent_id, kind, status, count(*), pg_backend_pid() FROM added
            WHERE live AND parent_id IS NOT NULL GROUP BY parent_id, kind, status
            ON CONFLICT (parent_id, kind, status, shard) DO UPDATE SET live = c.live + excluded.live
    )
    INSERT INTO child_revisions AS r (parent_id, revision, shard)
        SELECT parent_id, count(*), pg_backend_pid() FROM added WHERE parent_id IS NOT NULL GROUP BY parent_id
        ON CONFLICT (parent_id, shard) DO UPDATE SET revision = r.revision + excluded.revision;
    RETURN NULL;
END $$;

CREATE FUNCTION sb_count_deleted() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    WITH removed AS (
        SELECT kind, coalesce(status, '') AS status, parent_id, deleted_at IS NULL AS live FROM old_rows
    ), counted AS (
        INSERT INTO doc_counts AS c (kind, status, live, shard)
            SELECT kind, status, -count(*), pg_backend_pid() FROM removed WHERE live GROUP BY kind, status
            ON CONFLICT (kind, status, shard) DO UPDATE SET live = c.live + excluded.live
    ), children AS (
        INSERT INTO child_counts AS c (parent_id, kind, status, live, shard)
            SELECT parent_id, kind, status, -count(*), pg_backend_pid() FROM removed
            WHERE live AND parent_id IS NOT NULL GROUP BY parent_id, kind, status
            ON CONFLICT (parent_id, kind, status, shard) DO UPDATE SET live = c.live + excluded.live
    )
    INSERT INTO child_revisions AS r (parent_id, revision, shard)
        SELECT parent_id, count(*), pg_backend_pid() FROM removed WHERE parent_id IS NOT NULL GROUP BY parent_id
        ON CONFLICT (parent_id, shard) DO UPDATE SET revision = r.revision + excluded.revision;
    RETURN NULL;
END $$;

-- An update moves a count only when what is counted changed (kind, status, parent, deletion):
-- -1 where the row was counted, +1 where it is.
CREATE FUNCTION sb_count_updated() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
    WITH pairs AS (
        SELECT o.kind AS old_kind, coalesce(o.status, '') AS old_status, o.parent_id AS old_parent,
            o.deleted_at IS NULL AS old_live,
            n.kind AS new_kind, coalesce(n.status, '') AS new_status, n.parent_id AS new_parent,
            n.deleted_at IS NULL AS new_live,
            (o.deleted_at IS DISTINCT FROM n.deleted_at OR o.status IS DISTINCT FROM n.status
                OR o.kind <> n.kind OR o.parent_id IS DISTINCT FROM n.parent_id) AS moved
        FROM old_rows o JOIN new_rows n ON n.seq = o.seq
    ), deltas AS (
        SELECT old_kind AS kind, old_status AS status, old_parent AS parent_id, -1 AS delta FROM pairs
            WHERE moved AND old_live
        UNION ALL
        SELECT new_kind, new_status, new_parent, 1 FROM pairs WHERE moved AND new_live
    ), counted AS (
        INSERT INTO doc_counts AS c (kind, status, live, shard)
            SELECT kind, status, sum(delta), pg_backend_pid() FROM deltas GROUP BY kind, status
            ON CONFLICT (kind, status, shard) DO UPDATE SET live = c.live + excluded.live
    ), children AS (
        INSERT INTO child_counts AS c (parent_id, kind, status, live, shard)
            SELECT parent_id, kind, status, sum(delta), pg_backend_pid() FROM deltas
            WHERE parent_id IS NOT NULL GROUP BY parent_id, kind, status
            ON CONFLICT (parent_id, kind, status, shard) DO UPDATE SET live = c.live + excluded.live
    )
    INSERT INTO child_revisions AS r (parent_id, revision, shard)
        SELECT parent_id, count(*), pg_backend_pid() FROM (
            SELECT old_parent AS parent_id FROM pairs WHERE old_parent IS NOT NULL
            UNION ALL
            SELECT new_parent FROM pairs WHERE new_parent IS NOT NULL AND new_parent IS DISTINCT FROM old_parent
        ) AS revised GROUP BY parent_id
        ON CONFLICT (parent_id, shard) DO UPDATE SET revision = r.revision + excluded.revision;
    RETURN NULL;
END $$;

DROP TRIGGER docs_counted ON docs;
DROP FUNCTION sb_count_docs();
CREATE TRIGGER docs_counted_inserts AFTER INSERT ON docs REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION sb_count_inserted();
CREATE TRIGGER docs_counted_updates AFTER UPDATE ON docs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION sb_count_updated();
CREATE TRIGGER docs_counted_deletes AFTER DELETE ON docs REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION sb_count_deleted();

-- `sb_apply` as migration 7 wrote it, but a kind of write the batch has none of is not run:
-- an empty insert still costs its statement, and now the statement triggers above.
CREATE OR REPLACE FUNCTION sb_apply(batch TEXT) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    -- Parsed once (a `json` value is parsed again at every `->`); the bodies inside are
    -- strings, kept verbatim.
    b JSONB := batch::JSONB;
    g JSONB := b -> 'guard';
    now_ms BIGINT := (b ->> 'now_ms')::BIGINT;
    webhook TEXT := b ->> 'webhook';
    alert_webhook TEXT := b ->> 'alert_webhook';
    found_status TEXT;
    found_owner TEXT;
    seen BOOLEAN;
    u RECORD;
    ev RECORD;
    new_seq BIGINT;
BEGIN
    IF (b ->> 'lazy')::BOOLEAN THEN
        -- Until the commit that ends this statement's transaction.
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    IF jsonb_typeof(g) = 'object' THEN
        SELECT status, lease_owner, true INTO found_status, found_owner, seen FROM docs
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
            UPDATE docs SET lease_owner = NULL, lease_until = NULL WHERE kind = g ->> 'kind' AND id = g ->> 'id';
        END IF;
    END IF;
    IF jsonb_array_length(b -> 'inserts') > 0 THEN
    INSERT INTO docs (kind, id, body, status, parent_id, created_at)
            SELECT x.kind, x.id, x.body::JSON, x.status, x.parent_id, x.created_at
            FROM ROWS FROM (jsonb_to_recordset(b -> 'inserts')
                AS (kind TEXT, id TEXT, body TEXT, status TEXT, parent_id TEXT, created_at TEXT))
                WITH ORDINALITY AS x (kind, id, body, status, parent_id, created_at, n)
            ORDER BY x.n;
    END IF;
    IF jsonb_array_length(b -> 'transcripts') > 0 THEN
    INSERT INTO transcripts (call_id, body)
            SELECT x.id, x.body FROM jsonb_to_recordset(b -> 'transcripts') AS x (id TEXT, body TEXT);
    END IF;
    IF jsonb_array_length(b -> 'values') > 0 THEN
    INSERT INTO metric_values (job_id, definition_id, call_id, chat_id, capture_status, body, value,
                context, participant_role, label)
            SELECT x.job_id, x.definition_id, x.call_id, x.chat_id, x.capture_status, x.body, x.value,
                x.context, x.participant_role, x.label
            FROM ROWS FROM (jsonb_to_recordset(b -> 'values')
                AS (job_id TEXT, definition_id TEXT, call_id TEXT, chat_id TEXT, capture_status TEXT, body TEXT,
                    value DOUBLE PRECISION, context TEXT, participant_role TEXT, label TEXT))
                WITH ORDINALITY AS x (job_id, definition_id, call_id, chat_id, capture_status, body, value,
                    context, participant_role, label, n)
            ORDER BY x.n;
    END IF;
    FOR u IN SELECT * FROM jsonb_to_recordset(b -> 'updates')
            AS x (kind TEXT, id TEXT, body TEXT, status TEXT, parent_id TEXT) LOOP
        UPDATE docs SET body = u.body::JSON, status = u.status, parent_id = u.parent_id
            WHERE kind = u.kind AND id = u.id;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'no % %', u.kind, u.id USING ERRCODE = 'P0002';
        END IF;
    END LOOP;
    -- Each event and its webhook deliveries, as `outbox::append` writes them.
    FOR ev IN SELECT * FROM ROWS FROM (jsonb_to_recordset(b -> 'events')
            AS (type TEXT, kind TEXT, id TEXT, parent_id TEXT, at TEXT, data TEXT, alert_id TEXT))
            WITH ORDINALITY AS x (type, kind, id, parent_id, at, data, alert_id, n) ORDER BY x.n LOOP
        INSERT INTO events (type, resource_kind, resource_id, parent_id, created_at, body)
            VALUES (ev.type, ev.kind, ev.id, ev.parent_id, ev.at, ev.data) RETURNING seq INTO new_seq;
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
            SELECT x.job_id, x.part, x.collection_id, x.item_failed, x.item_at
            FROM ROWS FROM (jsonb_to_recordset(b -> 'ends')
                AS (job_id TEXT, part TEXT, collection_id TEXT, item_failed BIGINT, item_at TEXT))
                WITH ORDINALITY AS x (job_id, part, collection_id, item_failed, item_at, n)
            ORDER BY x.n;
    END IF;
    RETURN 0;
END $$;
