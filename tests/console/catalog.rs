//! Tab 6: personas, agents and endpoints, knowledge bases, HTTP request definitions.

use crate::assert_screen;
use crate::harness::Harness;

#[tokio::test]
async fn personas_list_and_detail_at_both_sizes() {
    let mut h = Harness::seeded().await;
    h.key("6").await;
    assert!(h.render(80, 24).contains("Callum Reid"), "{}", h.render(80, 24));
    assert_screen!("catalog_personas_80x24", h.render(80, 24));
    assert_screen!("catalog_personas_160x48", h.render(160, 48));
    h.key("enter").await;
    let detail = h.render(160, 48);
    assert!(detail.contains("speech pace"), "every trait is shown:\n{detail}");
    assert_screen!("catalog_persona_detail_160x48", detail);
    assert_screen!("catalog_persona_detail_80x24", h.render(80, 24));
}

#[tokio::test]
async fn sections_switch_and_filter() {
    let mut h = Harness::seeded().await;
    h.keys(&["6", "l"]).await;
    assert_screen!("catalog_agents_80x24", h.render(80, 24));
    h.key("l").await;
    assert_screen!("catalog_endpoints_160x48", h.render(160, 48));
    h.key("l").await;
    assert_screen!("catalog_knowledge_160x48", h.render(160, 48));
    h.key("enter").await;
    assert_screen!("catalog_knowledge_detail_160x48", h.render(160, 48));
    h.keys(&["esc", "l"]).await;
    assert_screen!("catalog_http_160x48", h.render(160, 48));
    // `/` filters as you type; esc in the prompt clears it.
    h.keys(&["h", "h", "h", "h", "/"]).await;
    h.type_text("priya").await;
    let screen = h.render(80, 24);
    assert!(screen.contains("Priya Raman") && !screen.contains("Callum Reid"), "{screen}");
    h.key("esc").await;
    assert!(h.render(80, 24).contains("Callum Reid"));
}
