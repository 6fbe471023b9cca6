//! A replica capped at a share of one core, in a CPU cgroup of its own (`SCALE_REPLICA_CPU`):
//! how the benchmark simulates "the database has cores of its own" on a machine with two.
//! Capped replicas are the scarce resource and PostgreSQL, uncapped, has the rest of the
//! machine, so one replica against two says whether replicas add throughput or only wait on
//! each other. Needs root and a cgroup v1 `cpu` hierarchy or a cgroup v2 one with the `cpu`
//! controller; the benchmark fails, saying so, without.

use std::path::{Path, PathBuf};

/// The cgroup one replica runs in; removed when dropped (after its process ended).
pub struct CpuCap {
    dir: PathBuf,
}

/// The share of a core each replica may use, from `SCALE_REPLICA_CPU` (e.g. `0.25`).
pub fn share() -> Option<f64> {
    let share = std::env::var("SCALE_REPLICA_CPU").ok()?;
    let share: f64 = share
        .parse()
        .unwrap_or_else(|_| panic!("SCALE_REPLICA_CPU={share} is not a number (a share of a core, e.g. 0.25)"));
    assert!(share > 0.0 && share <= 64.0, "SCALE_REPLICA_CPU={share} must be above 0 (a share of a core)");
    Some(share)
}

impl CpuCap {
    /// Moves the process `pid` (every thread of it) into a new cgroup allowed `share` of a core.
    pub fn apply(pid: u32, share: f64) -> CpuCap {
        let period: u64 = 100_000;
        let quota = (share * period as f64).round() as u64;
        let v1 = Path::new("/sys/fs/cgroup/cpu");
        let (dir, limits) = if v1.join("cpu.cfs_quota_us").exists() {
            let dir = v1.join(format!("switchboard-bench-{pid}"));
            (dir, vec![("cpu.cfs_period_us", period.to_string()), ("cpu.cfs_quota_us", quota.to_string())])
        } else {
            let dir = Path::new("/sys/fs/cgroup").join(format!("switchboard-bench-{pid}"));
            (dir, vec![("cpu.max", format!("{quota} {period}"))])
        };
        let fail = |what: &str, e: std::io::Error| -> ! {
            panic!(
                "SCALE_REPLICA_CPU: cannot {what} in {} ({e}); it needs root and a cgroup cpu controller",
                dir.display()
            )
        };
        std::fs::create_dir(&dir).unwrap_or_else(|e| fail("create the cgroup", e));
        for (file, value) in limits {
            std::fs::write(dir.join(file), value).unwrap_or_else(|e| fail(&format!("write {file}"), e));
        }
        std::fs::write(dir.join("cgroup.procs"), pid.to_string()).unwrap_or_else(|e| fail("move the replica", e));
        CpuCap { dir }
    }
}

impl Drop for CpuCap {
    fn drop(&mut self) {
        // The process has ended by now (its `Serve` is dropped first): an empty cgroup goes.
        let _ = std::fs::remove_dir(&self.dir);
    }
}
