use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::*;
use crate::console::theme::Theme;

/// A call whose `step_expectations` has a value per AGENT_TURN step reached, as the local
/// service writes them (the step named at the head of each reasoning), beside a plain metric.
fn stepped_call() -> ConversationView {
    let mut out = Out::default();
    let call = Uuid::from_u128(0xca11);
    let mut view = ConversationView::open(call, &mut out);
    let value = |value: f64, reasoning: &str| serde_json::json!({"captureStatus": "SUCCESS", "value": value, "callId": call, "valueReasoning": reasoning});
    let metrics = serde_json::json!([
        {"metricDefinitionId": Uuid::from_u128(1), "slug": "call_duration", "name": "Call duration",
         "type": "NUMERIC", "unit": {"symbol": "s"}, "values": [value(64.0, "64 s")]},
        {"metricDefinitionId": Uuid::from_u128(2), "slug": "step_expectations", "name": "Step expectations",
         "type": "BOOLEAN", "values": [
            value(1.0, "step \"greet\" (AGENT_TURN) \"Agent greets the caller\": Met: the agent said hello."),
            value(0.0, "step \"offer\" (AGENT_TURN) \"Agent offers another appointment time that suits the caller\": \
                        Not met: no time was offered."),
            value(1.0, "step 7 (AGENT_TURN) \"Agent confirms the booking\": Met: it was confirmed."),
        ]},
    ]);
    let conversation = Conversation {
        call: None,
        chat: None,
        transcript: serde_json::from_value(serde_json::json!({"entries": []})).expect("a transcript"),
        metrics: serde_json::from_value(metrics).expect("value groups"),
    };
    let request = Request::Conversation(call);
    assert!(view.fetched(&request, &Ok(Fetched::Conversation(Box::new(conversation)))));
    view
}

/// Each "Step expectations" row names its step as the script does (its `ref`, or its node's
/// number) and the start of the step's text, so a NOT MET row says which step it is without
/// opening it.
#[test]
fn step_expectation_rows_name_their_step() {
    let view = stepped_call();
    let (theme, keys, marks) = (Theme::new("mono", true), Default::default(), Default::default());
    let ctx = ViewCtx { theme: &theme, now: jiff::Timestamp::UNIX_EPOCH, keys: &keys, marks: &marks };
    let mut terminal = Terminal::new(TestBackend::new(200, 12)).expect("a test terminal");
    terminal.draw(|f| view.draw(f, f.area(), &ctx)).expect("drawn");
    let buffer = terminal.backend().buffer();
    let width = buffer.area.width as usize;
    let cells: Vec<&str> = buffer.content().iter().map(|c| c.symbol()).collect();
    let screen: String = cells.chunks(width).map(|l| l.concat().trim_end().to_owned() + "\n").collect();
    assert!(screen.contains("Step \"greet\": Agent greets the caller "), "{screen}");
    assert!(screen.contains("Step \"offer\": Agent offers another appoi… "), "{screen}");
    assert!(screen.contains("Step 7: Agent confirms the booking "), "{screen}");
    insta::assert_snapshot!(screen);
}
