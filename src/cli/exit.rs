//! Exit codes, the same for every command, and the one error type commands end with: a
//! message for people, the spec's error body for `--output json`, and the code scripts branch on.

use std::process::ExitCode;

use crate::api::{self, ErrorBody, ErrorType};
use crate::config::ConfigError;
use crate::connect::ConnectError;

/// How a command ended. `--help` and `docs/cli.md` list these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    /// A run ran and FAILED (the gate's verdict), or `diff --fail-on-regression` found a
    /// regression: the one code that says "your agent failed".
    Failed = 1,
    /// The command line, an input file, or what it names is wrong: refused before anything
    /// ran (a bad flag, a plan the service refuses with 400, a report path that cannot be
    /// written).
    Usage = 2,
    /// The key was refused (401) or may not do this (403).
    Auth = 3,
    NotFound = 4,
    /// The service could not be reached, or is unavailable (5xx, 429 after retries).
    Unavailable = 5,
    /// The gate's run did not end within `--timeout`.
    TimedOut = 6,
    /// The command itself failed (it could not encode its output, the console could not run).
    Internal = 7,
    /// Ended by Ctrl-C (SIGINT): the shell's 128 + 2.
    Interrupted = 130,
    /// Ended by SIGTERM (a CI runner cancelling): 128 + 15.
    Terminated = 143,
}

/// The exit codes as `--help` shows them.
pub const EXIT_CODES: &str = "Exit codes: 0 ok · 1 the run ran and FAILED (or diff --fail-on-regression found one) \
                              · 2 refused before anything ran (bad flags, input file, or a request the service \
                              refuses with 400) · 3 authentication or permission (401/403) · 4 not found · 5 network \
                              or service unavailable, or the agent could not be reached on any simulation · 6 gate \
                              TIMED_OUT · 7 the command itself failed";

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}

/// A command that could not do what it was asked.
#[derive(Debug)]
pub struct Failure {
    pub exit: Exit,
    /// The error body: the service's own when it answered, else one made in its shape.
    pub body: Box<ErrorBody>,
    /// Where the message came from, shown only with `RUST_BACKTRACE` or `--log-level debug`.
    pub detail: Option<String>,
}

impl Failure {
    pub fn new(exit: Exit, code: &str, message: impl Into<String>) -> Failure {
        let error_type = match exit {
            Exit::Usage => ErrorType::Validation,
            Exit::Auth => ErrorType::Authentication,
            Exit::NotFound => ErrorType::NotFound,
            Exit::Unavailable => ErrorType::Unknown("unavailable".into()),
            Exit::TimedOut => ErrorType::Unknown("timed_out".into()),
            Exit::Interrupted | Exit::Terminated => ErrorType::Unknown("interrupted".into()),
            Exit::Internal => ErrorType::Internal,
            Exit::Ok | Exit::Failed => ErrorType::Unknown("failed".into()),
        };
        Failure { exit, body: Box::new(ErrorBody::new(error_type, code, message)), detail: None }
    }

    /// A wrong flag, argument or input: exit 2.
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(Exit::Usage, "usage", message)
    }

    /// Exit 2 naming the field (flag or member) at fault.
    pub fn invalid(param: impl Into<String>, message: impl Into<String>) -> Failure {
        let mut failure = Failure::new(Exit::Usage, "invalid_parameter", message);
        failure.body.param = Some(param.into());
        failure
    }

    pub fn not_found(message: impl Into<String>) -> Failure {
        Failure::new(Exit::NotFound, "not_found", message)
    }

    /// A local failure (a file that cannot be written): the command line named it, so exit 2.
    pub fn io(what: impl std::fmt::Display, error: std::io::Error) -> Failure {
        let mut failure = Failure::new(Exit::Usage, "io_error", format!("{what}: {error}"));
        failure.detail = Some(format!("{error:?}"));
        failure
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> Failure {
        self.detail = Some(detail.into());
        self
    }

    /// Puts `context` before the message ("health check of … failed: …").
    pub fn context(mut self, context: impl std::fmt::Display) -> Failure {
        self.body.message = format!("{context}: {}", self.body.message);
        self
    }

    /// The message for people: the error, the field at fault, and each violation.
    pub fn describe(&self) -> String {
        let mut text = self.body.message.clone();
        // `file` names the whole file, which the message already starts with (`plan.yaml:3: …`).
        if let Some(param) = &self.body.param
            && !text.contains(param.as_str())
            && param != "file"
        {
            text.push_str(&format!(" (field: {param})"));
        }
        // A message of several lines already lists every violation.
        let violations = match text.contains('\n') {
            true => None,
            false => self.body.details.as_ref().and_then(|d| d.get("violations")).and_then(|v| v.as_array()),
        };
        for violation in violations.into_iter().flatten().skip(1) {
            let param = violation.get("param").and_then(|p| p.as_str()).unwrap_or("");
            let message = violation.get("message").and_then(|m| m.as_str()).unwrap_or("");
            if message.contains(param) {
                text.push_str(&format!("\n  {message}"));
            } else {
                text.push_str(&format!("\n  {param}: {message}"));
            }
        }
        text
    }
}

/// The exit code an HTTP status maps to.
pub fn exit_for_status(status: u16) -> Exit {
    match status {
        401 | 403 => Exit::Auth,
        404 => Exit::NotFound,
        429 | 500..=599 => Exit::Unavailable,
        // Any other refusal (400, 409, 413, 415, …): the request was wrong and nothing ran.
        _ => Exit::Usage,
    }
}

impl From<api::Error> for Failure {
    fn from(error: api::Error) -> Failure {
        let detail = Some(format!("{error:?}"));
        let (exit, body) = match &error {
            api::Error::Api(api) => {
                let body = ErrorBody {
                    error_type: api.error_type.clone(),
                    code: api.code.clone(),
                    message: format!("{} {}/{}: {}", api.status, api.error_type, api.code, api.message),
                    param: api.param.clone(),
                    details: api.details.clone(),
                };
                (exit_for_status(api.status), body)
            }
            api::Error::Timeout { .. } | api::Error::Connect { .. } => (
                Exit::Unavailable,
                ErrorBody::new(ErrorType::Unknown("unavailable".into()), "unreachable", error.to_string()),
            ),
            api::Error::Decode { status, .. } => {
                // An answer this client cannot read: the service's fault, not the command line's.
                let exit = if *status >= 500 { Exit::Unavailable } else { Exit::Internal };
                (exit, ErrorBody::new(ErrorType::Internal, "unexpected_response", error.to_string()))
            }
            api::Error::Request(message) => {
                (Exit::Usage, ErrorBody::new(ErrorType::Validation, "bad_request", message))
            }
            // The service's fault, not the command line's.
            api::Error::Paging(message) => {
                (Exit::Unavailable, ErrorBody::new(ErrorType::Internal, "unexpected_paging", message))
            }
        };
        Failure { exit, body: Box::new(body), detail }
    }
}

impl From<ConfigError> for Failure {
    fn from(error: ConfigError) -> Failure {
        let exit = match error {
            ConfigError::NoKey(_) | ConfigError::KeyEnvUnset { .. } => Exit::Auth,
            _ => Exit::Usage,
        };
        Failure::new(exit, "config", error.to_string()).with_detail(format!("{error:?}"))
    }
}

impl From<ConnectError> for Failure {
    fn from(error: ConnectError) -> Failure {
        match error {
            ConnectError::Config(error) => error.into(),
            ConnectError::Client(error) => error.into(),
            ConnectError::Start(error) => Failure::new(
                Exit::Unavailable,
                "embedded_start",
                format!("cannot start the embedded local service: {error}"),
            )
            .with_detail(format!("{error:?}")),
        }
    }
}

/// What a command returns: the exit code it ended with, or why it could not finish.
pub type Outcome = Result<Exit, Failure>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_the_documented_codes() {
        assert_eq!(exit_for_status(400), Exit::Usage);
        assert_eq!(exit_for_status(409), Exit::Usage);
        assert_eq!(Exit::Failed as u8, 1, "1 is kept for a run that ran and FAILED");
        assert_eq!(exit_for_status(401), Exit::Auth);
        assert_eq!(exit_for_status(403), Exit::Auth);
        assert_eq!(exit_for_status(404), Exit::NotFound);
        assert_eq!(exit_for_status(503), Exit::Unavailable);
        assert_eq!(Exit::TimedOut as u8, 6);
    }

    #[test]
    fn a_yaml_error_names_the_file_and_line_without_a_stray_field() {
        let failure = crate::cli::input::Document::parse("plan.yaml", "name: [unclosed\n").unwrap_err();
        let said = failure.describe();
        assert!(said.starts_with("plan.yaml:"), "{said}");
        assert!(!said.contains("(field: file)"), "{said}");
        assert_eq!(failure.body.param.as_deref(), Some("file"), "the JSON body still names the field");
        let named = Failure::invalid("flows", "no customer flow x");
        assert!(named.describe().ends_with("(field: flows)"), "{}", named.describe());
    }
}
