//! A tab being built (replaced pane by pane).

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::console::keymap::Action;
use crate::console::message::{FetchError, Fetched, Request};
use crate::console::pane::{Out, Pane, Selection, ViewCtx};

pub struct Todo(pub &'static str);

impl Pane for Todo {
    fn title(&self) -> &'static str {
        self.0
    }
    fn show(&mut self, _out: &mut Out) {}
    fn refresh(&mut self, _out: &mut Out) {}
    fn action(&mut self, _action: Action, _out: &mut Out) -> bool {
        false
    }
    fn fetched(&mut self, _r: &Request, _f: &Result<Fetched, FetchError>, _out: &mut Out) -> bool {
        false
    }
    fn back(&mut self) -> bool {
        false
    }
    fn filter(&self) -> String {
        String::new()
    }
    fn set_filter(&mut self, _text: &str) {}
    fn selection(&self) -> Option<Selection> {
        None
    }
    fn help(&self) -> Vec<(Action, &'static str)> {
        vec![]
    }
    fn draw(&self, frame: &mut Frame, area: Rect, _ctx: &ViewCtx) {
        frame.render_widget(ratatui::text::Line::raw(self.0), area);
    }
}
