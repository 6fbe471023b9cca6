//! Calls and chats: what they share (ingesting a transcript, reading it back) in
//! `conversations`, and what an ingested call names besides its transcript in `ingest`.

pub(super) mod conversations;
pub(super) mod ingest;
