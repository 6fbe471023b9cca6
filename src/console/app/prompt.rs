//! The line typed at the bottom: `:` commands (a tab by any of its aliases, a resource by id
//! or name from any tab — `:call ID`, `:job ID`, `:issue ID`, `:alert ID`, `:plan ID`,
//! `:flow ID` — `:help`, `:log`, `:q`; Tab completes a command's name, then a resource's), `/`
//! filters the list as you type, and `o` opens a resource of the current tab by id.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Overlay};
use crate::console::message::Level;
use crate::console::out::Out;
use crate::console::tab::Tab;

/// A line being typed at the bottom.
#[derive(Debug, Clone, PartialEq)]
pub enum Prompt {
    Command(String),
    Filter(String),
    OpenById(String),
}

/// Tab names as `:` commands accept them.
pub const ALIASES: &[(&str, Tab)] = &[
    ("plans", Tab::Plans),
    ("plan", Tab::Plans),
    ("runplans", Tab::Plans),
    ("jobs", Tab::Jobs),
    ("job", Tab::Jobs),
    ("live", Tab::Jobs),
    ("metrics", Tab::Metrics),
    ("metric", Tab::Metrics),
    ("issues", Tab::Issues),
    ("issue", Tab::Issues),
    ("alerts", Tab::Issues),
    ("alert", Tab::Issues),
    ("flows", Tab::Flows),
    ("flow", Tab::Flows),
    ("personas", Tab::Catalog),
    ("persona", Tab::Catalog),
    ("agents", Tab::Catalog),
    ("endpoints", Tab::Catalog),
    ("kb", Tab::Catalog),
    ("http", Tab::Catalog),
    ("bench", Tab::Bench),
    ("benchmarks", Tab::Bench),
];

/// `:NAME ID` opens the resource with that id in its tab, from any tab (`call` opens over it).
const RESOURCES: &[(&str, Option<Tab>)] = &[
    ("call", None),
    ("job", Some(Tab::Jobs)),
    ("issue", Some(Tab::Issues)),
    ("alert", Some(Tab::Issues)),
    ("plan", Some(Tab::Plans)),
    ("flow", Some(Tab::Flows)),
];

/// Commands that are not tabs.
const OTHERS: &[&str] = &["help", "log", "quit"];

/// Every command name, for completion: tabs, resources, the rest; each once.
fn commands() -> Vec<&'static str> {
    let mut names: Vec<&str> = ALIASES.iter().map(|(a, _)| *a).collect();
    names.extend(RESOURCES.iter().map(|(r, _)| *r));
    names.extend(OTHERS);
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(*n));
    names
}

/// The command names that complete what is typed (the first word), in `commands()` order.
pub fn completions(line: &str) -> Vec<&'static str> {
    let word = line.trim_start().to_ascii_lowercase();
    if word.contains(' ') {
        return Vec::new();
    }
    commands().into_iter().filter(|c| c.starts_with(&word)).collect()
}

/// Tab on `line`: the one command it starts, with a space when it takes an id; the longest
/// prefix several share; or `line` as it was.
fn complete(line: &str) -> String {
    let found = completions(line);
    match found.as_slice() {
        [] => line.to_string(),
        [one] if RESOURCES.iter().any(|(r, _)| r == one) => format!("{one} "),
        [one] => one.to_string(),
        [first, rest @ ..] => {
            let shared = rest.iter().fold(first.len(), |n, other| {
                first.bytes().zip(other.bytes()).take(n).take_while(|(a, b)| a == b).count()
            });
            let prefix = &first[..shared];
            if prefix.len() > line.trim().len() { prefix.to_string() } else { line.to_string() }
        }
    }
}

impl App {
    pub(super) fn prompt_key(&mut self, key: KeyEvent) -> bool {
        let Some(prompt) = &mut self.prompt else { return false };
        let command = matches!(prompt, Prompt::Command(_));
        let filter = matches!(prompt, Prompt::Filter(_));
        let line = match prompt {
            Prompt::Command(line) | Prompt::Filter(line) | Prompt::OpenById(line) => line,
        };
        match key.code {
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.quit = true;
                return true;
            }
            KeyCode::Esc => {
                if filter {
                    self.set_filter("");
                }
                self.prompt = None;
                return true;
            }
            KeyCode::Enter => {
                let prompt = self.prompt.take();
                match prompt {
                    Some(Prompt::Command(line)) => self.command(line.trim()),
                    Some(Prompt::OpenById(line)) if !line.trim().is_empty() => {
                        self.call = None;
                        let mut out = Out::default();
                        self.panes[self.tab.index()].open_by_id(line.trim(), &mut out);
                        self.apply(out);
                    }
                    _ => {}
                }
                return true;
            }
            KeyCode::Tab if command => {
                let completed = complete(line);
                if completed != *line {
                    *line = completed;
                } else {
                    let named = self.complete_name(&completed);
                    if let Some(Prompt::Command(line)) = &mut self.prompt {
                        *line = named;
                    }
                }
            }
            KeyCode::Backspace => {
                line.pop();
            }
            KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => line.clear(),
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => line.push(c),
            _ => return false,
        }
        if let Some(Prompt::Filter(line)) = &self.prompt {
            let line = line.clone();
            self.set_filter(&line);
        }
        true
    }

    fn command(&mut self, line: &str) {
        let line = line.trim_start_matches(':');
        let (word, id) = match line.split_once(char::is_whitespace) {
            Some((word, id)) => (word.to_ascii_lowercase(), id.trim()),
            None => (line.to_ascii_lowercase(), ""),
        };
        if !id.is_empty() {
            return self.open_resource(&word, id);
        }
        match word.as_str() {
            "" => {}
            "q" | "quit" | "exit" => self.quit = true,
            "help" | "h" => self.overlay = Some(Overlay::Help),
            "log" | "logs" => self.overlay = Some(Overlay::Log { scroll: 0 }),
            "call" => self.toast(Level::Error, "give the call's id: :call ID".into()),
            word => match ALIASES.iter().find(|(alias, _)| *alias == word) {
                Some((_, tab)) => {
                    self.show_tab(*tab);
                    let mut out = Out::default();
                    if self.panes[tab.index()].action_alias(word, &mut out) {
                        self.apply(out);
                    }
                }
                None => self.toast(Level::Error, format!("no command :{word}; try :{}", commands().join(" :"))),
            },
        }
    }

    /// Tab after `:plan Ni`: the one name (or id) it can be; else the line as it was.
    fn complete_name(&self, line: &str) -> String {
        let Some((word, text)) = line.split_once(' ') else { return line.to_string() };
        let Some(kind) = super::lookup::kind_of(&word.to_ascii_lowercase()) else { return line.to_string() };
        match self.known.find(kind, text).as_slice() {
            [one] if one.label != one.id => format!("{word} {}", one.label),
            [one] => format!("{word} {}", &one.id[..8.min(one.id.len())]),
            _ => line.to_string(),
        }
    }

    /// What the prompt shows under `:`: the commands, or the names `:plan Ni` may mean.
    pub fn prompt_hints(&self, line: &str) -> Vec<String> {
        match line.split_once(' ') {
            None => completions(line).into_iter().map(str::to_owned).collect(),
            Some((word, text)) => match super::lookup::kind_of(&word.to_ascii_lowercase()) {
                Some(kind) => self.known.find(kind, text).iter().take(6).map(|n| hint(n)).collect(),
                None => Vec::new(),
            },
        }
    }

    /// `:NAME ID`: the resource in its own tab, or a call over the current one. ID may be the
    /// 8 characters the screens show, or a name.
    fn open_resource(&mut self, word: &str, id: &str) {
        let id = match (id.parse::<uuid::Uuid>(), super::lookup::kind_of(word)) {
            (Err(_), Some(kind)) => match self.known.find(kind, id).as_slice() {
                [one] => one.id.clone(),
                [] => {
                    let what = kind.label();
                    return self.toast(
                        Level::Error,
                        format!("no {word} named or numbered {id:?} among the {what} read so far; give its full id"),
                    );
                }
                several => {
                    let names: Vec<String> = several.iter().take(5).map(|n| hint(n)).collect();
                    let more = if several.len() > 5 { ", …" } else { "" };
                    return self.toast(
                        Level::Error,
                        format!(
                            "{id:?} matches {} {}: {}{more}; type more",
                            several.len(),
                            kind.label(),
                            names.join(", ")
                        ),
                    );
                }
            },
            _ => id.to_string(),
        };
        let id = id.as_str();
        match RESOURCES.iter().find(|(name, _)| *name == word) {
            Some((_, None)) => match id.parse() {
                Ok(call) => self.open_call(call),
                Err(_) => self.toast(Level::Error, format!("{id:?} is not a call id (a UUID)")),
            },
            Some((_, Some(tab))) => {
                self.show_tab(*tab);
                let mut out = Out::default();
                self.panes[tab.index()].open_named(word, id, &mut out);
                self.apply(out);
            }
            None => {
                let names: Vec<&str> = RESOURCES.iter().map(|(r, _)| *r).collect();
                self.toast(Level::Error, format!(":{word} takes no id; :{} ID open one", names.join(" ID, :")));
            }
        }
    }
}

/// A name with the id's first 8 characters: `Nightly (3fb5aeb0)`.
fn hint(named: &super::lookup::Named) -> String {
    let short = &named.id[..8.min(named.id.len())];
    if named.label == named.id { short.to_owned() } else { format!("{} ({short})", named.label) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_completes_one_command_or_the_prefix_several_share() {
        assert_eq!(complete("ca"), "call ");
        assert_eq!(complete("is"), "issue", "issues and issue share issue");
        assert_eq!(complete("be"), "bench", "bench and benchmarks share bench");
        assert_eq!(complete("zz"), "zz");
        assert_eq!(complete("job 1"), "job 1", "ids are not completed");
        assert_eq!(completions("pl"), vec!["plans", "plan"]);
    }
}
