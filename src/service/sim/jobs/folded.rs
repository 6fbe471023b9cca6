//! A job's fold decided from what one read took (`store::folds::waiting`), to be applied in
//! one statement on PostgreSQL: the same tally, verdict, attempt summary and collection counts
//! as the fold in a transaction (`fold_job`) writes, from the same parts. A fold that settles
//! its job, or one of a job that has ended or keeps no tally, is left to that transaction.

use super::{Tally, fold_members, items_by_collection, open_statuses};
use crate::api::model::RunPlanJobStatus;
use crate::service::store::StoreResult;
use crate::service::store::folds::{Counted, Fold, Waiting};

/// The fold of `waiting`; `None` when it is to be folded in a transaction: the job is gone,
/// has ended, keeps no tally, or has no simulation open (it settles with this fold).
pub(crate) fn decide(waiting: &Waiting) -> StoreResult<Option<Fold>> {
    let (Some(status), Some(tally_text)) = (&waiting.status, &waiting.tally) else { return Ok(None) };
    let job_status = RunPlanJobStatus::from(status.as_str());
    if waiting.open == 0 || job_status.is_terminal() || waiting.ends.is_empty() {
        return Ok(None);
    }
    let mut tally: Tally = serde_json::from_str(tally_text)?;
    for (_, end) in &waiting.ends {
        tally.add_part(&serde_json::from_str(&end.part)?);
    }
    let ends: Vec<_> = waiting.ends.iter().map(|(_, end)| end.clone()).collect();
    let counted = items_by_collection(&ends)
        .into_iter()
        .map(|(collection_id, done, failed, at)| Counted {
            collection_id: collection_id.to_owned(),
            done,
            failed,
            at: at.to_owned(),
        })
        .collect();
    Ok(Some(Fold {
        job_id: waiting.job_id.clone(),
        status: status.clone(),
        tally: tally_text.clone(),
        seqs: waiting.ends.iter().map(|(seq, _)| *seq).collect(),
        members: fold_members(&tally, &job_status)?,
        counted,
        open: open_statuses().into_iter().map(str::to_owned).collect(),
    }))
}
