//! The line typed at the bottom: `:` commands (a tab by any of its aliases, `:help`, `:log`,
//! `:q`), `/` filters the list as you type, and `o` opens a resource by id.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Overlay};
use crate::console::pane::{Level, Out};

/// A line being typed at the bottom.
#[derive(Debug, Clone, PartialEq)]
pub enum Prompt {
    Command(String),
    Filter(String),
    OpenById(String),
}

/// Tab names as `:` commands accept them.
pub const ALIASES: &[(&str, usize)] = &[
    ("plans", 0),
    ("plan", 0),
    ("runplans", 0),
    ("jobs", 1),
    ("job", 1),
    ("live", 1),
    ("metrics", 2),
    ("metric", 2),
    ("issues", 3),
    ("issue", 3),
    ("flows", 4),
    ("flow", 4),
    ("personas", 5),
    ("persona", 5),
    ("agents", 5),
    ("endpoints", 5),
    ("kb", 5),
    ("http", 5),
    ("bench", 6),
    ("benchmarks", 6),
];

impl App {
    pub(super) fn prompt_key(&mut self, key: KeyEvent) -> bool {
        let Some(prompt) = &mut self.prompt else { return false };
        let line = match prompt {
            Prompt::Command(line) | Prompt::Filter(line) | Prompt::OpenById(line) => line,
        };
        match key.code {
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.quit = true;
                return true;
            }
            KeyCode::Esc => {
                if matches!(prompt, Prompt::Filter(_)) {
                    self.panes[self.tab].set_filter("");
                }
                self.prompt = None;
                return true;
            }
            KeyCode::Enter => {
                let prompt = self.prompt.take();
                match prompt {
                    Some(Prompt::Command(line)) => self.command(line.trim()),
                    Some(Prompt::OpenById(line)) if !line.trim().is_empty() => {
                        let mut out = Out::default();
                        self.panes[self.tab].open_by_id(line.trim(), &mut out);
                        self.apply(out);
                    }
                    _ => {}
                }
                return true;
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
            self.panes[self.tab].set_filter(&line);
        }
        true
    }

    fn command(&mut self, line: &str) {
        let word = line.trim_start_matches(':').to_ascii_lowercase();
        match word.as_str() {
            "" => {}
            "q" | "quit" | "exit" => self.quit = true,
            "help" | "h" => self.overlay = Some(Overlay::Help),
            "log" | "logs" => self.overlay = Some(Overlay::Log { scroll: 0 }),
            word => match ALIASES.iter().find(|(alias, _)| *alias == word) {
                Some((_, tab)) => {
                    self.show_tab(*tab);
                    let mut out = Out::default();
                    if self.panes[*tab].action_alias(word, &mut out) {
                        self.apply(out);
                    }
                }
                None => {
                    let known: Vec<&str> = ALIASES.iter().map(|(a, _)| *a).collect();
                    self.toast(Level::Error, format!("no command :{word}; try :{}", known.join(" :")));
                }
            },
        }
    }
}
