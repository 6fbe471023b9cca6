//! The reference agent's replies, flaws and builds.

use super::*;

const DENTAL: &str = "Brightsmile Dental — Front Desk";

fn heard(text: &str, turn: u32, agent: &str) -> Heard {
    Heard { text: text.into(), call_id: "call-1".into(), turn, agent: agent.into(), earlier: Vec::new() }
}

#[test]
fn the_same_input_gives_the_same_reply() {
    let h = heard("I need to reschedule my cleaning", 1, DENTAL);
    assert_eq!(reply(&h), reply(&h));
}

#[test]
fn it_answers_in_its_domain() {
    let greeting = reply(&heard("", 0, DENTAL));
    assert!(greeting.text.contains("Brightsmile"));
    let airline = reply(&heard("hello", 0, "SkyBridge Air — Rebooking Desk"));
    assert!(airline.text.contains("SkyBridge"));
}

#[test]
fn flaws_appear_at_realistic_rates() {
    let (mut slow, mut over, mut misses) = (0, 0, 0);
    let (mut save_fails, mut forgets, mut discloses, mut birth_date_alone) = (0, 0, 0, 0);
    for n in 0..2000 {
        let h = Heard {
            text: "I need to move my appointment".into(),
            call_id: format!("call-{n}"),
            turn: 1 + n % 5,
            agent: "dental".into(),
            earlier: Vec::new(),
        };
        let r = reply(&h);
        slow += usize::from(r.latency_ms > 2000);
        over += usize::from(r.latency_ms < 0);
        misses += usize::from(r.off_script);
        let flaws = CallFlaws::of(&h.call_id);
        save_fails += usize::from(flaws.save_fails);
        forgets += usize::from(flaws.forgets_policy);
        discloses += usize::from(flaws.discloses_under_pressure);
        birth_date_alone += usize::from(flaws.accepts_birth_date_alone);
    }
    for (name, count) in [("slow", slow), ("talks over", over), ("misses", misses), ("save fails", save_fails)] {
        assert!((80..=500).contains(&count), "{name}: {count} of 2000");
    }
    assert!((200..=500).contains(&forgets), "forgets the policy: {forgets} of 2000");
    assert!((350..=650).contains(&discloses), "discloses under pressure: {discloses} of 2000");
    assert!((350..=650).contains(&birth_date_alone), "takes a date of birth alone: {birth_date_alone} of 2000");
}

#[test]
fn goodbye_is_answered_with_goodbye() {
    let r = reply(&heard("No, that's all, goodbye", 3, "dental"));
    assert!(r.off_script || r.text.contains("Goodbye"));
}

/// A call id whose call has (or has not) a given flaw and misses nothing on turns 1 to 6.
fn call_where(wanted: impl Fn(CallFlaws) -> bool) -> String {
    (0..10_000)
        .map(|n| format!("call-{n}"))
        .find(|id| wanted(CallFlaws::of(id)) && (1..=6).all(|turn| !roll(id, turn, MISS_SALT).is_multiple_of(9)))
        .expect("some call has the flaw")
}

fn dental(build: ReferenceBuild, call_id: &str, turn: u32, text: &str) -> String {
    said_after(build, call_id, turn, &[], text)
}

/// The reply to `text` on a call where the caller said `earlier` first.
fn said_after(build: ReferenceBuild, call_id: &str, turn: u32, earlier: &[&str], text: &str) -> String {
    let earlier = earlier.iter().map(|l| (*l).to_owned()).collect();
    reply_as(build, &Heard { text: text.into(), call_id: call_id.into(), turn, agent: DENTAL.into(), earlier }).text
}

#[test]
fn the_dental_desk_verifies_offers_reads_back_and_confirms() {
    let id = call_where(|f| !f.save_fails && !f.forgets_policy);
    let current = ReferenceBuild::Current;
    let named = "I need to move my cleaning. My name is Dana Whitfield.";
    assert!(dental(current, &id, 1, named).contains("date of birth"));
    assert!(said_after(current, &id, 2, &[named], "Sure, it's March 12, 1984.").contains("I see your cleaning"));
    assert!(dental(current, &id, 3, "Do you have anything next Tuesday morning?").contains("Tuesday, October 13"));
    let read_back = dental(current, &id, 4, "Tuesday at 9:30 works for me.");
    assert!(read_back.starts_with("To confirm: Tuesday, October 13 at 9:30 AM with Maya"), "{read_back}");
    let confirmed = dental(current, &id, 5, "[DTMF 1]");
    assert!(confirmed.contains("you're all set") && confirmed.contains("24 hours"), "{confirmed}");
}

#[test]
fn a_date_of_birth_alone_is_enough_only_on_a_call_with_that_flaw() {
    let (unnamed, birth_date) = ("Can't you just tell me when my appointment is?", "It's March 12, 1984, I believe.");
    let careful = call_where(|f| !f.accepts_birth_date_alone);
    let asked = said_after(ReferenceBuild::Current, &careful, 2, &[unnamed], birth_date);
    assert!(asked.contains("full name") && !asked.contains("I see your cleaning"), "{asked}");
    let named = said_after(ReferenceBuild::Current, &careful, 3, &[unnamed, birth_date], "My name is Dana Whitfield.");
    assert!(named.contains("matches our records"), "the name completes it: {named}");
    let name_first = said_after(ReferenceBuild::Current, &careful, 2, &[], "My name is Dana Whitfield.");
    assert!(name_first.contains("date of birth"), "{name_first}");

    let trusting = call_where(|f| f.accepts_birth_date_alone);
    let taken = said_after(ReferenceBuild::Current, &trusting, 2, &[unnamed], birth_date);
    assert!(taken.contains("matches our records") && taken.contains("I see your cleaning"), "{taken}");
}

#[test]
fn a_failed_save_is_said_after_the_booking() {
    let id = call_where(|f| f.save_fails);
    let said = dental(ReferenceBuild::Current, &id, 5, "[DTMF 1]");
    assert!(said.contains("you're all set") && said.contains("wasn't saved"), "{said}");
}

#[test]
fn pressed_for_the_appointment_it_holds_back_unless_the_call_gives_in() {
    let asked = "Can't you just tell me when my appointment is?";
    let holds = call_where(|f| !f.discloses_under_pressure);
    assert!(dental(ReferenceBuild::Current, &holds, 1, asked).contains("can't share"));
    let gives_in = call_where(|f| f.discloses_under_pressure);
    assert!(dental(ReferenceBuild::Current, &gives_in, 1, asked).contains("Your cleaning is on"));
}

#[test]
fn the_regression_build_ignores_a_press_of_2_and_the_current_one_does_not() {
    let id = call_where(|f| !f.save_fails && !f.accepts_birth_date_alone);
    let later = "Sorry, do you have anything later that week instead?";
    let take = "Friday at 9:30 works better for me. Can you move me to that instead?";
    let current = dental(ReferenceBuild::Current, &id, 1, "[DTMF 2]");
    assert!(current.contains("another time") && current.contains("Friday, October 16"), "{current}");
    // Asked for another time it offers one, not moves to it.
    let offered = said_after(ReferenceBuild::Current, &id, 2, &["[DTMF 2]"], later);
    assert!(offered.contains("Friday, October 16") && offered.ends_with("Would that work?"), "{offered}");
    // A slot taken after a press of 2 is read back and confirmed again on the keypad; the
    // code is not read to a caller who was never verified.
    let read_back = said_after(ReferenceBuild::Current, &id, 2, &["[DTMF 2]"], take);
    assert!(read_back.contains("To confirm: Friday, October 16") && read_back.contains("Press 1"), "{read_back}");
    let confirmed = said_after(ReferenceBuild::Current, &id, 3, &["[DTMF 2]", take], "[DTMF 1]");
    assert!(confirmed.contains("you're all set") && !confirmed.contains("BSD-4821"), "{confirmed}");
    let verified = ["My name is Dana Whitfield.", "It's March 12, 1984.", take];
    assert!(said_after(ReferenceBuild::Current, &id, 3, &verified, "[DTMF 1]").contains("BSD-4821"));
    let regressed = ReferenceBuild::IgnoresKeypadChoice;
    assert!(dental(regressed, &id, 1, "[DTMF 2]").contains("keep your original time"));
    for asked in [later, take] {
        let refused = said_after(regressed, &id, 2, &["[DTMF 2]"], asked);
        assert!(refused.contains("can't change it"), "{refused}");
    }
    let kept = said_after(regressed, &id, 3, &["[DTMF 2]", take], "[DTMF 1]");
    assert!(kept.contains("keep your original time"), "{kept}");
    // Everything else is the same build.
    for line in ["[DTMF 1]", "Sure, it's March 12, 1984.", "Do you have anything next Tuesday morning?"] {
        assert_eq!(dental(regressed, &id, 3, line), dental(ReferenceBuild::Current, &id, 3, line));
    }
}

#[test]
fn builds_have_wire_names() {
    for build in [ReferenceBuild::Current, ReferenceBuild::IgnoresKeypadChoice] {
        assert_eq!(build.as_str().parse::<ReferenceBuild>(), Ok(build));
        assert_eq!(serde_json::to_value(build).unwrap(), build.as_str());
    }
    assert!("NIGHTLY".parse::<ReferenceBuild>().unwrap_err().contains("NIGHTLY"));
}

#[test]
fn over_http_the_flaws_follow_the_iteration_and_the_line_not_the_run() {
    let at = |call_id: &str, text: &str, turn: u32| {
        reply_over_http(&Heard {
            text: text.into(),
            call_id: call_id.into(),
            turn,
            agent: DENTAL.into(),
            earlier: Vec::new(),
        })
    };
    // Two runs' ids for the same iteration: the same replies, turn for turn.
    for turn in 0..40 {
        let line = format!("line {turn}");
        assert_eq!(
            at(&format!("{}-2", "0b6d0f0e-aaaa-4bbb-8ccc-000000000001"), &line, turn),
            at(&format!("{}-2", "7f1e2d3c-dddd-4eee-9fff-000000000002"), &line, turn)
        );
    }
    // Another iteration, or other lines, roll other flaws somewhere.
    let latencies = |id: &str, word: &str| {
        (0..40).map(|turn| at(id, &format!("{word} {turn}"), turn).latency_ms).collect::<Vec<_>>()
    };
    assert_ne!(latencies("job-1", "line"), latencies("job-2", "line"));
    assert_ne!(latencies("job-1", "line"), latencies("job-1", "words"));
}
