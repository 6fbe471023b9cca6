//! What makes one replica among several: its claims on work (`leases`) and the keeper that
//! renews them and takes over the work of replicas that stopped. The SQL behind them, the
//! shard map and PostgreSQL's change publisher and listener stay in `store/`.

pub mod duties;
pub(super) mod lease_keeper;
pub mod leases;

// The floor's files name their neighbours as `super::…`, as they did on the flat floor.
use super::{error, metrics, sim, store};
