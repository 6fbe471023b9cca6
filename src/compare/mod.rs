//! Comparing runs, client-side, for both faces (the `diff`, `flaky` and `judge agreement`
//! commands and the console's comparison and flaky views). Knows the interface's types and the client,
//! nothing of the terminal. `run` is a run as a comparison sees it, `fetch` reads one from a
//! service, `diff` pairs two by test case, `flaky` finds checks that disagree with
//! themselves, `stats` holds the tests and their level (stated in `docs/compare.md`).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod agreement;
pub mod context;
pub mod diff;
pub mod fetch;
pub mod flaky;
pub mod run;
pub mod stats;

pub use agreement::{JudgeAgreement, agreement};
pub use context::{Difference, DifferenceKind, Edits};
pub use diff::{CaseChange, Change, CheckChange, Diff, MeasureChange};
pub use flaky::{FlakyCheck, Stability};
pub use run::{ReadPath, Run};
