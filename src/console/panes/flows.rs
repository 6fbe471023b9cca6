//! Tab 5: customer flows. The list filters by flow type (`f`); Enter opens a flow's detail:
//! its facts, expectations and step graph drawn as a tree (`flow_graph`), then the happy path
//! and edge cases with their personas, environments and expectations. The detail scrolls. `e`
//! opens a flow as config YAML in the editor, `c` a template, `d` deletes one (asked first).

use ratatui::Frame;
use ratatui::layout::Rect;
use uuid::Uuid;

use super::section::Section;
use crate::api::model::CustomerFlow;
use crate::api::model::config::export;
use crate::cache::Cache;
use crate::columns::flow::{self, agents, flow_type};
use crate::console::flow_graph::{GraphStyles, flow_lines};
use crate::console::keymap::Action;
use crate::console::message::{
    Deletion, FetchError, Fetched, ListKind, Request, Selection, Write, WriteError, Written,
};
use crate::console::out::Out;
use crate::console::pane::{Editable, Pane, ViewCtx};
use crate::console::theme::Theme;
use crate::console::widgets::confirm::Confirm;
use crate::console::widgets::detail::{self, Scroll};
use crate::console::widgets::list::Load;
use crate::console::widgets::table::{self, Columns, Context, Shown};

const COLUMNS: &[Shown<CustomerFlow>] = &table::plain(flow::COLUMNS);

/// `f` cycles these (None is all).
const TYPES: [Option<&str>; 4] = [None, Some("SCRIPTED"), Some("IMPROV"), Some("VOICEMAIL")];

/// The names a flow's bundle shape refers to, learnt from the flow: agents by name, personas
/// by name, environments by name, edge cases by name (else title).
fn config_names(flow: &CustomerFlow) -> export::Names {
    let mut names = export::Names::default();
    for agent in &flow.agents {
        let name = agent.custom_id.clone().or(agent.name.clone());
        names.agents.extend(name.map(|n| (agent.id, n)));
    }
    for variant in flow.happy_path.iter().chain(&flow.edge_cases) {
        if let Some(p) = &variant.persona_override {
            names.personas.extend(p.fields.name.clone().map(|n| (p.id, n)));
        }
        if let Some(env) = &variant.environment {
            names.environments.extend(env.id.zip(env.name.clone()));
        }
    }
    for case in &flow.edge_cases {
        names.edge_cases.extend(case.name.clone().or(case.title.clone()).map(|n| (case.id, n)));
    }
    names
}

/// Asks before deleting `flow`; the service says no to one a plan uses or one of its own.
fn confirm_delete(flow: &CustomerFlow, out: &mut Out) {
    let what = format!("flow {}", flow.title.as_deref().unwrap_or("(untitled)"));
    let question = format!("Delete the {what}? This cannot be undone.");
    let deletion = Deletion { kind: ListKind::Flows, id: flow.id, what };
    out.modal.confirm(Confirm::new("delete flow", question, Write::Delete(deletion)));
}

/// Steps of the flow's script, nested ones included.
/// The graph's styles from the theme: speakers, merge links and off-script badges.
pub fn graph_styles(theme: &Theme) -> GraphStyles {
    GraphStyles {
        heading: theme.heading(),
        customer: theme.customer(),
        agent: theme.agent(),
        link: theme.link(),
        badge: theme.warn(),
        dim: theme.dim(),
    }
}

pub struct Flows {
    flows: Section<CustomerFlow>,
    type_filter: usize,
    /// The flow whose detail is open.
    open: Option<Uuid>,
    scroll: Scroll,
}

impl Default for Flows {
    fn default() -> Self {
        Self::new()
    }
}

impl Flows {
    pub fn new() -> Self {
        let mut flows = Section::new(
            "customer flows",
            COLUMNS,
            |f: &CustomerFlow| f.id.to_string(),
            |f| {
                format!(
                    "{} {} {} {}",
                    f.title.as_deref().unwrap_or(""),
                    flow_type(f).unwrap_or(""),
                    f.slug.as_deref().unwrap_or(""),
                    agents(f)
                )
            },
        );
        flows.list.sort = Some((0, false));
        Flows { flows, type_filter: 0, open: None, scroll: Scroll::default() }
    }

    fn opened(&self) -> Option<&CustomerFlow> {
        let id = self.open?;
        self.flows.list.items.iter().find(|f| f.id == id)
    }

    fn open(&mut self, id: Uuid) {
        self.open = Some(id);
        self.scroll = Scroll::default();
    }
}

impl Pane for Flows {
    fn show(&mut self, out: &mut Out) {
        self.flows.ensure(out);
    }

    fn refresh(&mut self, out: &mut Out) {
        self.flows.request(out);
    }

    fn visible_lists(&self) -> Vec<ListKind> {
        if self.open.is_none() { vec![ListKind::Flows] } else { Vec::new() }
    }

    fn action(&mut self, action: Action, out: &mut Out) -> bool {
        if action == Action::Duplicate {
            let flow = if self.open.is_some() { self.opened() } else { self.flows.selected() };
            match flow {
                // The service refuses these too; saying why here saves the round trip.
                Some(flow) if flow.is_voicemail() => {
                    out.error("voicemail flows are managed by the service and cannot be duplicated")
                }
                Some(flow) => out.write(Write::DuplicateFlow(flow.id)),
                None => out.error("no flow is selected"),
            }
            return true;
        }
        if action == Action::Delete {
            let flow = if self.open.is_some() { self.opened() } else { self.flows.selected() };
            match flow {
                Some(flow) => confirm_delete(flow, out),
                None => out.error("no flow is selected"),
            }
            return true;
        }
        if self.open.is_some() {
            return self.scroll.action(action);
        }
        match action {
            Action::StatusFilter => {
                self.type_filter = (self.type_filter + 1) % TYPES.len();
                let want = TYPES[self.type_filter];
                self.flows.keep(move |f| want.is_none_or(|t| flow_type(f) == Some(t)));
                true
            }
            Action::Open => match self.flows.selected() {
                Some(flow) => {
                    let id = flow.id;
                    self.open(id);
                    true
                }
                None => false,
            },
            _ => self.flows.action(action),
        }
    }

    fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>, _out: &mut Out) -> bool {
        self.flows.fetched(request, result)
    }

    fn written(&mut self, write: &Write, result: &Result<Written, WriteError>, out: &mut Out) -> bool {
        match (write, result) {
            (Write::DuplicateFlow(_), Ok(Written::Flow(copy))) => {
                out.info(format!("duplicated as {}", copy.title.as_deref().unwrap_or("a new flow")));
                self.flows.request(out);
            }
            (Write::Delete(d), Ok(_)) if d.kind == ListKind::Flows => {
                out.info(format!("deleted the {}", d.what));
                self.open = None;
                self.flows.request(out);
            }
            _ => {}
        }
        false
    }

    fn back(&mut self) -> bool {
        self.open.take().is_some()
    }

    /// `e`: the flow's config YAML, its references named from the flow itself (its agents,
    /// its variants' personas and environments), so nothing else need be loaded.
    fn editable(&self) -> Option<Editable> {
        let flow = if self.open.is_some() { self.opened() } else { self.flows.selected() }?;
        if flow.is_voicemail() {
            return None;
        }
        let name = flow.slug.clone().or(flow.title.clone()).unwrap_or_else(|| flow.id.to_string());
        let config = export::flow(flow, &name, &config_names(flow)).to_value();
        Some(Editable { kind: "flow", name, config })
    }

    fn creatable(&self) -> Option<(&'static str, &'static str)> {
        Some(("flow", crate::console::templates::of("flow")?))
    }

    fn filter(&self) -> String {
        self.flows.list.filter.clone()
    }

    fn set_filter(&mut self, text: &str) {
        self.flows.set_filter(text);
    }

    fn listed(&self) -> Option<String> {
        self.flows.selection().map(|s| s.id)
    }

    fn reselect(&mut self, id: &str) -> bool {
        self.flows.select(id)
    }

    fn selection(&self) -> Option<Selection> {
        match self.open {
            Some(_) => self.opened().map(|f| Selection::of(f.id, f)),
            None => self.flows.selection(),
        }
    }

    fn open_by_id(&mut self, id: &str, out: &mut Out) -> bool {
        match id.trim().parse::<Uuid>() {
            Ok(uuid) => {
                out.fetch(Request::Item(ListKind::Flows, uuid.to_string()));
                self.open(uuid);
                true
            }
            Err(_) => {
                out.error(format!("{id:?} is not a flow id (a UUID)"));
                false
            }
        }
    }

    fn help(&self) -> Vec<(Action, &'static str)> {
        if self.open.is_some() {
            vec![
                (Action::Down, "scroll"),
                (Action::PageDown, "scroll a page"),
                (Action::Bottom, "the last edge case"),
                (Action::Back, "back to the list"),
                (Action::Raw, "raw JSON of the flow"),
                (Action::Duplicate, "duplicate the flow"),
                (Action::Edit, "edit the flow's YAML in $EDITOR (a copy if no apply made it)"),
                (Action::Delete, "delete the flow"),
            ]
        } else {
            vec![
                (Action::Open, "the flow's steps, variants and expectations"),
                (Action::StatusFilter, "type: all, SCRIPTED, IMPROV, VOICEMAIL"),
                (Action::Sort, "sort by the next column"),
                (Action::SortReverse, "reverse the sort"),
                (Action::OpenById, "open a flow by id"),
                (Action::Duplicate, "duplicate the flow"),
                (Action::Edit, "edit the flow's YAML in $EDITOR (a copy if no apply made it)"),
                (Action::Create, "new flow from a template in $EDITOR"),
                (Action::Delete, "delete the flow"),
            ]
        }
    }

    fn restore(&mut self, cache: &Cache) {
        self.flows.restore(cache);
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ctx: &ViewCtx) {
        let theme = ctx.theme;
        if let Some(id) = self.open {
            let (title, lines) = match self.opened() {
                Some(flow) => ("customer flow".to_string(), flow_lines(flow, &graph_styles(theme))),
                None => {
                    let text = match self.flows.list.load {
                        Load::Loading => format!("loading flow {id}…"),
                        _ => format!("flow {id} is not loaded; esc goes back to the list"),
                    };
                    ("flow".to_string(), vec![ratatui::text::Line::styled(text, theme.dim())])
                }
            };
            detail::draw(frame, area, &title, lines, &self.scroll, theme, true);
            return;
        }
        let kind = TYPES[self.type_filter].unwrap_or("all");
        let filtered = self.type_filter != 0;
        let view = Columns {
            title: format!("customer flows · type {kind}"),
            columns: COLUMNS,
            context: Context::new(theme, ctx.now, ctx.marks, &()),
            focused: true,
            empty: if filtered { "no flows of this type (f)" } else { "no customer flows" },
        };
        table::draw_columns(frame, area, &self.flows.list, view);
    }
}
