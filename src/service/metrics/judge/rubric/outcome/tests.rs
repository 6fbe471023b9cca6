//! What counts as the agent doing it.

use super::*;
use crate::api::model::ParticipantType::{Agent, Customer};
use crate::service::metrics::judge::rubric::Reading;
use crate::service::metrics::judge::rubric::tests::transcript;

fn claims(text: &str) -> bool {
    let conv = Conversation::read(&transcript(&[(Agent, text)]));
    conv.said().any(|s| claims_success(&s))
}

#[test]
fn claims_are_told_from_offers_questions_and_negations() {
    for said in [
        "You're booked for Tuesday.",
        "Done. You're on SB 1116 at 11:35 AM.",
        "I've moved your cleaning to Wednesday.",
        "That's cancelled for you.",
        "Tuesday at 8 with Maya is yours now.",
        "Okay, I've charged the card and confirmed you on SB 1396.",
        "No problem, you're all set for Tuesday.",
        "Lovely, that reading's in.",
        "Right, Tom Reyes is on there as an additional driver.",
        "I've set that up for you, starting on the 1st.",
        "Right, I've dispatched a technician to you.",
    ] {
        assert!(claims(said), "{said}");
    }
    for said in [
        "I can put you on SB 1190.",
        "I've looked and nobody's ordered one for you yet.",
        "Shall I book it?",
        "Your appointment isn't booked yet.",
        "Once you press 1 it will be booked.",
        "Press 1 to confirm.",
        "Before I confirm, can I have your date of birth?",
        "We're fully booked this week.",
        "Not quite, they'll agree the amount with you tomorrow and put it in place then.",
        "So I've sent it to the billing team.",
        "I've booked you a call with them tomorrow at 2.",
    ] {
        assert!(!claims(said), "{said}");
    }
}

#[test]
fn refusing_a_side_request_does_not_undo_the_request() {
    let t = transcript(&[
        (Customer, "My flight was cancelled, put me on the next one."),
        (Agent, "Done. You're on SB 906 tomorrow at 7:05 AM."),
        (Customer, "And a hotel voucher?"),
        (Agent, "Because of the weather I can't issue a hotel voucher."),
    ]);
    assert_eq!(read(&Conversation::read(&t), false).reading, Reading::Met);
    let t = transcript(&[
        (Customer, "I only need a hotel voucher for tonight."),
        (Agent, "Because of the weather I can't issue a hotel voucher."),
    ]);
    assert_eq!(read(&Conversation::read(&t), false).reading, Reading::NotMet);
}

#[test]
fn a_keypad_question_wants_the_press_before_the_claim() {
    let before = transcript(&[(Customer, "Move my cleaning."), (Agent, "You're booked."), (Customer, "[DTMF 1]")]);
    assert_eq!(read(&Conversation::read(&before), true).reading, Reading::NotMet);
    let after = transcript(&[(Customer, "Move my cleaning."), (Customer, "[DTMF 1]"), (Agent, "You're booked.")]);
    assert_eq!(read(&Conversation::read(&after), true).reading, Reading::Met);
}

#[test]
fn asking_to_hear_it_again_is_not_the_request() {
    let t = transcript(&[
        (Customer, "Can't you just tell me when my appointment is?"),
        (Agent, "I'm sorry, I can't share appointment details until I've verified your identity."),
        (Customer, "It's March 12, 1984."),
        (Agent, "Thank you, that matches. I see your appointment on Thursday, October 8 at 9:00 AM."),
        (Customer, "Sorry, could you repeat that?"),
        (Agent, "Of course. Could you tell me again what you need?"),
    ]);
    let f = read(&Conversation::read(&t), false);
    assert_eq!(f.reading, Reading::Met, "{}", f.why);
}

#[test]
fn a_named_deed_is_read_by_its_own_verb_and_undoing_it_is_not_doing_it() {
    let deed = |lines: &[(crate::api::model::ParticipantType, &str)]| {
        read_deed(&Conversation::read(&transcript(lines)), "the card was frozen during the call.").reading
    };
    assert_eq!(deed(&[(Customer, "Can you freeze my card?"), (Agent, "Done, the freeze is on.")]), Reading::Met);
    assert_eq!(
        deed(&[(Customer, "Can you freeze my card?"), (Agent, "I'm not able to freeze it over the phone.")]),
        Reading::NotMet
    );
    assert_eq!(
        deed(&[(Customer, "I froze my card, can you unfreeze it?"), (Agent, "I've lifted the freeze.")]),
        Reading::NotMet
    );
    assert_eq!(
        deed(&[(Customer, "I lost my card."), (Agent, "I've cancelled it and ordered a new one.")]),
        Reading::Unsure,
        "a cancelled card is not a frozen one, and the call never speaks of freezing"
    );
}

#[test]
fn every_pattern_compiles() {
    assert!(
        all_patterns()
            .iter()
            .chain(deed::all_patterns().iter())
            .chain(calibrate::all_patterns().iter())
            .chain(slots::all_patterns().iter())
            .chain(fit::all_patterns().iter())
            .all(|p| p.compiles())
    );
}

#[test]
fn a_claim_made_and_put_on_the_system_is_done_and_a_status_answers_where_it_is() {
    let reading = |lines: &[(crate::api::model::ParticipantType, &str)]| {
        read(&Conversation::read(&transcript(lines)), false).reading
    };
    assert_eq!(
        reading(&[
            (Customer, "Someone went into the back of me and I need to make a claim."),
            (Agent, "Right, that's on our system now as claim AM 448812."),
            (Customer, "Thanks."),
        ]),
        Reading::Met
    );
    assert_eq!(
        reading(&[
            (Customer, "Where's my claim up to?"),
            (Agent, "So it's with our investigations team, they're waiting on the crime report."),
        ]),
        Reading::Met
    );
    assert_eq!(
        reading(&[
            (Customer, "I rang earlier about adding my son as a named driver. So that's been done, yeah?"),
            (Agent, "I'm sorry, we can't add drivers on the claims line. You'll need our policy team."),
        ]),
        Reading::NotMet
    );
}

#[test]
fn a_no_to_a_did_you_do_it_question_a_lost_answer_and_a_passed_on_request() {
    let reading = |lines: &[(crate::api::model::ParticipantType, &str)]| {
        read(&Conversation::read(&transcript(lines)), false).reading
    };
    // Asked to confirm it was done, the agent says no, offers, and the caller declines.
    assert_eq!(
        reading(&[
            (Customer, "You said you'd order my tablets, so they'll be ready now, won't they?"),
            (Agent, "No, sorry, I can't see any request from yesterday. I can put one through now if you like."),
            (Customer, "Oh, no, don't worry."),
            (Agent, "Okay, no problem. Bye now."),
        ]),
        Reading::NotMet
    );
    assert_eq!(
        reading(&[
            (Customer, "I just wanted to know when I can come and get it."),
            (Agent, "It'll be ready for you on [inaudible]."),
        ]),
        Reading::Unsure
    );
    assert_eq!(
        reading(&[
            (Customer, "I need to reorder my inhalers please."),
            (Agent, "Right, I've sent the request over to the surgery for both of them."),
        ]),
        Reading::Unsure,
        "passing a request on may be what a request to order is"
    );
}

/// The reading of a request, from lines.
fn reading(lines: &[(crate::api::model::ParticipantType, &str)]) -> Finding {
    read(&Conversation::read(&transcript(lines)), false)
}

#[test]
fn a_success_questioned_or_hedged_afterwards_gets_no_answer() {
    let later = reading(&[
        (Customer, "Can you extend my rental to Sunday?"),
        (Agent, "Right, I've extended it to Sunday."),
        (Agent, "Actually, head office may still say no to that."),
    ]);
    assert_eq!(later.reading, Reading::Unsure, "{}", later.why);
    let pushed_back = reading(&[
        (Customer, "Please move my visit to Friday."),
        (Agent, "Done, you're booked for Thursday."),
        (Customer, "I can't do Thursdays though."),
    ]);
    assert_eq!(pushed_back.reading, Reading::Unsure, "{}", pushed_back.why);
    let same_breath = reading(&[
        (Customer, "Can you extend my rental to Sunday?"),
        (Agent, "I've extended it to Sunday, but actually head office may still say no."),
    ]);
    assert_eq!(same_breath.reading, Reading::Unsure, "{}", same_breath.why);
    // A refusal of something asked after the success is about that, not the request.
    let clean = reading(&[
        (Customer, "Can you extend my rental to Sunday?"),
        (Agent, "Right, I've extended it to Sunday."),
        (Customer, "Lovely, thanks."),
    ]);
    assert_eq!(clean.reading, Reading::Met, "{}", clean.why);
}

#[test]
fn not_done_is_said_only_when_no_agent_statement_could_say_it_was() {
    let unread = reading(&[
        (Customer, "Can you put my account on paperless billing?"),
        (Agent, "Paperless is live on your account from today."),
    ]);
    assert_eq!(unread.reading, Reading::Unsure, "{}", unread.why);
    let nothing =
        reading(&[(Customer, "Can you move my visit to Friday?"), (Agent, "Let me check."), (Agent, "Anything else?")]);
    assert_eq!(nothing.reading, Reading::NotMet, "{}", nothing.why);
    // A refusal is no success in other words.
    let refused = reading(&[
        (Customer, "Can you move my visit to Friday?"),
        (Agent, "Unfortunately Fridays stay closed for home visits."),
    ]);
    assert_eq!(refused.reading, Reading::NotMet, "{}", refused.why);
}

#[test]
fn an_answer_must_carry_a_fact_and_a_confirmation_a_yes() {
    let no_fact = reading(&[(Customer, "Is my prescription ready?"), (Agent, "We do our best with those.")]);
    assert_eq!(no_fact.reading, Reading::Unsure, "{}", no_fact.why);
    let manners = reading(&[(Customer, "Is my prescription ready?"), (Agent, "No problem, we do our best.")]);
    assert_eq!(manners.reading, Reading::Unsure, "{}", manners.why);
    let not_yes =
        reading(&[(Customer, "So that's been sent off, yeah?"), (Agent, "We do have it on the list for Tuesday.")]);
    assert_eq!(not_yes.reading, Reading::Unsure, "{}", not_yes.why);
    let answered = reading(&[(Customer, "Are you open on Saturday?"), (Agent, "We're open till 1 on Saturdays.")]);
    assert_eq!(answered.reading, Reading::Met, "{}", answered.why);
}

#[test]
fn a_fix_passed_on_after_a_refusal_a_half_lost_answer_and_half_a_question_are_not_done() {
    let passed_on = reading(&[
        (Customer, "Can you switch my plan to the basic one?"),
        (Agent, "Done, you're on the premium plan now."),
        (Customer, "No, I said basic."),
        (Agent, "Sorry. It won't let me switch it again this month. I've emailed our billing team to change it."),
    ]);
    assert_eq!(passed_on.reading, Reading::NotMet, "{}", passed_on.why);
    let lost = reading(&[
        (Customer, "When does my contract end?"),
        (Agent, "It runs right up to the 14th of [inaudible], and that's the last day."),
    ]);
    assert_eq!(lost.reading, Reading::Unsure, "{}", lost.why);
    let half = reading(&[
        (Customer, "How many bags can I bring? And what does an extra one cost?"),
        (Agent, "You can bring 2 bags each."),
        (Agent, "I'm afraid I don't know the extra charge."),
    ]);
    assert_eq!(half.reading, Reading::Unsure, "{}", half.why);
    let whole = reading(&[(Customer, "How many bags can I bring?"), (Agent, "You can bring 2 bags each.")]);
    assert_eq!(whole.reading, Reading::Met, "{}", whole.why);
}

#[test]
fn a_state_read_from_the_record_is_not_a_deed_and_a_not_yet_after_a_part_passed_on_is_unclear() {
    let deed = |prompt: &str, lines: &[(crate::api::model::ParticipantType, &str)]| {
        read_deed(&Conversation::read(&transcript(lines)), prompt)
    };
    let looked_up = deed(
        "delivery of the parcel was booked on this call.",
        &[
            (Customer, "Hi, I'm chasing my parcel, can you book it in for delivery?"),
            (Agent, "Let me pull that up. It's booked on the evening van to Leeds."),
        ],
    );
    assert_ne!(looked_up.reading, Reading::Met, "{}", looked_up.why);
    let own = deed(
        "delivery of the parcel was booked on this call.",
        &[
            (Customer, "Hi, I'm chasing my parcel, can you book it in for delivery?"),
            (Agent, "Let me pull that up. I've booked it on the evening van to Leeds."),
        ],
    );
    assert_eq!(own.reading, Reading::Met, "{}", own.why);
    let part = deed(
        "the subscription was paused.",
        &[
            (Customer, "Can you pause my subscription for three months?"),
            (
                Agent,
                "I can pause two months myself, so I've done that. July needs my manager, so I've sent her a request.",
            ),
            (Customer, "So July isn't sorted?"),
            (Agent, "Not yet, no."),
        ],
    );
    assert_eq!(part.reading, Reading::Unsure, "{}", part.why);
}

#[test]
fn a_refusal_of_one_named_just_before_a_transfer_and_a_caller_giving_up_leave_it_undone() {
    let refused = reading(&[
        (Customer, "Hi, I need a rowing boat for Saturday's regatta."),
        (Agent, "Sorry, the rowing boats are all out on loan that weekend, so I can't reserve one for you."),
        (Customer, "Oh well, thanks."),
    ]);
    assert_eq!(refused.reading, Reading::NotMet, "{}", refused.why);
    let transferred = reading(&[
        (Customer, "My tenancy deposit hasn't come back. Can you chase it?"),
        (Agent, "That sits with our lettings manager; I'm putting you through to him now."),
    ]);
    assert_eq!(transferred.reading, Reading::NotMet, "{}", transferred.why);
    let gave_up = reading(&[
        (Customer, "When's the next coach to Whitby?"),
        (Agent, "Sorry, there's nothing now until Monday at 7."),
        (Customer, "Monday's no good. Never mind, I'll get a lift."),
    ]);
    assert_eq!(gave_up.reading, Reading::NotMet, "{}", gave_up.why);
    let declined_extra = reading(&[
        (Customer, "Can you book me on the 9 o'clock coach to Whitby?"),
        (Agent, "Done, you're booked on the 9 o'clock. Would you like a text reminder?"),
        (Customer, "No, don't bother, thanks."),
    ]);
    assert_eq!(declined_extra.reading, Reading::Met, "{}", declined_extra.why);
}

#[test]
fn a_yes_to_a_yes_or_no_question_stands_though_what_follows_is_lost() {
    let yes = reading(&[
        (Customer, "Is the pool open this evening?"),
        (Agent, "Yes, it's open, lanes are free from [inaudible]."),
        (Customer, "Great, thanks."),
    ]);
    assert_eq!(yes.reading, Reading::Met, "{}", yes.why);
    let when = reading(&[
        (Customer, "What time does the pool open this evening?"),
        (Agent, "It opens at [inaudible]."),
        (Customer, "Great, thanks."),
    ]);
    assert_eq!(when.reading, Reading::Unsure, "{}", when.why);
}

#[test]
fn a_named_deed_is_not_done_on_a_call_where_nothing_was_done_and_the_request_was_refused() {
    let deed = |lines: &[(crate::api::model::ParticipantType, &str)]| {
        read_deed(&Conversation::read(&transcript(lines)), "the allotment plot was reserved on this call.")
    };
    let refused = deed(&[
        (Customer, "Hi, could you hold the big plot by the gate for me next spring?"),
        (Agent, "Sorry, those go by ballot, so I'm not able to hold one for anyone."),
        (Customer, "Ah well, thanks anyway."),
    ]);
    assert_eq!(refused.reading, Reading::NotMet, "{}", refused.why);
    let unread = deed(&[
        (Customer, "Hi, could you hold the big plot by the gate for me next spring?"),
        (Agent, "Right, that's pencilled in under your name for March."),
        (Customer, "Lovely, thanks."),
    ]);
    assert_eq!(unread.reading, Reading::Unsure, "something said in other words may be the deed: {}", unread.why);
}

#[test]
fn asking_for_a_thing_to_be_brought_is_a_request_to_act() {
    let conv = Conversation::read(&transcript(&[(Customer, "Can you bring it round to us tonight?")]));
    let request = Request::of(&conv);
    assert!(request.question.is_none() && request.said.is_some());
}
