//! Help like `gh`'s, added to every command by walking the command tree once, so a new command
//! gets it by construction: its examples, the shared exit codes, and `--json FIELDS` /
//! `--jq EXPR` on every command that prints a document.

use clap::{Arg, ArgAction, ArgMatches, Command};

use super::exit::EXIT_CODES;
use super::output::Selection;

/// Commands that print no document to select from (or take `--json` for something else).
const NO_SELECTION: &[&str] = &["serve", "completion", "init", "login", "logout", "secrets", "gate", "config path"];

/// Each command's examples, by its path under `switchboard`. A command's parent shows its
/// children's first examples; `tests/cli_help.rs` holds every command to having some.
const EXAMPLES: &[(&str, &str)] = &[
    ("serve", "switchboard serve\nswitchboard serve --addr 127.0.0.1:8080"),
    ("secrets rotate-key", "switchboard secrets rotate-key --data-dir ~/.local/share/switchboard"),
    ("plan list", "switchboard plan list --limit 10\nswitchboard plan list --json id,name"),
    ("plan get", "switchboard plan get \"Brightsmile reschedule regression\""),
    ("plan create", "switchboard plan create -f plan.yaml\nswitchboard plan create -f - < plan.json"),
    ("run", "switchboard run \"Nightly\" --wait\nJOB=$(switchboard run -f plan.yaml -o plain)"),
    ("job list", "switchboard job list --plan Nightly --status COMPLETED\nswitchboard job list --jq '.data[].status'"),
    ("job get", "switchboard job get 3fb5aeb0-…\nswitchboard job get 3fb5aeb0-… --json status,verdict"),
    ("job watch", "switchboard job watch 3fb5aeb0-…"),
    ("job cancel", "switchboard job cancel 3fb5aeb0-…"),
    (
        "gate",
        "switchboard gate Nightly --junit junit.xml\nswitchboard gate -f plan.yaml --min-pass-rate 90 --timeout 30m",
    ),
    ("diff", "switchboard diff BASE_JOB HEAD_JOB --fail-on-regression"),
    ("flaky", "switchboard flaky Nightly --runs 10"),
    ("judge agreement", "switchboard judge agreement --metric call_duration"),
    ("judge label", "switchboard judge label CALL goal_achieved wrong --note \"never confirmed\""),
    (
        "issue list",
        "switchboard issue list --status OPEN\nswitchboard issue list --source TREND_ALERT\nswitchboard issue list --jq '.data[].title'",
    ),
    (
        "alert list",
        "switchboard alert list\nswitchboard alert list --jq '.data[] | select(.state == \"OPEN\") | .name'",
    ),
    ("alert get", "switchboard alert get latency-spike"),
    (
        "traffic",
        "switchboard traffic --calls-per-minute 120 --for 10m\nswitchboard traffic --agent \"Front desk\" --agent \"Night desk\" --degrade \"Night desk\" --degrade-after 5m",
    ),
    ("issue get", "switchboard issue get 82ef6400-…"),
    ("issue create", "switchboard issue create --title \"Talks over callers\" --severity HIGH --evidence CALL"),
    ("issue update", "switchboard issue update 82ef6400-… --status RESOLVED"),
    ("metric list", "switchboard metric list\nswitchboard metric list --json slug,name"),
    ("metric values", "switchboard metric values COLLECTION_JOB --status all"),
    ("call get", "switchboard call get CALL --transcript"),
    ("bench suites", "switchboard bench suites"),
    ("bench samples", "switchboard bench samples TARGET --suite S --limit 20"),
    ("api", "switchboard api GET /v1/issue?status=OPEN\nswitchboard api GET /v1/call --paginate -o jsonl"),
    ("init", "switchboard init\nswitchboard init my-suite --agent-url http://localhost:3000/chat"),
    ("login", "switchboard login --profile staging\necho \"$KEY\" | switchboard login --with-token"),
    ("logout", "switchboard logout --profile staging"),
    ("auth status", "switchboard auth status\nswitchboard auth status --profile staging"),
    ("config path", "switchboard config path"),
    ("config apply", "switchboard config apply -f suite/ --yes"),
    ("config diff", "switchboard config diff -f suite/ --exit-code"),
    ("config export", "switchboard config export --out-dir exported"),
    ("health", "switchboard health\nswitchboard health --json"),
    ("completion", "switchboard completion bash > /etc/bash_completion.d/switchboard"),
];

/// The command line's definition with examples, exit codes and `--json`/`--jq` on every command.
pub fn decorate(command: Command) -> Command {
    decorate_at(command, "")
}

fn decorate_at(mut command: Command, path: &str) -> Command {
    let names: Vec<String> = command.get_subcommands().map(|c| c.get_name().to_string()).collect();
    for name in &names {
        let child = join(path, name);
        command = command.mut_subcommand(name, |c| decorate_at(c, &child));
    }
    let top = path.split(' ').next().unwrap_or("");
    if !path.is_empty() && names.is_empty() && !NO_SELECTION.contains(&top) && !NO_SELECTION.contains(&path) {
        command = with_selection(command);
    }
    let examples = if path.is_empty() { None } else { examples(&command, path) };
    let after = match examples {
        Some(examples) => format!("Examples:\n{}\n\n{EXIT_CODES}", indent(&examples)),
        None => EXIT_CODES.to_string(),
    };
    command.after_help(after)
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() { name.to_string() } else { format!("{path} {name}") }
}

/// A command's own examples, or its children's first ones.
fn examples(command: &Command, path: &str) -> Option<String> {
    if let Some((_, text)) = EXAMPLES.iter().find(|(p, _)| *p == path) {
        return Some(text.to_string());
    }
    let firsts: Vec<&str> = command
        .get_subcommands()
        .filter_map(|c| EXAMPLES.iter().find(|(p, _)| *p == join(path, c.get_name())))
        .filter_map(|(_, text)| text.lines().next())
        .collect();
    (!firsts.is_empty()).then(|| firsts.join("\n"))
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  $ {l}")).collect::<Vec<_>>().join("\n")
}

/// Adds `--json` and `--jq` where the command has no flag of that name already.
fn with_selection(mut command: Command) -> Command {
    let has = |c: &Command, long: &str| c.get_arguments().any(|a| a.get_long() == Some(long));
    if !has(&command, "json") {
        command = command.arg(
            Arg::new("json")
                .long("json")
                .value_name("FIELDS")
                .num_args(0..=1)
                .default_missing_value("")
                .action(ArgAction::Set)
                .help("Print JSON; with FIELDS (a,b,…) only those members of each item"),
        );
    }
    if !has(&command, "jq") {
        command = command.arg(
            Arg::new("jq")
                .long("jq")
                .value_name("EXPR")
                .help("Filter the JSON through a jq expression (strings print without quotes)"),
        );
    }
    command
}

/// The `--json`/`--jq` of the command that runs, if it was given either.
pub fn selection(matches: &ArgMatches) -> Option<Selection> {
    let mut leaf = matches;
    while let Some((_, sub)) = leaf.subcommand() {
        leaf = sub;
    }
    let text = |id: &str| leaf.try_get_one::<String>(id).ok().flatten().cloned();
    let fields = text("json");
    let jq = text("jq");
    if fields.is_none() && jq.is_none() {
        return None;
    }
    let fields = fields
        .map(|f| f.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect())
        .unwrap_or_default();
    Some(Selection { fields, jq })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parent_shows_its_childrens_first_examples() {
        let job = Command::new("job").subcommand(Command::new("list")).subcommand(Command::new("watch"));
        assert_eq!(
            examples(&job, "job").as_deref(),
            Some("switchboard job list --plan Nightly --status COMPLETED\nswitchboard job watch 3fb5aeb0-…")
        );
    }
}
