//! Ids on the command line, refused in people's words: what the argument wants and where to
//! find one, never the UUID parser's "found `n` at 0".

use uuid::Uuid;

/// A run plan job's id.
pub fn job(text: &str) -> Result<Uuid, String> {
    parse(
        text,
        "a run plan job id (the UUID `switchboard job list` prints; jobs have no names: for a plan's jobs by its name use `job list --plan NAME`)",
    )
}

/// An issue's id.
pub fn issue(text: &str) -> Result<Uuid, String> {
    parse(text, "an issue id (the UUID `switchboard issue list` prints)")
}

/// A call's id.
pub fn call(text: &str) -> Result<Uuid, String> {
    parse(text, "a call id (a UUID, as `switchboard api GET /v1/call` lists them)")
}

fn parse(text: &str, wants: &str) -> Result<Uuid, String> {
    Uuid::parse_str(text.trim()).map_err(|_| format!("this wants {wants}, and {text:?} is not one"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_wrong_id_says_what_is_wanted_not_where_the_parser_stopped() {
        let message = super::job("not-a-uuid").unwrap_err();
        assert!(message.contains("run plan job id") && !message.contains("found"), "{message}");
        assert!(super::job("3fb5aeb0-0000-4000-8000-000000000000").is_ok());
    }
}
