//! Colours and text styles. Every status is drawn as its text plus a colour for its family,
//! so colour never carries meaning alone; with `NO_COLOR` (or theme "mono") only modifiers remain.

use ratatui::style::{Color, Modifier, Style};

/// The family a status belongs to, guessed from its text so unseen values still read well.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Waiting,
    Running,
    Done,
    Failed,
    Cancelled,
    Other,
}

impl Family {
    /// Families by the words statuses use; checked in order, so `NOT_STARTED` is waiting, not running.
    pub fn of(status: &str) -> Family {
        let s = status.to_ascii_uppercase();
        // Whole words by their stems: CANCEL matches CANCELLED and CANCELED, not SOMETHING_NEWER.
        let words: Vec<&str> = s.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
        let has = |stems: &[&str]| words.iter().any(|w| stems.iter().any(|stem| w.starts_with(stem)));
        let is = |exact: &[&str]| words.iter().any(|w| exact.contains(w));
        if s.starts_with("NOT_STARTED") {
            Family::Waiting
        } else if has(&["CANCEL", "ABORT", "SKIP", "INACTIVE", "SUPERSEDED", "DEPRECATED"]) || is(&["NOT"]) {
            Family::Cancelled
        } else if has(&["FAIL", "ERROR", "TIMED", "TIMEOUT", "REJECT", "MISSING", "EXPIRED"]) {
            Family::Failed
        } else if has(&["QUEUE", "PENDING", "WAIT", "SCHEDULED", "CREATED", "INITIAL"]) || is(&["OPEN", "NEW"]) {
            Family::Waiting
        } else if has(&["RUNNING", "PROGRESS", "PROCESSING", "STARTED", "ACTIVE", "ANALYZ", "ACKNOWLEDGED", "RETRY"]) {
            Family::Running
        } else if has(&["COMPLET", "SUCCE", "ENDED", "READY", "RESOLVED", "DONE", "CURRENT", "PASS", "FINISH"]) {
            Family::Done
        } else {
            Family::Other
        }
    }
}

/// The console's styles.
#[derive(Debug, Clone)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// `name` from config ("default" or "mono"); `NO_COLOR` set to anything non-empty wins.
    pub fn new(name: &str, no_color: bool) -> Theme {
        Theme { color: !no_color && name != "mono" }
    }

    /// The theme the environment asks for.
    pub fn from_env(name: &str) -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme::new(name, no_color)
    }

    fn fg(&self, color: Color) -> Style {
        if self.color { Style::new().fg(color) } else { Style::new() }
    }

    pub fn family(&self, family: Family) -> Style {
        match family {
            Family::Waiting => self.fg(Color::Yellow),
            Family::Running => self.fg(Color::Cyan),
            Family::Done => self.fg(Color::Green),
            Family::Failed => self.fg(Color::Red).add_modifier(Modifier::BOLD),
            Family::Cancelled => self.fg(Color::DarkGray),
            Family::Other => self.fg(Color::Magenta),
        }
    }

    pub fn status(&self, status: &str) -> Style {
        self.family(Family::of(status))
    }

    pub fn severity(&self, severity: &str) -> Style {
        match severity {
            "CRITICAL" => self.fg(Color::Red).add_modifier(Modifier::BOLD),
            "HIGH" => self.fg(Color::LightRed),
            "MEDIUM" => self.fg(Color::Yellow),
            "LOW" => self.fg(Color::Blue),
            _ => self.fg(Color::Magenta),
        }
    }

    pub fn title(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
    pub fn heading(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }
    pub fn dim(&self) -> Style {
        if self.color { Style::new().fg(Color::DarkGray) } else { Style::new().add_modifier(Modifier::DIM) }
    }
    pub fn key(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }
    pub fn selected(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }
    pub fn highlight(&self) -> Style {
        self.fg(Color::LightYellow).add_modifier(Modifier::BOLD)
    }
    pub fn error(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    pub fn warn(&self) -> Style {
        self.fg(Color::Yellow)
    }
    pub fn ok(&self) -> Style {
        self.fg(Color::Green)
    }
    pub fn customer(&self) -> Style {
        self.fg(Color::LightBlue)
    }
    pub fn agent(&self) -> Style {
        self.fg(Color::LightGreen)
    }
    pub fn link(&self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::UNDERLINED)
    }
    pub fn banner(&self) -> Style {
        if self.color {
            Style::new().bg(Color::Red).fg(Color::White).add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        }
    }
    pub fn stale(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::ITALIC)
    }
    pub fn active_tab(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD | Modifier::REVERSED)
    }
}

#[cfg(test)]
mod tests {
    use super::Family::{self, *};

    #[test]
    fn families_cover_known_and_unseen_statuses() {
        let cases = [
            ("QUEUED", Waiting),
            ("PENDING", Waiting),
            ("NOT_STARTED", Waiting),
            ("RUNNING", Running),
            ("RUNNING_SIMULATIONS", Running),
            ("IN_PROGRESS", Running),
            ("COMPLETED", Done),
            ("SUCCESS", Done),
            ("FAILED", Failed),
            ("TIMED_OUT", Failed),
            ("DATA_MISSING", Failed),
            ("CANCELLED", Cancelled),
            ("CANCELED", Cancelled),
            ("SOMETHING_NEWISH", Other),
            ("NOT_APPLICABLE", Cancelled),
            ("ACKNOWLEDGED", Running),
        ];
        for (status, family) in cases {
            assert_eq!(Family::of(status), family, "{status}");
        }
    }

    #[test]
    fn no_color_keeps_modifiers_only() {
        let theme = super::Theme::new("default", true);
        assert_eq!(theme.status("RUNNING").fg, None);
        assert!(theme.selected().add_modifier.contains(ratatui::style::Modifier::REVERSED));
    }
}
