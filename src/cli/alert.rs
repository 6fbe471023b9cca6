//! `switchboard alert list | get NAME`: alerts (written with `config apply`) and where each stands.

use clap::Subcommand;

use super::exit::{Exit, Failure, Outcome};
use super::output::{self, Tabular};
use super::session::Session;
use crate::api::model::{AlertStatus, CursorPagination};
use crate::columns::Column;
use crate::columns::alert;

#[derive(Debug, Subcommand)]
pub enum AlertCommand {
    /// List alerts with their state (OK, BREACHING, OPEN).
    List,
    /// Show one alert, by id, bundle name or display name, with each group's state.
    Get { alert: String },
}

impl Tabular for AlertStatus {
    fn columns() -> Vec<Column<Self>> {
        alert::CLI.to_vec()
    }
}

fn groups_text(alert: &AlertStatus) -> Vec<String> {
    vec![format!("GROUPS\n{}", output::table_of(alert::GROUPS, &alert.groups))]
}

pub async fn run(command: AlertCommand, session: &Session) -> Outcome {
    let client = &session.client;
    match command {
        AlertCommand::List => {
            let alerts = client.list_alerts().await?;
            let pagination =
                CursorPagination { total: alerts.len() as u64, has_more: false, next_cursor: None, limit: None };
            output::list(session.format, &alerts, &pagination)?;
        }
        AlertCommand::Get { alert } => {
            let found = client.get_alert(&alert).await.map_err(|e| match e.status() {
                Some(404) => Failure::not_found(format!("no alert is named or has the id {alert}")),
                _ => e.into(),
            })?;
            output::item_with(session.format, &found, groups_text)?;
        }
    }
    Ok(Exit::Ok)
}
