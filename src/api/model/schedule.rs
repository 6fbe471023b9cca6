//! When a saved plan runs by itself: the hosted interface's schedule union (hourly, interval,
//! daily, weekly, monthly, once), kept on the plan as `schedule`.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;

use crate::wire_enum;

wire_enum! {
    /// A day of the week, as a weekly schedule names it.
    pub enum Weekday {
        Sunday = "sunday", Monday = "monday", Tuesday = "tuesday", Wednesday = "wednesday",
        Thursday = "thursday", Friday = "friday", Saturday = "saturday",
    }
}

/// Members every schedule may carry.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleLimits {
    /// False pauses the schedule; true when omitted.
    pub enabled: Option<bool>,
    /// An IANA time zone (`Europe/Berlin`) the times are read in; UTC when omitted.
    pub timezone: Option<String>,
    /// The last day runs may start (`YYYY-MM-DD` or an RFC 3339 instant); not for `once`.
    pub end_date: Option<String>,
    /// How many runs the schedule starts at most; not for `once`.
    pub max_runs: Option<i64>,
}

/// When a plan runs by itself: one of the hosted interface's six schedule shapes.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Schedule {
    /// Every hour, at `minute` past (0 when omitted).
    Hourly {
        minute: Option<i64>,
        #[serde(flatten)]
        limits: ScheduleLimits,
    },
    /// Every `everyMinutes` minutes.
    Interval {
        every_minutes: i64,
        #[serde(flatten)]
        limits: ScheduleLimits,
    },
    /// Every day at `time` (`HH:MM`).
    Daily {
        time: String,
        #[serde(flatten)]
        limits: ScheduleLimits,
    },
    /// On the named `days` at `time`.
    Weekly {
        days: Vec<Weekday>,
        time: String,
        #[serde(flatten)]
        limits: ScheduleLimits,
    },
    /// On `dayOfMonth` (1–31; the month's last day in shorter months) at `time`.
    Monthly {
        day_of_month: i64,
        time: String,
        #[serde(flatten)]
        limits: ScheduleLimits,
    },
    /// Once, at the local date-time `at` (`YYYY-MM-DDTHH:MM`, or an RFC 3339 instant).
    Once {
        at: String,
        #[serde(flatten)]
        limits: ScheduleLimits,
    },
}

impl Schedule {
    /// The members every shape shares.
    pub fn limits(&self) -> &ScheduleLimits {
        match self {
            Schedule::Hourly { limits, .. }
            | Schedule::Interval { limits, .. }
            | Schedule::Daily { limits, .. }
            | Schedule::Weekly { limits, .. }
            | Schedule::Monthly { limits, .. }
            | Schedule::Once { limits, .. } => limits,
        }
    }

    /// Whether the schedule starts runs at all (`enabled` true or omitted).
    pub fn is_enabled(&self) -> bool {
        self.limits().enabled != Some(false)
    }
}
