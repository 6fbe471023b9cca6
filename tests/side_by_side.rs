//! The benchmarks' side-by-side rounds (`benches/support/side_by_side.rs`): their order and
//! summary.

#[path = "../benches/support/side_by_side.rs"]
mod side_by_side;

use side_by_side::{Role, Round, Store, order, summary};

const ROLES: [Role; 3] = [Role::Sqlite, Role::One, Role::More];

#[test]
fn in_six_rounds_each_run_takes_each_place_twice() {
    for place in 0..3 {
        for role in ROLES {
            let times = (0..6).filter(|&round| order(round)[place] == role).count();
            assert_eq!(times, 2, "{role:?} in place {place}");
        }
    }
    assert_eq!(order(6), order(0));
}

#[test]
fn in_six_rounds_each_run_goes_before_each_other_as_often_as_after() {
    for first in ROLES {
        for second in ROLES.into_iter().filter(|&r| r != first) {
            let before = (0..6)
                .filter(|&round| {
                    let runs = order(round);
                    runs.iter().position(|&r| r == first) < runs.iter().position(|&r| r == second)
                })
                .count();
            assert_eq!(before, 3, "{first:?} before {second:?}");
        }
    }
}

#[test]
fn each_part_runs_on_its_store() {
    let stores: Vec<String> = ROLES.iter().map(|role| role.store(3).to_string()).collect();
    assert_eq!(stores, ["SQLite", "PostgreSQL, 1 replica", "PostgreSQL, 3 replicas"]);
    assert_eq!(Role::More.store(2), Store::Postgres { replicas: 2 });
}

#[test]
fn ratios_are_taken_within_rounds() {
    let mut rounds = vec![Round::default(), Round::default(), Round::default()];
    for (round, [sqlite, one, more]) in
        rounds.iter_mut().zip([[10.0, 20.0, 18.0], [12.0, 18.0, 27.0], [10.0, 19.0, 19.0]])
    {
        round.set(Role::More, more);
        round.set(Role::Sqlite, sqlite);
        round.set(Role::One, one);
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
