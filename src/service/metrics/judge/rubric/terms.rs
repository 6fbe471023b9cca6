//! Content words, lightly stemmed, so that "verifies" meets "verified" and "cancellation"
//! meets "cancel". Used to match a prompt's concept against what was said, never alone to
//! decide who did what.

use std::collections::BTreeSet;

const STOPWORDS: &[&str] = &[
    "about", "after", "agent", "also", "any", "are", "and", "before", "being", "caller", "could", "does", "doe",
    "from", "have", "into", "its", "their", "there", "they", "this", "that", "the", "what", "when", "where", "which",
    "while", "with", "would", "your", "you", "call", "customer", "should", "must", "whether", "during", "every",
    "them", "then", "than", "were", "will", "for", "not", "can", "has", "had", "was", "but", "our", "all", "one",
    "let", "lets", "get", "gets", "made", "make", "makes", "very", "just", "each", "other", "only", "such", "least",
    "more", "most", "own", "same", "so", "too", "via", "per", "upon", "his", "her", "him", "she", "it's", "i'm",
    "i've", "i'll", "we're", "you're", "you've", "please", "thank", "thanks", "okay", "yes", "sure", "ending", "end",
    "time", "line",
];

/// Lower-cased content words, stemmed; numbers are kept whole ("24" stays "24").
pub(super) fn terms(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_lowercase())
        // "the bag's still there" is about the bag: a possessive or an "is" is not a new word.
        .map(|w| w.strip_suffix("'s").map_or_else(|| w.clone(), str::to_owned))
        .filter(|w| {
            let number = !w.is_empty() && w.chars().all(|c| c.is_ascii_digit());
            (w.len() >= 3 || number) && !STOPWORDS.contains(&w.as_str())
        })
        .map(|w| stem(&w))
        .collect()
}

/// A crude suffix stemmer: enough for "verifies/verified/verify", "cancellation/cancel".
pub(super) fn stem(word: &str) -> String {
    if word.chars().all(|c| c.is_ascii_digit()) {
        return word.to_owned();
    }
    if let Some((_, base)) = IRREGULAR.iter().find(|(form, _)| *form == word) {
        return stem(base);
    }
    // "monthly" meets "month", but "early" keeps its "ear".
    let suffixes = [
        ("lation", 3),
        ("ation", 3),
        ("ments", 3),
        ("ment", 3),
        ("ings", 3),
        ("ing", 3),
        ("ies", 3),
        ("ied", 3),
        ("ed", 3),
        ("es", 3),
        ("ly", 4),
        // The one who does it meets the doing: "collector" and "collect", "advisor" and "advise".
        ("ors", 5),
        ("or", 5),
        ("s", 3),
        ("y", 3),
        ("e", 3),
    ];
    let root = suffixes
        .iter()
        .find_map(|(suffix, least)| word.strip_suffix(suffix).filter(|root| root.len() >= *least))
        .unwrap_or(word);
    // "cancelled" and "cancel", "running" and "run", "billed" and "bill" meet: a doubled
    // final consonant is kept single, whether or not a suffix came off.
    let last: Vec<char> = root.chars().rev().take(2).collect();
    if last.len() == 2 && last[0] == last[1] && "lbgmnprt".contains(last[0]) && root.len() > 3 {
        return root[..root.len() - 1].to_owned();
    }
    root.to_owned()
}

/// Irregular forms, read as the verb they come from ("frozen" meets "freeze").
const IRREGULAR: &[(&str, &str)] = &[
    ("frozen", "freeze"),
    ("froze", "freeze"),
    ("sent", "send"),
    ("paid", "pay"),
    ("made", "make"),
    ("done", "do"),
    ("given", "give"),
    ("gave", "give"),
    ("taken", "take"),
    ("took", "take"),
    ("told", "tell"),
    ("sold", "sell"),
    ("held", "hold"),
    ("brought", "bring"),
    ("bought", "buy"),
    ("kept", "keep"),
    ("got", "get"),
    ("gotten", "get"),
    ("written", "write"),
    ("wrote", "write"),
    ("spoke", "speak"),
    ("spoken", "speak"),
    ("extension", "extend"),
];

/// Words that measure rather than say what ("24 hours" is about hours only by its unit).
const UNITS: &[&str] = &["hour", "minut", "day", "week", "month", "dollar", "percent", "cent", "second"];

/// Words that stand for each other in a policy ("24 hours' notice" is the cancellation policy).
const RELATED: &[(&str, &[&str])] = &[
    ("notic", &["polic", "cancel", "rule"]),
    ("fee", &["polic", "cancel", "charg", "cost"]),
    ("charg", &["fee", "cost"]),
    ("cost", &["fee", "charg"]),
    ("chang", &["cancel", "mov", "reschedul"]),
    ("mov", &["chang", "reschedul"]),
    ("rearrang", &["chang", "mov", "reschedul"]),
    ("swap", &["chang", "mov"]),
    ("food", &["eat", "meal"]),
    ("eat", &["food", "meal"]),
    ("poo", &["stool"]),
    ("stool", &["poo"]),
    ("pric", &["cost", "charg", "fee"]),
    ("repair", &["fix"]),
    ("fix", &["repair"]),
    ("rule", &["polic"]),
    ("fre", &["fee", "charg", "cost"]),
    ("hurt", &["injur"]),
    ("injur", &["hurt"]),
    // Keeping a thing longer is extending it.
    ("longer", &["extend"]),
];

/// `terms` plus the words they stand for.
pub(super) fn with_related(terms: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = terms.clone();
    for (word, related) in RELATED {
        if terms.contains(*word) {
            out.extend(related.iter().map(|r| (*r).to_owned()));
        }
    }
    out
}

/// Terms that must all be present: numbers, which say exactly what was meant ("24-hour"),
/// and the kind of detail a "when" or "where" asks for ("<when>").
pub(super) fn anchors(terms: &BTreeSet<String>) -> BTreeSet<String> {
    terms.iter().filter(|t| t.chars().any(|c| c.is_ascii_digit()) || t.starts_with('<')).cloned().collect()
}

/// How much of `wanted` `said` covers: (all anchors present, share of the other terms).
/// A number with its unit alone ("24 hours") covers nothing more: some word that says what
/// it is about must be there too.
pub(super) fn coverage(wanted: &BTreeSet<String>, said: &BTreeSet<String>) -> (bool, f64) {
    covered_by(wanted, &with_related(said))
}

/// `coverage` of terms already taken `with_related` (a sentence's, kept once worked out).
pub(super) fn covered_by(wanted: &BTreeSet<String>, said: &BTreeSet<String>) -> (bool, f64) {
    let anchors = anchors(wanted);
    let anchored = anchors.iter().all(|a| said.contains(a));
    let rest: Vec<&String> = wanted.iter().filter(|t| !anchors.contains(*t)).collect();
    if rest.is_empty() {
        return (anchored, if anchored { 1.0 } else { 0.0 });
    }
    let hit = rest.iter().filter(|t| said.contains(**t)).count();
    let about: Vec<&&String> = rest.iter().filter(|t| !UNITS.contains(&t.as_str())).collect();
    if !about.is_empty() && !about.iter().any(|t| said.contains(**t)) {
        return (anchored, 0.0);
    }
    (anchored, hit as f64 / rest.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_of_a_word_meet() {
        assert_eq!(stem("verifies"), stem("verified"));
        assert_eq!(stem("cancellation"), stem("cancel"));
        assert_eq!(stem("cancelled"), stem("cancel"));
        assert_eq!(stem("collector"), stem("collect"));
        assert_eq!(stem("advisor"), stem("advise"));
        assert_ne!(stem("doctor"), stem("doc"), "a short root keeps its ending");
        assert!(terms("The 24-hour cancellation policy").contains("24"));
        assert!(!terms("The agent and the caller").contains("agent"));
        assert_eq!(terms("The kayak's on the rack"), terms("The kayak on the rack"), "a possessive or an 'is'");
    }

    #[test]
    fn anchors_must_all_be_said() {
        let wanted = terms("mentions the 24-hour cancellation policy");
        let (anchored, share) = coverage(&wanted, &terms("We need 24 hours' notice to cancel."));
        assert!(anchored && share > 0.3, "{share}");
        let (anchored, _) = coverage(&wanted, &terms("Our cancellation policy applies."));
        assert!(!anchored);
        let (_, share) = coverage(&wanted, &terms("You can book online 24 hours a day."));
        assert_eq!(share, 0.0, "a number and its unit alone are not the policy");
    }
}
