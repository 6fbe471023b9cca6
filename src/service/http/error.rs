//! Every error the service answers is the spec's error body at the top level: the HTTP floor's
//! error, and the one place the store's and the domain's errors become the wire's.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::api::validate::{ECHO_CHARS, Violation, ViolationCode, clip};
use crate::api::{ErrorBody, ErrorType};
use crate::service::config::ConfigViolation;
use crate::service::error::{DomainError, FAULT_MESSAGE};
use crate::service::leases::LOST;
use crate::service::store::{StoreError, UNSTORABLE};

/// An error response: status plus the spec's body.
#[derive(Debug)]
pub struct ServiceError {
    pub status: StatusCode,
    /// Boxed so that `Result<T, ServiceError>` stays small on every path.
    pub body: Box<ErrorBody>,
    pub retry_after_secs: Option<u64>,
}

pub type ServiceResult<T> = Result<T, ServiceError>;

impl ServiceError {
    pub fn new(status: StatusCode, error_type: ErrorType, code: &str, message: impl Into<String>) -> Self {
        ServiceError { status, body: Box::new(ErrorBody::new(error_type, code, message)), retry_after_secs: None }
    }

    /// 400 for one bad parameter.
    pub fn invalid(param: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, ErrorType::Validation, "invalid_parameter", message).with_param(param)
    }

    /// 400 from `validate()`: the first violation names the field; `details.violations` lists all.
    pub fn violations(violations: Vec<Violation>) -> Self {
        let first = violations.first().cloned().unwrap_or(Violation {
            param: String::new(),
            code: ViolationCode::InvalidParameter,
            message: "invalid request".into(),
        });
        let details = serde_json::json!({ "violations": violations });
        let mut error = Self::new(StatusCode::BAD_REQUEST, ErrorType::Validation, first.code.as_str(), first.message);
        if !first.param.is_empty() {
            error = error.with_param(first.param);
        }
        error.body.details = Some(details);
        error
    }

    /// Ok when there is nothing to report, else the 400 for the violations.
    pub fn check(violations: Vec<Violation>) -> ServiceResult<()> {
        if violations.is_empty() { Ok(()) } else { Err(Self::violations(violations)) }
    }

    pub fn not_found(what: &str, id: &str) -> Self {
        let id = clip(id, ECHO_CHARS);
        Self::new(StatusCode::NOT_FOUND, ErrorType::NotFound, "resource_not_found", format!("no {what} {id}"))
    }

    pub fn unauthorized(message: &str) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, ErrorType::Authentication, "unauthorized", message)
    }

    pub fn forbidden(message: &str) -> Self {
        Self::new(StatusCode::FORBIDDEN, ErrorType::Forbidden, "permission_denied", message)
    }

    /// 409 `conflict`: the change collides with what is stored (a slug another resource holds).
    pub fn conflict(param: impl Into<String>, code: &str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, ErrorType::Conflict, code, message).with_param(param)
    }

    pub fn rate_limited(retry_after_secs: u64) -> Self {
        let message = format!("too many requests; retry in {retry_after_secs} s");
        let mut error = Self::new(StatusCode::TOO_MANY_REQUESTS, ErrorType::RateLimit, "too_many_requests", message);
        error.retry_after_secs = Some(retry_after_secs);
        error
    }

    /// 503: the service holds as much for answers on their way out as it may (clients that
    /// read slowly or not at all); `Retry-After` says when a share should be free again.
    pub fn busy(retry_after_secs: u64) -> Self {
        let message = format!("the service is busy sending other large answers; retry in {retry_after_secs} s");
        let status = StatusCode::SERVICE_UNAVAILABLE;
        let mut error = Self::new(status, ErrorType::for_status(status.as_u16()), "service_busy", message);
        error.retry_after_secs = Some(retry_after_secs);
        error
    }

    /// 500; the cause goes to the log, never to the caller.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!("internal error: {cause}");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, ErrorType::Internal, "internal_error", FAULT_MESSAGE)
    }

    /// The same error under another machine-readable code.
    pub fn with_code(mut self, code: &str) -> Self {
        self.body.code = code.to_owned();
        self
    }

    pub fn with_param(mut self, param: impl Into<String>) -> Self {
        self.body.param = Some(param.into());
        self
    }
}

/// The one mapping of the store's errors to the wire.
impl From<StoreError> for ServiceError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound { kind, id } => ServiceError::not_found(kind, &id),
            StoreError::Unstorable => ServiceError::invalid("body", error.to_string()).with_code(UNSTORABLE),
            StoreError::BadCursor => ServiceError::invalid("cursor", error.to_string()),
            StoreError::LeaseLost { .. } => {
                ServiceError::new(StatusCode::CONFLICT, ErrorType::Conflict, LOST, error.to_string())
            }
            StoreError::Unavailable(message) => {
                ServiceError::new(StatusCode::SERVICE_UNAVAILABLE, ErrorType::Internal, "store_unavailable", message)
            }
            StoreError::Backend(cause) => ServiceError::internal(cause),
        }
    }
}

/// The one mapping of the domain's errors to the wire.
impl From<DomainError> for ServiceError {
    fn from(error: DomainError) -> Self {
        match error {
            DomainError::Invalid { param, message } => ServiceError::invalid(param, message),
            DomainError::Refused(violations) => ServiceError::violations(violations),
            DomainError::ConfigRefused(problems) => config_refusal(problems),
            DomainError::NotFound { what, id } => ServiceError::not_found(what, &id),
            DomainError::Conflict { param, code, message } => ServiceError::conflict(param, code, message),
            DomainError::Fault(cause) => ServiceError::internal(cause),
            DomainError::Store(error) => error.into(),
        }
    }
}

/// The 400 that lists every problem of a bundle (`details.violations`, each with its
/// `configKey`); the first names the field.
fn config_refusal(problems: Vec<ConfigViolation>) -> ServiceError {
    let plain = problems
        .iter()
        .map(|p| Violation {
            param: p.param.clone(),
            code: p.code,
            message: format!("{}: {}", p.config_key, p.message),
        })
        .collect();
    let mut error = ServiceError::violations(plain);
    error.body.details = Some(serde_json::json!({ "violations": problems }));
    error
}

impl From<serde_json::Error> for ServiceError {
    fn from(error: serde_json::Error) -> Self {
        ServiceError::internal(format!("json: {error}"))
    }
}

/// The most an error's message, and its `param`, may hold: whatever a caller sent, an error
/// repeats no more than this of it (the sites that quote a value cut it much shorter).
const MESSAGE_MAX: usize = 1000;
const PARAM_MAX: usize = 200;
/// The most violations a refusal lists: enough to fix a file at once, never a body's worth.
const VIOLATIONS_MAX: usize = 100;

/// The body as it goes out: message and params cut and their control characters escaped.
fn bounded(mut body: ErrorBody) -> ErrorBody {
    body.message = clip(&body.message, MESSAGE_MAX);
    body.param = body.param.map(|param| clip(&param, PARAM_MAX));
    let mut violations = body.details.as_mut().and_then(|d| d.get_mut("violations")).and_then(|v| v.as_array_mut());
    if let Some(violations) = violations.as_deref_mut() {
        violations.truncate(VIOLATIONS_MAX);
    }
    for violation in violations.into_iter().flatten() {
        for (member, max) in [("param", PARAM_MAX), ("message", MESSAGE_MAX)] {
            if let Some(text) = violation.get(member).and_then(serde_json::Value::as_str) {
                violation[member] = clip(text, max).into();
            }
        }
    }
    body
}

impl IntoResponse for ServiceError {
    fn into_response(self) -> Response {
        let mut response = (self.status, axum::Json(bounded(*self.body))).into_response();
        if let Some(secs) = self.retry_after_secs
            && let Ok(value) = HeaderValue::from_str(&secs.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::store::Kind;

    /// Status, code, message and param of the answer a store error becomes.
    fn wire(error: StoreError) -> (u16, String, String, Option<String>) {
        let error = ServiceError::from(error);
        (error.status.as_u16(), error.body.code, error.body.message, error.body.param)
    }

    #[test]
    fn each_store_error_keeps_its_wire_answer() {
        let answer = |status: u16, code: &str, message: &str, param: Option<&str>| {
            (status, code.to_owned(), message.to_owned(), param.map(str::to_owned))
        };
        assert_eq!(
            wire(StoreError::not_found(Kind::RunPlanJob, "j1")),
            answer(404, "resource_not_found", "no run plan job j1", None)
        );
        let nul = "the text holds a NUL character (\\u0000), which the store cannot keep";
        assert_eq!(wire(StoreError::Unstorable), answer(400, UNSTORABLE, nul, Some("body")));
        assert_eq!(
            wire(StoreError::BadCursor),
            answer(400, "invalid_parameter", "cursor is not one this service issued", Some("cursor"))
        );
        assert_eq!(
            wire(crate::service::leases::lost(Kind::SimulationJob, "s1")),
            answer(409, LOST, "this replica no longer holds simulation job s1", None)
        );
        assert_eq!(
            wire(StoreError::Unavailable("the store is unavailable; try again")),
            answer(503, "store_unavailable", "the store is unavailable; try again", None)
        );
        let internal = wire(StoreError::backend("store: disk I/O error (code 10)"));
        assert_eq!(internal, answer(500, "internal_error", "internal error; see the service log", None));
    }

    /// Status, code, message, param and `details` of the answer a domain error becomes.
    fn domain_wire(error: DomainError) -> (u16, String, String, Option<String>, Option<serde_json::Value>) {
        let told = error.told();
        let error = ServiceError::from(error);
        // What an engine tells (a simulation's errorMessage) is what a caller would read.
        assert_eq!(told, error.body.message);
        (error.status.as_u16(), error.body.code, error.body.message, error.body.param, error.body.details)
    }

    #[test]
    fn each_domain_error_keeps_its_wire_answer() {
        let (status, code, message, param, details) = domain_wire(DomainError::invalid("callId", "no call c1"));
        assert_eq!(
            (status, code.as_str(), message.as_str(), param.as_deref(), details),
            (400, "invalid_parameter", "no call c1", Some("callId"), None)
        );

        let violation = |param: &str, message: &str| Violation {
            param: param.into(),
            code: ViolationCode::InvalidParameter,
            message: message.into(),
        };
        let two = vec![violation("name", "name: is required"), violation("slug", "slug: too long")];
        let (status, code, message, param, details) = domain_wire(DomainError::Refused(two.clone()));
        assert_eq!(
            (status, code.as_str(), message.as_str(), param.as_deref()),
            (400, "invalid_parameter", "name: is required", Some("name"))
        );
        assert_eq!(details, Some(serde_json::json!({ "violations": two })));

        let problem = ConfigViolation::invalid("metric/polite", "metrics[0].type", "unknown".into());
        let (status, code, message, param, details) = domain_wire(DomainError::ConfigRefused(vec![problem.clone()]));
        assert_eq!(
            (status, code.as_str(), message.as_str(), param.as_deref()),
            (400, "invalid_parameter", "metric/polite: unknown", Some("metrics[0].type"))
        );
        assert_eq!(details, Some(serde_json::json!({ "violations": [problem] })));

        let long = "x".repeat(100);
        let (status, code, message, param, _) = domain_wire(DomainError::not_found("metric variant", &long));
        assert_eq!((status, code.as_str(), param), (404, "resource_not_found", None));
        assert_eq!(message, format!("no metric variant {}…", "x".repeat(ECHO_CHARS)));

        let in_use = DomainError::conflict("flowId", "flow_in_use", "customer flow f1 is in use");
        let (status, code, message, param, _) = domain_wire(in_use);
        assert_eq!(
            (status, code.as_str(), message.as_str(), param.as_deref()),
            (409, "flow_in_use", "customer flow f1 is in use", Some("flowId"))
        );

        let (status, code, message, param, _) = domain_wire(DomainError::fault("seed file x: bad json"));
        assert_eq!((status, code.as_str(), message.as_str(), param), (500, "internal_error", FAULT_MESSAGE, None));

        let lost = domain_wire(DomainError::Store(crate::service::leases::lost(Kind::SimulationJob, "s1")));
        assert_eq!((lost.0, lost.1.as_str()), (409, LOST));
        let json = serde_json::from_str::<u8>("x").map_err(DomainError::from).err();
        let json = json.map(domain_wire).map(|(status, code, ..)| (status, code));
        assert_eq!(json, Some((500, "internal_error".to_owned())));
    }
}
