//! What `config diff` and `config apply` print: each change as `terraform plan` does (`+`
//! create, `~` update with the members that change, `-` delete), then the counts. The same on a
//! terminal and when piped, so a CI log reads like the screen.

use crate::api::model::config::{ChangeStatus, ConfigChange, ConfigChanges, ConfigOp};

/// The changes as text: one block per change that does something, then the counts. `applied`
/// says whether these were made (apply) or would be (diff).
pub fn render(result: &ConfigChanges, applied: bool) -> String {
    let mut text = String::new();
    for change in &result.changes {
        if change.op == ConfigOp::Noop && change.status == ChangeStatus::Applied {
            continue;
        }
        text.push_str(&line(change));
    }
    if !result.changes_anything() && result.failures().is_empty() {
        text.push_str("No changes: the service already matches the bundle.\n");
    }
    text.push_str(&counts(result, applied));
    text
}

fn line(change: &ConfigChange) -> String {
    let mark = match (&change.status, &change.op) {
        // A value a newer service sends that this build does not know: shown, never hidden.
        (status, op) if !status.is_known() || !op.is_known() => "?",
        (ChangeStatus::Failed, _) => "x",
        (ChangeStatus::Skipped, _) => "!",
        (_, ConfigOp::Create) => "+",
        (_, ConfigOp::Update) => "~",
        (_, ConfigOp::Delete) => "-",
        _ => " ",
    };
    let mut text = format!("  {mark} {}", change.config_key);
    match &change.status {
        ChangeStatus::Skipped => text.push_str(" (skipped)"),
        ChangeStatus::Failed => text.push_str(" (failed)"),
        ChangeStatus::Unknown(status) => text.push_str(&format!(" ({} {status})", change.op)),
        ChangeStatus::Applied if !change.op.is_known() => text.push_str(&format!(" ({})", change.op)),
        ChangeStatus::Applied => {}
    }
    text.push('\n');
    for detail in change.detail.iter().chain(change.error.iter()) {
        for part in detail.lines().filter(|l| !l.trim().is_empty()) {
            text.push_str(&format!("      {}\n", part.trim()));
        }
    }
    text
}

fn counts(result: &ConfigChanges, applied: bool) -> String {
    let s = &result.summary;
    let skipped = result.changes.iter().filter(|c| c.status == ChangeStatus::Skipped).count();
    let (create, update, delete) = (s.create, s.update, s.delete);
    let mut text = match applied {
        true => format!("Applied: {create} created, {update} updated, {delete} deleted, {} unchanged", s.noop),
        false => format!("Plan: {create} to create, {update} to update, {delete} to delete, {} unchanged", s.noop),
    };
    if skipped > 0 {
        text.push_str(&format!(", {skipped} skipped"));
    }
    if s.failed > 0 {
        text.push_str(&format!(", {} failed", s.failed));
    }
    text.push_str(".\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(json: serde_json::Value) -> ConfigChanges {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_plan_reads_like_terraform_and_hides_what_stays() {
        let plan = result(serde_json::json!({
            "changes": [
                {"configKey": "flow/refill", "kind": "flow", "name": "refill", "op": "create", "status": "applied"},
                {"configKey": "persona/sam", "kind": "persona", "name": "sam", "op": "update", "status": "applied",
                 "detail": "accent: \"US\" → \"GB\""},
                {"configKey": "metric/old", "kind": "metric", "name": "old", "op": "delete", "status": "applied"},
                {"configKey": "metric/same", "kind": "metric", "name": "same", "op": "noop", "status": "applied"},
                {"configKey": "dashboard/ops", "kind": "dashboard", "name": "ops", "op": "noop", "status": "skipped",
                 "detail": "the local service keeps no dashboards"},
                {"configKey": "tool/x", "kind": "tool", "name": "x", "op": "create", "status": "applied", "future": 1}
            ],
            "summary": {"create": 2, "update": 1, "delete": 1, "noop": 2, "failed": 0}
        }));
        let text = render(&plan, false);
        assert_eq!(
            text,
            "  + flow/refill\n  ~ persona/sam\n      accent: \"US\" → \"GB\"\n  - metric/old\n  ! dashboard/ops (skipped)\n      the local service keeps no dashboards\n  + tool/x\nPlan: 2 to create, 1 to update, 1 to delete, 2 unchanged, 1 skipped.\n"
        );
        assert!(plan.changes_anything());
        assert_eq!(plan.deletes().len(), 1);
    }

    #[test]
    fn nothing_to_do_says_so() {
        let plan = result(serde_json::json!({"changes": [
            {"configKey": "metric/same", "kind": "metric", "name": "same", "op": "noop", "status": "applied"}],
            "summary": {"create": 0, "update": 0, "delete": 0, "noop": 1, "failed": 0}}));
        assert!(!plan.changes_anything());
        assert!(render(&plan, true).starts_with("No changes"));
    }
}
