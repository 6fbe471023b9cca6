//! Widgets shared by every pane: the virtualized table, its list state, detail views, text.

pub mod confirm;
pub mod conversation;
pub mod detail;
pub mod form;
pub mod list;
pub mod modal;
pub mod series;
pub mod stats;
pub mod table;
pub mod text;
pub mod transcript;
pub mod values;
