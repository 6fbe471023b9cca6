//! The walk through the call for a verification question: the caller's turns bring facts, the
//! agent's turns ask for them, accept or reject them, and may disclose; the walk notes when
//! the caller was verified and what the agent first disclosed.

use super::super::conversation::{Conversation, Said, Side, Turn};
use super::super::details::gives_birth_date;
use std::collections::BTreeSet;

use super::super::identity::{FactKind, gives_code, is_unclear, withholds};
use super::super::names::gives_name;
use super::{ACCEPTS, ASKS_IDENTITY, AUTHORISED, Ask, DEPENDANT, REJECTED, REQUESTS, THIRD_PARTY, asks_for, protected};

/// Identity facts given so far.
#[derive(Debug, Default, Clone)]
struct Facts {
    given: Vec<bool>,
    /// With no facts named: the caller answered the agent's request for identity.
    answered_request: bool,
    birth_date: bool,
    code: bool,
    name: bool,
    third_party: bool,
    authorised: bool,
    /// The caller acts for someone in their care (a child, a parent they look after).
    dependant: bool,
}

impl Facts {
    fn missing(&self, ask: &Ask) -> Vec<String> {
        let mut missing: Vec<String> = if ask.list.facts.is_empty() {
            let either = self.answered_request || self.birth_date || (self.code && self.name);
            if either { Vec::new() } else { vec!["identity".to_owned()] }
        } else {
            ask.list.missing(&self.given)
        };
        // Someone acting for a dependant is verified by the dependant's facts, unless the prompt
        // also asks for their standing (a guardian, an authorisation).
        let cares = self.dependant && !ask.asks_standing;
        if self.third_party && !self.authorised && !cares {
            missing.push("proof that they may hear another person's details".to_owned());
        }
        missing
    }
}

/// The first protected thing the agent said or did, and whether it came before verification.
pub(super) struct Scan<'a> {
    pub verified: Option<&'a Turn>,
    pub first_protected: Option<(Said<'a>, Vec<&'static str>)>,
    pub missing_then: Vec<String>,
    pub rejected: bool,
    pub asked_identity: bool,
    /// The agent accepting an identity that was not complete.
    pub accepted_short: Option<Said<'a>>,
    /// A caller's answer lost from the transcript ("[inaudible]").
    pub unclear: Option<&'a Turn>,
    /// The caller gave some fact that identifies them: the call is about their record.
    pub gave_any_fact: bool,
    /// When the agent first disclosed: every fact still missing had been asked for and
    /// answered, so the answers were there but not read as the facts.
    pub answered_unread: bool,
}

/// Walks the call; `unclear_gives` decides what a lost answer counts as.
pub(super) fn scan<'a>(conv: &'a Conversation, ask: &Ask, unclear_gives: bool) -> Scan<'a> {
    let mut walker = Walker {
        ask,
        unclear_gives,
        facts: Facts { given: vec![false; ask.list.facts.len()], ..Facts::default() },
        candidate: None,
        out: Scan {
            verified: None,
            first_protected: None,
            missing_then: Vec::new(),
            rejected: false,
            asked_identity: false,
            accepted_short: None,
            unclear: None,
            gave_any_fact: false,
            answered_unread: false,
        },
        replied: vec![false; ask.list.facts.len()],
        asked: Vec::new(),
        asked_any: false,
        last_given: Vec::new(),
        greeting: conv.turns.iter().take_while(|t| t.side != Side::Caller).flat_map(|t| words(&t.lower)).collect(),
    };
    for turn in &conv.turns {
        match turn.side {
            Side::Caller => walker.caller(turn),
            Side::Agent => walker.agent(turn, conv),
            Side::Other => {}
        }
    }
    walker.out
}

/// The state of the walk through the call, turn by turn.
struct Walker<'a, 'k> {
    ask: &'k Ask,
    unclear_gives: bool,
    facts: Facts,
    /// The caller's turn that completed the facts, until an agent turn accepts it.
    candidate: Option<&'a Turn>,
    out: Scan<'a>,
    /// Facts the agent asked for and the caller then answered, in whatever form.
    replied: Vec<bool>,
    /// Facts the agent's last turn asked for.
    asked: Vec<usize>,
    /// With no facts named: the agent's last turn asked who the caller is.
    asked_any: bool,
    /// Facts the caller's last turn gave, which an agent's "that doesn't match" takes back.
    last_given: Vec<usize>,
    /// The words of the agent's greeting: its own name there is not the caller's ("Hi Tom").
    greeting: BTreeSet<String>,
}

impl<'a> Walker<'a, '_> {
    /// A caller's turn brings facts: by their form, by answering a request, or lost.
    fn caller(&mut self, turn: &'a Turn) {
        let (ask, unclear_gives) = (self.ask, self.unclear_gives);
        self.last_given.clear();
        let lost = is_unclear(&turn.lower);
        if lost {
            self.out.unclear.get_or_insert(turn);
        }
        if withholds(&turn.lower) && !lost {
            return;
        }
        if !lost {
            for i in &self.asked {
                self.replied[*i] = true;
            }
        }
        let by_form = given_by_form(ask, turn, &self.greeting, &self.asked, &self.facts.given);
        for (i, fact) in ask.list.facts.iter().enumerate() {
            let asked = self.asked.contains(&i);
            let answered = asked && (!fact.has_form() || (lost && unclear_gives));
            let volunteered = !fact.has_form() && fact.named_in_terms(turn.terms()) && !lost;
            let short = !lost && fact.given_short(&turn.lower, &turn.text, asked);
            let gives = by_form[i] || answered || volunteered || short;
            if gives && !(lost && !unclear_gives && !fact.given_by_form(&turn.lower, &turn.text)) {
                self.facts.given[i] = true;
                self.last_given.push(i);
            }
        }
        let facts = &mut self.facts;
        facts.answered_request |= self.asked_any && (!lost || unclear_gives);
        facts.name |= gives_name(&turn.text);
        facts.birth_date |= gives_birth_date(&turn.lower);
        facts.code |= gives_code(&turn.lower);
        facts.third_party |= THIRD_PARTY.is_match(&turn.lower);
        facts.authorised |= AUTHORISED.is_match(&turn.lower);
        facts.dependant |= DEPENDANT.is_match(&turn.lower);
        self.out.gave_any_fact |= !self.last_given.is_empty();
        if self.out.verified.is_none() && self.facts.missing(ask).is_empty() {
            self.candidate = Some(turn);
        }
    }

    /// An agent's turn asks for facts, accepts or rejects them, and may disclose.
    fn agent(&mut self, turn: &'a Turn, conv: &'a Conversation) {
        let ask = self.ask;
        self.note_requests(turn);
        self.facts.authorised |= AUTHORISED.is_match(&turn.lower);
        if REJECTED.is_match(&turn.lower) {
            // What the caller just gave does not count; it must come again.
            self.out.rejected = true;
            self.candidate = None;
            for i in &self.last_given {
                self.facts.given[*i] = false;
            }
            self.facts.birth_date = false;
            self.facts.code = false;
            self.facts.answered_request = false;
        } else if self.out.verified.is_none() {
            self.out.verified = self.candidate.filter(|_| self.facts.missing(ask).is_empty());
            if self.out.verified.is_none() && self.out.accepted_short.is_none() && self.out.first_protected.is_none() {
                self.out.accepted_short = turn.sentences.iter().enumerate().find_map(|(i, sentence)| {
                    ACCEPTS.is_match(&sentence.lower).then_some(Said { turn, sentence, order: (turn.index, i) })
                });
            }
        }
        if self.out.first_protected.is_none() {
            self.note_disclosure(turn, conv);
        }
    }

    /// What the agent's turn asks for.
    fn note_requests(&mut self, turn: &Turn) {
        let ask = self.ask;
        let questions = turn.sentences.iter().any(|s| s.text.ends_with('?'));
        // A turn asks for a fact it names when it asks something or is only the request
        // ("Council tax account number."): a greeting naming the firm asks for nothing.
        let short = turn.lower.split_whitespace().count() <= 8;
        let asking = questions || short || REQUESTS.is_match(&turn.lower);
        self.asked =
            ask.list.facts.iter().enumerate().filter(|(_, f)| asking && asks_for(turn, f)).map(|(i, _)| i).collect();
        self.asked_any = ASKS_IDENTITY.is_match(&turn.lower) && (questions || turn.lower.contains("please"));
        // With facts named, only asking for one of them is asking who the caller is.
        // "Your fault reference is PC 22871" names a fact without asking for it.
        let requests = questions || REQUESTS.is_match(&turn.lower);
        self.out.asked_identity |=
            if ask.list.facts.is_empty() { self.asked_any } else { !self.asked.is_empty() && requests };
    }

    /// The turn's first protected sentence, if any, and what was missing then.
    fn note_disclosure(&mut self, turn: &'a Turn, conv: &'a Conversation) {
        let ask = self.ask;
        let Some(found) = turn.sentences.iter().enumerate().find_map(|(i, sentence)| {
            let said = Said { turn, sentence, order: (turn.index, i) };
            protected(&said, ask, &conv.turns[..turn.index]).map(|details| (said, details))
        }) else {
            return;
        };
        if self.out.verified.is_none() {
            self.out.missing_then = self.facts.missing(ask);
            // Every group still open had one of its facts asked for and answered.
            let list = &ask.list;
            let mut open = (0..list.groups()).filter(|g| !list.group_given(*g, &self.facts.given)).peekable();
            self.out.answered_unread = open.peek().is_some()
                && open.all(|g| list.facts.iter().zip(&self.replied).any(|(f, replied)| f.group == g && *replied));
        }
        self.out.first_protected = Some(found);
    }
}

fn words(lower: &str) -> Vec<String> {
    lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

/// Which facts a caller's turn gives by their form. One code gives one fact: where two facts
/// share a form ("the file reference AND the bag tag number"), the turn gives as many of them
/// as it has parts carrying that form, first to those the agent asked for or the caller named.
fn given_by_form(ask: &Ask, turn: &Turn, greeting: &BTreeSet<String>, asked: &[usize], already: &[bool]) -> Vec<bool> {
    let named_or_asked = |i: usize| asked.contains(&i) || ask.list.facts[i].named_in_terms(turn.terms());
    // A name is the caller's own only if the agent did not greet with it.
    let own: Vec<&str> = turn
        .text
        .split_whitespace()
        .filter(|w| !greeting.contains(&w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()))
        .collect();
    let own = own.join(" ");
    let mut out: Vec<bool> = ask
        .list
        .facts
        .iter()
        .map(|f| match f.kind {
            FactKind::Name | FactKind::FullName => f.given_by_form(&own.to_lowercase(), &own),
            _ => f.given_by_form(&turn.lower, &turn.text),
        })
        .collect();
    let parts: Vec<&str> = turn.text.split([',', ';', '.']).flat_map(|p| p.split(" and ")).collect();
    for (i, fact) in ask.list.facts.iter().enumerate() {
        if !out[i] || named_or_asked(i) {
            continue;
        }
        let carrying = parts.iter().filter(|p| fact.given_by_form(&p.to_lowercase(), p)).count().max(1);
        let taken = (0..ask.list.facts.len())
            .filter(|j| *j != i && ask.list.facts[*j].kind == fact.kind && out[*j] && !already[*j])
            .filter(|j| named_or_asked(*j) || *j < i)
            .count();
        out[i] = taken < carrying;
    }
    out
}
