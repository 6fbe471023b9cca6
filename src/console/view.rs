//! Draws the whole screen from the app's state: header, tabs, banner, the pane, the footer,
//! toasts and overlays. Nothing here changes state.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use unicode_width::UnicodeWidthStr;

use super::app::{App, Connection, Overlay, Prompt, RawSource};
use super::keymap::Action;
use super::message::Level;
use super::pane::ViewCtx;
use super::tab::Tab;
use super::widgets::text::{fit, fit_line};

/// Global keys shown in help after the pane's own.
const GLOBAL: &[Action] = &[
    Action::Help,
    Action::Command,
    Action::Filter,
    Action::Back,
    Action::Refresh,
    Action::Copy,
    Action::Raw,
    Action::OpenById,
    Action::Log,
    Action::NextTab,
    Action::PrevTab,
    Action::Up,
    Action::Down,
    Action::PageUp,
    Action::PageDown,
    Action::Top,
    Action::Bottom,
    Action::Quit,
];

pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    let banner = matches!(app.connection, Connection::Disconnected { .. } | Connection::Rejected { .. });
    let [header, tabs, banner_area, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(banner as u16),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_header(frame, header, app);
    draw_tabs(frame, tabs, app);
    if let Some(text) = banner_text(app) {
        frame.render_widget(Line::styled(fit(&text, area.width as usize), app.settings.theme.banner()), banner_area);
    }
    let ctx = ViewCtx { theme: &app.settings.theme, now: app.now, keys: &app.settings.keymap, marks: &app.marks };
    match &app.call {
        Some(call) => call.draw(frame, body, &ctx),
        None => app.pane().draw(frame, body, &ctx),
    }
    draw_footer(frame, footer, app);
    app.modal.draw(frame, body, &app.settings.theme);
    draw_toasts(frame, body, app);
    match &app.overlay {
        Some(Overlay::Help) => draw_help(frame, body, app),
        Some(Overlay::Raw { title, text, scroll, source }) => {
            let title = match source {
                RawSource::Decoded => format!("raw JSON · {title} · as decoded"),
                RawSource::Loading(path) => format!("raw JSON · GET {path} · loading (as decoded meanwhile)"),
                RawSource::Sent(path) => format!("raw JSON · GET {path}"),
                RawSource::Failed(why) => format!("raw JSON · {title} · as decoded (GET failed: {why})"),
            };
            draw_text(frame, body, app, &title, text, *scroll)
        }
        Some(Overlay::Log { scroll }) => {
            let text = if app.log.is_empty() {
                "nothing logged in this session".to_string()
            } else {
                app.log
                    .iter()
                    .rev()
                    .map(|l| {
                        let level = if l.level == Level::Error { "error" } else { "info " };
                        format!("{} {level} {}", l.at.strftime("%H:%M:%S"), l.text)
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            draw_text(frame, body, app, "log (newest first)", &text, *scroll)
        }
        None => {}
    }
}

/// The banner while the service is lost or refuses the key, in true words: cached data only
/// when there is some, "not connected" when it never answered, and where a rejected key came
/// from.
fn banner_text(app: &App) -> Option<String> {
    let cached = if app.has_cached_data() { "showing cached data" } else { "nothing cached to show" };
    match &app.connection {
        Connection::Disconnected { attempt, retry_in, reason, .. } => {
            let word = if app.ever_connected { "DISCONNECTED" } else { "NOT CONNECTED" };
            Some(format!(
                " {word} · {cached} · retry {attempt} in {:.0}s (r to retry now) · {reason}",
                retry_in.as_secs_f64().ceil()
            ))
        }
        Connection::Rejected { status, reason, .. } => {
            let fix = match &app.settings.key_source {
                Some(source) => format!("the key from the {source} was refused: give another"),
                None => "no key was given: set SWITCHBOARD_API_KEY or run switchboard login".into(),
            };
            Some(format!(" KEY REJECTED ({status}) · {cached} · {fix}; retrying by itself (r to retry now) · {reason}"))
        }
        _ => None,
    }
}

fn draw_header(frame: &mut Frame, area: Rect, app: &App) {
    let theme = &app.settings.theme;
    let style = match &app.connection {
        Connection::Connecting => theme.warn(),
        connection if connection.is_up() => theme.ok(),
        _ => theme.error(),
    };
    let state = app.connection.state(app.ever_connected);
    let mut spans = vec![
        Span::styled(" switchboard ", theme.title()),
        Span::styled(format!("{} ", app.settings.service), theme.heading()),
        Span::styled(format!("[{}] ", app.settings.profile), theme.dim()),
        Span::styled(state, style),
    ];
    if app.settings.read_only {
        spans.push(Span::styled(" read-only", theme.warn()));
    }
    if !app.marks.is_empty() {
        let text = format!(
            " {} {} marked ({} clears)",
            crate::console::marks::MARKER,
            app.marks.len(),
            app.settings.keymap.first_key(Action::Unmark)
        );
        spans.push(Span::styled(text, theme.key()));
    }
    frame.render_widget(Line::from(spans), area);
}

fn draw_tabs(frame: &mut Frame, area: Rect, app: &App) {
    let theme = &app.settings.theme;
    let narrow = area.width < 100;
    let mut spans = Vec::new();
    for tab in Tab::ALL {
        let title = if narrow { tab.short() } else { tab.title() };
        let label = format!(" {} {} ", tab.index() + 1, title);
        let style = if tab == app.tab { theme.active_tab() } else { theme.dim() };
        spans.push(Span::styled(label, style));
    }
    frame.render_widget(Line::from(spans), area);
}

fn draw_footer(frame: &mut Frame, area: Rect, app: &App) {
    let theme = &app.settings.theme;
    let line = match &app.prompt {
        Some(Prompt::Command(text)) => {
            let mut spans = vec![Span::styled(":", theme.key()), Span::raw(format!("{text}▏"))];
            let found = app.prompt_hints(text);
            if !found.is_empty() {
                let between = if text.contains(' ') { " · " } else { " " };
                spans.push(Span::styled(format!("  {} · tab completes", found.join(between)), theme.dim()));
            }
            Line::from(spans)
        }
        Some(Prompt::Filter(text)) => Line::from(vec![
            Span::styled("/", theme.key()),
            Span::raw(format!("{text}▏")),
            Span::styled("  enter keep · esc clear", theme.dim()),
        ]),
        Some(Prompt::OpenById(text)) => {
            Line::from(vec![Span::styled("open id: ", theme.key()), Span::raw(format!("{text}▏"))])
        }
        None if app.modal.is_open() => fit_line(modal_hints(app), area.width as usize),
        None => hints(app, area.width as usize),
    };
    frame.render_widget(line, area);
}

/// The footer while a form or dialog is open: its own keys, since the tab's keys are text there.
fn modal_hints(app: &App) -> Line<'static> {
    let theme = &app.settings.theme;
    let keys: &[(&str, &str)] = match app.modal.current_form() {
        Some(_) if !app.modal.asking() => &[
            ("enter", "send"),
            ("tab ↑↓", "field"),
            ("←→", "choose"),
            ("space", "pick"),
            ("esc", "cancel"),
            ("F1", "every key"),
        ],
        _ => &[("y enter", "yes"), ("n esc", "no")],
    };
    let spans = keys
        .iter()
        .flat_map(|(key, text)| [Span::styled(*key, theme.key()), Span::styled(format!(" {text}  "), theme.dim())]);
    Line::from(spans.collect::<Vec<_>>())
}

/// The footer's key hints in `width` cells: as many of the view's first five as fit, in
/// order, then `:` and `q` if they still fit, and always `? help` last.
fn hints(app: &App, width: usize) -> Line<'static> {
    let theme = &app.settings.theme;
    let keys = &app.settings.keymap;
    let read_only = app.settings.read_only;
    let cells = |(action, text): &(Action, &str)| keys.first_key(*action).width() + text.width() + 3;
    let help = (Action::Help, "help");
    // The last hint's two trailing spaces may fall off the edge.
    let mut room = (width + 2).saturating_sub(cells(&help));
    let wanted = app.help_keys().into_iter().filter(|(a, _)| !(read_only && a.is_write())).take(5);
    let mut shown = Vec::new();
    for hint in wanted {
        if cells(&hint) > room {
            break;
        }
        room -= cells(&hint);
        shown.push(hint);
    }
    for hint in [(Action::Command, "command"), (Action::Quit, "quit")] {
        if cells(&hint) <= room {
            room -= cells(&hint);
            shown.push(hint);
        }
    }
    let mut spans = Vec::new();
    for (action, text) in shown.into_iter().chain([help]) {
        spans.push(Span::styled(keys.first_key(action), theme.key()));
        spans.push(Span::styled(format!(" {text}  "), theme.dim()));
    }
    Line::from(spans)
}

fn draw_toasts(frame: &mut Frame, body: Rect, app: &App) {
    let theme = &app.settings.theme;
    let width = (body.width / 2).max(30).min(body.width);
    let log_key = app.settings.keymap.first_key(Action::Log);
    for (i, toast) in app.toasts.iter().rev().enumerate() {
        let y = body.bottom().saturating_sub(1 + i as u16);
        if y <= body.y {
            break;
        }
        let style = if toast.level == Level::Error { theme.error() } else { theme.ok() };
        let mark = if toast.level == Level::Error { "✗ " } else { "✓ " };
        let room = width as usize - 2;
        let whole = format!("{mark}{}", toast.text);
        // A cut toast says where to read it whole: the log keeps every toast.
        let text = match whole.width() > room {
            true => format!("{} ({log_key})", fit(&whole, room.saturating_sub(log_key.width() + 3))),
            false => whole,
        };
        let area = Rect { x: body.right().saturating_sub(width + 1), y, width, height: 1 };
        frame.render_widget(Clear, area);
        frame.render_widget(Line::styled(format!(" {text}"), style).right_aligned(), area);
    }
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect { x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2, width, height }
}

/// A form's keys, for F1 while one is open (every other key is text there).
const FORM_KEYS: &[(&str, &str)] = &[
    ("enter", "send (refused while a field is marked ✗)"),
    ("tab ↓", "next field"),
    ("shift-tab ↑", "previous field"),
    ("← →", "change a choice; browse a pick's options"),
    ("a–z 0–9 …", "in a choice or pick: filter its options as you type"),
    ("space", "next choice; pick or unpick the option shown"),
    ("ctrl-u", "clear a text field or a filter"),
    ("esc", "cancel (asks first when something was changed)"),
    ("ctrl-c", "quit"),
];

fn draw_help(frame: &mut Frame, body: Rect, app: &App) {
    let theme = &app.settings.theme;
    let keys = &app.settings.keymap;
    if app.modal.is_open() {
        let mut lines = vec![Line::styled("in a form", theme.heading())];
        for (key, help) in FORM_KEYS {
            lines.push(Line::from(vec![Span::styled(format!("  {key:<13} "), theme.key()), Span::raw(*help)]));
        }
        let area = centered(body, 72, lines.len() as u16 + 2);
        frame.render_widget(Clear, area);
        let block = Block::default().borders(Borders::ALL).title(" help · esc closes ").border_style(theme.title());
        frame.render_widget(Paragraph::new(Text::from(lines)).block(block), area);
        return;
    }
    let title = if app.call.is_some() { "call" } else { app.tab.title() };
    let mut lines = vec![Line::raw(app.about()), Line::styled(format!("{title} "), theme.heading())];
    let read_only = app.settings.read_only;
    let pane: Vec<_> = app.help_keys().into_iter().filter(|(a, _)| !(read_only && a.is_write())).collect();
    for (action, help) in &pane {
        lines.push(Line::from(vec![
            Span::styled(format!("  {:<13} ", keys.keys_of(*action)), theme.key()),
            Span::raw(*help),
        ]));
    }
    lines.push(Line::styled("everywhere", theme.heading()));
    for action in GLOBAL.iter().filter(|a| !pane.iter().any(|(p, _)| p == *a)) {
        lines.push(Line::from(vec![
            Span::styled(format!("  {:<13} ", keys.keys_of(*action)), theme.key()),
            Span::raw(action.help()),
        ]));
    }
    if !read_only {
        // The marks' four keys on one line, so help still fits at 80×24.
        let marks = [Action::Mark, Action::Unmark, Action::FileIssue, Action::Collect].map(|a| keys.first_key(a));
        lines.push(Line::from(vec![
            Span::styled(format!("  {:<13} ", marks.join("/")), theme.key()),
            Span::raw("mark, clear, issue, job"),
        ]));
    }
    lines.push(Line::from(vec![
        Span::styled(format!("  {:<13} ", "1–7"), theme.key()),
        Span::raw("tabs (:plans :jobs :metrics …)"),
    ]));
    // Two columns when one does not fit (80×24), so help never loses lines.
    let two = lines.len() as u16 + 2 > body.height;
    let width = if two { body.width } else { 72 };
    let rows = if two { lines.len().div_ceil(2) } else { lines.len() };
    let area = if two { body } else { centered(body, width, rows as u16 + 2) };
    frame.render_widget(Clear, area);
    let block = Block::default().borders(Borders::ALL).title(" help · esc closes ").border_style(theme.title());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if two {
        let right = lines.split_off(rows);
        let [a, b] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(inner);
        frame.render_widget(Paragraph::new(Text::from(lines)).wrap(Wrap { trim: false }), a);
        frame.render_widget(Paragraph::new(Text::from(right)).wrap(Wrap { trim: false }), b);
    } else {
        frame.render_widget(Paragraph::new(Text::from(lines)), inner);
    }
}

fn draw_text(frame: &mut Frame, body: Rect, app: &App, title: &str, text: &str, scroll: u16) {
    let theme = &app.settings.theme;
    // The whole body, so no column of the table beneath shows beside it.
    let area = body;
    frame.render_widget(Clear, area);
    let block =
        Block::default().borders(Borders::ALL).title(format!(" {title} · esc closes ")).border_style(theme.title());
    frame.render_widget(
        Paragraph::new(text.to_string()).block(block).wrap(Wrap { trim: false }).scroll((scroll, 0)),
        area,
    );
}
