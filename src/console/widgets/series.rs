//! A threshold alert's decided windows as a small chart: the window values as a line, the
//! breaching ones dotted, and the threshold as a line across, so a reader sees at a glance how
//! far and for how long the metric ran past it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType};

use crate::api::model::AlertWindow;
use crate::console::theme::Theme;
use crate::console::widgets::text::number;

/// The windows of one group and the threshold they were judged against.
pub struct Series<'a> {
    pub title: String,
    pub windows: &'a [AlertWindow],
    pub threshold: f64,
}

/// Chart points, `(x, y)`.
type Points = Vec<(f64, f64)>;

/// The points a chart draws: `(index, value)` of the windows that had a value, and those of
/// them that breached. Windows under `minSampleSize` have no value and are left out.
pub fn points(windows: &[AlertWindow]) -> (Points, Points) {
    let valued: Vec<(f64, f64, bool)> = windows
        .iter()
        .filter_map(|w| w.value.map(|v| (v, w.breaching)))
        .enumerate()
        .map(|(i, (v, b))| (i as f64, v, b))
        .collect();
    let all = valued.iter().map(|(x, y, _)| (*x, *y)).collect();
    let breaching = valued.iter().filter(|(_, _, b)| *b).map(|(x, y, _)| (*x, *y)).collect();
    (all, breaching)
}

pub fn draw(frame: &mut Frame, area: Rect, series: &Series<'_>, theme: &Theme) {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(format!(" {} ", series.title), theme.title()))
        .border_style(theme.dim());
    let (all, breaching) = points(series.windows);
    if all.is_empty() {
        let text = ratatui::widgets::Paragraph::new(Span::styled("no window decided with a value yet", theme.dim()));
        frame.render_widget(text.block(block), area);
        return;
    }
    let last = (all.len().saturating_sub(1)).max(1) as f64;
    let threshold = [(0.0, series.threshold), (last, series.threshold)];
    let top = all.iter().map(|(_, y)| *y).fold(series.threshold, f64::max) * 1.1;
    let bottom = all.iter().map(|(_, y)| *y).fold(series.threshold.min(0.0), f64::min);
    let datasets = vec![
        Dataset::default().marker(Marker::Braille).graph_type(GraphType::Line).style(theme.dim()).data(&threshold),
        Dataset::default().marker(Marker::Braille).graph_type(GraphType::Line).style(theme.highlight()).data(&all),
        Dataset::default().marker(Marker::Dot).graph_type(GraphType::Scatter).style(theme.error()).data(&breaching),
    ];
    let labels = [number(bottom.round()), number(series.threshold), number(top.round())];
    let chart = Chart::new(datasets)
        .block(block)
        .x_axis(Axis::default().bounds([0.0, last]))
        .y_axis(Axis::default().bounds([bottom, top]).labels(labels.map(|l| Span::styled(l, theme.dim()))));
    frame.render_widget(chart, area);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::Timestamp;

    fn window(value: Option<f64>, breaching: bool) -> AlertWindow {
        AlertWindow { start: Timestamp("2026-10-30T21:00:00Z".into()), value, samples: 3, breaching }
    }

    #[test]
    fn windows_without_a_value_are_left_out_and_breaching_ones_are_marked() {
        let windows = [window(None, false), window(Some(3.0), false), window(Some(12.0), true)];
        let (all, breaching) = points(&windows);
        assert_eq!(all, [(0.0, 3.0), (1.0, 12.0)]);
        assert_eq!(breaching, [(1.0, 12.0)]);
    }
}
