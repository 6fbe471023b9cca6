//! The benchmarks' side-by-side rounds (`benches/support/side_by_side.rs`): their order and
//! summary.

#[path = "../benches/support/side_by_side.rs"]
mod side_by_side;

use side_by_side::{Round, Store, order, summary};

#[test]
fn each_store_takes_each_place_in_three_rounds() {
    for place in 0..3 {
        let mut stores: Vec<String> = (0..3).map(|round| order(round, 2)[place].to_string()).collect();
        stores.sort();
        assert_eq!(stores, ["PostgreSQL, 1 replica", "PostgreSQL, 2 replicas", "SQLite"], "place {place}");
    }
    assert_eq!(order(3, 2), order(0, 2));
    assert_eq!(order(0, 4)[2], Store::Postgres { replicas: 4 });
}

#[test]
fn ratios_are_taken_within_rounds() {
    let mut rounds = vec![Round::default(), Round::default(), Round::default()];
    for (round, [sqlite, one, more]) in
        rounds.iter_mut().zip([[10.0, 20.0, 18.0], [12.0, 18.0, 27.0], [10.0, 19.0, 19.0]])
    {
        round.set(Store::Postgres { replicas: 2 }, more);
        round.set(Store::Sqlite, sqlite);
        round.set(Store::Postgres { replicas: 1 }, one);
    }
    assert_eq!(
        summary(&rounds, 2),
        "PostgreSQL with 1 replica against SQLite 1.50–2.00× (middle 1.90×, 3 rounds); \
         2 replicas against 1 0.90–1.50× (middle 1.00×, 3 rounds)"
    );
    assert_eq!(
        summary(&rounds[..2], 2),
        "PostgreSQL with 1 replica against SQLite 1.50–2.00× (middle 1.75×, 2 rounds); \
         2 replicas against 1 0.90–1.50× (middle 1.20×, 2 rounds)"
    );
    assert_eq!(summary(&[], 2), "PostgreSQL with 1 replica against SQLite no rounds; 2 replicas against 1 no rounds");
}
