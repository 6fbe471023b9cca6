//! Side by side (issue 33's targets): rounds of one run on SQLite, one on PostgreSQL with one
//! replica and one with more, in an order that turns each round, so that no store always runs
//! first or last. This machine's speed drifts by a tenth and more within minutes, so one pair
//! ranks nothing: the ratios are taken within each round and their middle reported.

/// Where a run keeps its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    Sqlite,
    Postgres { replicas: usize },
}

impl std::fmt::Display for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Store::Sqlite => write!(f, "SQLite"),
            Store::Postgres { replicas: 1 } => write!(f, "PostgreSQL, 1 replica"),
            Store::Postgres { replicas } => write!(f, "PostgreSQL, {replicas} replicas"),
        }
    }
}

/// The three runs of round `round` (from 0), turned by one place each round.
pub fn order(round: usize, replicas: usize) -> [Store; 3] {
    let mut stores = [Store::Sqlite, Store::Postgres { replicas: 1 }, Store::Postgres { replicas }];
    stores.rotate_left(round % 3);
    stores
}

/// One round's times (seconds), by store.
#[derive(Debug, Default, Clone)]
pub struct Round {
    pub sqlite: f64,
    pub one: f64,
    pub more: f64,
}

impl Round {
    pub fn set(&mut self, store: Store, seconds: f64) {
        match store {
            Store::Sqlite => self.sqlite = seconds,
            Store::Postgres { replicas: 1 } => self.one = seconds,
            Store::Postgres { .. } => self.more = seconds,
        }
    }
}

/// The spread and the middle of `ratios`: "0.93–1.28× (middle 1.05×)".
fn spread(mut ratios: Vec<f64>) -> String {
    ratios.sort_by(f64::total_cmp);
    let (Some(low), Some(high)) = (ratios.first(), ratios.last()) else { return "no rounds".to_owned() };
    let n = ratios.len();
    let middle = if n % 2 == 1 { ratios[n / 2] } else { (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0 };
    format!("{low:.2}–{high:.2}× (middle {middle:.2}×, {n} rounds)")
}

/// The summary of `rounds`: each ratio taken within its round.
pub fn summary(rounds: &[Round], replicas: usize) -> String {
    let one_against_sqlite = spread(rounds.iter().map(|r| r.one / r.sqlite).collect());
    let more_against_one = spread(rounds.iter().map(|r| r.more / r.one).collect());
    format!(
        "PostgreSQL with 1 replica against SQLite {one_against_sqlite}; \
         {replicas} replicas against 1 {more_against_one}"
    )
}
