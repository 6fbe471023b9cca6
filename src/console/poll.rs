//! The poll budget a list refresh is measured in: the app's auto-refresh and the jobs pane's
//! own list poll both space a long list out by it.

/// Items in the page a poll is budgeted for.
pub const PAGE: usize = 100;

/// Polls between two refreshes of a list of `len` items: one per page, at least one.
pub fn polls_between(len: usize) -> u32 {
    u32::try_from(len.div_ceil(PAGE)).unwrap_or(u32::MAX).max(1)
}
