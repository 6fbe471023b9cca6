//! `--jq EXPR`: the JSON a command prints, filtered by jaq (a maintained jq in Rust), like
//! `gh --jq`: each result on its own line, strings without their quotes.

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data, unwrap_valr};
use jaq_json::Val;

use super::exit::Failure;

/// The lines `expr` makes of `input`.
pub fn filter(expr: &str, input: &serde_json::Value) -> Result<String, Failure> {
    let text = serde_json::to_vec(input).map_err(|e| refused(expr, &e.to_string()))?;
    let input = jaq_json::read::parse_single(&text).map_err(|e| refused(expr, &format!("{e:?}")))?;
    let defs = jaq_core::defs().chain(jaq_std::defs()).chain(jaq_json::defs());
    let funs = jaq_core::funs().chain(jaq_std::funs()).chain(jaq_json::funs());
    let arena = Arena::default();
    let modules = Loader::new(defs)
        .load(&arena, File { code: expr, path: () })
        .map_err(|_| refused(expr, "it is not a jq expression (check its quotes and brackets)"))?;
    let program =
        Compiler::default().with_funs(funs).compile(modules).map_err(|errors| refused(expr, &undefined(&errors)))?;
    let ctx = Ctx::<data::JustLut<Val>>::new(&program.lut, Vars::new([]));
    let mut out = String::new();
    for value in program.id.run((ctx, input)).map(unwrap_valr) {
        let value = value.map_err(|e| refused(expr, &e.to_string()))?;
        match &value {
            Val::TStr(bytes) => out.push_str(&String::from_utf8_lossy(bytes)),
            other => out.push_str(&other.to_string()),
        }
        out.push('\n');
    }
    Ok(out)
}

/// The names a compile error says are not defined.
fn undefined<P>(errors: &jaq_core::compile::Errors<&str, P>) -> String {
    let names: Vec<String> =
        errors.iter().flat_map(|(_, errs)| errs.iter().map(|(name, _)| name.to_string())).collect();
    format!("it uses what jq does not define: {}", names.join(", "))
}

fn refused(expr: &str, why: &str) -> Failure {
    Failure::invalid("--jq", format!("--jq {expr:?}: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_print_bare_and_other_values_as_json() {
        let input = serde_json::json!({"data": [{"id": "a", "n": 1}, {"id": "b", "n": 2}]});
        assert_eq!(filter(".data[].id", &input).unwrap(), "a\nb\n");
        assert_eq!(filter("[.data[].n] | add", &input).unwrap(), "3\n");
        assert_eq!(filter(".data | length", &input).unwrap(), "2\n");
    }

    #[test]
    fn a_bad_expression_is_a_usage_error_naming_the_flag() {
        let failure = filter(".data[", &serde_json::json!({})).unwrap_err();
        assert_eq!(failure.body.param.as_deref(), Some("--jq"));
        assert!(filter("nosuchfn", &serde_json::json!({})).unwrap_err().body.message.contains("nosuchfn"));
    }
}
