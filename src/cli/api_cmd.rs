//! `switchboard api METHOD PATH [-d @FILE | -d JSON] [--paginate]`: any route, like `gh api`,
//! with the profile's auth, the client's retries and, with `--paginate`, every page.

use clap::Args;
use reqwest::Method;
use serde_json::Value;

use super::exit::{Exit, Failure, Outcome};
use super::output;
use super::session::Session;

#[derive(Debug, Args)]
pub struct ApiArgs {
    /// GET, POST, PUT, PATCH or DELETE.
    pub method: String,
    /// The route, e.g. /v1/issue?status=OPEN.
    pub path: String,
    /// The JSON body, or @FILE to read it from a file (@- for stdin).
    #[arg(short = 'd', long = "data")]
    pub data: Option<String>,
    /// Follow `pagination` (cursor or offset) and print every page's `data` as one list.
    #[arg(long)]
    pub paginate: bool,
}

pub async fn run(args: ApiArgs, session: &Session) -> Outcome {
    let method = Method::from_bytes(args.method.to_ascii_uppercase().as_bytes())
        .map_err(|_| Failure::invalid("METHOD", format!("{:?} is not an HTTP method", args.method)))?;
    if method != Method::GET && method != Method::HEAD {
        session.may_write(&format!("api {method}"))?;
    }
    let path = if args.path.starts_with('/') { args.path.clone() } else { format!("/{}", args.path) };
    let body = match &args.data {
        None => None,
        Some(data) => Some(body(data)?),
    };
    let value = if args.paginate {
        if method != Method::GET {
            return Err(Failure::invalid("--paginate", "--paginate follows GET lists only"));
        }
        paginate(session, &path).await?
    } else {
        send(session, method, &path, None, body.as_ref()).await?
    };
    output::value(session.format, &value)?;
    Ok(Exit::Ok)
}

fn body(data: &str) -> Result<Value, Failure> {
    let text = match data.strip_prefix('@') {
        Some("-") => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .map_err(|e| Failure::io("cannot read stdin", e))?;
            text
        }
        Some(path) => {
            std::fs::read_to_string(path).map_err(|e| Failure::invalid("--data", format!("cannot read {path}: {e}")))?
        }
        None => data.to_string(),
    };
    serde_json::from_str(&text).map_err(|e| Failure::invalid("--data", format!("the body is not JSON: {e}")))
}

async fn send(
    session: &Session,
    method: Method,
    path: &str,
    query: Option<&[(&str, String)]>,
    body: Option<&Value>,
) -> Result<Value, Failure> {
    let (_, bytes) = session.client.send_raw(method, path, query, body).await?;
    if bytes.is_empty() {
        return Ok(Value::Null);
    }
    Ok(serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned())))
}

/// Every page of a list: cursor paging (`nextCursor`) or offset paging (`offset`, `hasMore`).
async fn paginate(session: &Session, path: &str) -> Result<Value, Failure> {
    let mut data: Vec<Value> = Vec::new();
    let mut query: Vec<(&str, String)> = Vec::new();
    let mut last_pagination;
    // Where each page was read from: a service that leads back to one would page forever.
    let mut seen = std::collections::HashSet::new();
    loop {
        let page = send(session, Method::GET, path, (!query.is_empty()).then_some(query.as_slice()), None).await?;
        let items = match page.get("data") {
            Some(Value::Array(items)) => items.clone(),
            _ => return Ok(page),
        };
        let count = items.len();
        data.extend(items);
        let pagination = page.get("pagination").cloned().unwrap_or(Value::Null);
        let has_more = pagination.get("hasMore").and_then(Value::as_bool).unwrap_or(false);
        last_pagination = pagination.clone();
        if !has_more || count == 0 {
            break;
        }
        query.retain(|(k, _)| *k != "cursor" && *k != "after" && *k != "offset");
        let next = match pagination.get("nextCursor").and_then(Value::as_str) {
            // The spec names `cursor` for collection jobs; every other cursor list reads `after`.
            Some(cursor) if path.contains("/collection-jobs") => ("cursor", cursor.to_string()),
            Some(cursor) => ("after", cursor.to_string()),
            None => {
                let offset = pagination.get("offset").and_then(Value::as_u64).unwrap_or(0) + count as u64;
                ("offset", offset.to_string())
            }
        };
        if !seen.insert(next.clone()) {
            let message =
                format!("the service led back to a page already read ({}={}); paging stopped", next.0, next.1);
            return Err(session.client.redact(crate::api::Error::Paging(message)).into());
        }
        query.push(next);
    }
    if let Some(object) = last_pagination.as_object_mut() {
        object.insert("hasMore".into(), Value::Bool(false));
        if object.contains_key("nextCursor") {
            object.insert("nextCursor".into(), Value::Null);
        }
    }
    Ok(serde_json::json!({ "data": data, "pagination": last_pagination }))
}
