//! `:plan Nightly`, `:call 3fb5aeb0`: a resource named by the 8-character id the screens show
//! or by its name, among the lists this session has read (and the cache's), and what Tab
//! completes after `:plan `.

use std::collections::HashMap;

use crate::console::message::{ListKind, Listing};

/// A resource `:` can name: its id and the name people know it by.
#[derive(Debug, Clone, PartialEq)]
pub struct Named {
    pub id: String,
    pub label: String,
}

/// Every resource `:` can name, by list kind, as last read.
#[derive(Debug, Default)]
pub struct Known {
    by_kind: HashMap<ListKind, Vec<Named>>,
}

/// The list a `:` command's word names.
pub fn kind_of(word: &str) -> Option<ListKind> {
    Some(match word {
        "plan" => ListKind::RunPlans,
        "job" => ListKind::RunPlanJobs,
        "issue" => ListKind::Issues,
        "alert" => ListKind::Alerts,
        "flow" => ListKind::Flows,
        "call" => ListKind::Calls,
        _ => return None,
    })
}

impl Known {
    /// Learns the names of a list just read (a whole list replaces what was known of its kind).
    pub fn learn(&mut self, listing: &Listing) {
        let named = |id: String, label: Option<&str>| Named { label: label.unwrap_or(&id).to_owned(), id };
        let items: Vec<Named> = match listing {
            Listing::RunPlans(plans) => plans.iter().map(|p| named(p.id.to_string(), Some(p.name()))).collect(),
            Listing::RunPlanJobs(jobs) => {
                jobs.iter().map(|j| named(j.simulation_run_plan_job_id.to_string(), None)).collect()
            }
            Listing::Issues(issues) => {
                // The calls an issue holds as evidence are calls `:call` may name too.
                let calls = issues.iter().flat_map(|i| &i.evidence).filter_map(|e| e.call_id);
                self.add(ListKind::Calls, calls.map(|id| named(id.to_string(), None)).collect());
                issues.iter().map(|i| named(i.id.to_string(), i.title.as_deref())).collect()
            }
            Listing::Flows(flows) => flows.iter().map(|f| named(f.id.to_string(), f.title.as_deref())).collect(),
            Listing::Alerts(alerts) => alerts.iter().map(|a| named(a.id.to_string(), Some(&a.name))).collect(),
            Listing::Calls(calls) => {
                let read = calls.iter().map(|c| named(c.id.to_string(), None)).collect();
                return self.add(ListKind::Calls, read);
            }
            _ => return,
        };
        self.by_kind.insert(listing.kind(), items);
    }

    /// Adds to what is known of `kind` (calls are learnt from several lists), each id once.
    fn add(&mut self, kind: ListKind, items: Vec<Named>) {
        let known = self.by_kind.entry(kind).or_default();
        for item in items {
            if !known.iter().any(|k| k.id == item.id) {
                known.push(item);
            }
        }
    }

    /// What `text` names among `kind`'s: an id it starts (4 characters or more), else a name
    /// it equals (any case), else names containing it.
    pub fn find(&self, kind: ListKind, text: &str) -> Vec<&Named> {
        let Some(items) = self.by_kind.get(&kind) else { return Vec::new() };
        let text = text.trim().to_lowercase();
        if text.is_empty() {
            return items.iter().collect();
        }
        let tiers: [&dyn Fn(&Named) -> bool; 3] =
            [&|n| text.len() >= 4 && n.id.starts_with(&text), &|n| n.label.to_lowercase() == text, &|n| {
                n.label.to_lowercase().contains(&text)
            }];
        for tier in tiers {
            let found: Vec<&Named> = items.iter().filter(|n| tier(n)).collect();
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::RunPlan;

    fn plans() -> Known {
        let plan = |id: &str, name: &str| -> RunPlan {
            serde_json::from_value(serde_json::json!({"id": id, "name": name})).unwrap()
        };
        let mut known = Known::default();
        known.learn(&Listing::RunPlans(vec![
            plan("3fb5aeb0-c5ff-5e6e-b1eb-3aadf53eeb7c", "Nightly"),
            plan("4ac0ac43-3a5c-5293-9370-3b46530ffc59", "Nightly smoke"),
        ]));
        known
    }

    #[test]
    fn an_id_prefix_then_an_exact_name_then_a_part_of_one() {
        let known = plans();
        let ids = |found: Vec<&Named>| found.iter().map(|n| n.id[..8].to_owned()).collect::<Vec<_>>();
        assert_eq!(ids(known.find(ListKind::RunPlans, "3fb5aeb0")), ["3fb5aeb0"]);
        assert_eq!(ids(known.find(ListKind::RunPlans, "nightly")), ["3fb5aeb0"], "the exact name wins");
        assert_eq!(ids(known.find(ListKind::RunPlans, "smo")), ["4ac0ac43"]);
        assert_eq!(ids(known.find(ListKind::RunPlans, "night")).len(), 2);
        assert!(known.find(ListKind::Issues, "x").is_empty());
    }
}
