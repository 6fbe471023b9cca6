//! Cursor and offset paging as async streams that fetch the next page only when needed.

use std::future::Future;

use futures_util::{Stream, TryStreamExt, stream};

use super::error::Error;
use super::model::{CursorPage, OffsetPagination};

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
        done: bool,
    }
    let state = State { fetch, cursor: None, done: false };
    stream::try_unfold(state, |mut state| async move {
        if state.done {
            return Ok(None);
        }
        let page = (state.fetch)(state.cursor.clone()).await?;
        let next = page.pagination.next_cursor.filter(|c| !c.is_empty());
        match (page.pagination.has_more, next) {
            (true, Some(next)) if Some(&next) != state.cursor.as_ref() => state.cursor = Some(next),
            (true, _) => {
                return Err(Error::Request("the service said hasMore but gave no new nextCursor".into()));
            }
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
