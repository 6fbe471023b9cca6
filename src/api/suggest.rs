//! "Did you mean `X`?": of the names a misspelt one could have meant, the closest, when it is
//! close enough to be a likely typo (a field, a flow's slug, a bundle reference).

/// `name` as a typo is compared: lower case, without `_` and `-` (`min_pass_rate` is
/// `minPassRate` written another way).
fn folded(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '_' | '-')).flat_map(char::to_lowercase).collect()
}

/// The candidate closest to `wrong`, when it is at most a third of its letters away (one at
/// least) once case, `_` and `-` are set aside; never `wrong` itself. Ties go to the first.
pub fn closest<'a>(wrong: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let typed = folded(wrong);
    let allowed = (typed.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates.into_iter().filter(|c| *c != wrong) {
        let distance = strsim::damerau_levenshtein(&typed, &folded(candidate));
        if distance <= allowed && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// `; did you mean `X`?` for the closest candidate, empty when none is close.
pub fn did_you_mean<'a>(wrong: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(wrong, candidates).map(|c| format!("; did you mean `{c}`?")).unwrap_or_default()
}

/// The members a type's schema declares (`RunPlanInput`'s `flows`, `metrics`, …), the names a
/// misspelt member of it is compared with.
pub fn members<T: utoipa::PartialSchema>() -> Vec<String> {
    use utoipa::openapi::{RefOr, schema::Schema};
    match T::schema() {
        RefOr::T(Schema::Object(object)) => object.properties.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// A member the two plan formats (a plan file, the body of `POST /v1/simulation/plan`, and a
/// bundle's `simulationPlan`) name differently: written with the other format's name, it is
/// answered with the name here, never silently taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedElsewhere {
    /// The name in the other format (`iterations`).
    pub there: &'static str,
    /// The name here (`iterationCount`).
    pub here: &'static str,
    /// Whose name `there` is (`the bundle's`).
    pub whose: &'static str,
    /// Where `here` is the name (`a plan file`).
    pub in_here: &'static str,
}

impl std::fmt::Display for NamedElsewhere {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` is {} name; in {} it is `{}`", self.there, self.whose, self.in_here, self.here)
    }
}

/// (the bundle's name, the plan file's name) of a plan's members.
const PLAN_NAMES: [(&str, &str); 2] =
    [("maxDurationSeconds", "maxSimulationDurationSeconds"), ("iterations", "iterationCount")];
/// (the bundle's name, the plan file's name) of a flow selection's members.
const FLOW_NAMES: [(&str, &str); 1] = [("flow", "slug")];

const fn in_plan_file(names: (&'static str, &'static str)) -> NamedElsewhere {
    NamedElsewhere { there: names.0, here: names.1, whose: "the bundle's", in_here: "a plan file" }
}

const fn in_bundle(names: (&'static str, &'static str)) -> NamedElsewhere {
    NamedElsewhere { there: names.1, here: names.0, whose: "the plan file's", in_here: "a bundle" }
}

/// A plan file's members that a bundle names otherwise.
pub const PLAN_FILE_PLAN: [NamedElsewhere; 2] = [in_plan_file(PLAN_NAMES[0]), in_plan_file(PLAN_NAMES[1])];
/// A plan file's flow selection members that a bundle names otherwise.
pub const PLAN_FILE_FLOW: [NamedElsewhere; 1] = [in_plan_file(FLOW_NAMES[0])];
/// A bundle plan's members that a plan file names otherwise.
pub const BUNDLE_PLAN: [NamedElsewhere; 2] = [in_bundle(PLAN_NAMES[0]), in_bundle(PLAN_NAMES[1])];
/// A bundle plan's flow members that a plan file names otherwise.
pub const BUNDLE_FLOW: [NamedElsewhere; 1] = [in_bundle(FLOW_NAMES[0])];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_gets_the_closest_name_and_a_stranger_gets_none() {
        let fields = ["happyPath", "edgeCases", "variables", "slug", "id"];
        assert_eq!(closest("happyPaht", fields), Some("happyPath"));
        assert_eq!(closest("edgecases", fields), Some("edgeCases"));
        assert_eq!(closest("edge_cases", fields), Some("edgeCases"));
        assert_eq!(closest("sideQuest", fields), None);
        assert_eq!(closest("slug", fields), None, "a name is never its own suggestion");
        assert_eq!(did_you_mean("variabels", fields), "; did you mean `variables`?");
        assert_eq!(did_you_mean("sideQuest", fields), "");
    }

    #[test]
    fn a_schemas_members_are_its_wire_names() {
        let names = members::<crate::api::model::FlowSelection>();
        for name in ["id", "slug", "happyPath", "edgeCases", "personaOverrideId", "variables"] {
            assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
        }
        assert!(!names.iter().any(|n| n == "unknownFields"), "{names:?}");
    }

    #[test]
    fn the_other_formats_name_is_answered_with_the_name_here() {
        assert_eq!(
            PLAN_FILE_PLAN[1].to_string(),
            "`iterations` is the bundle's name; in a plan file it is `iterationCount`"
        );
        assert_eq!(BUNDLE_FLOW[0].to_string(), "`slug` is the plan file's name; in a bundle it is `flow`");
        assert_eq!(BUNDLE_PLAN[0].there, "maxSimulationDurationSeconds");
    }
}
