//! The calls an issue's evidence rows describe (when, which agent, how long), read one at a time
//! for the rows on screen, so a long evidence list costs what is shown.

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use crate::api::model::{Call, Evidence};
use crate::console::message::{FetchError, Fetched, ListKind, Listing, Request};
use crate::console::pane::Out;
use crate::console::widgets::list::ListState;

/// Rows read before the table has been drawn once (it then says how many it shows).
const FIRST_WINDOW: usize = 20;

#[derive(Default)]
pub struct EvidenceCalls {
    asked: HashSet<Uuid>,
    calls: HashMap<Uuid, Call>,
}

impl EvidenceCalls {
    /// Asks for the calls of the rows in view (and the selected one) not asked for yet.
    pub fn ask(&mut self, evidence: &ListState<Evidence>, out: &mut Out) {
        let height = match evidence.height.get() {
            0 => FIRST_WINDOW,
            h => h,
        };
        let offset = evidence.offset.get();
        let shown = (offset..offset + height).chain([evidence.selected]).filter_map(|i| evidence.visible(i));
        for id in shown.filter_map(|e| e.call_id).collect::<Vec<_>>() {
            if self.asked.insert(id) {
                out.fetch(Request::Item(ListKind::Calls, id.to_string()));
            }
        }
    }

    /// Keeps a call read for a row; true when it was one.
    pub fn fetched(&mut self, request: &Request, result: &Result<Fetched, FetchError>) -> bool {
        let Request::Item(ListKind::Calls, id) = request else { return false };
        let Ok(id) = id.parse::<Uuid>() else { return false };
        if !self.asked.contains(&id) {
            return false;
        }
        if let Ok(Fetched::Item(Listing::Calls(calls))) = result
            && let Some(call) = calls.iter().find(|c| c.id == id)
        {
            self.calls.insert(id, call.clone());
        }
        true
    }

    pub fn get(&self, id: Option<Uuid>) -> Option<&Call> {
        self.calls.get(&id?)
    }
}
