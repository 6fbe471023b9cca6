//! Versioned schema migrations, tracked in SQLite's `user_version`.

use rusqlite::Connection;

use super::super::OpenError;

/// Each entry moves the schema one version up; never edit one that has shipped.
const MIGRATIONS: &[&str] = &[
    // 1: documents with the columns lists filter and sort on, and the bulky side tables.
    "
    CREATE TABLE docs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT,
        parent_id TEXT,
        created_at TEXT NOT NULL,
        deleted_at TEXT,
        UNIQUE (kind, id)
    );
    CREATE INDEX docs_list ON docs (kind, deleted_at, seq);
    CREATE INDEX docs_status ON docs (kind, status, seq);
    CREATE INDEX docs_parent ON docs (kind, parent_id, seq);
    CREATE TABLE definition_versions (
        definition_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (definition_id, version)
    );
    CREATE TABLE transcripts (call_id TEXT PRIMARY KEY, body TEXT NOT NULL);
    CREATE TABLE knowledge_content (knowledge_base_id TEXT PRIMARY KEY, content TEXT NOT NULL);
    CREATE TABLE metric_values (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id TEXT NOT NULL,
        definition_id TEXT NOT NULL,
        call_id TEXT,
        chat_id TEXT,
        capture_status TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX metric_values_job ON metric_values (job_id, definition_id, seq);
    CREATE INDEX metric_values_call ON metric_values (call_id, definition_id, seq);
    CREATE TABLE score_samples (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        target_key TEXT NOT NULL,
        suite TEXT NOT NULL,
        suite_version TEXT NOT NULL,
        condition_key TEXT,
        metric_key TEXT,
        body TEXT NOT NULL
    );
    CREATE INDEX score_samples_cell ON score_samples (suite, target_key, suite_version, condition_key, metric_key, seq);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    ",
    // 2: children by status (a job's PENDING simulations, its open ones) without scanning the rest.
    "
    CREATE INDEX docs_parent_status ON docs (kind, parent_id, status, seq);
    ",
    // 3: the outbox of events (written in the transaction of the change they announce), the
    // webhook deliveries queued from it and each attempt, and live documents counted by kind
    // and status so a list's total costs no scan.
    "
    CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL,
        resource_kind TEXT NOT NULL,
        resource_id TEXT NOT NULL,
        parent_id TEXT,
        created_at TEXT NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX events_resource ON events (resource_id, seq);
    CREATE INDEX events_parent ON events (parent_id, seq);
    CREATE TABLE webhook_deliveries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        webhook_id TEXT NOT NULL,
        event_seq INTEGER NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (webhook_id, event_seq)
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
    CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, seq);
    CREATE TABLE webhook_attempts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery_id TEXT NOT NULL,
        webhook_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        attempted_at TEXT NOT NULL,
        status_code INTEGER,
        error TEXT,
        duration_ms INTEGER NOT NULL
    );
    CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, seq);
    CREATE TABLE doc_counts (
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        live INTEGER NOT NULL,
        PRIMARY KEY (kind, status)
    );
    INSERT INTO doc_counts (kind, status, live)
        SELECT kind, coalesce(status, ''), count(*) FROM docs WHERE deleted_at IS NULL GROUP BY kind, coalesce(status, '');
    CREATE TRIGGER doc_counts_insert AFTER INSERT ON docs WHEN NEW.deleted_at IS NULL BEGIN
        INSERT INTO doc_counts (kind, status, live) VALUES (NEW.kind, coalesce(NEW.status, ''), 1)
            ON CONFLICT (kind, status) DO UPDATE SET live = live + 1;
    END;
    CREATE TRIGGER doc_counts_delete AFTER DELETE ON docs WHEN OLD.deleted_at IS NULL BEGIN
        UPDATE doc_counts SET live = live - 1 WHERE kind = OLD.kind AND status = coalesce(OLD.status, '');
    END;
    CREATE TRIGGER doc_counts_update AFTER UPDATE OF status, deleted_at, kind ON docs
        WHEN OLD.deleted_at IS NOT NEW.deleted_at OR OLD.status IS NOT NEW.status OR OLD.kind IS NOT NEW.kind BEGIN
        UPDATE doc_counts SET live = live - 1
            WHERE OLD.deleted_at IS NULL AND kind = OLD.kind AND status = coalesce(OLD.status, '');
        INSERT INTO doc_counts (kind, status, live)
            SELECT NEW.kind, coalesce(NEW.status, ''), 1 WHERE NEW.deleted_at IS NULL
            ON CONFLICT (kind, status) DO UPDATE SET live = live + 1;
    END;
    ",
    // 4: each value's members a run's results read needs, so that read walks this index in
    // call order and never parses a value's body (a 10,000-simulation run's values read about
    // six times faster).
    "
    CREATE INDEX metric_values_results ON metric_values (
        job_id, call_id, definition_id, seq, capture_status,
        json_extract(body, '$.value'), json_extract(body, '$.context'),
        json_extract(body, '$.participantRole'), json_extract(body, '$.label')
    );
    ",
    // 5: each parent's live children counted by kind and status, and a revision that moves on
    // every change to any of them, kept by triggers: a 100,000-simulation job is settled,
    // summarised and tagged (ETag) without walking its simulations.
    "
    CREATE TABLE child_counts (
        parent_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        live INTEGER NOT NULL,
        PRIMARY KEY (parent_id, kind, status)
    ) WITHOUT ROWID;
    CREATE TABLE child_revisions (
        parent_id TEXT PRIMARY KEY,
        revision INTEGER NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO child_counts (parent_id, kind, status, live)
        SELECT parent_id, kind, coalesce(status, ''), count(*) FROM docs
        WHERE parent_id IS NOT NULL AND deleted_at IS NULL GROUP BY parent_id, kind, coalesce(status, '');
    INSERT INTO child_revisions (parent_id, revision)
        SELECT parent_id, count(*) FROM docs WHERE parent_id IS NOT NULL GROUP BY parent_id;
    CREATE TRIGGER child_counts_insert AFTER INSERT ON docs WHEN NEW.parent_id IS NOT NULL BEGIN
        INSERT INTO child_counts (parent_id, kind, status, live)
            SELECT NEW.parent_id, NEW.kind, coalesce(NEW.status, ''), 1 WHERE NEW.deleted_at IS NULL
            ON CONFLICT (parent_id, kind, status) DO UPDATE SET live = live + 1;
        INSERT INTO child_revisions (parent_id, revision) VALUES (NEW.parent_id, 1)
            ON CONFLICT (parent_id) DO UPDATE SET revision = revision + 1;
    END;
    CREATE TRIGGER child_counts_delete AFTER DELETE ON docs WHEN OLD.parent_id IS NOT NULL BEGIN
        UPDATE child_counts SET live = live - 1 WHERE OLD.deleted_at IS NULL
            AND parent_id = OLD.parent_id AND kind = OLD.kind AND status = coalesce(OLD.status, '');
        INSERT INTO child_revisions (parent_id, revision) VALUES (OLD.parent_id, 1)
            ON CONFLICT (parent_id) DO UPDATE SET revision = revision + 1;
    END;
    CREATE TRIGGER child_counts_update AFTER UPDATE ON docs
        WHEN (OLD.parent_id IS NOT NULL OR NEW.parent_id IS NOT NULL) AND (OLD.status IS NOT NEW.status
            OR OLD.deleted_at IS NOT NEW.deleted_at OR OLD.parent_id IS NOT NEW.parent_id OR OLD.kind IS NOT NEW.kind)
    BEGIN
        UPDATE child_counts SET live = live - 1 WHERE OLD.deleted_at IS NULL
            AND parent_id = OLD.parent_id AND kind = OLD.kind AND status = coalesce(OLD.status, '');
        INSERT INTO child_counts (parent_id, kind, status, live)
            SELECT NEW.parent_id, NEW.kind, coalesce(NEW.status, ''), 1
            WHERE NEW.deleted_at IS NULL AND NEW.parent_id IS NOT NULL
            ON CONFLICT (parent_id, kind, status) DO UPDATE SET live = live + 1;
    END;
    CREATE TRIGGER child_revisions_update AFTER UPDATE ON docs
        WHEN OLD.parent_id IS NOT NULL OR NEW.parent_id IS NOT NULL BEGIN
        INSERT INTO child_revisions (parent_id, revision)
            SELECT OLD.parent_id, 1 WHERE OLD.parent_id IS NOT NULL
            ON CONFLICT (parent_id) DO UPDATE SET revision = revision + 1;
        INSERT INTO child_revisions (parent_id, revision)
            SELECT NEW.parent_id, 1 WHERE NEW.parent_id IS NOT NULL AND NEW.parent_id IS NOT OLD.parent_id
            ON CONFLICT (parent_id) DO UPDATE SET revision = revision + 1;
    END;
    ",
    // 6: what the PostgreSQL schema has from its start (`postgres/migrations.rs`): leases on
    // documents (the engines' claims on work, which lapse when their holder stops renewing
    // them), a value's members that the results read needs as columns written with it (no
    // `json_extract` per insert or read), the id an event is known by (its sequence number
    // here, where transactions commit in the order they begin), the shard PostgreSQL keeps
    // counts in (one here: the one writer's), and the replicas sharing the store (one here).
    "
    ALTER TABLE docs ADD COLUMN lease_owner TEXT;
    ALTER TABLE docs ADD COLUMN lease_until INTEGER;
    ALTER TABLE docs ADD COLUMN lease_expiries INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX docs_leased ON docs (lease_owner, lease_until) WHERE lease_owner IS NOT NULL;
    ALTER TABLE metric_values ADD COLUMN value REAL;
    ALTER TABLE metric_values ADD COLUMN context TEXT;
    ALTER TABLE metric_values ADD COLUMN participant_role TEXT;
    ALTER TABLE metric_values ADD COLUMN label TEXT;
    UPDATE metric_values SET value = json_extract(body, '$.value'), context = json_extract(body, '$.context'),
        participant_role = json_extract(body, '$.participantRole'), label = json_extract(body, '$.label');
    DROP INDEX metric_values_results;
    CREATE INDEX metric_values_results ON metric_values (
        job_id, call_id, definition_id, seq, capture_status, value, context, participant_role, label
    );
    ALTER TABLE events ADD COLUMN id INTEGER GENERATED ALWAYS AS (seq) VIRTUAL;
    ALTER TABLE doc_counts ADD COLUMN shard INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE child_counts ADD COLUMN shard INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE child_revisions ADD COLUMN shard INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE replicas (
        owner TEXT PRIMARY KEY,
        started_at TEXT NOT NULL,
        seen_until INTEGER NOT NULL
    );
    ",
    // 7: secret values (webhook signing secrets, secret request headers) sealed apart from the
    // documents, which keep only their masks (`store::secrets`).
    "
    CREATE TABLE secrets (
        owner_kind TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        name TEXT NOT NULL,
        key_id TEXT NOT NULL,
        ciphertext TEXT NOT NULL,
        PRIMARY KEY (owner_kind, owner_id, name)
    );
    CREATE INDEX secrets_key ON secrets (key_id);
    ",
    // 8: the slots scheduled plans have run (`store::schedules`): one row per plan and slot,
    // so a slot starts one job however many replicas see it due.
    "
    CREATE TABLE schedule_runs (
        plan_id TEXT NOT NULL,
        slot_ms INTEGER NOT NULL,
        job_id TEXT,
        claimed_at TEXT NOT NULL,
        PRIMARY KEY (plan_id, slot_ms)
    );
    ",
    // 9: the alerts' decided windows (`store::alerts`): one claim row per alert and window, so
    // a window is decided once however many replicas see it ready; each group's value in it
    // (the series the console draws) and each group's run between windows.
    "
    CREATE TABLE alert_windows (
        alert_id TEXT NOT NULL,
        window_ms INTEGER NOT NULL,
        decided_at TEXT NOT NULL,
        PRIMARY KEY (alert_id, window_ms)
    );
    CREATE TABLE alert_values (
        alert_id TEXT NOT NULL,
        group_key TEXT NOT NULL,
        window_ms INTEGER NOT NULL,
        value REAL,
        samples INTEGER NOT NULL,
        PRIMARY KEY (alert_id, group_key, window_ms)
    );
    CREATE TABLE alert_runs (
        alert_id TEXT NOT NULL,
        group_key TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (alert_id, group_key)
    );
    ",
    // 10: simulations' ends waiting to be folded into their job (`store::ends`), so that ends
    // of one run do not take turns on the job's row.
    "
    CREATE TABLE job_ends (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id TEXT NOT NULL,
        part TEXT NOT NULL,
        collection_id TEXT,
        item_failed INTEGER,
        item_at TEXT
    );
    CREATE INDEX job_ends_job ON job_ends (job_id, seq);
    ",
    // 11: the place a running simulation holds among its job's (PostgreSQL's picks number them,
    // so that picks of one job run side by side); one process picks here, so none is kept.
    "ALTER TABLE docs ADD COLUMN place INTEGER;",
    // 12: an alert's window reads the calls started in it (`alerts::scored`), not every call.
    "CREATE INDEX docs_calls_started ON docs (created_at) WHERE kind = 'call' AND deleted_at IS NULL;",
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the database up to `SCHEMA_VERSION`, one transaction per step.
pub(super) fn migrate(conn: &mut Connection) -> Result<(), OpenError> {
    let current: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if current > SCHEMA_VERSION {
        return Err(OpenError(format!(
            "the data dir has schema version {current}, newer than this build's {SCHEMA_VERSION}; use a newer switchboard"
        )));
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", index as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}

/// Every migration's text, for the test that compares the two schemas.
#[cfg(test)]
pub(in crate::service::store) fn all() -> &'static [&'static str] {
    MIGRATIONS
}
