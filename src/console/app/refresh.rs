//! Lists on screen refresh themselves at the poll interval (the k9s habit), a long list less
//! often: a list of N pages is asked for every N polls, so each poll costs about one page
//! whatever the length of the lists shown.

use std::collections::HashMap;

use crate::console::message::ListKind;
use crate::console::poll::polls_between;

#[derive(Debug, Default)]
pub struct AutoRefresh {
    lists: HashMap<ListKind, Since>,
}

#[derive(Debug, Default)]
struct Since {
    polls: u32,
    len: usize,
}

impl AutoRefresh {
    /// Counts a poll with `kind` on screen; true when the list is due again.
    pub fn due(&mut self, kind: ListKind) -> bool {
        let since = self.lists.entry(kind).or_default();
        since.polls += 1;
        since.polls >= polls_between(since.len)
    }

    /// A fresh copy of the list arrived (by poll or `r`): the count starts again.
    pub fn fetched(&mut self, kind: ListKind, len: usize) {
        self.lists.insert(kind, Since { polls: 0, len });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn polls_until_due(refresh: &mut AutoRefresh, kind: ListKind) -> u32 {
        (1..=1000).find(|_| refresh.due(kind)).unwrap()
    }

    #[test]
    fn a_short_list_refreshes_every_poll_and_a_long_one_once_per_page() {
        let mut refresh = AutoRefresh::default();
        assert_eq!(polls_until_due(&mut refresh, ListKind::RunPlans), 1, "never fetched: due at once");
        refresh.fetched(ListKind::RunPlans, 40);
        assert_eq!(polls_until_due(&mut refresh, ListKind::RunPlans), 1);
        refresh.fetched(ListKind::RunPlanJobs, 10_000);
        assert_eq!(polls_until_due(&mut refresh, ListKind::RunPlanJobs), 100);
        refresh.fetched(ListKind::RunPlanJobs, 250);
        assert_eq!(polls_until_due(&mut refresh, ListKind::RunPlanJobs), 3);
    }

    #[test]
    fn a_list_still_due_keeps_being_due_until_it_arrives() {
        let mut refresh = AutoRefresh::default();
        refresh.fetched(ListKind::Issues, 250);
        assert_eq!(polls_until_due(&mut refresh, ListKind::Issues), 3);
        assert!(refresh.due(ListKind::Issues), "the request was in flight: asked again next poll");
    }
}
