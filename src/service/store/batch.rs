//! Writes decided in Rust and applied as one, under the lease they are written for. On
//! PostgreSQL a batch is one statement, `SELECT sb_apply($1, $2)` (migrations 7 and 14), its own
//! transaction: where a `BEGIN`, a lease check, each write and a `COMMIT` were a round trip
//! each (issue 33). On SQLite the same rows are written statement by statement in a write
//! transaction (in process, a statement costs no round trip). The domain decides what to
//! write; a batch only checks its guard and applies.

use serde_json::{Value, json};

use super::db::{Arg, Tx, storable};
use super::ends::End;
use super::outbox::{self, Appended};
use super::together::{self, Revisions, Three};
use super::values::{self, StoredValue};
use super::{Doc, Kind, StoreError, StoreResult, docs, ends, leases, transcripts};

/// The leased document a batch is written for, as its holder last wrote it: the batch is
/// applied only while `owner` holds it and its status is still `status` (and its parent's one
/// of `parent_in`), so a write never lands on work another replica took over, nor on a status
/// someone else moved (a cancel).
#[derive(Debug, Clone, PartialEq)]
pub struct Guard {
    pub kind: Kind,
    pub id: String,
    pub owner: String,
    pub status: Option<String>,
    /// The parent (its kind and id) and the statuses it may have; `None`: not looked at.
    pub parent_in: Option<(Kind, String, Vec<String>)>,
    /// The lease is given back with the batch (the work is done).
    pub release: bool,
}

/// What applying a batch found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Every write landed.
    Written,
    /// The guarded document's status (or its parent's) was not as expected: nothing was
    /// written, and the caller decides again from what is stored now.
    Moved,
}

/// Writes to apply together, in this order: documents inserted, transcripts, values,
/// documents rewritten, events appended, job ends appended.
#[derive(Debug, Clone, Default)]
pub struct Batch {
    guard: Option<Guard>,
    inserts: Vec<Doc>,
    transcripts: Vec<(String, String)>,
    values: Vec<StoredValue>,
    updates: Vec<Doc>,
    events: Vec<Appended>,
    ends: Vec<(String, End)>,
}

impl Batch {
    /// A batch written only under `guard`.
    pub fn under(guard: Guard) -> Batch {
        Batch { guard: Some(guard), ..Batch::default() }
    }

    /// Inserts a new document, with the event its status announces.
    pub fn insert(&mut self, doc: Doc) -> StoreResult<()> {
        self.events.extend(Appended::announcing(&doc, None)?);
        self.inserts.push(doc);
        Ok(())
    }

    /// Keeps a conversation's transcript.
    pub fn transcript(&mut self, conversation_id: &str, body: String) {
        self.transcripts.push((conversation_id.to_owned(), body));
    }

    /// Keeps metric values.
    pub fn values(&mut self, rows: impl IntoIterator<Item = StoredValue>) {
        self.values.extend(rows);
    }

    /// Rewrites a document whose status is `before` (the guard's, say), with the event its
    /// change of status announces.
    pub fn update(&mut self, doc: Doc, before: Option<&str>) -> StoreResult<()> {
        self.events.extend(Appended::announcing(&doc, Some(before))?);
        self.updates.push(doc);
        Ok(())
    }

    /// Appends a simulation's end for its job's next fold.
    pub fn end(&mut self, job_id: &str, end: End) {
        self.ends.push((job_id.to_owned(), end));
    }

    /// The guard it is written under.
    pub(super) fn guard(&self) -> Option<&Guard> {
        self.guard.as_ref()
    }

    /// Whether it appends events (for the publisher to number once it commits).
    pub(super) fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// Refuses text neither engine keeps alike (as every statement's arguments are), before
    /// any of it is written.
    pub(super) fn check_storable(&self) -> StoreResult<()> {
        let mut texts: Vec<&str> = Vec::new();
        for doc in self.inserts.iter().chain(&self.updates) {
            texts.extend([doc.id.as_str(), &doc.body, &doc.created_at]);
        }
        texts.extend(self.transcripts.iter().flat_map(|(id, body)| [id.as_str(), body]));
        texts.extend(self.values.iter().flat_map(|v| [v.body.as_str(), &v.definition_id]));
        texts.extend(self.events.iter().map(|e| e.data.as_str()));
        texts.extend(self.ends.iter().map(|(_, end)| end.part.as_str()));
        storable(&texts.into_iter().map(Arg::Text).collect::<Vec<_>>())
    }

    /// The batch as `sb_apply` reads it; `lazy`: its commit does not wait for the disk.
    pub(super) fn to_wire(&self, lazy: bool) -> Wire<'_> {
        let mut texts = Texts::default();
        let t = &mut texts;
        let all: Value = json!({
            "lazy": lazy,
            "now_ms": outbox::unix_ms_now(),
            "webhook": Kind::Webhook.as_str(),
            "alert_webhook": Kind::AlertWebhook.as_str(),
            "guard": self.guard.as_ref().map(guard_json),
            "inserts": self.inserts.iter().map(|d| doc_json(d, t)).collect::<Vec<_>>(),
            "transcripts": self.transcripts.iter().map(|(id, body)| json!({"id": id, "body": t.place(body)})).collect::<Vec<_>>(),
            "values": self.values.iter().map(|v| value_json(v, t)).collect::<Vec<_>>(),
            "updates": self.updates.iter().map(|d| doc_json(d, t)).collect::<Vec<_>>(),
            "events": self.events.iter().map(|e| event_json(e, t)).collect::<Vec<_>>(),
            "ends": self.ends.iter().map(|(job_id, e)| end_json(job_id, e, t)).collect::<Vec<_>>(),
        });
        Wire { json: all.to_string(), texts: texts.0 }
    }

    /// Applies the batch statement by statement in `tx` (SQLite's way; PostgreSQL's is one
    /// call of `sb_apply`, the same rows).
    pub(super) fn apply_in(&self, tx: &Tx) -> StoreResult<Applied> {
        self.check_storable()?;
        if let Some(guard) = &self.guard
            && guarded(tx, guard)? == Applied::Moved
        {
            return Ok(Applied::Moved);
        }
        for doc in &self.inserts {
            docs::insert_row(tx, doc)?;
        }
        for (id, body) in &self.transcripts {
            transcripts::put(tx, id, body)?;
        }
        values::put_stored(tx, &self.values)?;
        for doc in &self.updates {
            docs::rewrite(tx, doc)?.ok_or_else(|| StoreError::not_found(doc.kind, &doc.id))?;
        }
        for event in &self.events {
            outbox::append_row(tx, event)?;
        }
        for (job_id, end) in &self.ends {
            ends::append(tx, job_id, end)?;
        }
        Ok(Applied::Written)
    }
}

impl Batch {
    /// Applies the batch in `tx` and, once written, reads `seeing`'s revisions (as `sb_apply`'s
    /// statement answers them on PostgreSQL).
    pub(super) fn apply_seeing_in(&self, tx: &Tx, seeing: Option<&Three>) -> StoreResult<(Applied, Revisions)> {
        let applied = self.apply_in(tx)?;
        match seeing {
            Some(three) if applied == Applied::Written => Ok((applied, together::revisions(tx, three)?)),
            _ => Ok((applied, Revisions::default())),
        }
    }
}

/// A batch as `sb_apply(batch, texts)` takes it (PostgreSQL migration 14): the texts it
/// writes (documents, transcripts, values, events, ends) apart, so that the function does not
/// parse them into `jsonb` with the rest; the batch names each by its place in `texts`.
pub(super) struct Wire<'a> {
    pub json: String,
    pub texts: Vec<&'a str>,
}

/// The texts a batch writes, each once: an event's copy of the document it announces is
/// the document's own text, unless the event leaves out members kept for the service alone.
#[derive(Default)]
struct Texts<'a>(Vec<&'a str>);

impl<'a> Texts<'a> {
    /// The place of `text` (from 1, as SQL arrays count), added if it is not there yet.
    fn place(&mut self, text: &'a str) -> usize {
        let at = self.0.iter().position(|t| *t == text).unwrap_or_else(|| {
            self.0.push(text);
            self.0.len() - 1
        });
        at + 1
    }
}

fn guard_json(g: &Guard) -> Value {
    let (parent_kind, parent_id, parent_in) = match &g.parent_in {
        Some((kind, id, statuses)) => (Some(kind.as_str()), Some(id.as_str()), Some(statuses)),
        None => (None, None, None),
    };
    json!({
        "kind": g.kind.as_str(), "id": g.id, "owner": g.owner, "status": g.status,
        "parent_kind": parent_kind, "parent_id": parent_id, "parent_in": parent_in, "release": g.release,
    })
}

fn doc_json<'a>(d: &'a Doc, texts: &mut Texts<'a>) -> Value {
    json!({"kind": d.kind.as_str(), "id": d.id, "body": texts.place(&d.body), "status": d.status,
           "parent_id": d.parent_id, "created_at": d.created_at})
}

fn value_json<'a>(v: &'a StoredValue, texts: &mut Texts<'a>) -> Value {
    json!({"job_id": v.job_id, "definition_id": v.definition_id, "call_id": v.call_id, "chat_id": v.chat_id,
           "capture_status": v.capture_status, "body": texts.place(&v.body), "value": v.value, "context": v.context,
           "participant_role": v.participant_role, "label": v.label})
}

fn event_json<'a>(e: &'a Appended, texts: &mut Texts<'a>) -> Value {
    json!({"type": e.event_type, "kind": e.kind.as_str(), "id": e.resource_id, "parent_id": e.parent_id,
           "at": e.at, "data": texts.place(&e.data), "alert_id": e.alert_id})
}

fn end_json<'a>(job_id: &str, e: &'a End, texts: &mut Texts<'a>) -> Value {
    let item = e.item.as_ref();
    json!({"job_id": job_id, "part": texts.place(&e.part), "collection_id": item.map(|i| &i.collection_id),
           "item_failed": item.map(|i| i64::from(i.failed)), "item_at": item.map(|i| &i.at)})
}

/// The error a batch whose guard's lease is not its owner's answers.
pub(super) fn lost(guard: &Guard) -> StoreError {
    StoreError::LeaseLost { kind: guard.kind.label(), id: guard.id.clone() }
}

/// Checks the guard (a lost lease is an error; a moved status, `Moved`) and gives the lease
/// back if asked, as `sb_apply` does.
fn guarded(tx: &Tx, guard: &Guard) -> StoreResult<Applied> {
    let row = tx.query_row(
        &format!("SELECT status, lease_owner FROM docs WHERE kind = ?1 AND id = ?2{}", tx.row_lock()),
        crate::args![guard.kind.as_str(), &guard.id],
        |r| Ok((r.take::<Option<String>>(0)?, r.take::<Option<String>>(1)?)),
    )?;
    let status = match row {
        Some((status, Some(owner))) if owner == guard.owner => status,
        _ => return Err(lost(guard)),
    };
    if status != guard.status {
        return Ok(Applied::Moved);
    }
    if let Some((kind, id, statuses)) = &guard.parent_in {
        let parent = docs::peek_status(tx, *kind, id)?;
        if !parent.is_some_and(|p| statuses.contains(&p)) {
            return Ok(Applied::Moved);
        }
    }
    if guard.release {
        leases::release(tx, guard.kind, &guard.id)?;
    }
    Ok(Applied::Written)
}
