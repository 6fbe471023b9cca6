//! The statuses of run plan jobs and simulation jobs, in a file of their own: the job shapes
//! (`simulation.rs`) and the verdicts judged on them (`verdict.rs`) both name them.

use crate::wire_enum;

wire_enum! {
    /// Status of a run plan job: the hosted interface's stages. The spec shows RUNNING, which
    /// the hosted SDK does not have: the local service runs jobs as RUNNING_SIMULATIONS and
    /// still reads RUNNING from older data.
    pub enum RunPlanJobStatus {
        Pending = "PENDING",
        Queued = "QUEUED",
        CreatingSnapshots = "CREATING_SNAPSHOTS",
        CreatingSimulations = "CREATING_SIMULATIONS",
        PreparingCapacity = "PREPARING_CAPACITY",
        Running = "RUNNING",
        RunningSimulations = "RUNNING_SIMULATIONS",
        EndingSimulations = "ENDING_SIMULATIONS",
        Completed = "COMPLETED",
        Failed = "FAILED",
        TimedOut = "TIMED_OUT",
        Cancelling = "CANCELLING",
        Cancelled = "CANCELLED",
    }
}

impl RunPlanJobStatus {
    /// Whether the job can still change.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::TimedOut | Self::Cancelled)
    }
}

wire_enum! {
    /// Status of one simulation job. RETRY_SCHEDULED is a retry of a simulation the agent never
    /// spoke on, waiting out the plan's backoff.
    pub enum SimulationJobStatus {
        Pending = "PENDING",
        Queued = "QUEUED",
        Processing = "PROCESSING",
        Completed = "COMPLETED",
        Failed = "FAILED",
        TimedOut = "TIMED_OUT",
        Cancelling = "CANCELLING",
        Cancelled = "CANCELLED",
        RetryScheduled = "RETRY_SCHEDULED",
    }
}

crate::wire_enum! {
    /// The order of a job's simulation jobs page (local service extension).
    pub enum SimulationJobSort { Newest = "-createdAt", Oldest = "createdAt" }
}

impl SimulationJobStatus {
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::TimedOut | Self::Cancelled)
    }
}
