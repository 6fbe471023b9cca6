//! Was the caller's request done? Only the agent can complete it: the reader walks the
//! agent's sentences in order, notes each claim of success ("you're booked", "I've put you
//! on SB 755", "that slot is yours now") and each thing that takes it back ("our system
//! failed to save it", "that didn't go through", "I can't change it"), and the last word
//! wins. A question is done when the agent answers it with a fact. Words the caller says
//! ("so I'm booked, all set?") are never evidence of success.

use std::collections::BTreeSet;

use super::Finding;
use super::conversation::{Conversation, Said, Side};
use super::pattern::patterns;
use super::terms::{stem, terms};

patterns! {
    /// A claim that something is done, by its state or by what the agent did.
    SUCCESS = [
        r"\b(you're|you are|you've been|you have been|it's|it is|that's|that is|this is|everything's|everything is|everything has been|it has been|it's been|that's been|that has been|(your|the) [a-z-]+( has been| is| was)|[a-z]+'s|\w+ is|\w+ are|you're all)( now| all| officially| also)? (booked|confirmed|rebooked|rescheduled|scheduled|set|all set|done|cancel+ed|moved|changed|updated|processed|issued|saved|submitted|taken care of|sorted|refunded|frozen|blocked|unblocked|activated|arranged|sent|ordered|credited|applied|reserved|registered|renewed|extended|waived|reinstated|reset|upgraded)\b",
        r"\b(you're|you are)( now)? (on|in) (the \d|the (\w+ ){0,2}(list|waitlist)|(\w+ ){0,3}[a-z]{1,3} ?\d{2,5}\b|(\w+ ){1,3}(at|departing|leaving|tomorrow|tonight|today)\b)",
        r"\byou're number \w+ on\b",
        r"\b(i've|i have|we've|we have)( just| now| also| already| gone ahead and| successfully)? (taken (it|that|them|\w+) off|taken off|lifted|booked|confirmed|rebooked|rescheduled|scheduled|cancel+ed|moved|changed|updated|added|issued|processed|submitted|applied|attached|put|taken you off|got you|sent|emailed|texted|posted|ordered|refunded|credited|popped|pushed|switched|upgraded|downgraded|saved|reserved|secured|reinstated|raised|arranged|set up|logged|lodged|registered|frozen|blocked|unblocked|activated|reactivated|removed|renewed|extended|requested|placed|swapped|transferred|waived|cleared|paid|returned|released|restored|reset|fixed|sorted|requested)\b",
        r"^((okay|ok|great|perfect|alright|all right|wonderful|excellent|yes|good|there we go|right|lovely)[, ]+)?(done|all done|confirmed|booked|all set|that's done|sorted|all sorted)\b",
        r"\b(booking|confirming|moving|rebooking|cancell?ing|processing) (that|it|you|this) now\b",
        r"\bconfirmed you (on|for)\b|\bput (you|him|her|them|\w+) (on|in|down for|through)\b|\bgot (you|him|her|them) (on|in|a (seat|place|spot|slot|table)|booked)\b|\bhave (you|him|her|them) (booked|down|confirmed|in) (for|on|at)\b",
        r"\b(it|that|the change|the booking|everything) (went|has gone|is going|has gone) through\b|\b(it's|that's|it has|that has|its) gone through\b",
        r"\b(he's|she's|they're|you're|[a-z]+'s|that's you|that's (him|her|them)|that's you both|you're both) (booked )?in (for|on|at|with)\b|^(okay|ok|right|great|perfect|lovely)?[, ]*(he's|she's|they're|you're) in\.?$",
        r"\bthe [a-z]+ is (now )?(on|in place|active|live|through)\b|\byou're (all )?sorted\b",
        r"\b(is|are|'s|'re)( now| also)? on (there|here|the \w+|your \w+|our \w+)( now)? as (an? |the )?\w+",
        r"\b(that|the|your|it|this)( [a-z]+)?('s| is) (now )?(in|through)([.,!;]| now\b| and\b|$)|\byou're (now )?on (the|our) [a-z ]{2,30} (from|as of|starting)\b",
        r"\b(i've|i have|we've|we have)( just| now| also| already)? (set|put|got|signed|lined|switched|moved|written|sent) (it|that|this|them|you|everything)( all)? (up|in|through|over)\b",
        r"\b(i've|i have|we've|we have)( just| now| also| already| gone ahead and)? done (that|it|this)\b",
        // A deed told in the present tense ("I book you Thursday", "I cancel it"), as an agent
        // whose English is not their first language may say it, opening its clause: asked,
        // conditional or one of two offered ("… or I book it") it is none.
        r"(^|, )i (book|cancel|stop|move|change|add|remove|reserve|register|order|refund|renew|extend|freeze|block|switch|transfer) (you|it|him|her|them|this|that|the|your|[a-z] ?\d)\b",
    ].join("|");
    /// Success in passing: a farewell, a document on its way, a reference read out.
    WEAK_SUCCESS = [
        r"\bis (now )?yours\b|\bstays yours\b|\bwe'll see you (then|on|at|next)\b|\bsee you on (the|\w+day)\b",
        r"\b(refund|credit|vouchers?|pass|ticket|confirmation|receipt|replacement|new card|link|letter|parcel)\b[^.]*\b(has been|have been|is|are|was|were|will be) (issued|processed|emailed|sent|added|on (its|their) way|in (your|the) (email|app|inbox))\b",
        r"\byour (refund|confirmation|booking|order) (reference|code|number) is\b|\bis on its way\b",
    ].join("|");
    /// "Thank you, that's confirmed." opening a turn the agent goes on with: thanks for the
    /// details just given, and them accepted, not the request done.
    DETAILS_ACCEPTED = r"^(thank you|thanks)[,.!]? (that's|that is) (all )?(confirmed|verified)[.!]?$";
    /// A line that closes the call ("Goodbye!", "Anything else?"), after a request done.
    CLOSING = r"\b(anything else|goodbye|bye|have a (good|nice|great|lovely)|take care|see you)\b";
    /// The agent looking the record up ("let me pull that up"): what follows in the turn is read
    /// from it.
    LOOK_UP = r"\blet me (check|look|see|find|pull|bring|have a look)\b|\b(pull|bring) (that|it|you|your \w+) up\b";
    /// A claim in the agent's own person ("I've booked", "we've put"), not a state.
    FIRST_PERSON = r"\b(i|we)('ve| have| just| now)\b|\b(i|we)('ll| will)\b";
    /// The agent saying what the record already holds: not the request done.
    RESTATES = r"\b(i see|i can see|i've got your|i have your|currently|at the moment|existing|according to)\b|\b(is|are|'s|was|were) already\b|\balready (booked|on|in|there|set|scheduled)\b";
    /// Claims that only record the request for someone else to act on.
    NOTE_ONLY = r"\b(sent|passed|forwarded|referred|handed|put) (it|that|this|them) (over |on |through )?to (them|a colleague|my (manager|supervisor)|(the|our) \w+ team)\b|\bbooked (you )?(in )?(a|for a) (call|callback|call back|phone call)\b|\b(put|passed|sent|forwarded|referred|handed) (the|your|this|that|a|an) ([\w-]+ ){0,2}(request|query|application|enquiry|inquiry|details|case)\b|\b(put|putting|got|added) (you|him|her|them) (on|to) (the|a|our) list\b|\bforwarded\b|\b(added|made|left|put|popped) a note\b|\bnoted (it|that|this)\b|\bpass(ed)? (it|that|this|the message) on\b|\bflagged\b|\bescalated\b|\blet (them|the team) know\b|\bon the waiting list\b|\bwaiting list\b|\b(emailed|messaged|contacted|asked|told|sent|written to|phoned|rung|called) (our|the|my|your) ([\w-]+ ){0,2}(team|department|colleague|manager|supervisor|office|desk|branch)\b|\bsent (him|her|them) (a|the) (request|note|message|email)\b|\bput(ting)? you through to\b|\bin (his|her|their|the|a) queue\b";
    /// Words that take a success back, whatever it was.
    RETRACTION = [
        r"\bsystem\b[^.]*\b(error|fail|failed|failure|down|crash|crashed|issue|problem|glitch|outage|didn't|did not|couldn't|could not|won't|wouldn't)\b",
        r"\berrors?\b|\btechnical (issue|problem|difficult)",
        r"\b(didn't|did not|doesn't|does not|won't|will not|hasn't|has not|never|wouldn't) (go|gone|went) through\b",
        r"\b(failed|fails|failing) to\b|\b(it|that|this|the \w+) failed\b|\bhasn't taken\b|\bdidn't take\b|\bbounced( back)?\b|\brejected\b",
        r"\b(isn't|is not|wasn't|was not|hasn't|has not|haven't|have not|aren't|are not|weren't|were not|not|never|nothing('s| has| is| was)?|can't|cannot|couldn't|won't) (be |been |yet |actually |really |quite |officially )?(saved|booked|confirmed|processed|completed|changed|moved|rescheduled|rebooked|cancel+ed|updated|issued|refunded|finali[sz]ed|gone through|frozen|sent|done|applied)\b",
        r"\b(seat|slot|booking|reservation|appointment|time)('s| was| got| has been| is| has)( just| already| now)?( been)? (taken|lost|given away|dropped|gone)\b|\blost (it|the booking|your booking)\b",
        r"\b(that|the|this|your) (booking|slot|time|appointment|reservation|change) (won't|will not|doesn't|does not|can't|cannot) (work|stand|go ahead)\b",
        // Putting things back as they were undoes what was done.
        r"\b(back|reverted|returned|switched) (on|to) (your|the) (original|old|previous|earlier|existing|first)\b|\bas (it|they) (was|were)\b",
        r"\b(needs?|has to be|have to be|must be|requires?|awaiting|pending|subject to)\b[^.]*\b(approv\w*|sign(ed)?[- ]?off|sign (it|this|that|them) off|authori[sz]\w*|review|decision|decide)|\bmakes? the decision\b|\bnot (yet|quite|just yet)\b|\bbefore (any \w+|the \w+|your \w+|we|i) (can|could)\b|\bonly if\b|\bspoke too soon\b|\bscratch that\b",
    ].join("|");
    /// A refusal or failure of some action; what it is about decides whether it counts.
    REFUSAL = r"\b(couldn't|could not|can't|cannot|can not|wasn't able to|was not able to|weren't able to|unable to|not able to|won't be able to|am not able to|won't let me|doesn't let me|won't allow me to|isn't possible to)( (?:actually|really|just|currently|unfortunately|still|then|be able to|even))? (\w+)\b";
    /// Work handed to the caller or to someone else: what is left of the request.
    HANDED_OFF = r"\b(you'll|you will|you'd|they'll|they will|they'd|he'll|she'll|you) (need|have) to (\w+)";
    /// Setbacks that leave a request undone but do not undo a success.
    SETBACK = [
        r"\b(please )?(call|ring) (us |me )?back\b|\bcall us again\b|\btry again later\b|\btry the app\b|\bin the app\b",
        r"\b(will|'ll) (call|ring|phone|get back to|contact|text|email|reach out to) you\b|\bneed (the|a|our|your) [\w ]{1,30} to (approve|sign off|confirm)\b|\bcall you back\b",
        r"\b(end|ending) (this|the) call\b|\bhaven't heard\b|\bnot hearing\b|\bcan't hear\b|\bare you still there\b|\btransferr?ing you\b|\b(i'll|i will|let me) transfer you\b|\bput(ting)? you through\b|\bpass you (over|on)\b",
        r"\b(nothing|no \w+( \w+)?)( else)? (left|available|open|free)\b|\bno availability\b|\bnothing (else )?(tonight|today|this week)\b|\b(fully booked|sold out|they're (all )?full|it's full|is full|are full|all full|one's full)\b|\bi'm afraid not\b|\bvery busy\b",
    ].join("|");
    /// A caller asking for something to be done (not merely asked about).
    ACTION = r"\b(get in|come in|(get|fit|squeeze|pop|book) \w+ in|(get|make|book) an? (appointment|visit|booking|reservation|slot)|book|schedule|reschedule|rearrange|move|change|cancel|rebook|put me|get me|refund|(money|cash|it|one|them|deposit|fee|charge) back|un\w+ (it|my|the)|get rid of|take (it|\w+) off|voucher|credit|upgrade|see me|fit me in|sign me up|sign up|switch|make an appointment|anything (later|earlier|tonight|else|sooner|next)|another (time|flight|day|slot)|instead|cancelled|canceled|delayed|missed (my|the) \w+|close|open|set (me|us|it|this|that) up|set up|freeze|block|dispute|raise|raised|send|order|re-?order|add|adding|remove|removing|(make|file|lodge|open|start|put in) an? (\w+ )?(claim|complaint|case|ticket)|transfer|refill|replace|new one|go up|take my)\b|\b(get|bring|send|deliver|drop|post) (it|them|this|that|one)( back| over| round| out)? to (me|us)\b";
    /// In a question, what still makes it a request to act ("can you move it?", "is there
    /// anything tonight?") rather than a question about it ("do you need my card to book?").
    REQUEST_MODAL = r"\b(can you|could you|would you|can i|could i|i'd like|i would like|i want|i need|please|i'd rather|let's|can anyone|can someone|is there any way|any chance)\b|\b(anything|something) (later|earlier|tonight|else|sooner|next|in the)\b|\banother (time|flight|day|slot)\b|\binstead\b";
    /// A caller asking a question.
    QUESTION = r"\?|\b(tell me|wondering|wonder|do you|does|how much|how long|what|when|where|which|why|how come|is there|are you|can you tell|question|calling about|calling for|remember|i'd like to (know|check)|i need to (know|check)|want to know|don't understand)\b";
    /// An answer carries a fact.
    FACT = r"\d|\b(yes|no|yeah|yep|correct|exactly)\b|\bwe (do|don't|are|aren't|accept|take|open|close|have|offer|charge)\b|\b(we're|we are) (in network|open|closed|not)\b|\bin network\b|\bcover(s|ed)?\b|\bpercent\b|\bdollars?\b|\bpounds?\b|\bfree\b|\bno (fee|charge|cost)\b|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|noon)\b|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred)\b|\b(notes?|records?|results?|file|system) (say|says|show|shows|came back)\b|\b(it's|it is|that's|that is) (now )?(with|at) (the|our|your) \w+|\b(we're|we are|they're|they are) (still )?waiting (on|for)\b";
    NO_PROBLEM = r"\bno (problem|worries|bother|trouble)\b";
    /// An offer of something more, which is not an answer.
    OFFERS = r"^(i|we) can\b[^.?!]*\bif you (like|want|'d like)\b|^(would you like|shall i|do you want me to)\b";
    /// A question that asks the agent to confirm something was done ("… won't they?").
    CONFIRMATION = r"\b(yeah|yes|right|won't (it|they|he|she)|will (it|they)|isn't (it|that|he|she)|hasn't (it|that|he|she)|haven't (you|they)|didn't (you|they)|aren't (they|you)|correct)\?$";
    /// The agent saying it is not so.
    DENIAL = r"^(no|nope|not yet|i'm afraid not)\b|\b(can't|cannot|don't) see (any|a|anything)\b";
    /// Not an answer yet.
    DEFLECTION = r",? please[.!]?$|\blet me (check|look|see|find|pull)\b|\bi'll (look into|check|find out|get back)\b|\bget back to you\b|\bone moment\b|\bhold on\b|\bcould you tell me\b|\bhow (else )?can i help\b|\bcan i (have|get|take|grab)\b|\bmay i have\b|^(and )?(the |your )?([\w-]+ ){0,3}(number|digits|postcode|password|date of birth|reference)( and (the |your )?([\w-]+ ){0,4}(number|digits|postcode|password|date of birth|reference|address|name))?[.?!]?$";
    /// A caller giving up on what they asked for.
    GIVES_UP = r"\b(just |then )?(leave it|forget it|don't bother|never mind|nevermind)\b|\bi'll (just |have to )?(leave it|sort (it|something) out|find (another|someone else|somewhere else))\b";
    /// A question that asks for a yes or a no.
    YES_NO_QUESTION = r"^(is|are|was|were|will|would|has|have|had|do|does|did|can|could|should|shall)\b";
    /// An answer that opens with a yes or a no.
    YES_OR_NO = r"^(thanks[.,]? |thank you[.,]? |okay[.,]? |right[.,]? )?(yes|yeah|yep|no|nope)\b";
    /// The caller saying what they will do themselves.
    OWN_PLAN = r"^(okay,? |ok,? |right,? |fine,? )?(i'll|i will|i'm going to|we'll|i can just)\b";
    /// The agent declining to say more than it has ("I'm afraid I can't say").
    WITHHOLDS = r"\b(can't|cannot|not able to|unable to|not allowed to) (say|tell you|discuss|share|go into|comment|advise)\b|\brather than over the phone\b";
    /// What a caller says when they think it is done.
    CALLER_CLAIM = r"\b(so|then|great,? so)\b[^.?!]*\b(booked|confirmed|rebooked|all set|complete|completed|done|cancel+ed|moved|in|on there)\b|\b(that's|it's|i'm|we're|he's|she's) (all )?(booked|confirmed|rebooked|set|done|complete|cancel+ed|moved)\b";
    /// A caller saying the agent did the wrong thing.
    CORRECTS = r"^(no|nope|wait|hang on)\b[,.!]? (i said|i asked|that's not|not|i wanted)\b|\b(that's|that is|it's|but that's) (only|just)\b[^.?!]*\bthough\b|^but i (need|needed|wanted|asked for|said)\b|\bthough,? i (need|needed|wanted|asked for|said)\b|\bi (said|asked for|wanted) [^.?!]*,? not\b|\bthat's not what i (asked|wanted|said)\b|\bthat's the wrong\b";
}

const NEGATORS: &[&str] = &[
    "not", "never", "no", "nothing", "isn't", "wasn't", "hasn't", "haven't", "didn't", "won't", "can't", "cannot",
    "aren't", "weren't", "doesn't", "don't", "yet",
];
/// Words just before a claim that make it an offer or a plan ("I can put you on").
const MODALS: &[&str] = &[
    "can", "could", "would", "will", "shall", "may", "might", "to", "i'll", "we'll", "i'd", "let", "let's", "should",
    "want", "like", "must",
];
/// Words that put a whole clause in the future, whoever does it.
const FUTURES: &[&str] = &["they'll", "she'll", "he'll", "we'll", "you'll", "will", "going"];
const CONDITIONALS: &[&str] = &["if", "once", "as soon as", "after you", "when you", "until", "before"];

/// What the caller came for.
struct Request<'a> {
    /// A question to be answered, rather than something to be done.
    question: Option<Said<'a>>,
    /// Where the caller first said what they want.
    said: Option<Said<'a>>,
    words: BTreeSet<String>,
}

impl<'a> Request<'a> {
    /// Read from the caller's sentences up to the agent's first claim of success.
    fn of(conv: &'a Conversation) -> Request<'a> {
        let first_success = conv.said_by(Side::Agent).find(claims_success).map(|s| s.order);
        let before: Vec<Said> = conv
            .said_by(Side::Caller)
            .filter(|s| s.turn.keypad().is_none())
            .filter(|s| first_success.is_none_or(|o| s.order < o))
            .collect();
        let action = before.iter().find(|s| asks_to_act(s)).copied();
        let asked = before
            .iter()
            .find(|s| s.is_question())
            .or_else(|| before.iter().find(|s| QUESTION.is_match(s.lower())))
            .copied();
        let words = before.iter().flat_map(|s| s.terms().iter().cloned()).collect();
        match action {
            Some(said) => Request { question: None, said: Some(said), words },
            None => Request { question: asked, said: asked, words },
        }
    }
}

fn asks_to_act(said: &Said) -> bool {
    let lower = said.lower();
    // "I'll come in" says what the caller will do, not what they ask for.
    let own_plan = OWN_PLAN.is_match(lower) && !REQUEST_MODAL.is_match(lower);
    ACTION.is_match(lower) && (!QUESTION.is_match(lower) || REQUEST_MODAL.is_match(lower)) && !own_plan
}

/// Whether an agent's sentence claims something was done (not negated, asked or conditional).
pub(super) fn claims_success(said: &Said) -> bool {
    success_at(said).is_some()
}

/// Where a claim of success starts, and whether it is a strong one (worked out once a sentence).
fn success_at(said: &Said) -> Option<(usize, bool)> {
    *said.sentence.kept.success_at.get_or_init(|| work_out_success_at(said))
}

fn work_out_success_at(said: &Said) -> Option<(usize, bool)> {
    let lower = said.lower();
    if said.is_question() || RESTATES.is_match(lower) || NOTE_ONLY.is_match(lower) {
        return None;
    }
    // "Nobody's booked one" says it was not done.
    let nobody = |m: &regex::Match| ["nobody", "no one", "nothing", "none"].iter().any(|n| m.as_str().starts_with(n));
    let claim = |m: regex::Match| !negated(lower, m.start()) && !offered(lower, m.start()) && !nobody(&m);
    if read_from_record(said) || details_accepted(said) {
        return None;
    }
    if let Some(m) = SUCCESS.find(lower).filter(|m| claim(*m)) {
        return Some((m.start(), true));
    }
    if let Some(at) = own_deed_at(lower).filter(|at| !negated(lower, *at) && !offered(lower, *at)) {
        return Some((at, true));
    }
    WEAK_SUCCESS.find(lower).filter(|m| claim(*m)).map(|m| (m.start(), false))
}

/// A state said in the turn the agent looked the record up, and not in its own person ("let
/// me pull that up... it's booked on the ten to four flight"): what the record holds, not
/// something done on the call.
fn read_from_record(said: &Said) -> bool {
    let before = &said.turn.sentences[..said.order.1.min(said.turn.sentences.len())];
    let looked = before.iter().any(|s| LOOK_UP.is_match(&s.lower));
    (looked || LOOK_UP.is_match(said.lower())) && !FIRST_PERSON.is_match(said.lower())
}

/// Whether a sentence only thanks the caller for details and accepts them: it opens a turn that
/// goes on to something else (not "Goodbye!" or "anything else?", which close a request done).
fn details_accepted(said: &Said) -> bool {
    let rest = &said.turn.sentences[(said.order.1 + 1).min(said.turn.sentences.len())..];
    said.order.1 == 0 && DETAILS_ACCEPTED.is_match(said.lower()) && rest.iter().any(|s| !CLOSING.is_match(&s.lower))
}

/// Whether a modal just before `at` makes what follows an offer ("I can put you on").
fn offered(lower: &str, at: usize) -> bool {
    let word = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'').to_owned();
    let modal_next = lower[..at].split_whitespace().rev().take(2).any(|w| MODALS.contains(&word(w).as_str()));
    // "they'll agree the amount and put it in place": the clause is about later.
    let clause = lower[..at].rsplit([',', ';', ':']).next().unwrap_or("");
    let later = clause.split_whitespace().any(|w| FUTURES.contains(&word(w).as_str()));
    modal_next || later
}

/// Whether the words before `at`, in the same clause, negate or condition what follows
/// ("isn't booked yet", but not "no problem, you're booked").
fn negated(lower: &str, at: usize) -> bool {
    let clause = lower[..at].rsplit([',', ';', ':']).next().unwrap_or("");
    let near: Vec<&str> = clause.split_whitespace().rev().take(5).collect();
    let trimmed = lower.trim_start_matches(|c: char| !c.is_alphanumeric());
    near.iter().any(|w| NEGATORS.contains(&w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')))
        || CONDITIONALS.iter().any(|c| trimmed.starts_with(&format!("{c} ")))
}

/// Where a refusal about the request starts (a refusal of a side request, such as a hotel
/// after a rebooking, does not count).
fn refusal_at(said: &Said, request: &Request) -> Option<usize> {
    let lower = said.lower();
    let m = REFUSAL.find(lower)?;
    let (lead, object) = (&lower[..m.start()], &lower[m.end()..]);
    (refuses(m.as_str(), object, request) || refuses_named(lead, object, request)).then_some(m.start())
}

/// A refusal in any verb of "one" or "it" when the words just before name the request ("a
/// courtesy car isn't part of this policy, so I can't arrange one").
fn refuses_named(lead: &str, object: &str, request: &Request) -> bool {
    let pronoun = object.split_whitespace().next().is_some_and(|w| ["it", "that", "this", "them", "one"].contains(&w));
    let clause = lead.rsplit(['.', '!', '?']).next().unwrap_or(lead);
    pronoun && !terms(clause).is_disjoint(&request.words)
}

fn refuses(refusal: &str, object: &str, request: &Request) -> bool {
    // Verbs of completing anything count whatever their object; verbs of doing a request
    // count on "it" or the request's words; any other verb only on the request's words.
    let verb = refusal.rsplit(' ').next().unwrap_or("");
    let object_words = terms(object);
    match verb {
        "save" | "complete" | "process" | "finish" | "hold" | "secure" | "find" => true,
        "book" | "confirm" | "change" | "move" | "reschedule" | "rebook" | "cancel" | "do" | "make" | "approve"
        | "put" | "get" | "freeze" | "block" | "amend" | "modify" | "update" | "send" | "order" | "raise" | "apply"
        | "credit" | "remove" | "switch" | "upgrade" | "transfer" => {
            let pronoun =
                object.split_whitespace().next().is_some_and(|w| ["it", "that", "this", "them", "you"].contains(&w));
            pronoun
                || !object_words.is_disjoint(&request.words)
                || object.contains("appointment")
                || object.contains("booking")
        }
        _ => !object_words.is_disjoint(&request.words),
    }
}

/// An agent line after the request that leaves part of it for someone else to do, in any of
/// its clause's verbs ("he'll need to ring us or cancel it himself"), before or after what
/// was done.
fn part_handed_off<'a>(conv: &'a Conversation, request: &Request) -> Option<Said<'a>> {
    let from = request.said.map(|r| r.order)?;
    conv.said_by(Side::Agent).filter(|s| s.order > from).find(|s| {
        let lower = s.lower();
        HANDED_OFF.captures_all(lower).iter().filter_map(|c| c.get(3)).any(|verb| {
            let clause = lower[verb.start()..].split([';', ':']).next().unwrap_or("");
            !terms(clause).is_disjoint(&request.words)
        })
    })
}

/// Where the agent hands part of the request to someone else ("they'll need to cancel that
/// one"), which leaves it undone even after something else was done.
fn handed_off_at(said: &Said, request: &Request) -> Option<usize> {
    HANDED_OFF.captures_all(said.lower()).iter().find_map(|c| {
        let verb = c.get(3)?.as_str();
        request.words.contains(&stem(verb)).then(|| c.get(0).map_or(0, |m| m.start()))
    })
}

fn answers(said: &Said) -> bool {
    let lower = said.lower();
    // "No problem" is manners, not a "no".
    FACT.is_match(&NO_PROBLEM.replace_all(lower, ""))
        && !DEFLECTION.is_match(lower)
        && !said.is_question()
        && !negated(lower, 0)
        && !OFFERS.is_match(lower)
}

/// Whether the caller's question only asks the agent to confirm a thing they want done ("so
/// that's been done, yeah?"), and the agent's sentence says no: the thing is not done.
fn denies_confirmation(request: &Request, said: &Said) -> bool {
    request.question.is_some_and(|q| CONFIRMATION.is_match(q.lower()) && said.order > q.order)
        && DENIAL.is_match(said.lower())
}

/// What the walk through the agent's sentences found.
struct Walk<'a> {
    request: Request<'a>,
    /// The moment the request was done (a claim, or an answer to a question).
    positive: Option<Said<'a>>,
    /// What went wrong before a later success.
    recovered_from: Option<Said<'a>>,
    /// What took the request back, or refused it, last.
    undone: Option<Said<'a>>,
    setback: Option<Said<'a>>,
    /// A claim that came before the keypad press the question asks for.
    unpressed: Option<Said<'a>>,
    /// The first claim of something done since the last thing that took it back.
    claimed: Option<Said<'a>>,
}

/// Whether a booking (or change) was made and still stands at the end of the call: what
/// "when booking or moving" and "read back the final appointment" depend on.
pub(super) fn booking_stands(conv: &Conversation) -> bool {
    let walk = walk(conv, false);
    walk.undone.is_none() && walk.claimed.is_some()
}

/// Reads whether the request was completed; `needs_keypad` asks for a keypad press before it.
pub(super) fn read(conv: &Conversation, needs_keypad: bool) -> Finding {
    let walk = walk(conv, needs_keypad);
    let caller_claim = conv.said_by(Side::Caller).filter(|s| CALLER_CLAIM.is_match(s.lower())).last();
    let finding = decide(conv, &walk, caller_claim);
    if finding.reading != super::Reading::Met {
        return finding;
    }
    fit::misfit(conv, &walk).unwrap_or(finding)
}

fn walk(conv: &Conversation, needs_keypad: bool) -> Walk<'_> {
    let request = Request::of(conv);
    let mut positive: Option<Said> = None;
    let mut positive_strong = false;
    let mut claimed: Option<Said> = None;
    let mut recovered_from: Option<Said> = None;
    let mut undone: Option<Said> = None;
    let mut setback: Option<Said> = None;
    let mut unpressed: Option<Said> = None;
    let mut pressed = false;
    for said in conv.said() {
        match said.side() {
            Side::Caller => {
                pressed |= said.turn.keypad().is_some();
                // "No, I said 500, not 300": what was done is not what was asked.
                if positive.is_some() && CORRECTS.is_match(said.lower()) {
                    undone = Some(said);
                    claimed = None;
                }
                continue;
            }
            Side::Other => continue,
            Side::Agent => {}
        }
        let lower = said.lower();
        // A claim that only reads back what already stood is no change.
        let success = success_at(&said).filter(|_| !fit::reads_back(&said, &slots::existing(conv, said.order)));
        let succeeds = success.is_some();
        // Within one sentence the later of a claim and a retraction stands ("sorry, that
        // failed; there we go, it went through").
        let retraction_at = RETRACTION
            .find(lower)
            .map(|m| m.start())
            .or_else(|| refusal_at(&said, &request))
            .or_else(|| handed_off_at(&said, &request).filter(|_| positive.is_some() || success.is_some()));
        let retraction_at = retraction_at.or_else(|| denies_confirmation(&request, &said).then_some(0));
        let retracts = match (retraction_at, success.map(|(at, _)| at)) {
            (Some(r), Some(s)) => r > s,
            (Some(_), None) => true,
            (None, _) => false,
        };
        let answered = request.question.is_some_and(|q| said.order > q.order) && answers(&said);
        if retracts {
            undone = Some(said);
            claimed = None;
        } else if succeeds || answered {
            if needs_keypad && !pressed {
                unpressed = Some(said);
                continue;
            }
            if undone.is_some() {
                recovered_from = undone.take();
                positive = None;
            }
            // The moment it was done (a strong claim beats an earlier farewell or
            // reference), not a later restatement of it.
            if succeeds && claimed.is_none() {
                claimed = Some(said);
            }
            let strong = success.is_none_or(|(_, strong)| strong);
            if positive.is_none() || (strong && !positive_strong) {
                positive = Some(said);
                positive_strong = strong;
            }
        } else if SETBACK.is_match(lower) && !negated(lower, 0) {
            // "If it hasn't come by Friday, call us back" sets no setback now.
            setback = Some(said);
        }
    }
    Walk { request, positive, recovered_from, undone, setback, unpressed, claimed }
}

/// Whether an agent's sentence passes a request on for someone else to act on.
pub(super) fn passes_on(said: &Said) -> bool {
    NOTE_ONLY.is_match(said.lower()) && !negated(said.lower(), 0) && !said.is_question()
}

/// An agent sentence after the request that passes it on for someone else to act on.
fn passed_on<'a>(conv: &'a Conversation, request: &Said) -> Option<Said<'a>> {
    conv.said_by(Side::Agent).find(|s| s.order > request.order && passes_on(s))
}

mod calibrate;
mod decide;
mod deed;
mod fit;
mod own_deed;
mod slots;

pub(super) use calibrate::cannot_do;
use decide::decide;
pub(super) use deed::read_deed;
pub(super) use own_deed::own_deed_at;

#[cfg(test)]
mod shape_tests;
#[cfg(test)]
mod slot_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod wording_tests;
