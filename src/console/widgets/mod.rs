//! Widgets shared by every pane: the virtualized table, its list state, detail views, text.

pub mod detail;
pub mod list;
pub mod table;
pub mod values;
pub mod text;
pub mod conversation;
