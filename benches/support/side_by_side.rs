//! Side by side (issue 33's targets): rounds of one run on SQLite, one on PostgreSQL with one
//! replica and one with more, in an order that changes each round. This machine's speed
//! drifts by a tenth and more within minutes, so one pair ranks nothing: the ratios are taken
//! within each round and their middle reported. Over six rounds each run takes each place
//! twice and runs before each other run as often as after it, so a drift through the round
//! favours none.

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

/// A run's part in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Sqlite,
    /// PostgreSQL with one replica.
    One,
    /// PostgreSQL with more.
    More,
}

impl Role {
    /// The store of this part, with `replicas` (two or more) for `More`.
    pub fn store(self, replicas: usize) -> Store {
        match self {
            Role::Sqlite => Store::Sqlite,
            Role::One => Store::Postgres { replicas: 1 },
            Role::More => Store::Postgres { replicas },
        }
    }
}

/// Every order of the three runs: in six rounds each takes each place twice, and each runs
/// before each other as often as after it.
const ORDERS: [[Role; 3]; 6] = {
    use Role::{More, One, Sqlite};
    [
        [Sqlite, One, More],
        [One, More, Sqlite],
        [More, Sqlite, One],
        [More, One, Sqlite],
        [One, Sqlite, More],
        [Sqlite, More, One],
    ]
};

/// The order of round `round` (from 0).
pub fn order(round: usize) -> [Role; 3] {
    ORDERS[round % ORDERS.len()]
}

/// One round's times (seconds), by part.
#[derive(Debug, Default, Clone)]
pub struct Round {
    pub sqlite: f64,
    pub one: f64,
    pub more: f64,
}

impl Round {
    /// Records the time of `role`'s run.
    pub fn set(&mut self, role: Role, seconds: f64) {
        match role {
            Role::Sqlite => self.sqlite = seconds,
            Role::One => self.one = seconds,
            Role::More => self.more = seconds,
        }
    }
}

/// The spread and the middle of `ratios`: "0.93–1.28× (middle 1.05×, 5 rounds)".
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
