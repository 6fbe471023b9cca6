-- PostgreSQL's CPU a simulation (issue 33), the same rows as before.
--
-- `metric_values_job` (job, definition, seq) is dropped: every read by job (a collection
-- job's values, its restart's delete) is served as well by `metric_values_results`, which
-- leads with the job too, and no read asks for a job's values of one definition. A value
-- written kept four indexes; now three. (SQLite keeps both: its writes are not the cost there.)
DROP INDEX metric_values_job;

-- The large texts written at every simulation (its document, about 3 KB: past the 2 KB
-- PostgreSQL compresses from, and rewritten at each step; its call, transcript, events)
-- compressed with lz4, which costs a fraction of pglz's CPU. Only values written from now on;
-- the text read back is the same. A server that cannot (before 14, or built without lz4) keeps
-- pglz.
DO $$
BEGIN
    IF current_setting('server_version_num')::INT >= 140000 THEN
        EXECUTE 'ALTER TABLE docs ALTER COLUMN body SET COMPRESSION lz4';
        EXECUTE 'ALTER TABLE transcripts ALTER COLUMN body SET COMPRESSION lz4';
        EXECUTE 'ALTER TABLE events ALTER COLUMN body SET COMPRESSION lz4';
    END IF;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END $$;

-- `sb_apply` as migration 9 wrote it, but a lease given back with a rewrite of the same
-- document (a simulation's end) is cleared by that rewrite: one new version of the row, its
-- seven index entries and one statement trigger, where it was two. The revision the separate
-- release counted (one write of a child of its parent) is counted here, so every parent's
-- revision is the number it was.
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
        IF u.kind = releasing_kind AND u.id = releasing_id THEN
            UPDATE docs SET body = u.body::JSON, status = u.status, parent_id = u.parent_id,
                    lease_owner = NULL, lease_until = NULL
                WHERE kind = u.kind AND id = u.id;
        ELSE
            UPDATE docs SET body = u.body::JSON, status = u.status, parent_id = u.parent_id
                WHERE kind = u.kind AND id = u.id;
        END IF;
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
