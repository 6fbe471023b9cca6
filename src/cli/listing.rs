//! `--limit` and `--cursor` of every `… list`: pages are walked until the limit is reached,
//! and the printed `pagination` says where to go on from.

use clap::Args;
use serde::de::DeserializeOwned;

use super::exit::Failure;
use crate::api::model::CursorPagination;
use crate::api::{Client, ListQuery};

/// The largest page the interface serves.
const PAGE_MAX: u64 = 50;

#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// How many to print at most, 1 or more (pages are fetched until then).
    #[arg(long, default_value_t = 50, value_parser = positive_limit)]
    pub limit: u64,
    /// Start at this cursor (the `nextCursor` of an earlier listing).
    #[arg(long)]
    pub cursor: Option<String>,
}

/// `--limit`: a count of 1 or more (0 would print nothing and look like an empty list).
fn positive_limit(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(0) => Err("--limit is how many to print, 1 or more; 0 would print nothing".into()),
        Ok(limit) => Ok(limit),
        Err(_) => Err(format!("--limit is how many to print, a whole number of 1 or more, not {text:?}")),
    }
}

/// Up to `args.limit` items of the cursor-paged list at `path`, and the pagination of where
/// it stopped.
pub async fn fetch<T: DeserializeOwned>(
    client: &Client,
    path: &str,
    query: ListQuery,
    args: &ListArgs,
) -> Result<(Vec<T>, CursorPagination), Failure> {
    let mut items = Vec::new();
    let mut cursor = args.cursor.clone();
    loop {
        let wanted = args.limit.saturating_sub(items.len() as u64).min(PAGE_MAX);
        let page_query = ListQuery { cursor: cursor.clone(), limit: Some(wanted.max(1) as i64), ..query.clone() };
        let page = client.list_page::<T>(path, &page_query).await?;
        items.extend(page.data);
        let pagination = page.pagination;
        let done = !pagination.has_more || items.len() as u64 >= args.limit || pagination.next_cursor == cursor;
        if done {
            items.truncate(args.limit as usize);
            return Ok((items, pagination));
        }
        cursor = pagination.next_cursor.clone();
    }
}
