//! Actions and the keys bound to them. Help is generated from this table, so it cannot drift
//! from the keys; `[keys]` in config.toml rebinds any action by name.

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::tab::Tab;

macro_rules! actions {
    ($($variant:ident = $name:literal, $help:literal, [$($key:literal),*];)*) => {
        /// What a key asks the console to do.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Action { $($variant),* }

        impl Action {
            pub const ALL: &[Action] = &[$(Action::$variant),*];

            /// The name used in config.toml.
            pub fn name(self) -> &'static str {
                match self { $(Action::$variant => $name),* }
            }

            /// What the action does, for help (a tab's key says the tab's name).
            pub fn help(self) -> &'static str {
                if let Some(tab) = self.tab() {
                    return tab.key_help();
                }
                match self { $(Action::$variant => $help),* }
            }

            fn default_keys(self) -> &'static [&'static str] {
                match self { $(Action::$variant => &[$($key),*]),* }
            }
        }
    };
}

actions! {
    Quit = "quit", "quit", ["q", "ctrl-c"];
    Help = "help", "show or hide help", ["?"];
    Command = "command", "commands, e.g. :call ID", [":"];
    Filter = "filter", "filter as you type", ["/"];
    Back = "back", "go back, close", ["esc"];
    Refresh = "refresh", "refresh", ["r", "f5"];
    Copy = "copy", "copy the id (OSC 52)", ["y"];
    Raw = "raw", "raw JSON", ["v"];
    NextTab = "next_tab", "next tab", ["tab"];
    PrevTab = "prev_tab", "previous tab", ["backtab"];
    // The tabs' keys, in `Tab::ALL`'s order; their help is the tab's (`Tab::key_help`).
    Tab1 = "tab_1", "", ["1"];
    Tab2 = "tab_2", "", ["2"];
    Tab3 = "tab_3", "", ["3"];
    Tab4 = "tab_4", "", ["4"];
    Tab5 = "tab_5", "", ["5"];
    Tab6 = "tab_6", "", ["6"];
    Tab7 = "tab_7", "", ["7"];
    Up = "up", "move up", ["k", "up"];
    Down = "down", "move down", ["j", "down"];
    PageUp = "page_up", "page up", ["pageup", "ctrl-u", "ctrl-b"];
    PageDown = "page_down", "page down", ["pagedown", "ctrl-d", "ctrl-f"];
    Top = "top", "first row", ["g", "home"];
    Bottom = "bottom", "last row", ["G", "end"];
    Open = "open", "open the selection", ["enter"];
    Detail = "detail", "focus the detail beside the list", ["i"];
    Left = "left", "previous section", ["h", "left"];
    Right = "right", "next section", ["l", "right"];
    Sort = "sort", "sort by the next column", ["s"];
    SortReverse = "sort_reverse", "reverse the sort", ["S"];
    ToggleAll = "toggle_all", "success or all values", ["a"];
    StatusFilter = "status_filter", "cycle the status filter", ["f"];
    SecondFilter = "second_filter", "second filter", ["F"];
    Summary = "summary", "per-metric summary; in the jobs list, mark the job to compare against", ["m"];
    Compare = "compare", "compare the selected job with the marked one", ["="];
    Flaky = "flaky", "the plan's flaky checks over its last runs", ["!"];
    LabelRight = "label_right", "label the judge's value right", ["+"];
    LabelWrong = "label_wrong", "label the judge's value wrong", ["-"];
    NextItem = "next_item", "next sample", ["n"];
    PrevItem = "prev_item", "previous sample", ["p", "N"];
    OpenById = "open_by_id", "open a resource by id", ["o"];
    Log = "log", "the log of every toast", ["L"];
    Run = "run", "run (a form)", ["R"];
    Threshold = "threshold", "create a threshold (a form)", ["T"];
    Edit = "edit", "edit (in $EDITOR, or a form)", ["e"];
    Create = "create", "create new (in $EDITOR, or a form)", ["c"];
    Delete = "delete", "delete (asks first)", ["d"];
    Form = "form", "the form, where e and c open the editor", ["E"];
    Duplicate = "duplicate", "duplicate", ["D"];
    ToggleActive = "toggle_active", "activate or deactivate", ["t"];
    Cancel = "cancel", "cancel (asks first)", ["x"];
    Mark = "mark", "mark or unmark the call", ["space"];
    Unmark = "unmark", "clear the marks", ["U"];
    FileIssue = "file_issue", "file an issue from the marks", ["I"];
    Collect = "collect", "start a collection job", ["C"];
    NextFailure = "next_failure", "next failing simulation", ["]"];
    PrevFailure = "prev_failure", "previous failing simulation", ["["];
    Zoom = "zoom", "zoom one side to the whole screen", ["z"];
}

/// The number keys' actions, one per tab of `Tab::ALL`, in its order.
const TAB_KEYS: [Action; Tab::ALL.len()] =
    [Action::Tab1, Action::Tab2, Action::Tab3, Action::Tab4, Action::Tab5, Action::Tab6, Action::Tab7];

impl Action {
    /// The tab this action's number key shows, if it is one.
    pub fn tab(self) -> Option<Tab> {
        TAB_KEYS.iter().position(|a| *a == self).map(Tab::at)
    }

    /// Whether the action changes the service: hidden and blocked in read-only mode.
    pub fn is_write(self) -> bool {
        matches!(
            self,
            Action::Run
                | Action::Threshold
                | Action::Edit
                | Action::Create
                | Action::Form
                | Action::Delete
                | Action::Duplicate
                | Action::ToggleActive
                | Action::Cancel
                | Action::Mark
                | Action::Unmark
                | Action::FileIssue
                | Action::Collect
                | Action::LabelRight
                | Action::LabelWrong
        )
    }
}

/// Keys to actions, after the config's rebindings.
#[derive(Debug, Clone)]
pub struct KeyMap {
    bindings: Vec<(KeyEvent, Action)>,
}

impl Default for KeyMap {
    fn default() -> Self {
        KeyMap::new(&BTreeMap::new()).0
    }
}

impl KeyMap {
    /// The default bindings with `overrides` (action name → keys) applied, plus warnings for
    /// names or keys that mean nothing; a rebinding replaces all of the action's default keys.
    pub fn new(overrides: &BTreeMap<String, Vec<String>>) -> (KeyMap, Vec<String>) {
        let mut warnings = Vec::new();
        for name in overrides.keys() {
            if !Action::ALL.iter().any(|a| a.name() == name) {
                warnings.push(format!("[keys] {name:?} is not an action; known: {}", action_names()));
            }
        }
        let mut bindings = Vec::new();
        for &action in Action::ALL {
            let keys: Vec<&str> = match overrides.get(action.name()) {
                Some(keys) => keys.iter().map(String::as_str).collect(),
                None => action.default_keys().to_vec(),
            };
            for key in keys {
                match parse_key(key) {
                    Some(event) => bindings.push((event, action)),
                    None => warnings.push(format!("[keys] {}: {key:?} is not a key", action.name())),
                }
            }
        }
        (KeyMap { bindings }, warnings)
    }

    /// The action bound to `key`, if any. Shift on a character is carried by the character.
    pub fn action(&self, key: &KeyEvent) -> Option<Action> {
        let key = normalize(*key);
        self.bindings.iter().find(|(k, _)| *k == key).map(|(_, a)| *a)
    }

    /// The first two keys bound to `action`, as shown in help ("j/↓").
    pub fn keys_of(&self, action: Action) -> String {
        let keys: Vec<String> =
            self.bindings.iter().filter(|(_, a)| *a == action).take(2).map(|(k, _)| show_key(k)).collect();
        if keys.is_empty() { "unbound".into() } else { keys.join("/") }
    }

    /// The first key of `action`, for hints in the footer.
    pub fn first_key(&self, action: Action) -> String {
        self.bindings.iter().find(|(_, a)| *a == action).map(|(k, _)| show_key(k)).unwrap_or_else(|| "—".into())
    }
}

fn action_names() -> String {
    Action::ALL.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")
}

fn normalize(mut key: KeyEvent) -> KeyEvent {
    if let KeyCode::Char(_) = key.code {
        key.modifiers.remove(KeyModifiers::SHIFT);
    }
    if key.code == KeyCode::BackTab {
        key.modifiers.remove(KeyModifiers::SHIFT);
    }
    KeyEvent::new(key.code, key.modifiers)
}

/// Parses "q", "G", "ctrl-c", "shift-tab", "enter", "pagedown", "f5", "space", …
pub fn parse_key(text: &str) -> Option<KeyEvent> {
    let mut modifiers = KeyModifiers::NONE;
    let mut rest = text;
    loop {
        let lower = rest.to_ascii_lowercase();
        if let Some(stripped) = lower.strip_prefix("ctrl-").or_else(|| lower.strip_prefix("c-")) {
            modifiers |= KeyModifiers::CONTROL;
            rest = &rest[rest.len() - stripped.len()..];
        } else if let Some(stripped) = lower.strip_prefix("alt-") {
            modifiers |= KeyModifiers::ALT;
            rest = &rest[rest.len() - stripped.len()..];
        } else if lower.starts_with("shift-") && rest.len() > 6 {
            modifiers |= KeyModifiers::SHIFT;
            rest = &rest[6..];
        } else {
            break;
        }
    }
    let code = match rest.to_ascii_lowercase().as_str() {
        "enter" | "return" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" if modifiers.contains(KeyModifiers::SHIFT) => {
            modifiers.remove(KeyModifiers::SHIFT);
            KeyCode::BackTab
        }
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "pageup" | "pgup" => KeyCode::PageUp,
        "pagedown" | "pgdn" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "space" => KeyCode::Char(' '),
        "backspace" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        f if f.len() >= 2 && f.starts_with('f') && f[1..].parse::<u8>().is_ok() => KeyCode::F(f[1..].parse().ok()?),
        _ => {
            let mut chars = rest.chars();
            let c = chars.next()?;
            if chars.next().is_some() {
                return None;
            }
            let c = if modifiers.contains(KeyModifiers::SHIFT) { c.to_ascii_uppercase() } else { c };
            modifiers.remove(KeyModifiers::SHIFT);
            KeyCode::Char(c)
        }
    };
    Some(KeyEvent::new(code, modifiers))
}

fn show_key(key: &KeyEvent) -> String {
    let mut out = String::new();
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        out.push_str("ctrl-");
    }
    if key.modifiers.contains(KeyModifiers::ALT) {
        out.push_str("alt-");
    }
    let code = match key.code {
        KeyCode::Char(' ') => "space".into(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Enter => "enter".into(),
        KeyCode::Esc => "esc".into(),
        KeyCode::Tab => "tab".into(),
        KeyCode::BackTab => "shift-tab".into(),
        KeyCode::Up => "↑".into(),
        KeyCode::Down => "↓".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::PageUp => "pgup".into(),
        KeyCode::PageDown => "pgdn".into(),
        KeyCode::Home => "home".into(),
        KeyCode::End => "end".into(),
        KeyCode::F(n) => format!("f{n}"),
        other => format!("{other:?}").to_lowercase(),
    };
    out.push_str(&code);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn each_number_key_shows_its_tab_and_says_its_name() {
        let tabs: Vec<Tab> = Action::ALL.iter().filter_map(|a| a.tab()).collect();
        assert_eq!(tabs, Tab::ALL, "one number key per tab, in order");
        assert_eq!(Action::Tab2.help(), "jobs (live)");
        assert_eq!(Action::Tab6.help(), Tab::Catalog.title());
        assert_eq!(Action::Quit.tab(), None);
    }

    #[test]
    fn vim_and_arrow_keys_both_work_by_default() {
        let map = KeyMap::default();
        assert_eq!(map.action(&key(KeyCode::Char('j'), KeyModifiers::NONE)), Some(Action::Down));
        assert_eq!(map.action(&key(KeyCode::Down, KeyModifiers::NONE)), Some(Action::Down));
        assert_eq!(map.action(&key(KeyCode::Char('G'), KeyModifiers::SHIFT)), Some(Action::Bottom));
        assert_eq!(map.action(&key(KeyCode::BackTab, KeyModifiers::SHIFT)), Some(Action::PrevTab));
        assert_eq!(map.action(&key(KeyCode::Char('c'), KeyModifiers::CONTROL)), Some(Action::Quit));
    }

    #[test]
    fn rebinding_replaces_defaults_and_reports_nonsense() {
        let overrides = BTreeMap::from([
            ("quit".to_string(), vec!["x".to_string()]),
            ("nope".to_string(), vec!["z".to_string()]),
            ("down".to_string(), vec!["ctrl-n".to_string(), "not a key".to_string()]),
        ]);
        let (map, warnings) = KeyMap::new(&overrides);
        assert_eq!(map.action(&key(KeyCode::Char('x'), KeyModifiers::NONE)), Some(Action::Quit));
        assert_eq!(map.action(&key(KeyCode::Char('q'), KeyModifiers::NONE)), None);
        assert_eq!(map.action(&key(KeyCode::Char('n'), KeyModifiers::CONTROL)), Some(Action::Down));
        assert_eq!(map.keys_of(Action::Quit), "x");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings.iter().any(|w| w.contains("\"nope\"")));
        assert!(warnings.iter().any(|w| w.contains("not a key")));
    }

    #[test]
    fn every_default_key_parses() {
        for action in Action::ALL {
            for key in action.default_keys() {
                assert!(parse_key(key).is_some(), "{action:?} {key}");
            }
        }
    }
}
