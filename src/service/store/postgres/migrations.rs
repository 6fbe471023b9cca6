//! Versioned schema migrations for PostgreSQL, kept beside SQLite's (`sqlite/migrations.rs`):
//! the same tables and columns (a test holds them to it), in PostgreSQL's types, with the
//! triggers in PL/pgSQL. The version is kept in `meta`; replicas starting together migrate one
//! at a time (an advisory lock).

use postgres::Client;

use super::super::OpenError;

/// The advisory lock a migrating replica holds.
const LOCK: i64 = 0x5b_0e_d1_6e;

/// The `meta` key holding the schema's version.
const VERSION_KEY: &str = "schema.version";

/// Each entry moves the schema one version up; never edit one that has shipped.
const MIGRATIONS: &[&str] = &[
    // 1: the whole schema as SQLite's stood at its version 6.
    r#"
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE docs (
        seq BIGSERIAL PRIMARY KEY,
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        body JSON NOT NULL,
        status TEXT,
        parent_id TEXT,
        created_at TEXT NOT NULL,
        deleted_at TEXT,
        lease_owner TEXT,
        lease_until BIGINT,
        lease_expiries BIGINT NOT NULL DEFAULT 0,
        UNIQUE (kind, id)
    );
    CREATE INDEX docs_list ON docs (kind, deleted_at, seq);
    CREATE INDEX docs_status ON docs (kind, status, seq);
    CREATE INDEX docs_parent ON docs (kind, parent_id, seq);
    CREATE INDEX docs_parent_status ON docs (kind, parent_id, status, seq);
    CREATE INDEX docs_leased ON docs (lease_owner, lease_until) WHERE lease_owner IS NOT NULL;
    CREATE TABLE definition_versions (
        definition_id TEXT NOT NULL,
        version BIGINT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (definition_id, version)
    );
    CREATE TABLE transcripts (call_id TEXT PRIMARY KEY, body TEXT NOT NULL);
    CREATE TABLE knowledge_content (knowledge_base_id TEXT PRIMARY KEY, content TEXT NOT NULL);
    CREATE TABLE metric_values (
        seq BIGSERIAL PRIMARY KEY,
        job_id TEXT NOT NULL,
        definition_id TEXT NOT NULL,
        call_id TEXT,
        chat_id TEXT,
        capture_status TEXT NOT NULL,
        body TEXT NOT NULL,
        value DOUBLE PRECISION,
        context TEXT,
        participant_role TEXT,
        label TEXT
    );
    CREATE INDEX metric_values_job ON metric_values (job_id, definition_id, seq);
    CREATE INDEX metric_values_call ON metric_values (call_id, definition_id, seq);
    CREATE INDEX metric_values_results ON metric_values (
        job_id, call_id, definition_id, seq, capture_status, value, context, participant_role, label
    );
    CREATE TABLE score_samples (
        seq BIGSERIAL PRIMARY KEY,
        target_key TEXT NOT NULL,
        suite TEXT NOT NULL,
        suite_version TEXT NOT NULL,
        condition_key TEXT,
        metric_key TEXT,
        body JSON NOT NULL
    );
    CREATE INDEX score_samples_cell ON score_samples (suite, target_key, suite_version, condition_key, metric_key, seq);
    CREATE TABLE events (
        seq BIGSERIAL PRIMARY KEY,
        id BIGINT UNIQUE,
        type TEXT NOT NULL,
        resource_kind TEXT NOT NULL,
        resource_id TEXT NOT NULL,
        parent_id TEXT,
        created_at TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX events_unpublished ON events (seq) WHERE id IS NULL;
    CREATE INDEX events_resource ON events (resource_id, id);
    CREATE INDEX events_parent ON events (parent_id, id);
    CREATE TABLE webhook_deliveries (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        webhook_id TEXT NOT NULL,
        event_seq BIGINT NOT NULL,
        status TEXT NOT NULL,
        attempts BIGINT NOT NULL DEFAULT 0,
        next_attempt_at BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (webhook_id, event_seq)
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
    CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, seq);
    CREATE TABLE webhook_attempts (
        seq BIGSERIAL PRIMARY KEY,
        delivery_id TEXT NOT NULL,
        webhook_id TEXT NOT NULL,
        attempt BIGINT NOT NULL,
        attempted_at TEXT NOT NULL,
        status_code BIGINT,
        error TEXT,
        duration_ms BIGINT NOT NULL
    );
    CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, seq);
    -- Counts and revisions are kept in rows of each connection's own (`shard`: its backend's
    -- pid), summed when read: concurrent writes never wait on each other's counts, nor
    -- deadlock over them. A revision is the newest number taken from a sequence.
    CREATE TABLE doc_counts (
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        live BIGINT NOT NULL,
        shard BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (kind, status, shard)
    );
    CREATE TABLE child_counts (
        parent_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        live BIGINT NOT NULL,
        shard BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (parent_id, kind, status, shard)
    );
    CREATE TABLE child_revisions (
        parent_id TEXT NOT NULL,
        revision BIGINT NOT NULL,
        shard BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (parent_id, shard)
    );
    CREATE SEQUENCE child_revision_numbers;
    CREATE TABLE replicas (
        owner TEXT PRIMARY KEY,
        started_at TEXT NOT NULL,
        seen_until BIGINT NOT NULL
    );

    -- An RFC 3339 text as seconds since 1970 (NULL when it is not one), for a list's time
    -- window: RFC 3339 has a year 0 and leap seconds, which timestamptz does not read, so the
    -- day is counted in the proleptic Gregorian calendar here, and second 60 read as 59 (as the
    -- SQLite engine reads it).
    CREATE FUNCTION sb_instant(t TEXT) RETURNS DOUBLE PRECISION LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE
        p TEXT[];
        y BIGINT; m BIGINT; d BIGINT; era BIGINT; yoe BIGINT; doy BIGINT; days BIGINT;
        secs DOUBLE PRECISION; shift BIGINT := 0;
    BEGIN
        p := regexp_match(upper(t),
            '^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(Z|([+-])(\d{2}):(\d{2}))$');
        IF p IS NULL THEN
            RETURN NULL;
        END IF;
        y := p[1]::BIGINT; m := p[2]::BIGINT; d := p[3]::BIGINT;
        IF m <= 2 THEN
            y := y - 1;
        END IF;
        era := floor(y / 400.0);
        yoe := y - era * 400;
        doy := (153 * (m + CASE WHEN m > 2 THEN -3 ELSE 9 END) + 2) / 5 + d - 1;
        days := era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
        secs := p[6]::DOUBLE PRECISION;
        IF secs >= 60 THEN
            secs := secs - 1;
        END IF;
        IF p[8] IS NOT NULL THEN
            shift := (p[9]::BIGINT * 3600 + p[10]::BIGINT * 60) * CASE WHEN p[8] = '-' THEN -1 ELSE 1 END;
        END IF;
        RETURN days * 86400 + p[4]::BIGINT * 3600 + p[5]::BIGINT * 60 + secs - shift;
    END $$;

    -- Live documents counted by kind and status, each parent's children by kind and status,
    -- and a revision that moves on every change to any child: what SQLite's triggers keep, in
    -- the rows of this connection's shard.
    CREATE FUNCTION sb_count(of_kind TEXT, of_status TEXT, of_parent TEXT, delta BIGINT) RETURNS VOID
    LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO doc_counts AS c (kind, status, live, shard)
            VALUES (of_kind, coalesce(of_status, ''), delta, pg_backend_pid())
            ON CONFLICT (kind, status, shard) DO UPDATE SET live = c.live + delta;
        IF of_parent IS NOT NULL THEN
            INSERT INTO child_counts AS c (parent_id, kind, status, live, shard)
                VALUES (of_parent, of_kind, coalesce(of_status, ''), delta, pg_backend_pid())
                ON CONFLICT (parent_id, kind, status, shard) DO UPDATE SET live = c.live + delta;
        END IF;
    END $$;
    CREATE FUNCTION sb_revise(of_parent TEXT) RETURNS VOID LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO child_revisions AS r (parent_id, revision, shard)
            VALUES (of_parent, nextval('child_revision_numbers'), pg_backend_pid())
            ON CONFLICT (parent_id, shard) DO UPDATE SET revision = nextval('child_revision_numbers');
    END $$;
    CREATE FUNCTION sb_count_docs() RETURNS TRIGGER LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            IF NEW.deleted_at IS NULL THEN
                PERFORM sb_count(NEW.kind, NEW.status, NEW.parent_id, 1);
            END IF;
            IF NEW.parent_id IS NOT NULL THEN
                PERFORM sb_revise(NEW.parent_id);
            END IF;
            RETURN NULL;
        END IF;
        IF TG_OP = 'DELETE' THEN
            IF OLD.deleted_at IS NULL THEN
                PERFORM sb_count(OLD.kind, OLD.status, OLD.parent_id, -1);
            END IF;
            IF OLD.parent_id IS NOT NULL THEN
                PERFORM sb_revise(OLD.parent_id);
            END IF;
            RETURN NULL;
        END IF;
        IF OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.status IS DISTINCT FROM NEW.status
            OR OLD.kind <> NEW.kind OR OLD.parent_id IS DISTINCT FROM NEW.parent_id THEN
            IF OLD.deleted_at IS NULL THEN
                PERFORM sb_count(OLD.kind, OLD.status, OLD.parent_id, -1);
            END IF;
            IF NEW.deleted_at IS NULL THEN
                PERFORM sb_count(NEW.kind, NEW.status, NEW.parent_id, 1);
            END IF;
        END IF;
        IF OLD.parent_id IS NOT NULL THEN
            PERFORM sb_revise(OLD.parent_id);
        END IF;
        IF NEW.parent_id IS NOT NULL AND NEW.parent_id IS DISTINCT FROM OLD.parent_id THEN
            PERFORM sb_revise(NEW.parent_id);
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER docs_counted AFTER INSERT OR UPDATE OR DELETE ON docs
        FOR EACH ROW EXECUTE FUNCTION sb_count_docs();
    "#,
    // 2: a parent's revision is a count of its children's writes, summed over the shards. It
    // was the highest number drawn from a sequence, and numbers are drawn in the order writes
    // run, not the order they commit: a write that drew 100 and committed after one that drew
    // 101 left the highest at 101, and a read tagged between the two commits was answered 304
    // after the second. A sum grows with every commit. Each parent's highest number so far is
    // kept in shard 0, so that no revision goes back.
    r#"
    CREATE OR REPLACE FUNCTION sb_revise(of_parent TEXT) RETURNS VOID LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO child_revisions AS r (parent_id, revision, shard)
            VALUES (of_parent, 1, pg_backend_pid())
            ON CONFLICT (parent_id, shard) DO UPDATE SET revision = r.revision + 1;
    END $$;
    WITH drawn AS (DELETE FROM child_revisions RETURNING parent_id, revision)
    INSERT INTO child_revisions (parent_id, revision, shard)
        SELECT parent_id, max(revision), 0 FROM drawn GROUP BY parent_id;
    DROP SEQUENCE child_revision_numbers;
    "#,
    // 3: secret values sealed apart from the documents (SQLite's 7).
    r#"
    CREATE TABLE secrets (
        owner_kind TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        name TEXT NOT NULL,
        key_id TEXT NOT NULL,
        ciphertext TEXT NOT NULL,
        PRIMARY KEY (owner_kind, owner_id, name)
    );
    CREATE INDEX secrets_key ON secrets (key_id);
    "#,
    // 4: the slots scheduled plans have run (SQLite's 8).
    r#"
    CREATE TABLE schedule_runs (
        plan_id TEXT NOT NULL,
        slot_ms BIGINT NOT NULL,
        job_id TEXT,
        claimed_at TEXT NOT NULL,
        PRIMARY KEY (plan_id, slot_ms)
    );
    "#,
    // 5: the alerts' decided windows, values and runs (SQLite's 9).
    r#"
    CREATE TABLE alert_windows (
        alert_id TEXT NOT NULL,
        window_ms BIGINT NOT NULL,
        decided_at TEXT NOT NULL,
        PRIMARY KEY (alert_id, window_ms)
    );
    CREATE TABLE alert_values (
        alert_id TEXT NOT NULL,
        group_key TEXT NOT NULL,
        window_ms BIGINT NOT NULL,
        value DOUBLE PRECISION,
        samples BIGINT NOT NULL,
        PRIMARY KEY (alert_id, group_key, window_ms)
    );
    CREATE TABLE alert_runs (
        alert_id TEXT NOT NULL,
        group_key TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (alert_id, group_key)
    );
    "#,
    // 6: simulations' ends waiting to be folded into their job (SQLite's 10).
    r#"
    CREATE TABLE job_ends (
        seq BIGSERIAL PRIMARY KEY,
        job_id TEXT NOT NULL,
        part TEXT NOT NULL,
        collection_id TEXT,
        item_failed BIGINT,
        item_at TEXT
    );
    CREATE INDEX job_ends_job ON job_ends (job_id, seq);
    "#,
    // 7: statements a replica sends as one (issue 33: every statement is a round trip). Each
    // is called as a single `SELECT`, its own transaction: no `BEGIN` or `COMMIT` to send.
    // The event publisher's (`publisher`): under its advisory lock, numbers the committed
    // events without an id in the order they were written, from the last id given, keeps the
    // newest and tells every replica of it; how many it numbered.
    r#"
    CREATE FUNCTION sb_publish_events(lock_key BIGINT, last_key TEXT, channel TEXT)
    RETURNS BIGINT LANGUAGE plpgsql AS $$
    DECLARE
        last BIGINT;
        numbered BIGINT;
    BEGIN
        PERFORM pg_advisory_xact_lock(lock_key);
        -- Read after the lock: each statement of a function sees what committed before it.
        SELECT value::BIGINT INTO last FROM meta WHERE key = last_key;
        last := coalesce(last, 0);
        UPDATE events SET id = last + waiting.n
            FROM (SELECT seq, row_number() OVER (ORDER BY seq) AS n FROM events WHERE id IS NULL) AS waiting
            WHERE events.seq = waiting.seq;
        GET DIAGNOSTICS numbered = ROW_COUNT;
        IF numbered > 0 THEN
            INSERT INTO meta (key, value) VALUES (last_key, (last + numbered)::TEXT)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value;
            PERFORM pg_notify(channel, (last + numbered)::TEXT);
        END IF;
        RETURN numbered;
    END $$;

    -- A batch of writes decided by a replica (`store::batch`), applied under its guard: 0 when
    -- applied, 1 when the guarded document's status (or its parent's) moved and nothing was
    -- written, 2 when its lease is not the owner's (nothing written).
    CREATE FUNCTION sb_apply(batch TEXT) RETURNS BIGINT LANGUAGE plpgsql AS $$
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
        INSERT INTO docs (kind, id, body, status, parent_id, created_at)
            SELECT x.kind, x.id, x.body::JSON, x.status, x.parent_id, x.created_at
            FROM ROWS FROM (jsonb_to_recordset(b -> 'inserts')
                AS (kind TEXT, id TEXT, body TEXT, status TEXT, parent_id TEXT, created_at TEXT))
                WITH ORDINALITY AS x (kind, id, body, status, parent_id, created_at, n)
            ORDER BY x.n;
        INSERT INTO transcripts (call_id, body)
            SELECT x.id, x.body FROM jsonb_to_recordset(b -> 'transcripts') AS x (id TEXT, body TEXT);
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
        INSERT INTO job_ends (job_id, part, collection_id, item_failed, item_at)
            SELECT x.job_id, x.part, x.collection_id, x.item_failed, x.item_at
            FROM ROWS FROM (jsonb_to_recordset(b -> 'ends')
                AS (job_id TEXT, part TEXT, collection_id TEXT, item_failed BIGINT, item_at TEXT))
                WITH ORDINALITY AS x (job_id, part, collection_id, item_failed, item_at, n)
            ORDER BY x.n;
        RETURN 0;
    END $$;
    "#,
    // 8: a fold of simulations' ends into their job, decided by a replica (`store::folds`),
    // applied in one statement. `sb_set_members`: a JSON object's text with top-level members
    // set, the rest kept byte for byte and in its order (as `members::set` does in Rust): each
    // of `members` (`[[name, json], …]`) replaces the member of its name, or is appended.
    r#"
    CREATE FUNCTION sb_set_members(body JSON, members JSONB) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
        SELECT '{' || coalesce(string_agg(to_json(m.key)::TEXT || ':' || m.value, ',' ORDER BY m.n), '') || '}'
        FROM (
            SELECT e.key, coalesce(
                    (SELECT s ->> 1 FROM jsonb_array_elements(members) AS s WHERE s ->> 0 = e.key LIMIT 1),
                    e.value::TEXT) AS value, e.n
                FROM json_each(body) WITH ORDINALITY AS e (key, value, n)
            UNION ALL
            SELECT x.s ->> 0, x.s ->> 1, 1000000000 + x.n
                FROM jsonb_array_elements(members) WITH ORDINALITY AS x (s, n)
                WHERE NOT EXISTS (SELECT 1 FROM json_each(body) AS e WHERE e.key = x.s ->> 0)
        ) AS m
    $$;

    -- A count member's value as `sim::jobs` reads it: digits, else 0.
    CREATE FUNCTION sb_count_member(body JSON, name TEXT) RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN t ~ '^[0-9]{1,18}$' THEN t::BIGINT ELSE 0 END FROM (SELECT (body -> name)::TEXT AS t) AS v
    $$;

    -- The fold (`store::folds::Fold`), applied under its guard: 0 when applied with simulations
    -- still open, 3 when applied and none is open any more, 1 when the job's status or tally
    -- is not the one read, or an end read has been taken by another fold (nothing written).
    CREATE FUNCTION sb_fold(fold TEXT) RETURNS BIGINT LANGUAGE plpgsql AS $$
    DECLARE
        f JSONB := fold::JSONB;
        job_kind TEXT := f ->> 'job_kind';
        job TEXT := f ->> 'job_id';
        collection_kind TEXT := f ->> 'collection_kind';
        seqs BIGINT[] := ARRAY(SELECT jsonb_array_elements_text(f -> 'seqs')::BIGINT);
        found_status TEXT;
        found_tally TEXT;
        c RECORD;
        still_open BIGINT;
    BEGIN
        -- An engine's progress, as every fold is (its recovery redoes it).
        PERFORM set_config('synchronous_commit', 'off', true);
        SELECT status, CAST(body #> '{tally}' AS TEXT) INTO found_status, found_tally FROM docs
            WHERE kind = job_kind AND id = job AND deleted_at IS NULL FOR UPDATE;
        IF found_status IS DISTINCT FROM f ->> 'status' OR found_tally IS DISTINCT FROM f ->> 'tally' THEN
            RETURN 1;
        END IF;
        -- Read after the job's lock: a fold that took some of these committed before it.
        IF (SELECT count(*) FROM job_ends WHERE seq = ANY (seqs)) <> cardinality(seqs) THEN
            RETURN 1;
        END IF;
        DELETE FROM job_ends WHERE seq = ANY (seqs);
        UPDATE docs SET body = sb_set_members(body, f -> 'members')::JSON WHERE kind = job_kind AND id = job;
        FOR c IN SELECT * FROM jsonb_to_recordset(f -> 'counted') AS x (id TEXT, done BIGINT, failed BIGINT, at TEXT) LOOP
            UPDATE docs SET body = sb_set_members(body, jsonb_build_array(
                    jsonb_build_array('completedItems', (sb_count_member(body, 'completedItems') + c.done)::TEXT),
                    jsonb_build_array('failedItems', (sb_count_member(body, 'failedItems') + c.failed)::TEXT),
                    jsonb_build_array('updatedAt', c.at)))::JSON
                WHERE kind = collection_kind AND id = c.id AND deleted_at IS NULL;
        END LOOP;
        SELECT coalesce(sum(live), 0) INTO still_open FROM child_counts
            WHERE parent_id = job AND kind = f ->> 'child_kind'
            AND status IN (SELECT jsonb_array_elements_text(f -> 'open'));
        RETURN CASE WHEN still_open = 0 THEN 3 ELSE 0 END;
    END $$;
    "#,
    // 9: the same rows for less of PostgreSQL's CPU: members set parsing the body once, counts
    // and revisions kept a statement at a time, empty writes not run.
    include_str!("migration_9.sql"),
    // 10: fewer writes a value and an end: the values' job index (the results index serves its
    // reads) dropped, a lease given back by the end's rewrite of the same row.
    include_str!("migration_10.sql"),
    // 11: a pick of a job's simulations in one statement (`sb_pick`).
    include_str!("migration_11.sql"),
    // 12: a pick waits for its job's pick lock rather than passing the job by.
    include_str!("migration_12.sql"),
    // 13: a job's places, so that picks of one job run side by side.
    include_str!("migration_13.sql"),
    // 14: a simulation's document kept whole in its row, its members set by position, a
    // batch's texts beside it (`sb_apply(batch, texts)`), the picks' reads of the places bound
    // to their index.
    include_str!("migration_14.sql"),
    // 15: a pick's reads of the places held by plain index scans, which mark dead entries.
    include_str!("migration_15.sql"),
    // 16: a pick's claim walks an index of the waiting simulations alone.
    include_str!("migration_16.sql"),
    // 17: a member set in place where only plain members come before it.
    include_str!("migration_17.sql"),
    // 18: an alert's window reads the calls started in it by an index of their starts.
    include_str!("migration_18.sql"),
    // 19: a pick's claim walks from where the picker's last claim of the job ended.
    include_str!("migration_19.sql"),
    // 20: the event publisher's numbering by a plain index scan, which marks dead entries.
    include_str!("migration_20.sql"),
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the database up to `SCHEMA_VERSION`, one transaction per step, one replica at a time.
pub(super) fn migrate(client: &mut Client) -> Result<(), OpenError> {
    migrate_to(client, SCHEMA_VERSION)
}

/// Brings the database up to `version` (a test's database left at an older schema, with data).
pub(in crate::service::store) fn migrate_to(client: &mut Client, version: i64) -> Result<(), OpenError> {
    client.execute("SELECT pg_advisory_lock($1)", &[&LOCK])?;
    let migrated = steps(client, version);
    let unlocked = client.execute("SELECT pg_advisory_unlock($1)", &[&LOCK]);
    migrated?;
    unlocked?;
    Ok(())
}

fn steps(client: &mut Client, version: i64) -> Result<(), OpenError> {
    let has_meta: bool = client.query_one("SELECT to_regclass('meta') IS NOT NULL", &[])?.get(0);
    let current: i64 = match has_meta {
        false => 0,
        true => client
            .query_opt("SELECT value FROM meta WHERE key = $1", &[&VERSION_KEY])?
            .and_then(|row| row.get::<_, String>(0).parse().ok())
            .unwrap_or(0),
    };
    if current > SCHEMA_VERSION {
        return Err(OpenError(format!(
            "the database has schema version {current}, newer than this build's {SCHEMA_VERSION}; use a newer switchboard"
        )));
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().take(version as usize).skip(current as usize) {
        let mut tx = client.transaction()?;
        tx.batch_execute(sql)?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &[&VERSION_KEY, &(index as i64 + 1).to_string()],
        )?;
        tx.commit()?;
    }
    Ok(())
}

/// Every migration's text, for the test that compares the two schemas.
#[cfg(test)]
pub(in crate::service::store) fn all() -> &'static [&'static str] {
    MIGRATIONS
}
