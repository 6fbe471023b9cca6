//! Cursor and offset paging as async streams that fetch the next page only when needed.

use std::future::Future;

use futures_util::{Stream, TryStreamExt, stream};

use serde::de::{Deserialize, DeserializeOwned, Deserializer};

use super::error::Error;
use super::model::{CursorPage, CursorPagination, OffsetPagination};

/// One item of a list, or why it could not be read. A service's one odd item (a member of the
/// wrong type, a `null` where a list belongs) must not fail the whole list: it is skipped and
/// counted, the rest is shown.
#[derive(Debug, Clone, PartialEq)]
pub enum Lenient<T> {
    Item(T),
    /// The path of the member at fault and the decoder's words.
    Unreadable(String),
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        // Which item, when it says (members read through `flatten` lose their path).
        let id = value.get("id").and_then(serde_json::Value::as_str).map(|id| format!("item {id}: "));
        let id = id.unwrap_or_default();
        Ok(match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(item) => Lenient::Item(item),
            Err(e) if e.path().to_string() == "." => Lenient::Unreadable(format!("{id}{}", e.inner())),
            Err(e) => Lenient::Unreadable(format!("{id}{}: {}", e.path(), e.inner())),
        })
    }
}

/// A cursor page whose items are read one by one, and whose `data` may be null.
#[derive(serde::Deserialize)]
#[serde(bound(deserialize = "T: DeserializeOwned"))]
pub(super) struct LenientPage<T> {
    #[serde(default = "Option::default")]
    data: Option<Vec<Lenient<T>>>,
    #[serde(default)]
    pagination: CursorPagination,
}

impl<T> From<LenientPage<T>> for CursorPage<Lenient<T>> {
    fn from(page: LenientPage<T>) -> Self {
        let data = page.data.unwrap_or_else(|| vec![Lenient::Unreadable("data: a list was expected, got null".into())]);
        CursorPage { data, pagination: page.pagination }
    }
}

/// Every item of a cursor-paged list. `fetch` receives the cursor of the page to read
/// (`None` for the first); the next page is requested only once the previous one is consumed.
pub fn cursor_stream<T, F, Fut>(fetch: F) -> impl Stream<Item = Result<T, Error>>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<CursorPage<T>, Error>>,
{
    struct State<F> {
        fetch: F,
        cursor: Option<String>,
        /// Every cursor followed: a service that leads back to one would page forever.
        seen: std::collections::HashSet<String>,
        done: bool,
    }
    let state = State { fetch, cursor: None, seen: Default::default(), done: false };
    stream::try_unfold(state, |mut state| async move {
        if state.done {
            return Ok(None);
        }
        let page = (state.fetch)(state.cursor.clone()).await?;
        let next = page.pagination.next_cursor.filter(|c| !c.is_empty());
        match (page.pagination.has_more, next) {
            (true, Some(next)) if state.seen.insert(next.clone()) => state.cursor = Some(next),
            (true, Some(_)) => {
                return Err(Error::Paging("the service gave a nextCursor it had given before; paging stopped".into()));
            }
            (true, None) => return Err(Error::Paging("the service said hasMore but gave no nextCursor".into())),
            (false, _) => state.done = true,
        }
        Ok(Some((stream::iter(page.data.into_iter().map(Ok)), state)))
    })
    .try_flatten()
}

/// Every item of an offset-paged list. `fetch` receives the offset to read from.
pub fn offset_stream<T, F, Fut>(fetch: F) -> impl Stream<Item = Result<T, Error>>
where
    F: FnMut(u64) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, OffsetPagination), Error>>,
{
    struct State<F> {
        fetch: F,
        offset: u64,
        done: bool,
    }
    let state = State { fetch, offset: 0, done: false };
    stream::try_unfold(state, |mut state| async move {
        if state.done {
            return Ok(None);
        }
        let (items, pagination) = (state.fetch)(state.offset).await?;
        state.offset += items.len() as u64;
        // An empty page ends the walk even if the service claims more, so it cannot loop.
        state.done = !pagination.has_more || items.is_empty();
        Ok(Some((stream::iter(items.into_iter().map(Ok)), state)))
    })
    .try_flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Thing {
        name: String,
    }

    /// A service whose cursors go a → b → a: the walk stops with a paging error, not forever.
    #[tokio::test]
    async fn a_cursor_that_leads_back_ends_the_walk_with_an_error() {
        let pages = cursor_stream(|cursor: Option<String>| async move {
            let next = match cursor.as_deref() {
                None | Some("a") => "b",
                _ => "a",
            };
            let page: CursorPage<u32> = serde_json::from_value(serde_json::json!({
                "data": [1], "pagination": { "hasMore": true, "nextCursor": next }
            }))
            .unwrap();
            Ok(page)
        });
        let walked: Result<Vec<u32>, Error> = pages.try_collect().await;
        assert!(matches!(&walked, Err(Error::Paging(why)) if why.contains("given before")), "{walked:?}");
    }

    #[test]
    fn a_bad_item_or_a_null_list_is_unreadable_not_fatal() {
        let page: LenientPage<Thing> =
            serde_json::from_str(r#"{"data": [{"name": "a"}, {"name": 7}, null], "pagination": {}}"#).unwrap();
        let page = CursorPage::from(page);
        assert_eq!(page.data[0], Lenient::Item(Thing { name: "a".into() }));
        assert!(
            matches!(&page.data[1], Lenient::Unreadable(why) if why.starts_with("name: invalid type")),
            "{:?}",
            page.data[1]
        );
        assert!(matches!(&page.data[2], Lenient::Unreadable(_)));
        let page: LenientPage<Thing> = serde_json::from_str(r#"{"data": null}"#).unwrap();
        let page = CursorPage::from(page);
        assert!(matches!(&page.data[..], [Lenient::Unreadable(why)] if why.contains("null")));
    }
}
