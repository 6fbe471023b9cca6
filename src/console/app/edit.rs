//! k9s' `e` and `c`: a resource opens as its config YAML in the user's editor; on save the
//! console asks the service what would change (a config diff of that resource alone), shows
//! it, and Enter applies it (never a prune). A refusal reopens the file with the service's
//! errors as comments at its top, as `kubectl edit` does; saving it unchanged or empty cancels.

use serde_json::Value;

use super::App;
use crate::api::model::config::{ConfigChanges, ConfigOp};
use crate::console::message::{Edit, Effect, Level, Write, WriteError, Written};
use crate::console::out::Out;
use crate::console::widgets::confirm::Confirm;

/// Our notes at the top of the file start with this; they are taken off before reading it, so
/// the user's own comments stay.
const NOTE: &str = "#! ";

impl App {
    /// Opens `config` (a resource in its bundle shape) in the editor.
    pub(super) fn start_edit(&mut self, kind: &str, name: &str, config: &Value) {
        let title = format!("{kind}/{name}");
        let body = resource_text(kind, name, config);
        self.open_editor(Edit {
            kind: kind.into(),
            title,
            text: with_notes(&[], &body),
            resource: None,
            existing: true,
        });
    }

    /// Opens a commented template of `kind` in the editor, to create one.
    pub(super) fn start_create(&mut self, kind: &str, template: &str) {
        let title = format!("{kind} (new)");
        self.open_editor(Edit {
            kind: kind.into(),
            title,
            text: with_notes(&[], template),
            resource: None,
            existing: false,
        });
    }

    fn open_editor(&mut self, edit: Edit) {
        if self.settings.read_only {
            self.toast(Level::Error, "read-only: writes are off (--read-only or the profile)".into());
            return;
        }
        self.effects.push(Effect::Edit(Box::new(edit)));
    }

    /// The editor closed: read what was saved and ask what it would change.
    pub(super) fn edited(&mut self, mut edit: Edit, result: Result<String, String>) -> bool {
        let saved = match result {
            Ok(saved) => saved,
            Err(why) => {
                self.toast(Level::Error, format!("{}: {why}", edit.title));
                return true;
            }
        };
        let body = without_notes(&saved);
        if body.trim().is_empty() || body.trim() == without_notes(&edit.text).trim() {
            self.toast(Level::Info, format!("{}: nothing changed, nothing applied", edit.title));
            return true;
        }
        match read_resource(&body, &edit.kind) {
            Ok(resource) => {
                edit.text = body;
                edit.resource = Some(resource);
                let mut out = Out::default();
                out.write(Write::ConfigDiff(Box::new(edit)));
                self.apply(out);
            }
            Err(problems) => {
                edit.text = with_notes(&problems, &body);
                self.open_editor(edit);
            }
        }
        true
    }

    /// A config diff or apply of an edit came back; true when it was one.
    pub(super) fn config_written(&mut self, write: &Write, result: &Result<Written, WriteError>) -> bool {
        let (edit, applying) = match write {
            Write::ConfigDiff(edit) => (edit, false),
            Write::ConfigApply(edit) => (edit, true),
            _ => return false,
        };
        match result {
            Ok(Written::Config(changes)) if !applying => self.confirm_apply(edit, changes),
            Ok(Written::Config(changes)) => {
                let done: Vec<String> = changes.changes.iter().map(|c| format!("{} {}", c.op, c.config_key)).collect();
                self.toast(Level::Info, format!("applied: {}", done.join(", ")));
                self.refresh_all();
            }
            Ok(_) => {}
            // The service refused what was written, naming the members: back to the editor.
            Err(error) if !error.fields.is_empty() => {
                let problems = refusal_lines(error);
                let mut again = (**edit).clone();
                again.text = with_notes(&problems, &edit.text);
                self.open_editor(again);
            }
            Err(error) => self.toast(Level::Error, format!("{}: {}", edit.title, error.message)),
        }
        true
    }

    /// Shows what applying would change, and applies on yes.
    fn confirm_apply(&mut self, edit: &Edit, changes: &ConfigChanges) {
        if !changes.changes_anything() {
            self.toast(Level::Info, format!("{}: the service already matches; nothing to apply", edit.title));
            return;
        }
        let mut question = String::from("Apply this change?");
        for change in changes.changes.iter().filter(|c| c.op != ConfigOp::Noop) {
            question.push_str(&format!("\n{} {}", change.op, change.config_key));
            if edit.existing && change.op == ConfigOp::Create {
                question.push_str(&format!("\n  {}", copy_note(&edit.kind)));
            }
            for line in change.detail.iter().flat_map(|d| d.lines()) {
                question.push_str(&format!("\n  {}", line.trim()));
            }
        }
        let mut out = Out::default();
        out.modal.confirm(Confirm::new(edit.title.clone(), question, Write::ConfigApply(Box::new(edit.clone()))));
        self.apply(out);
    }
}

/// Why an edit can make a new resource: an apply changes in place only what its name stands
/// for alone and the service lets callers change (a system flow or policy, or a title two flows
/// share, is not), as the service's own routes would refuse the change.
fn copy_note(kind: &str) -> String {
    format!(
        "creates a new {kind} from this file; the one you opened stays as it is (the service keeps it, or its name is shared)"
    )
}

/// A resource as YAML with `kind` and `name` first, where a reader looks for them.
fn resource_text(kind: &str, name: &str, config: &Value) -> String {
    let mut rest = config.clone();
    if let Some(object) = rest.as_object_mut() {
        object.remove("kind");
        object.remove("name");
    }
    let head = crate::yaml::to_text(&serde_json::json!({ "kind": kind }))
        + &crate::yaml::to_text(&serde_json::json!({ "name": name }));
    head + &crate::yaml::to_text(&rest)
}

/// The file as handed to the editor: our notes (how to save or cancel, and the problems of the
/// last try) as comments, then the resource.
fn with_notes(problems: &[String], body: &str) -> String {
    let mut text = String::new();
    if !problems.is_empty() {
        text.push_str(&format!(
            "{NOTE}Not applied. Mend what follows and save again (or save it unchanged to give up):\n"
        ));
        for problem in problems {
            text.push_str(&format!("{NOTE}  - {problem}\n"));
        }
    }
    text.push_str(&format!("{NOTE}Save and close to see what would change; nothing is applied before you say yes.\n"));
    text.push_str(&format!(
        "{NOTE}Lines starting with #! are notes and are ignored. A masked value (••••) keeps the value stored.\n"
    ));
    text.push_str(body);
    text
}

/// The file without our notes at the top.
fn without_notes(text: &str) -> String {
    let lines: Vec<&str> = text.lines().skip_while(|l| l.starts_with(NOTE.trim_end())).collect();
    let mut body = lines.join("\n");
    body.push('\n');
    body
}

/// The saved text as one resource of `kind`, or what is wrong with it (with lines).
fn read_resource(text: &str, kind: &str) -> Result<Value, Vec<String>> {
    let documents = crate::yaml::documents(text).map_err(|e| vec![e.to_string()])?;
    let [document] = documents.as_slice() else {
        return Err(vec![format!("one resource per file, found {} documents", documents.len())]);
    };
    let Some(object) = document.value.as_object() else {
        return Err(vec!["the file must hold the resource's members (kind:, name:, …)".into()]);
    };
    let mut problems = Vec::new();
    match object.get("kind").and_then(Value::as_str) {
        Some(found) if found == kind => {}
        Some(found) => problems.push(format!("kind: this is a {kind}; it cannot become a {found}")),
        None => problems.push(format!("kind: missing (kind: {kind})")),
    }
    if object.get("name").and_then(Value::as_str).is_none_or(|n| n.trim().is_empty()) {
        problems.push("name: missing; every resource has a name".into());
    }
    if problems.is_empty() { Ok(document.value.clone()) } else { Err(problems) }
}

/// The service's reasons, one per line.
fn refusal_lines(error: &WriteError) -> Vec<String> {
    if error.fields.is_empty() {
        return vec![error.message.clone()];
    }
    error
        .fields
        .iter()
        .map(
            |(param, message)| {
                if message.contains(param.as_str()) { message.clone() } else { format!("{param}: {message}") }
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_come_off_and_the_users_comments_stay() {
        let body = "# my own note\nkind: persona\nname: sam\n";
        let text = with_notes(&["accent: unknown".into()], body);
        assert!(text.starts_with("#! Not applied."), "{text}");
        assert!(text.contains("#!   - accent: unknown"), "{text}");
        assert_eq!(without_notes(&text), body);
    }

    #[test]
    fn a_saved_file_is_one_resource_of_the_same_kind_with_a_name() {
        assert!(read_resource("kind: persona\nname: sam\naccent: US\n", "persona").is_ok());
        let problems = read_resource("kind: metric\n", "persona").unwrap_err();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("cannot become a metric"));
        assert!(read_resource("kind: persona\nname: a\n---\nkind: persona\nname: b\n", "persona").is_err());
        let broken = read_resource("kind: [persona\n", "persona").unwrap_err();
        assert!(broken[0].starts_with("line "), "{broken:?}");
    }
}
