//! When a scheduled plan runs: a pure function of the schedule, the time, and the runs so far,
//! so the scheduler's decisions (and a plan's `nextRunAt`) are tested without a clock.
//!
//! A slot is an instant the schedule names. A plan runs the latest slot that has come (at or
//! before now) and is later than both its last run's slot and the moment the schedule was set
//! (`since`, the plan's `updatedAt`): the slots missed while no replica ran collapse into that
//! one catch-up run.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

use crate::api::model::{Recurrence, ScheduleRule};

/// What a plan's schedule asks for at a moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The slot to run now, if one is due.
    pub due: Option<Timestamp>,
    /// The next run: the due slot, else the first slot after now; none when the schedule is
    /// off, ended, or has run `maxRuns` times.
    pub next: Option<Timestamp>,
}

/// Days searched around a moment for a calendar slot: enough for the longest month and then some.
const SEARCH_DAYS: i64 = 64;

/// The decision for `rule` at `now`, `runs` runs (the last at `last`) since the schedule was set at `since`.
pub fn decide(rule: &ScheduleRule, since: Timestamp, runs: u64, last: Option<Timestamp>, now: Timestamp) -> Decision {
    let none = Decision { due: None, next: None };
    if !rule.enabled || rule.max_runs.is_some_and(|max| runs >= max) {
        return none;
    }
    let after = last.map_or(since, |last| last.max(since));
    let within = |slot: Timestamp| rule.end.is_none_or(|end| slot < end);
    let due = latest_at_or_before(rule, now).filter(|slot| *slot > after && within(*slot));
    let next = match due {
        Some(slot) => Some(slot),
        None => next_after(rule, now.max(after)).filter(|slot| within(*slot)),
    };
    Decision { due, next }
}

/// The latest slot at or before `t`.
pub fn latest_at_or_before(rule: &ScheduleRule, t: Timestamp) -> Option<Timestamp> {
    let tz = &rule.timezone;
    match &rule.recurrence {
        Recurrence::Once { at } => Some(*at).filter(|at| *at <= t),
        Recurrence::Interval { every_minutes } => {
            let step = every_minutes * 60;
            let seconds = t.as_second().div_euclid(step) * step;
            Timestamp::from_second(seconds).ok()
        }
        Recurrence::Hourly { minute } => {
            let slot = hour_slot(tz, t, *minute)?;
            if slot <= t {
                Some(slot)
            } else {
                hour_slot(tz, slot.checked_sub(SignedDuration::from_hours(1)).ok()?, *minute)
            }
        }
        _ => {
            let today = t.to_zoned(tz.clone()).date();
            (-SEARCH_DAYS..=1)
                .rev()
                .filter_map(|offset| today.checked_add(jiff::Span::new().days(offset)).ok())
                .filter_map(|date| day_slot(rule, date))
                .find(|slot| *slot <= t)
        }
    }
}

/// The first slot strictly after `t`.
pub fn next_after(rule: &ScheduleRule, t: Timestamp) -> Option<Timestamp> {
    let tz = &rule.timezone;
    match &rule.recurrence {
        Recurrence::Once { at } => Some(*at).filter(|at| *at > t),
        Recurrence::Interval { every_minutes } => {
            let step = every_minutes * 60;
            let seconds = (t.as_second().div_euclid(step) + 1) * step;
            Timestamp::from_second(seconds).ok()
        }
        Recurrence::Hourly { minute } => {
            let slot = hour_slot(tz, t, *minute)?;
            if slot > t {
                Some(slot)
            } else {
                hour_slot(tz, slot.checked_add(SignedDuration::from_hours(1)).ok()?, *minute)
            }
        }
        _ => {
            let today = t.to_zoned(tz.clone()).date();
            (-1..=SEARCH_DAYS)
                .filter_map(|offset| today.checked_add(jiff::Span::new().days(offset)).ok())
                .filter_map(|date| day_slot(rule, date))
                .find(|slot| *slot > t)
        }
    }
}

/// The slot in the local hour `t` falls in, at `minute`.
fn hour_slot(tz: &TimeZone, t: Timestamp, minute: i8) -> Option<Timestamp> {
    let local = t.to_zoned(tz.clone()).datetime();
    let slot = local.with().minute(minute).second(0).subsec_nanosecond(0).build().ok()?;
    instant(tz, slot)
}

/// A calendar schedule's slot on a local date, if it has one that day.
fn day_slot(rule: &ScheduleRule, date: Date) -> Option<Timestamp> {
    let time = match &rule.recurrence {
        Recurrence::Daily { time } => *time,
        Recurrence::Weekly { days, time } if days.contains(&date.weekday()) => *time,
        Recurrence::Monthly { day, time } if date.day() == (*day).min(date.days_in_month()) => *time,
        _ => return None,
    };
    instant(&rule.timezone, date.to_datetime(time))
}

/// A local time as an instant. A time the clocks skip (spring forward) runs as late as the gap
/// (02:30 becomes 03:30); a time they pass twice (fall back) runs the first time.
fn instant(tz: &TimeZone, local: DateTime) -> Option<Timestamp> {
    tz.to_ambiguous_zoned(local).compatible().ok().map(|z| z.timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::Schedule;

    fn rule(value: serde_json::Value) -> ScheduleRule {
        let schedule: Schedule = serde_json::from_value(value).unwrap();
        schedule.rule().unwrap()
    }

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn local(tz: &str, t: Timestamp) -> String {
        t.to_zoned(TimeZone::get(tz).unwrap()).datetime().to_string()
    }

    #[test]
    fn a_daily_slot_that_has_passed_is_due_once() {
        let daily = rule(serde_json::json!({"type": "daily", "time": "09:00", "timezone": "Europe/Berlin"}));
        let since = at("2026-06-01T00:00:00Z");
        let now = at("2026-06-01T07:00:05Z"); // 09:00:05 in Berlin (UTC+2)
        let decision = decide(&daily, since, 0, None, now);
        assert_eq!(decision.due, Some(at("2026-06-01T07:00:00Z")));
        let after = decide(&daily, since, 1, decision.due, now);
        assert_eq!(after.due, None);
        assert_eq!(after.next, Some(at("2026-06-02T07:00:00Z")));
    }

    #[test]
    fn missed_slots_collapse_into_one_catch_up() {
        let hourly = rule(serde_json::json!({"type": "hourly", "minute": 15}));
        let since = at("2026-06-01T00:00:00Z");
        let last = Some(at("2026-06-01T01:15:00Z"));
        // Down from 01:20 to 05:40: the 02:15, 03:15, 04:15 and 05:15 slots were missed.
        let decision = decide(&hourly, since, 1, last, at("2026-06-01T05:40:00Z"));
        assert_eq!(decision.due, Some(at("2026-06-01T05:15:00Z")));
        let then = decide(&hourly, since, 2, decision.due, at("2026-06-01T05:40:01Z"));
        assert_eq!((then.due, then.next), (None, Some(at("2026-06-01T06:15:00Z"))));
    }

    #[test]
    fn a_schedule_set_after_todays_slot_waits_for_tomorrow() {
        let daily = rule(serde_json::json!({"type": "daily", "time": "09:00"}));
        let decision = decide(&daily, at("2026-06-01T10:00:00Z"), 0, None, at("2026-06-01T10:00:01Z"));
        assert_eq!((decision.due, decision.next), (None, Some(at("2026-06-02T09:00:00Z"))));
    }

    #[test]
    fn spring_forward_runs_a_skipped_time_once_after_the_gap() {
        // 2026-03-08: New York's clocks go from 02:00 to 03:00.
        let daily = rule(serde_json::json!({"type": "daily", "time": "02:30", "timezone": "America/New_York"}));
        let before = at("2026-03-07T12:00:00Z");
        let slot = next_after(&daily, at("2026-03-08T05:00:00Z")).unwrap();
        assert_eq!(local("America/New_York", slot), "2026-03-08T03:30:00");
        assert_eq!(slot, at("2026-03-08T07:30:00Z"));
        let next = next_after(&daily, slot).unwrap();
        assert_eq!(local("America/New_York", next), "2026-03-09T02:30:00");
        assert_eq!(decide(&daily, before, 0, None, slot).due, Some(slot));
        assert_eq!(decide(&daily, before, 1, Some(slot), slot + SignedDuration::from_mins(59)).due, None);
    }

    #[test]
    fn fall_back_runs_a_doubled_time_once() {
        // 2026-11-01: New York's clocks go from 02:00 back to 01:00; 01:30 happens twice.
        let daily = rule(serde_json::json!({"type": "daily", "time": "01:30", "timezone": "America/New_York"}));
        let first = next_after(&daily, at("2026-11-01T04:00:00Z")).unwrap();
        assert_eq!(first, at("2026-11-01T05:30:00Z")); // 01:30 EDT
        let second_pass = at("2026-11-01T06:30:00Z"); // 01:30 EST
        let decision = decide(&daily, at("2026-10-31T00:00:00Z"), 1, Some(first), second_pass);
        assert_eq!(decision.due, None);
        assert_eq!(decision.next, Some(at("2026-11-02T06:30:00Z")));
    }

    #[test]
    fn hourly_slots_follow_the_local_clock_across_a_change() {
        let hourly = rule(serde_json::json!({"type": "hourly", "minute": 0, "timezone": "America/New_York"}));
        let slots: Vec<String> = std::iter::successors(Some(at("2026-03-08T05:30:00Z")), |t| next_after(&hourly, *t))
            .skip(1)
            .take(3)
            .map(|t| local("America/New_York", t))
            .collect();
        assert_eq!(slots, ["2026-03-08T01:00:00", "2026-03-08T03:00:00", "2026-03-08T04:00:00"]);
    }

    #[test]
    fn monthly_on_the_31st_runs_on_each_months_last_day_when_shorter() {
        let monthly = rule(serde_json::json!({"type": "monthly", "dayOfMonth": 31, "time": "08:00"}));
        let slots: Vec<Timestamp> =
            std::iter::successors(Some(at("2026-01-01T00:00:00Z")), |t| next_after(&monthly, *t))
                .skip(1)
                .take(4)
                .collect();
        let expected = ["2026-01-31T08:00:00Z", "2026-02-28T08:00:00Z", "2026-03-31T08:00:00Z", "2026-04-30T08:00:00Z"];
        assert_eq!(slots, expected.map(at));
        assert_eq!(latest_at_or_before(&monthly, at("2026-03-15T00:00:00Z")), Some(at("2026-02-28T08:00:00Z")));
    }

    #[test]
    fn weekly_runs_only_on_its_days() {
        let weekly = rule(
            serde_json::json!({"type": "weekly", "days": ["monday", "friday"], "time": "17:45", "timezone": "Asia/Tokyo"}),
        );
        // 2026-06-03 is a Wednesday.
        let slots: Vec<String> = std::iter::successors(Some(at("2026-06-03T00:00:00Z")), |t| next_after(&weekly, *t))
            .skip(1)
            .take(3)
            .map(|t| local("Asia/Tokyo", t))
            .collect();
        assert_eq!(slots, ["2026-06-05T17:45:00", "2026-06-08T17:45:00", "2026-06-12T17:45:00"]);
    }

    #[test]
    fn interval_slots_are_multiples_since_the_epoch() {
        let every = rule(serde_json::json!({"type": "interval", "everyMinutes": 90}));
        assert_eq!(next_after(&every, at("2026-06-01T00:10:00Z")), Some(at("2026-06-01T01:30:00Z")));
        assert_eq!(latest_at_or_before(&every, at("2026-06-01T01:30:00Z")), Some(at("2026-06-01T01:30:00Z")));
    }

    #[test]
    fn max_runs_end_date_enabled_and_once_end_a_schedule() {
        let capped = rule(serde_json::json!({"type": "hourly", "maxRuns": 2}));
        let since = at("2026-06-01T00:00:00Z");
        let now = at("2026-06-01T05:00:00Z");
        assert_eq!(
            decide(&capped, since, 2, Some(at("2026-06-01T04:00:00Z")), now),
            Decision { due: None, next: None }
        );
        assert!(decide(&capped, since, 1, Some(at("2026-06-01T04:00:00Z")), now).due.is_some());

        let ending = rule(serde_json::json!({"type": "daily", "time": "09:00", "endDate": "2026-06-02"}));
        assert_eq!(decide(&ending, since, 0, None, at("2026-06-02T10:00:00Z")).due, Some(at("2026-06-02T09:00:00Z")));
        let ended = decide(&ending, since, 1, Some(at("2026-06-02T09:00:00Z")), at("2026-06-02T10:00:00Z"));
        assert_eq!(ended, Decision { due: None, next: None });

        let off = rule(serde_json::json!({"type": "hourly", "enabled": false}));
        assert_eq!(decide(&off, since, 0, None, now), Decision { due: None, next: None });

        let once = rule(serde_json::json!({"type": "once", "at": "2026-06-01T10:00:00", "timezone": "Europe/Paris"}));
        assert_eq!(decide(&once, since, 0, None, now).next, Some(at("2026-06-01T08:00:00Z")));
        let ran = decide(&once, since, 1, Some(at("2026-06-01T08:00:00Z")), at("2026-06-01T08:00:01Z"));
        assert_eq!(ran, Decision { due: None, next: None });
        // A time already past when the schedule was set never runs.
        assert_eq!(decide(&once, at("2026-06-01T09:00:00Z"), 0, None, at("2026-06-01T09:00:01Z")).next, None);
    }
}
