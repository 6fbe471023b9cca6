//! Knowledge bases made through the interface: the metadata kept as the document, the content
//! apart (`store::knowledge`), where metrics read it and no read returns it.

use sha2::{Digest, Sha256};

use super::error::DomainResult;
use super::store::{self, Doc, Tx};
use crate::api::model::{KnowledgeBase, KnowledgeBaseInput, KnowledgeBaseStatus, KnowledgeSourceType, Timestamp};

/// Keeps a new knowledge base from validated input; its metadata.
pub fn create(tx: &Tx, input: KnowledgeBaseInput) -> DomainResult<KnowledgeBase> {
    let content = input.text().unwrap_or_default();
    let at = Timestamp::now();
    let digest = Sha256::digest(content.as_bytes());
    let hash: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let (source_type, filename, mime_type) = match &input.file {
        Some(file) => (KnowledgeSourceType::File, file.filename.clone(), file.mime_type.clone()),
        None => (KnowledgeSourceType::Text, None, Some("text/plain".to_owned())),
    };
    let base = KnowledgeBase {
        id: uuid::Uuid::new_v4(),
        name: input.name,
        description: input.description,
        source_type: Some(source_type),
        status: Some(KnowledgeBaseStatus::Ready),
        original_filename: filename,
        mime_type,
        source_url: None,
        byte_size: Some(content.len() as i64),
        content_hash: Some(format!("sha256:{hash}")),
        error_message: None,
        created_at: Some(at.clone()),
        updated_at: Some(at.clone()),
    };
    store::insert(tx, &Doc::of(&base)?)?;
    store::knowledge::put(tx, &base.id.to_string(), &content)?;
    Ok(base)
}
