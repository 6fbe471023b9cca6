//! Text helpers that count terminal cells, not bytes, so wide characters never break a layout.

use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// `text` cut to at most `width` cells, ending in `…` when cut.
pub fn fit(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// `line` cut to at most `width` cells, ending in `…` (in the style of the span cut) when cut.
pub fn fit_line(line: Line<'_>, width: usize) -> Line<'_> {
    if line.width() <= width {
        return line;
    }
    // Everything up to one cell short of the edge, then `…`.
    let budget = width.saturating_sub(1);
    let mut spans = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let w = span.content.width();
        if used + w <= budget {
            used += w;
            spans.push(span);
            continue;
        }
        let mut head = String::new();
        for c in span.content.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > budget {
                break;
            }
            head.push(c);
            used += cw;
        }
        if width > 0 {
            head.push('…');
        }
        spans.push(Span::styled(head, span.style));
        break;
    }
    Line { spans, ..line }
}

/// A duration in ms as `1m 05s`, `3.2s` or `850ms`.
pub fn duration_ms(ms: i64) -> String {
    let ms = ms.max(0);
    if ms < 1_000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else if ms < 3_600_000 {
        format!("{}m {:02}s", ms / 60_000, (ms / 1000) % 60)
    } else {
        format!("{}h {:02}m", ms / 3_600_000, (ms / 60_000) % 60)
    }
}

/// An offset in a call as `mm:ss.s`.
pub fn offset_ms(ms: i64) -> String {
    let ms = ms.max(0);
    format!("{:02}:{:04.1}", ms / 60_000, (ms % 60_000) as f64 / 1000.0)
}

/// A timestamp as `YYYY-MM-DD HH:MM:SS` UTC, or its raw text when it does not parse.
pub fn when(ts: Option<&crate::api::model::Timestamp>) -> String {
    match ts {
        None => "—".into(),
        Some(ts) => match ts.parse() {
            Some(t) => t.strftime("%Y-%m-%d %H:%M:%S").to_string(),
            None => ts.as_str().to_string(),
        },
    }
}

/// How long ago `ts` was, relative to `now`: `5s`, `3m`, `2h`, `4d`.
pub fn ago(ts: Option<&crate::api::model::Timestamp>, now: jiff::Timestamp) -> String {
    let Some(t) = ts.and_then(|t| t.parse()) else { return "—".into() };
    let secs = now.as_second() - t.as_second();
    let secs = secs.max(0);
    match secs {
        s if s < 60 => format!("{s}s ago"),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3600),
        s => format!("{}d ago", s / 86_400),
    }
}

/// A number without trailing zeros: 3, 0.25, 12.5.
pub fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        let text = format!("{value:.3}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A phone number as people read it: `+15035550123` → `+1 503 555 0123` (North American
/// numbers); anything else as it is.
pub fn phone(value: &str) -> String {
    let digits = value.strip_prefix("+1").filter(|d| d.len() == 10 && d.bytes().all(|b| b.is_ascii_digit()));
    match digits {
        Some(d) => format!("+1 {} {} {}", &d[..3], &d[3..6], &d[6..]),
        None => value.to_string(),
    }
}

pub fn or_dash(text: Option<&str>) -> String {
    text.filter(|t| !t.is_empty()).unwrap_or("—").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_counts_cells_not_bytes() {
        assert_eq!(fit("予約の変更", 6), "予約…");
        assert_eq!(fit("予約", 4), "予約");
        assert_eq!(fit("abcdef", 4), "abc…");
        assert!(fit("予約の変更", 5).width() <= 5);
    }

    #[test]
    fn fit_line_cuts_across_spans_and_keeps_styles() {
        let line = Line::from(vec![Span::raw("ab"), Span::styled("cdef", ratatui::style::Style::new().bold())]);
        let cut = fit_line(line.clone(), 4);
        assert_eq!(cut.width(), 4);
        assert_eq!(cut.spans[1].content, "c…");
        assert_eq!(cut.spans[1].style, ratatui::style::Style::new().bold());
        assert_eq!(fit_line(line.clone(), 6), line, "what fits is untouched");
        let at_edge = fit_line(Line::from(vec![Span::raw("ab"), Span::raw("cd")]), 3);
        assert_eq!(at_edge.width(), 3);
        assert_eq!(at_edge.spans.iter().map(|s| s.content.as_ref()).collect::<String>(), "ab…");
    }

    #[test]
    fn numbers_and_durations_read_well() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(duration_ms(65_000), "1m 05s");
        assert_eq!(duration_ms(850), "850ms");
        assert_eq!(offset_ms(61_500), "01:01.5");
        assert_eq!(phone("+15035550123"), "+1 503 555 0123");
        assert_eq!(phone("+44 20 7946 0958"), "+44 20 7946 0958");
    }
}
