//! A run plan's schedule, in the shape of the hosted config bundle's `schedule` union
//! (`type`: hourly, interval, daily, weekly, monthly, once), and the rule it reads as: when
//! its runs fall, in which timezone, and until when.

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use utoipa::ToSchema;

use super::common::UnknownFields;
use crate::api::validate::{Checks, Validate, join, quote};
use crate::wire_enum;

wire_enum! {
    /// How a schedule repeats.
    pub enum ScheduleType {
        Hourly = "hourly",
        Interval = "interval",
        Daily = "daily",
        Weekly = "weekly",
        Monthly = "monthly",
        Once = "once",
    }
}

impl ScheduleType {
    /// The members a schedule of this type takes besides `enabled`, `timezone` and (all but
    /// once) `maxRuns` and `endDate`; another type's member is refused, not ignored.
    pub fn members(&self) -> &'static [&'static str] {
        match self {
            ScheduleType::Hourly => &["minute"],
            ScheduleType::Interval => &["everyMinutes"],
            ScheduleType::Daily => &["time"],
            ScheduleType::Weekly => &["days", "time"],
            ScheduleType::Monthly => &["dayOfMonth", "time"],
            ScheduleType::Once => &["at"],
            ScheduleType::Unknown(_) => &[],
        }
    }

    /// The members it must be given (an hourly schedule's `minute` defaults to 0).
    pub fn required_members(&self) -> impl Iterator<Item = &'static str> {
        self.members().iter().copied().filter(|member| *member != "minute")
    }

    /// Whether it takes `maxRuns` and `endDate` (a schedule that runs once does not).
    pub fn repeats(&self) -> bool {
        *self != ScheduleType::Once
    }
}

/// The members that belong to some types only: `ScheduleType::members`, `maxRuns`, `endDate`.
pub const TYPED_SCHEDULE_MEMBERS: &[&str] =
    &["minute", "everyMinutes", "time", "days", "dayOfMonth", "at", "maxRuns", "endDate"];

wire_enum! {
    /// A day of the week, as a weekly schedule names it.
    pub enum ScheduleDay {
        Sunday = "sunday",
        Monday = "monday",
        Tuesday = "tuesday",
        Wednesday = "wednesday",
        Thursday = "thursday",
        Friday = "friday",
        Saturday = "saturday",
    }
}

/// Limits of a schedule's members.
pub mod schedule_limits {
    pub const MINUTE_MAX: i64 = 59;
    pub const EVERY_MINUTES_MIN: i64 = 1;
    /// Thirty days: a longer interval is a monthly schedule.
    pub const EVERY_MINUTES_MAX: i64 = 43_200;
    pub const DAY_OF_MONTH_MIN: i64 = 1;
    pub const DAY_OF_MONTH_MAX: i64 = 31;
    pub const MAX_RUNS_MIN: i64 = 1;
    pub const MAX_RUNS_MAX: i64 = 1_000_000;
    pub const TIMEZONE_DEFAULT: &str = "UTC";
}

/// When a plan runs by itself. The members each `type` takes: hourly `minute` (0–59, default
/// 0); interval `everyMinutes` (1–43200, slots on multiples of it since 1970-01-01T00:00Z);
/// daily `time` (`HH:MM`); weekly `days` and `time`; monthly `dayOfMonth` (1–31, the month's
/// last day in shorter months) and `time`; once `at` (a date-time, in `timezone` when it has no
/// offset). Every type takes `enabled` (default true) and `timezone` (an IANA name, default
/// UTC); all but once take `maxRuns` and `endDate` (a date, inclusive, or a date-time).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    #[serde(rename = "type")]
    #[schema(value_type = ScheduleType, required = true)]
    pub schedule_type: Option<ScheduleType>,
    #[schema(minimum = 0, maximum = 59)]
    pub minute: Option<i64>,
    #[schema(minimum = 1, maximum = 43200)]
    pub every_minutes: Option<i64>,
    /// `HH:MM` (or `HH:MM:SS`), local to `timezone`.
    #[schema(max_length = 8)]
    pub time: Option<String>,
    #[schema(min_items = 1, max_items = 7)]
    pub days: Option<Vec<ScheduleDay>>,
    #[schema(minimum = 1, maximum = 31)]
    pub day_of_month: Option<i64>,
    /// The one run's date-time: with an offset (`2026-12-01T09:00:00Z`), or local to `timezone`.
    #[schema(max_length = 40)]
    pub at: Option<String>,
    pub enabled: Option<bool>,
    /// An IANA timezone name (`Europe/Berlin`); UTC when omitted.
    #[schema(max_length = 64)]
    pub timezone: Option<String>,
    #[schema(minimum = 1, maximum = 1000000)]
    pub max_runs: Option<i64>,
    /// No run after it: a date (the whole day counts, in `timezone`) or a date-time.
    #[schema(max_length = 40)]
    pub end_date: Option<String>,
    /// Members the schedule does not define; `validate()` rejects them.
    #[serde(flatten, skip_serializing_if = "UnknownFields::is_empty")]
    #[schema(ignore)]
    pub unknown_fields: UnknownFields,
}

/// How a schedule repeats, read into times.
#[derive(Debug, Clone, PartialEq)]
pub enum Recurrence {
    Hourly { minute: i8 },
    Interval { every_minutes: i64 },
    Daily { time: jiff::civil::Time },
    Weekly { days: Vec<jiff::civil::Weekday>, time: jiff::civil::Time },
    Monthly { day: i8, time: jiff::civil::Time },
    Once { at: jiff::Timestamp },
}

/// A schedule as the scheduler reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleRule {
    pub recurrence: Recurrence,
    pub timezone: jiff::tz::TimeZone,
    pub enabled: bool,
    pub max_runs: Option<u64>,
    /// No run at or after this instant.
    pub end: Option<jiff::Timestamp>,
}

impl Schedule {
    /// The rule the schedule states; `None` when it breaks one (`validate()` says which).
    pub fn rule(&self) -> Option<ScheduleRule> {
        let mut c = Checks::default();
        let rule = self.read(&mut c, "");
        if c.is_empty() { rule } else { None }
    }

    /// Reads the schedule, reporting each broken rule under `at`: each member on its own, then
    /// which members its type takes, then what they say together.
    fn read(&self, c: &mut Checks, at: &str) -> Option<ScheduleRule> {
        c.unknown_of::<Self>(at, &self.unknown_fields);
        let schedule_type = c.required(at, "type", &self.schedule_type).cloned();
        c.known(at, "type", self.schedule_type.as_ref());
        let timezone = self.read_timezone(c, at);
        self.check_ranges(c, at);
        let time = self.read_time(c, at);
        let schedule_type = schedule_type?;
        self.check_members(c, at, &schedule_type)?;
        let timezone = timezone?;
        let end = self.read_end(c, at, &timezone)?;
        let recurrence = self.recurrence(c, at, &schedule_type, time, &timezone)?;
        Some(ScheduleRule {
            recurrence,
            timezone,
            enabled: self.enabled.unwrap_or(true),
            max_runs: self.max_runs.map(|n| n.max(1) as u64),
            end,
        })
    }

    /// The timezone named (UTC when none is).
    fn read_timezone(&self, c: &mut Checks, at: &str) -> Option<jiff::tz::TimeZone> {
        match self.timezone.as_deref() {
            None => Some(jiff::tz::TimeZone::UTC),
            Some(name) => jiff::tz::TimeZone::get(name).ok().or_else(|| {
                let message = format!("timezone {} is not an IANA timezone name (Europe/Berlin, UTC)", quote(name));
                c.invalid(join(at, "timezone"), message);
                None
            }),
        }
    }

    /// The numbers within their limits, the days known and not repeated past a week.
    fn check_ranges(&self, c: &mut Checks, at: &str) {
        use schedule_limits::*;
        c.range(at, "minute", self.minute, Some(0), Some(MINUTE_MAX));
        c.range(at, "everyMinutes", self.every_minutes, Some(EVERY_MINUTES_MIN), Some(EVERY_MINUTES_MAX));
        c.range(at, "dayOfMonth", self.day_of_month, Some(DAY_OF_MONTH_MIN), Some(DAY_OF_MONTH_MAX));
        c.range(at, "maxRuns", self.max_runs, Some(MAX_RUNS_MIN), Some(MAX_RUNS_MAX));
        c.items(at, "days", self.days.as_deref(), 1, Some(7));
        c.known_each(at, "days", self.days.as_deref());
    }

    /// The time of day, when one is given.
    fn read_time(&self, c: &mut Checks, at: &str) -> Option<jiff::civil::Time> {
        self.time.as_deref().and_then(|text| {
            let parsed = parse_time(text);
            if parsed.is_none() {
                c.invalid(join(at, "time"), format!("time {} must be HH:MM (09:30), 00:00 to 23:59", quote(text)));
            }
            parsed
        })
    }

    /// Which members each type takes: a member of another type is refused, not ignored, and one
    /// the type needs is missing. `None` for a type this build does not know.
    fn check_members(&self, c: &mut Checks, at: &str, schedule_type: &ScheduleType) -> Option<()> {
        if !schedule_type.is_known() {
            return None;
        }
        let takes = schedule_type.members();
        let given = [
            ("minute", self.minute.is_some()),
            ("everyMinutes", self.every_minutes.is_some()),
            ("time", self.time.is_some()),
            ("days", self.days.is_some()),
            ("dayOfMonth", self.day_of_month.is_some()),
            ("at", self.at.is_some()),
            ("maxRuns", self.max_runs.is_some()),
            ("endDate", self.end_date.is_some()),
        ];
        for (member, present) in given {
            let common = matches!(member, "maxRuns" | "endDate") && schedule_type.repeats();
            if present && !common && !takes.contains(&member) {
                let message = format!("{member} is not a member of a {schedule_type} schedule");
                c.invalid(join(at, member), message);
            }
        }
        for member in schedule_type.required_members() {
            let present = given.iter().any(|(name, present)| *name == member && *present);
            if !present {
                c.missing(join(at, member));
            }
        }
        Some(())
    }

    /// The end, when one is given; `None` when it cannot be read.
    fn read_end(&self, c: &mut Checks, at: &str, timezone: &jiff::tz::TimeZone) -> Option<Option<jiff::Timestamp>> {
        let Some(text) = self.end_date.as_deref() else { return Some(None) };
        let end = parse_end(text, timezone);
        if end.is_none() {
            let message = format!("endDate {} must be a date (2026-12-31) or a date-time", quote(text));
            c.invalid(join(at, "endDate"), message);
        }
        end.map(Some)
    }

    /// How the schedule repeats, from the members its type takes.
    fn recurrence(
        &self,
        c: &mut Checks,
        at: &str,
        schedule_type: &ScheduleType,
        time: Option<jiff::civil::Time>,
        timezone: &jiff::tz::TimeZone,
    ) -> Option<Recurrence> {
        use schedule_limits::*;
        Some(match schedule_type {
            ScheduleType::Hourly => Recurrence::Hourly { minute: self.minute.unwrap_or(0).clamp(0, MINUTE_MAX) as i8 },
            ScheduleType::Interval => Recurrence::Interval { every_minutes: self.every_minutes? },
            ScheduleType::Daily => Recurrence::Daily { time: time? },
            ScheduleType::Weekly => {
                let days = self.days.as_deref()?.iter().filter_map(weekday).collect::<Vec<_>>();
                Recurrence::Weekly { days, time: time? }
            }
            ScheduleType::Monthly => {
                let day = self.day_of_month?.clamp(DAY_OF_MONTH_MIN, DAY_OF_MONTH_MAX) as i8;
                Recurrence::Monthly { day, time: time? }
            }
            ScheduleType::Once => {
                let text = self.at.as_deref()?;
                let Some(once) = parse_at(text, timezone) else {
                    let message = format!("at {} must be a date-time (2026-12-01T09:00:00)", quote(text));
                    c.invalid(join(at, "at"), message);
                    return None;
                };
                Recurrence::Once { at: once }
            }
            ScheduleType::Unknown(_) => return None,
        })
    }
}

impl Schedule {
    /// The schedule in a few words, for people: `daily 09:30 Europe/Berlin, at most 5 runs`.
    pub fn summary(&self) -> String {
        let kind = self.schedule_type.as_ref().map_or("schedule", |t| t.as_str());
        let days = self.days.as_deref().map(|days| days.iter().map(|d| d.as_str()).collect::<Vec<_>>().join(","));
        let when = match self.schedule_type {
            Some(ScheduleType::Hourly) => Some(format!("at :{:02}", self.minute.unwrap_or(0))),
            Some(ScheduleType::Interval) => self.every_minutes.map(|n| format!("every {n} min")),
            Some(ScheduleType::Daily) => self.time.clone(),
            Some(ScheduleType::Weekly) => {
                Some(format!("{} {}", days.unwrap_or_default(), self.time.clone().unwrap_or_default()))
            }
            Some(ScheduleType::Monthly) => {
                Some(format!("day {} {}", self.day_of_month.unwrap_or_default(), self.time.clone().unwrap_or_default()))
            }
            Some(ScheduleType::Once) => self.at.clone(),
            _ => None,
        };
        let mut text = [Some(kind.to_owned()), when, Some(self.timezone.clone().unwrap_or_else(|| "UTC".into()))]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(max) = self.max_runs {
            text.push_str(&format!(", at most {max} runs"));
        }
        if let Some(end) = &self.end_date {
            text.push_str(&format!(", until {end}"));
        }
        if self.enabled == Some(false) {
            text.push_str(" (off)");
        }
        text
    }
}

impl Validate for Schedule {
    fn check(&self, c: &mut Checks, at: &str) {
        self.read(c, at);
    }
}

fn weekday(day: &ScheduleDay) -> Option<jiff::civil::Weekday> {
    use jiff::civil::Weekday;
    Some(match day {
        ScheduleDay::Sunday => Weekday::Sunday,
        ScheduleDay::Monday => Weekday::Monday,
        ScheduleDay::Tuesday => Weekday::Tuesday,
        ScheduleDay::Wednesday => Weekday::Wednesday,
        ScheduleDay::Thursday => Weekday::Thursday,
        ScheduleDay::Friday => Weekday::Friday,
        ScheduleDay::Saturday => Weekday::Saturday,
        ScheduleDay::Unknown(_) => return None,
    })
}

/// `HH:MM` or `HH:MM:SS`.
fn parse_time(text: &str) -> Option<jiff::civil::Time> {
    let shaped = matches!(text.len(), 5 | 8) && text.as_bytes().get(2) == Some(&b':');
    if !shaped {
        return None;
    }
    let full = if text.len() == 5 { format!("{text}:00") } else { text.to_owned() };
    full.parse::<jiff::civil::Time>().ok()
}

/// A date-time with an offset, or a civil one in `timezone`, to the millisecond (the precision
/// runs are kept in).
fn parse_at(text: &str, timezone: &jiff::tz::TimeZone) -> Option<jiff::Timestamp> {
    let at = match text.parse::<jiff::Timestamp>() {
        Ok(at) => at,
        Err(_) => {
            let civil = text.parse::<jiff::civil::DateTime>().ok()?;
            timezone.to_ambiguous_zoned(civil).compatible().ok()?.timestamp()
        }
    };
    jiff::Timestamp::from_millisecond(at.as_millisecond()).ok()
}

/// The first instant after the end: the next day's start for a date, else the date-time itself.
fn parse_end(text: &str, timezone: &jiff::tz::TimeZone) -> Option<jiff::Timestamp> {
    if text.len() == 10 {
        let date = text.parse::<jiff::civil::Date>().ok()?;
        let next = date.tomorrow().ok()?;
        return timezone
            .to_ambiguous_zoned(next.to_datetime(jiff::civil::Time::midnight()))
            .compatible()
            .ok()
            .map(|z| z.timestamp());
    }
    parse_at(text, timezone)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(value: serde_json::Value) -> Schedule {
        serde_json::from_value(value).unwrap_or_default()
    }

    fn params(value: serde_json::Value) -> Vec<String> {
        schedule(value).validate().into_iter().map(|v| v.param).collect()
    }

    #[test]
    fn each_type_reads_its_own_members() {
        let daily = schedule(serde_json::json!({"type": "daily", "time": "09:30", "timezone": "Europe/Berlin"}));
        let rule = daily.rule().unwrap_or_else(|| panic!("a valid daily schedule"));
        assert_eq!(rule.recurrence, Recurrence::Daily { time: jiff::civil::time(9, 30, 0, 0) });
        assert!(rule.enabled);
        assert_eq!(params(serde_json::json!({"type": "daily"})), ["time"]);
        assert_eq!(params(serde_json::json!({"type": "daily", "time": "9:30"})), ["time"]);
        assert_eq!(params(serde_json::json!({"type": "hourly", "time": "09:30"})), ["time"]);
        assert_eq!(params(serde_json::json!({"type": "once", "at": "2026-12-01T09:00:00", "maxRuns": 2})), ["maxRuns"]);
        assert_eq!(params(serde_json::json!({"type": "weekly", "days": [], "time": "10:00"})), ["days"]);
        assert_eq!(params(serde_json::json!({"type": "weekly", "days": ["funday"], "time": "10:00"})), ["days[0]"]);
        assert_eq!(params(serde_json::json!({"type": "cron"})), ["type"]);
        assert_eq!(params(serde_json::json!({"type": "hourly", "timezone": "Mars/Olympus"})), ["timezone"]);
        assert_eq!(params(serde_json::json!({"type": "hourly", "endDate": "soon"})), ["endDate"]);
        assert_eq!(params(serde_json::json!({"type": "hourly", "every": 3})), ["every"]);
        assert!(params(serde_json::json!({"type": "monthly", "dayOfMonth": 31, "time": "08:00"})).is_empty());
    }

    #[test]
    fn an_end_date_covers_its_whole_day_in_the_timezone() {
        let rule =
            schedule(serde_json::json!({"type": "hourly", "endDate": "2026-03-01", "timezone": "America/New_York"}))
                .rule()
                .unwrap_or_else(|| panic!("valid"));
        assert_eq!(rule.end, Some("2026-03-02T05:00:00Z".parse().unwrap_or_else(|_| panic!("instant"))));
    }
}
