//! A run's verdict as the console shows it: the word in the jobs list, the panel beside a live
//! job's progress (each check's pass rate as a bar against its own minimum, the failures in
//! words), and each simulation's outcome with the reason it failed. The service judges; this
//! only reads `verdict` and `outcome`, and says so where a service sends neither.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::api::model::{
    RunPlanJob, SimulationJob, SimulationOutcome, Verdict, VerdictCheck, VerdictFailure, percent, percent_against,
};
use crate::console::theme::Theme;
use crate::console::widgets::text::fit;

/// The jobs list's SCORE: the mean of the checks' pass rates, for reporting.
pub fn score(job: &RunPlanJob) -> String {
    job.verdict.as_ref().and_then(|v| v.score).map(|s| format!("{s:.0} %")).unwrap_or_else(|| "—".into())
}

/// A simulation's VERDICT: its outcome, `…` while it runs, `—` where the service sends none.
pub fn outcome(sim: &SimulationJob) -> String {
    match &sim.outcome {
        Some(outcome) => outcome.as_str().to_string(),
        None if sim.status.as_ref().is_some_and(|s| s.is_terminal()) => "—".into(),
        None => "…".into(),
    }
}

/// Whether `]` and `[` stop at this simulation.
pub fn is_failing(sim: &SimulationJob) -> bool {
    matches!(sim.outcome, Some(SimulationOutcome::Failed | SimulationOutcome::Error))
}

/// The panel's title: the verdict in one word with the score.
fn title(job: &RunPlanJob, theme: &Theme) -> Line<'static> {
    let word = if job.verdict.is_none() { "none" } else { job.verdict_word() };
    let mut spans = vec![Span::styled(" verdict ", theme.title()), Span::styled(word.to_string(), theme.status(word))];
    if let Some(score) = job.verdict.as_ref().and_then(|v| v.score) {
        spans.push(Span::styled(format!(" · score {score:.0} % "), theme.dim()));
    } else {
        spans.push(Span::raw(" "));
    }
    Line::from(spans)
}

/// The verdict panel: a line per check, then the failures in words.
pub fn draw_panel(frame: &mut Frame, area: Rect, job: Option<&RunPlanJob>, theme: &Theme) {
    let block = Block::default().borders(Borders::ALL).border_style(theme.dim());
    let Some(job) = job else {
        frame.render_widget(block.title(Span::styled(" verdict ", theme.title())), area);
        return;
    };
    let block = block.title(title(job, theme));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(verdict) = &job.verdict else {
        let text = "No verdict: nothing in this plan is a check. Put a threshold on a metric, or add a yes/no \
                    metric, and runs will pass or fail.";
        frame.render_widget(Paragraph::new(Line::styled(text, theme.dim())).wrap(Wrap { trim: true }), inner);
        return;
    };
    let width = inner.width as usize;
    let name_width = verdict.checks.iter().map(|c| c.name().chars().count()).max().unwrap_or(0).clamp(8, width / 3);
    let mut lines: Vec<Line> = verdict.checks.iter().map(|c| check_line(c, name_width, width, theme)).collect();
    let running = !job.has_ended();
    for failure in failures_to_show(verdict, running) {
        lines
            .push(Line::from(vec![Span::styled("✗ ", theme.error()), Span::styled(failure.in_words(), theme.error())]));
    }
    if verdict.checks.is_empty() && lines.is_empty() {
        lines.push(Line::styled("no checks", theme.dim()));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
}

/// The failures worth words now: while a run goes on, "not completed" says nothing new.
pub fn failures_to_show(verdict: &Verdict, running: bool) -> Vec<&VerdictFailure> {
    verdict.failures.iter().filter(|f| !(running && matches!(f, VerdictFailure::RunNotCompleted { .. }))).collect()
}

/// `Task completion  ██████░░│░░  71 % / min 90 %  ✗`: the bar marks the minimum with `│`.
fn check_line(check: &VerdictCheck, name_width: usize, width: usize, theme: &Theme) -> Line<'static> {
    let rate = check.pass_rate.map(|r| percent_against(r, check.min_pass_rate)).unwrap_or_else(|| "—".into());
    let tail = format!(" {rate:>6} / min {} ", percent(check.min_pass_rate));
    let mark = if check.pass_rate.is_none() {
        "·"
    } else if check.passed {
        "✓"
    } else {
        "✗"
    };
    let bar_width = width.saturating_sub(name_width + 1 + tail.chars().count() + 1).min(30);
    let style = match (check.pass_rate, check.passed) {
        (None, _) => theme.dim(),
        (_, true) => theme.ok(),
        (_, false) => theme.error(),
    };
    let mut spans = vec![Span::raw(format!("{:<name_width$} ", fit(&check.name(), name_width)))];
    if bar_width >= 5 {
        spans.push(Span::styled(bar(check.pass_rate, check.min_pass_rate, bar_width), style));
    }
    spans.push(Span::styled(tail, theme.dim()));
    spans.push(Span::styled(mark.to_string(), style));
    Line::from(spans)
}

/// A bar `width` cells long, filled to `rate`, with `│` where the minimum sits.
fn bar(rate: Option<f64>, min: f64, width: usize) -> String {
    let filled = rate.map(|r| ((r / 100.0) * width as f64).round() as usize).unwrap_or(0).min(width);
    let at_min = (((min / 100.0) * width as f64).round() as usize).min(width.saturating_sub(1));
    (0..width)
        .map(|i| match (i == at_min, i < filled) {
            (true, _) => '│',
            (false, true) => '█',
            (false, false) => '░',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_to_the_rate_and_marks_the_minimum() {
        assert_eq!(bar(Some(50.0), 80.0, 10), "█████░░░│░");
        assert_eq!(bar(Some(100.0), 80.0, 10), "████████│█");
        assert_eq!(bar(None, 0.0, 4), "│░░░");
    }
}
