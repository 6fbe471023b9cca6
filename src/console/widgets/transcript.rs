//! A transcript whose turns wrap: time and speaker beside the first line of each turn, the
//! text continuing in its own column. Only the turns in view are wrapped, so a long call costs
//! what a screenful costs.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::list::{ListState, Load};
use super::text::offset_ms;
use crate::api::model::TranscriptEntry;
use crate::console::theme::Theme;

const AT: usize = 7;
const SPEAKER: usize = 9;

/// The speaker as shown, lower case, and its style.
fn speaker(entry: &TranscriptEntry, theme: &Theme) -> (String, Style) {
    let role = entry.role.as_ref().map(|r| r.as_str().to_string()).unwrap_or_else(|| "—".into());
    let style = if role == "AGENT" {
        theme.agent()
    } else if role.contains("CUSTOMER") {
        theme.customer()
    } else {
        theme.dim()
    };
    // SIMULATED_CUSTOMER reads as "customer": the column is narrow and the call says it is simulated.
    let short = role.rsplit('_').next().unwrap_or(&role).to_lowercase();
    (short, style)
}

/// A turn's text wrapped to `width` (at least one line, even when empty).
fn wrapped(entry: &TranscriptEntry, width: usize) -> Vec<String> {
    let lines: Vec<String> = textwrap::wrap(&entry.text, width.max(1)).into_iter().map(|l| l.into_owned()).collect();
    if lines.is_empty() { vec![String::new()] } else { lines }
}

/// The first turn to draw so that the selected one is in view, moving the window as little as
/// possible.
fn window(list: &ListState<TranscriptEntry>, width: usize, height: usize) -> usize {
    let mut offset = list.offset.get().min(list.len().saturating_sub(1));
    if list.selected <= offset {
        return list.selected;
    }
    let mut used = 0;
    for position in (offset..=list.selected).rev() {
        used += list.visible(position).map_or(1, |e| wrapped(e, width).len());
        if used > height {
            offset = (position + 1).min(list.selected);
            break;
        }
    }
    offset
}

/// Draws the transcript into `area`, its selected turn highlighted when `focused`.
pub fn draw(frame: &mut Frame, area: Rect, list: &ListState<TranscriptEntry>, focused: bool, theme: &Theme) {
    let count = if list.view.len() == list.items.len() {
        format!("[{}] ", list.items.len())
    } else {
        format!("[{}/{}] ", list.view.len(), list.items.len())
    };
    let mut title = vec![Span::styled(" transcript ", theme.title()), Span::styled(count, theme.dim())];
    if !list.filter.is_empty() {
        title.push(Span::styled(format!("/{} ", list.filter), theme.highlight()));
    }
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { theme.title() } else { theme.dim() })
        .title(Line::from(title));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 || inner.width < 12 {
        return;
    }
    let message = match &list.load {
        Load::Loading | Load::Idle if list.items.is_empty() => Some("loading…".to_string()),
        Load::Failed(message) if list.items.is_empty() => Some(format!("could not load: {message}")),
        _ if list.is_empty() && !list.filter.is_empty() => Some(format!("nothing matches /{}", list.filter)),
        _ if list.is_empty() => Some("no transcript".to_string()),
        _ => None,
    };
    if let Some(message) = message {
        frame.render_widget(Paragraph::new(Line::styled(message, theme.dim())).wrap(Wrap { trim: true }), inner);
        return;
    }
    let height = inner.height as usize;
    list.height.set(height);
    let text_width = (inner.width as usize).saturating_sub(AT + SPEAKER + 2).max(8);
    let offset = window(list, text_width, height);
    list.offset.set(offset);
    let mut lines: Vec<Line> = Vec::with_capacity(height);
    for position in offset..list.len() {
        let Some(entry) = list.visible(position) else { break };
        let selected = focused && position == list.selected;
        let (who, style) = speaker(entry, theme);
        for (i, text) in wrapped(entry, text_width).into_iter().enumerate() {
            if lines.len() == height {
                break;
            }
            let (at, who) = if i == 0 { (offset_ms(entry.start_offset_ms), who.clone()) } else { Default::default() };
            let line = Line::from(vec![
                Span::styled(format!("{at:>AT$} "), theme.dim()),
                Span::styled(format!("{who:<SPEAKER$} "), style),
                Span::raw(text),
            ]);
            lines.push(if selected { line.style(theme.selected()) } else { line });
        }
        if lines.len() == height {
            break;
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &str) -> TranscriptEntry {
        TranscriptEntry { start_offset_ms: 0, end_offset_ms: 0, text: text.into(), role: None, participant_id: None }
    }

    #[test]
    fn turns_wrap_on_words_and_an_empty_turn_keeps_a_line() {
        assert_eq!(wrapped(&entry("one two three four"), 9), vec!["one two", "three", "four"]);
        assert_eq!(wrapped(&entry(""), 9), vec![String::new()]);
    }

    #[test]
    fn the_window_follows_the_selection_by_whole_turns() {
        let mut list = ListState::new();
        let shape =
            super::super::list::Shape::new(|e: &TranscriptEntry| e.text.clone(), |_, _, _| std::cmp::Ordering::Equal);
        let items = vec![entry("a b c d"), entry("e"), entry("f g h i"), entry("j")];
        list.replace(items, |e| e.text.clone(), &shape);
        list.selected = 3;
        // Width 3: turns take 2, 1, 2 and 1 lines; four lines of room hold turns 1 to 3.
        assert_eq!(window(&list, 3, 4), 1);
        list.selected = 0;
        assert_eq!(window(&list, 3, 4), 0);
    }
}
