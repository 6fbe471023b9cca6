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
}
