//! Tab 6: personas, agents and their endpoints, knowledge bases and HTTP request definitions.
//! One section at a time (h/l to switch); Enter opens every field of the selection.

mod part;
mod writes;

use crate::console::widgets::table::Cell;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};

use self::part::Part;
use super::section::{Section, status_cell};
use super::shown::ShownSection;
use crate::api::model::config::export;
use crate::api::model::*;
use crate::cache::Cache;
use crate::columns::catalog;
use crate::console::keymap::Action;
use crate::console::message::{FetchError, Fetched, ListKind, Request, Selection, Write, WriteError, Written};
use crate::console::out::Out;
use crate::console::pane::{Editable, Pane, ViewCtx};
use crate::console::widgets::detail::{self, Lines, Scroll};
use crate::console::widgets::table::{self, Context, Shown};
use crate::console::widgets::text::{or_dash, when};

use Constraint::{Fill, Length};

const PERSONA_COLUMNS: &[Shown<Persona>] = &table::plain(catalog::PERSONAS);
const AGENT_COLUMNS: &[Shown<Agent>] = &table::plain(catalog::AGENTS);
/// Drawn for the catalog, which knows the agents' names.
const ENDPOINT_COLUMNS: &[Shown<AgentEndpoint, Catalog>] = &[
    Shown::plain(catalog::ENDPOINT_VALUE),
    Shown::plain(catalog::ENDPOINT_TYPE),
    Shown::plain(catalog::ENDPOINT_DIRECTION),
    Shown::plain(catalog::ENDPOINT_ENVIRONMENT),
    Shown::plain(catalog::ENDPOINT_DIAL),
    Shown::drawn(catalog::ENDPOINT_AGENT, |e, cx| Cell::from(cx.of.agent_name(e.agent_id))),
];
const KB_COLUMNS: &[Shown<KnowledgeBase>] = &[
    Shown::plain(catalog::KB_NAME),
    Shown::plain(catalog::KB_SOURCE),
    Shown::drawn(catalog::KB_STATUS, |k, cx| status_cell(cx.theme, k.status.as_ref().map(|s| s.as_str()))),
    Shown::plain(catalog::KB_BYTES),
];
const HTTP_COLUMNS: &[Shown<HttpRequestDefinition>] = &table::plain(catalog::HTTP_DEFINITIONS);

use crate::columns::or_dash as text;

pub struct Catalog {
    personas: Section<Persona>,
    agents: Section<Agent>,
    endpoints: Section<AgentEndpoint, Catalog>,
    knowledge: Section<KnowledgeBase>,
    http: Section<HttpRequestDefinition>,
    /// Which section is shown.
    current: Part,
    /// Whether the selection's detail is open.
    detail: bool,
    scroll: Scroll,
}

impl Default for Catalog {
    fn default() -> Self {
        Self::new()
    }
}

impl Catalog {
    pub fn new() -> Self {
        Catalog {
            personas: Section::new(
                "personas",
                PERSONA_COLUMNS,
                |p| p.id.to_string(),
                |p| format!("{} {}", p.label(), p.fields.description.as_deref().unwrap_or("")),
            ),
            agents: Section::new(
                "agents",
                AGENT_COLUMNS,
                |a| a.id.to_string(),
                |a| format!("{} {}", a.name.as_deref().unwrap_or(""), a.custom_id.as_deref().unwrap_or("")),
            ),
            endpoints: Section::new(
                "agent endpoints",
                ENDPOINT_COLUMNS,
                |e| e.id.to_string(),
                |e| format!("{} {}", e.value.as_deref().unwrap_or(""), e.environment.as_deref().unwrap_or("")),
            ),
            knowledge: Section::new(
                "knowledge bases",
                KB_COLUMNS,
                |k| k.id.to_string(),
                |k| format!("{} {}", k.name.as_deref().unwrap_or(""), k.description.as_deref().unwrap_or("")),
            ),
            http: Section::new(
                "HTTP request definitions",
                HTTP_COLUMNS,
                |h| h.id.to_string(),
                |h| format!("{} {}", h.url.as_deref().unwrap_or(""), h.description.as_deref().unwrap_or("")),
            ),
            current: Part::Personas,
            detail: false,
            scroll: Scroll::default(),
        }
    }

    /// The section shown.
    fn shown(&self) -> &dyn ShownSection {
        match self.current {
            Part::Personas => &self.personas,
            Part::Agents => &self.agents,
            Part::Endpoints => &self.endpoints,
            Part::Knowledge => &self.knowledge,
            Part::Http => &self.http,
        }
    }

    fn shown_mut(&mut self) -> &mut dyn ShownSection {
        match self.current {
            Part::Personas => &mut self.personas,
            Part::Agents => &mut self.agents,
            Part::Endpoints => &mut self.endpoints,
            Part::Knowledge => &mut self.knowledge,
            Part::Http => &mut self.http,
        }
    }

    /// The sections the shown one draws on: agents and endpoints need each other.
    fn needed(&mut self) -> Vec<&mut dyn ShownSection> {
        match self.current {
            Part::Agents | Part::Endpoints => vec![&mut self.agents, &mut self.endpoints],
            _ => vec![self.shown_mut()],
        }
    }

    fn ensure_current(&mut self, out: &mut Out) {
        for section in self.needed() {
            section.ensure(out);
        }
    }

    fn agent_name(&self, id: Option<uuid::Uuid>) -> String {
        let Some(id) = id else { return "—".into() };
        self.agents
            .list
            .items
            .iter()
            .find(|a| a.id == id)
            .and_then(|a| a.name.clone())
            .unwrap_or_else(|| id.to_string())
    }

    fn detail_lines(&self, ctx: &ViewCtx) -> (String, Vec<Line<'static>>) {
        let mut lines = Lines::new(ctx.theme);
        let title = match self.current {
            Part::Personas => match self.personas.selected() {
                Some(p) => {
                    lines
                        .kv("id", p.id.to_string())
                        .kv("system persona", if p.is_system == Some(true) { "yes" } else { "no" });
                    lines.section("traits");
                    let value = serde_json::to_value(&p.fields).unwrap_or_default();
                    lines.json_fields(&value, &["backstoryPrompt", "description"]);
                    lines.section("description").text(&or_dash(p.fields.description.as_deref()));
                    lines.section("backstory").text(&or_dash(p.fields.backstory_prompt.as_deref()));
                    lines
                        .section("record")
                        .kv("created", when(p.created_at.as_ref()))
                        .kv("updated", when(p.updated_at.as_ref()));
                    p.label()
                }
                None => "persona".into(),
            },
            Part::Agents => match self.agents.selected() {
                Some(a) => {
                    lines.kv("id", a.id.to_string()).opt("custom id", a.custom_id.as_ref());
                    lines.section("description").text(&or_dash(a.description.as_deref()));
                    lines.section("endpoints");
                    for e in self.endpoints.list.items.iter().filter(|e| e.agent_id == Some(a.id)) {
                        lines.kv(
                            &text(e.direction.as_ref()),
                            format!(
                                "{} · {} · {}",
                                text(e.value.as_ref()),
                                text(e.environment.as_ref()),
                                text(e.outbound_dial_type.as_ref())
                            ),
                        );
                    }
                    text(a.name.as_ref())
                }
                None => "agent".into(),
            },
            Part::Endpoints => match self.endpoints.selected() {
                Some(e) => {
                    lines.kv("agent", self.agent_name(e.agent_id));
                    lines.json_fields(&serde_json::to_value(e).unwrap_or_default(), &[]);
                    text(e.value.as_ref())
                }
                None => "endpoint".into(),
            },
            Part::Knowledge => match self.knowledge.selected() {
                Some(k) => {
                    lines.json_fields(&serde_json::to_value(k).unwrap_or_default(), &["description"]);
                    lines.section("description").text(&or_dash(k.description.as_deref()));
                    text(k.name.as_ref())
                }
                None => "knowledge base".into(),
            },
            Part::Http => match self.http.selected() {
                Some(h) => {
                    lines.json_fields(&serde_json::to_value(h).unwrap_or_default(), &["body", "parsedBody"]);
                    lines.section("body template").text(&or_dash(h.body.as_deref()));
                    text(h.url.as_ref())
                }
                None => "HTTP request definition".into(),
            },
        };
        (title, lines.lines)
    }
}

impl Pane for Catalog {
    fn show(&mut self, out: &mut Out) {
        self.ensure_current(out);
    }

    fn visible_lists(&self) -> Vec<ListKind> {
        match self.detail {
            true => Vec::new(),
            false => self.current.lists(),
        }
    }

    fn refresh(&mut self, out: &mut Out) {
        for section in self.needed() {
            section.request(out);
        }
    }

    fn action(&mut self, action: Action, out: &mut Out) -> bool {
        match action {
            Action::Left | Action::Right if !self.detail => {
                self.current = self.current.step(action == Action::Right);
                self.ensure_current(out);
                true
            }
            Action::Open if !self.detail => {
                self.detail = true;
                self.scroll = Scroll::default();
                true
            }
            _ if self.detail => self.scroll.action(action),
            Action::Form if self.current == Part::Personas => {
                writes::create_persona(&mut out.modal);
                true
            }
            Action::Delete if self.current == Part::Personas => {
                match self.personas.selected().cloned() {
                    Some(persona) => writes::delete_persona(&persona, out),
                    None => out.error("no persona is selected"),
                }
                true
            }
            Action::Form if self.current == Part::Endpoints => {
                match self.endpoints.selected().cloned() {
                    Some(endpoint) => writes::edit_endpoint(&mut out.modal, &endpoint),
                    None => out.error("no endpoint is selected"),
                }
                true
            }
            _ => self.shown_mut().navigate(action),
        }
    }

    fn written(&mut self, write: &Write, result: &Result<Written, WriteError>, out: &mut Out) -> bool {
        match (write, result) {
            (Write::CreatePersona(_) | Write::DeletePersona(_), Ok(_)) => self.personas.request(out),
            (Write::UpdateEndpoint(..), Ok(_)) => self.endpoints.request(out),
            _ => return false,
        }
        true
    }

    fn action_alias(&mut self, alias: &str, out: &mut Out) -> bool {
        let Some(part) = Part::of_alias(alias) else { return false };
        self.current = part;
        self.detail = false;
        self.ensure_current(out);
        true
    }

    fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, _out: &mut Out) -> bool {
        self.personas.fetched(request, result)
            | self.agents.fetched(request, result)
            | self.endpoints.fetched(request, result)
            | self.knowledge.fetched(request, result)
            | self.http.fetched(request, result)
    }

    fn back(&mut self) -> bool {
        std::mem::take(&mut self.detail)
    }

    fn filter(&self) -> String {
        self.shown().filter()
    }

    fn set_filter(&mut self, text: &str) {
        self.shown_mut().set_filter(text);
    }

    /// `e`: the selection's config YAML in the editor (an endpoint opens its agent, which holds
    /// the endpoints in a bundle), applied alone through config apply.
    fn editable(&self) -> Option<Editable> {
        if self.detail {
            return None;
        }
        match self.current {
            Part::Personas => {
                let persona = self.personas.selected()?;
                let name = persona.fields.name.clone()?;
                let config = serde_json::to_value(export::persona(persona)).ok()?;
                Some(Editable { kind: "persona", name, config })
            }
            Part::Agents => self.agent_editable(self.agents.selected()?),
            Part::Endpoints => {
                let id = self.endpoints.selected()?.agent_id?;
                self.agent_editable(self.agents.list.items.iter().find(|a| a.id == id)?)
            }
            Part::Http => {
                let definition = self.http.selected()?;
                let name = definition_name(definition);
                let config = export::http_request_definition(definition, headers(definition), &name);
                Some(Editable { kind: "httpRequestDefinition", name, config: serde_json::to_value(config).ok()? })
            }
            Part::Knowledge => None,
        }
    }

    fn creatable(&self) -> Option<(&'static str, &'static str)> {
        let kind = self.current.creates()?;
        Some((kind, crate::console::templates::of(kind)?))
    }

    fn listed(&self) -> Option<String> {
        self.selection().map(|s| s.id)
    }

    fn reselect(&mut self, id: &str) -> bool {
        self.shown_mut().select(id)
    }

    fn selection(&self) -> Option<Selection> {
        self.shown().selection()
    }

    fn open_by_id(&mut self, id: &str, out: &mut Out) -> bool {
        out.fetch(Request::Item(self.current.kind(), id.to_string()));
        self.detail = true;
        true
    }

    fn help(&self) -> Vec<(Action, &'static str)> {
        if self.detail {
            vec![(Action::Down, "scroll"), (Action::Back, "back to the list"), (Action::Raw, "raw JSON")]
        } else {
            let mut keys = vec![
                (Action::Open, "every field of the selection"),
                (Action::Right, "next section"),
                (Action::Left, "previous section"),
                (Action::Sort, "sort by the next column"),
                (Action::SortReverse, "reverse the sort"),
            ];
            keys.extend(self.current.write_keys());
            keys
        }
    }

    fn restore(&mut self, cache: &Cache) {
        self.personas.restore(cache);
        self.agents.restore(cache);
        self.endpoints.restore(cache);
        self.knowledge.restore(cache);
        self.http.restore(cache);
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        let theme = ctx.theme;
        let [bar, body] = Layout::vertical([Length(1), Fill(1)]).areas(area);
        let mut spans = Vec::new();
        for part in Part::ALL {
            let style = if part == self.current { theme.active_tab() } else { theme.dim() };
            spans.push(Span::styled(format!(" {} ", part.name()), style));
        }
        frame.render_widget(Line::from(spans), bar);
        if self.detail {
            let (title, lines) = self.detail_lines(ctx);
            detail::draw(frame, body, &title, lines, &self.scroll, theme, true);
            return;
        }
        self.draw_list(frame, body, ctx);
    }
}

/// The bundle name of an HTTP definition. Only an apply's record names one, and the console
/// cannot see records: its short id stands in, so an edit of one made some other way creates a
/// copy, as the confirm dialog says.
/// A definition's bundle name: its id, the one name the service knows it by when an apply did
/// not make it, so an edit changes it in place.
fn definition_name(definition: &HttpRequestDefinition) -> String {
    definition.id.to_string()
}

/// Header values as the list shows them: a secret one stays masked, and the mask sent back
/// keeps the value it stands for.
fn headers(definition: &HttpRequestDefinition) -> std::collections::BTreeMap<String, String> {
    let shown = |v: &serde_json::Value| v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string());
    definition.headers.iter().flatten().map(|(k, v)| (k.clone(), shown(v))).collect()
}

/// An agent's bundle name: its custom id, else its name, as the service's own names go.
fn agent_name(agent: &Agent) -> String {
    agent.custom_id.clone().or(agent.name.clone()).unwrap_or_else(|| agent.id.to_string())
}

impl Catalog {
    fn agent_editable(&self, agent: &Agent) -> Option<Editable> {
        let name = agent_name(agent);
        let endpoints: Vec<AgentEndpoint> =
            self.endpoints.list.items.iter().filter(|e| e.agent_id == Some(agent.id)).cloned().collect();
        // Definitions go by id: the service names one made another way by nothing else.
        let config = export::agent(agent, &endpoints, &name, &export::Names::default());
        Some(Editable { kind: "agent", name, config: serde_json::to_value(config).ok()? })
    }

    fn draw_list(&self, frame: &mut Frame, body: Rect, ctx: &ViewCtx) {
        let (theme, now) = (ctx.theme, ctx.now);
        match self.current {
            Part::Personas => self.personas.draw(frame, body, Context::new(theme, now, ctx.marks, &()), true),
            Part::Agents => self.agents.draw(frame, body, Context::new(theme, now, ctx.marks, &()), true),
            Part::Endpoints => self.endpoints.draw(frame, body, Context::new(theme, now, ctx.marks, self), true),
            Part::Knowledge => self.knowledge.draw(frame, body, Context::new(theme, now, ctx.marks, &()), true),
            Part::Http => self.http.draw(frame, body, Context::new(theme, now, ctx.marks, &()), true),
        }
    }
}
