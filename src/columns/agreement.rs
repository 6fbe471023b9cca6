//! How far each judge agrees with people's labels (`switchboard judge agreement`), a row per
//! metric definition and version. The console's metrics list says the same in one AGREEMENT cell.

use super::Column;
use crate::api::model::percent;
use crate::compare::JudgeAgreement;

/// Cohen's κ in words a table can hold.
pub fn kappa(row: &JudgeAgreement) -> String {
    match (row.kappa, row.boolean) {
        (Some(k), _) => format!("{k:.2}"),
        (None, false) => "— (not yes/no)".into(),
        (None, true) => "— (all one answer)".into(),
    }
}

/// How many values people labelled, saying how many only this machine keeps.
fn labelled(row: &JudgeAgreement) -> String {
    match row.local_labels {
        0 => row.labelled.to_string(),
        local => format!("{} ({local} local)", row.labelled),
    }
}

pub const METRIC: Column<JudgeAgreement> = Column::text("METRIC", |r: &JudgeAgreement| r.name.clone());

pub const VERSION: Column<JudgeAgreement> =
    Column::text("VERSION", |r: &JudgeAgreement| r.version.map(|v| format!("v{v}")).unwrap_or_else(|| "—".into()));

pub const LABELLED: Column<JudgeAgreement> = Column::text("LABELLED", labelled);

pub const AGREEMENT: Column<JudgeAgreement> = Column::text("AGREEMENT", |r: &JudgeAgreement| {
    r.agreement.map(|a| format!("{} ({}/{})", percent(a), r.agreed, r.labelled)).unwrap_or_else(|| "—".into())
});

pub const KAPPA: Column<JudgeAgreement> = Column::text("KAPPA", kappa);

/// What `judge agreement` prints.
pub const CLI: &[Column<JudgeAgreement>] = &[METRIC, VERSION, LABELLED, AGREEMENT, KAPPA];
