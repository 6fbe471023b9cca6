//! `--json FIELD,FIELD`: only the named members of each item printed, as `gh --json` does. A
//! list keeps its `{data, pagination}` shape with each item cut down; a name no item has is
//! refused, listing the names there are.

use std::collections::BTreeSet;

use serde_json::Value;

use super::exit::Failure;

/// Keeps only `fields` of each item of `document`; no fields keeps everything.
pub fn keep(document: &mut Value, fields: &[String]) -> Result<(), Failure> {
    if fields.is_empty() {
        return Ok(());
    }
    let items = items(document);
    let known: BTreeSet<String> =
        items.iter().flat_map(|item| item.as_object()).flat_map(|o| o.keys().cloned()).collect();
    let unknown: Vec<&str> = fields.iter().filter(|f| !known.contains(*f)).map(String::as_str).collect();
    if !unknown.is_empty() && !known.is_empty() {
        return Err(Failure::invalid(
            "--json",
            format!(
                "--json: no field named {}; the fields are: {}",
                unknown.join(", "),
                known.into_iter().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    for item in items {
        if let Value::Object(members) = item {
            members.retain(|name, _| fields.contains(name));
        }
    }
    Ok(())
}

/// The items of a document: a list's `data`, one resource's `data`, or the document itself.
fn items(document: &mut Value) -> Vec<&mut Value> {
    let is_wrapped = document.get("data").is_some_and(|d| d.is_array() || d.is_object());
    let target = if is_wrapped { &mut document["data"] } else { document };
    match target {
        Value::Array(list) => list.iter_mut().collect(),
        other => vec![other],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_keeps_its_shape_with_each_item_cut_down() {
        let mut list = json!({"data": [{"id": 1, "name": "a", "x": 0}], "pagination": {"total": 1}});
        keep(&mut list, &["id".into(), "name".into()]).unwrap();
        assert_eq!(list, json!({"data": [{"id": 1, "name": "a"}], "pagination": {"total": 1}}));
        let mut one = json!({"data": {"id": 1, "x": 0}});
        keep(&mut one, &["id".into()]).unwrap();
        assert_eq!(one, json!({"data": {"id": 1}}));
    }

    #[test]
    fn unknown_names_are_all_listed_with_the_known_ones() {
        let mut list = json!({"data": [{"id": 1, "name": "a"}]});
        let failure = keep(&mut list, &["id".into(), "nme".into(), "sttus".into()]).unwrap_err();
        assert_eq!(failure.body.message, "--json: no field named nme, sttus; the fields are: id, name");
    }
}
