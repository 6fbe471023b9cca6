//! Config profiles and overrides, and the per-profile JSON cache.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails by panicking")]

use std::path::Path;

use switchboard::api::ApiKey;
use switchboard::api::model::{Persona, Timestamp};
use switchboard::cache::Cache;
use switchboard::config::{Config, ConfigError, Overrides, Target};

const KEY: &str = "sk-config-test-7c6b5a49";

fn config(text: &str) -> Config {
    Config::parse(text).expect("parses")
}

fn overrides() -> Overrides {
    Overrides::default()
}

#[test]
fn the_example_config_parses_and_resolves() {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("config.example.toml")).unwrap();
    let config = config(&text);
    assert!(config.profiles.contains_key("staging"));
    let local = config.resolve(&overrides()).unwrap();
    assert_eq!(local.target, Target::Embedded);
    assert_eq!(local.poll_interval.as_millis(), 1000);
}

/// The example's `[caller]` section, uncommented, is what `[caller]` takes; a member it does not
/// take is refused by name.
#[test]
fn the_examples_caller_section_parses_and_unknown_members_are_refused() {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("config.example.toml")).unwrap();
    let section: String = text
        .lines()
        .skip_while(|l| *l != "# [caller]")
        .take_while(|l| l.starts_with("# "))
        .map(|l| format!("{}\n", &l[2..]))
        .collect();
    let caller = config(&section).caller.expect("the example has a [caller] section");
    // docs/caller.md shows the same section, as written.
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/caller.md")).unwrap();
    let documented = doc
        .split("```toml\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .find(|block| block.starts_with("[caller]"))
        .expect("docs/caller.md shows a [caller] section");
    assert_eq!(config(documented).caller.as_ref(), Some(&caller), "docs/caller.md and the example agree");
    assert_eq!(
        caller,
        switchboard::service::sim::conversation::CallerConfig {
            base_url: "https://api.openai.com/v1".into(),
            model: "gpt-4o-mini".into(),
            api_key_env: Some("OPENAI_API_KEY".into()),
            timeout_seconds: Some(30),
            max_tokens: Some(300),
        }
    );
    let error = Config::parse("[caller]\nbase_url = \"http://m/v1\"\nmodel = \"m\"\ntemperature = 1\n").unwrap_err();
    assert!(error.contains("temperature") && error.starts_with("line 4"), "{error}");
}

#[test]
fn no_config_means_the_embedded_local_service() {
    let resolved = Config::default().resolve(&overrides()).unwrap();
    assert_eq!(resolved.profile, "local");
    assert_eq!(resolved.target, Target::Embedded);
    assert!(resolved.api_key.is_none());
    assert!(!resolved.read_only);
}

#[test]
fn a_profile_takes_its_key_from_the_named_environment_variable() {
    // Unique per test: tests share the process environment.
    unsafe { std::env::set_var("SWITCHBOARD_TEST_KEY_A", KEY) };
    let c = config(
        "[profiles.staging]\nbase_url = \"https://svc.example\"\napi_key_env = \"SWITCHBOARD_TEST_KEY_A\"\npoll_interval_ms = 2500\nread_only = true\n",
    );
    let resolved = c.resolve(&Overrides { profile: Some("staging".into()), ..overrides() }).unwrap();
    assert_eq!(resolved.target, Target::Remote { base_url: "https://svc.example".into() });
    assert_eq!(resolved.api_key, Some(ApiKey::new(KEY)));
    assert_eq!(resolved.poll_interval.as_millis(), 2500);
    assert!(resolved.read_only);
}

#[test]
fn an_unset_key_variable_is_named_in_the_error() {
    let c = config(
        "[profiles.staging]\nbase_url = \"https://svc.example\"\napi_key_env = \"SWITCHBOARD_TEST_UNSET_VAR\"\n",
    );
    let err = c.resolve(&Overrides { profile: Some("staging".into()), ..overrides() }).unwrap_err();
    assert!(matches!(err, ConfigError::KeyEnvUnset { .. }));
    assert!(err.to_string().contains("SWITCHBOARD_TEST_UNSET_VAR"));
}

#[test]
fn the_environment_key_and_base_url_flag_override_the_profile() {
    let c = config(
        "default_profile = \"prod\"\n[profiles.prod]\nbase_url = \"https://prod.example\"\napi_key = \"file-key\"\n",
    );
    let resolved = c
        .resolve(&Overrides {
            base_url: Some("http://127.0.0.1:9".into()),
            api_key: Some(ApiKey::new(KEY)),
            ..overrides()
        })
        .unwrap();
    assert_eq!(resolved.profile, "prod");
    assert_eq!(resolved.target, Target::Remote { base_url: "http://127.0.0.1:9".into() });
    assert_eq!(resolved.api_key, Some(ApiKey::new(KEY)));
    let from_file = c.resolve(&overrides()).unwrap();
    assert_eq!(from_file.api_key, Some(ApiKey::new("file-key")));
}

#[test]
fn base_url_on_the_local_profile_needs_a_key() {
    let err = Config::default()
        .resolve(&Overrides { base_url: Some("http://127.0.0.1:9".into()), ..overrides() })
        .unwrap_err();
    assert!(matches!(err, ConfigError::NoKey(_)), "{err}");
    assert!(err.to_string().contains("SWITCHBOARD_API_KEY"));
}

#[test]
fn unknown_profiles_and_misplaced_settings_are_clear_errors() {
    let err = config("[profiles.a]\nbase_url = \"http://x\"\napi_key = \"k\"\n")
        .resolve(&Overrides { profile: Some("b".into()), ..overrides() })
        .unwrap_err();
    assert!(err.to_string().contains("\"b\"") && err.to_string().contains("local, a"), "{err}");
    let err = config("[profiles.local]\nbase_url = \"http://x\"\n").resolve(&overrides()).unwrap_err();
    assert!(matches!(err, ConfigError::LocalWithBaseUrl(_)));
    let err = Config::parse("[profiles.a]\nbase_ulr = \"http://x\"\n").unwrap_err();
    assert!(err.contains("base_ulr") && err.contains("line 2"), "{err}");
    let err = Config::parse(&format!("[profiles.a]\napi_key = \"{KEY}\"\napi_key = \"{KEY}\"\n")).unwrap_err();
    assert!(!err.contains(KEY) && err.contains("line 3"), "a parse error never quotes a key: {err}");
}

#[cfg(unix)]
#[test]
fn a_key_in_a_world_readable_file_is_warned_about() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, format!("[profiles.p]\nbase_url = \"http://x\"\napi_key = \"{KEY}\"\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (_, warnings) = Config::load(&path).unwrap();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("chmod 600") && !warnings[0].contains(KEY));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(Config::load(&path).unwrap().1.is_empty());
}

#[test]
fn the_key_never_appears_in_debug_output_of_config() {
    let c = config(&format!("[profiles.p]\nbase_url = \"http://x\"\napi_key = \"{KEY}\"\n"));
    assert!(!format!("{c:?}").contains(KEY));
    let resolved = c.resolve(&Overrides { profile: Some("p".into()), ..overrides() }).unwrap();
    assert!(!format!("{resolved:?}").contains(KEY));
}

fn persona(n: u128) -> Persona {
    serde_json::from_value(serde_json::json!({"id": uuid::Uuid::from_u128(n), "name": format!("Persona {n}")})).unwrap()
}

#[test]
fn lists_survive_a_save_and_load_with_their_fetch_time() {
    let dir = tempfile::tempdir().unwrap();
    let (mut cache, warning) = Cache::load(dir.path(), "staging", STAGING);
    assert!(warning.is_none());
    assert!(cache.list::<Persona>("personas").is_none());
    cache.put_list("personas", &[persona(1), persona(2)]);
    cache.set_mark("issues.seen", &vec!["a", "b"]);
    cache.save().unwrap();
    let (cache, warning) = Cache::load(dir.path(), "staging", STAGING);
    assert!(warning.is_none());
    let (items, fetched_at): (Vec<Persona>, Timestamp) = cache.list("personas").unwrap();
    assert_eq!(items, vec![persona(1), persona(2)]);
    assert!(fetched_at.parse().is_some());
    assert_eq!(cache.mark::<Vec<String>>("issues.seen"), Some(vec!["a".into(), "b".into()]));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers, vec![cache.path().file_name().unwrap().to_owned()], "no temp file is left behind");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(cache.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the cache holds what the service showed: its owner's only");
    }
}

const STAGING: &str = "https://staging.example.com";

/// Where the cache of `profile` for `service` lives.
fn cache_file(dir: &std::path::Path, profile: &str, service: &str) -> std::path::PathBuf {
    Cache::load(dir, profile, service).0.path().to_path_buf()
}

#[test]
fn a_corrupt_cache_is_set_aside_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = cache_file(dir.path(), "local", "embedded:/data");
    std::fs::write(&path, b"{ not json").unwrap();
    let (cache, warning) = Cache::load(dir.path(), "local", "embedded:/data");
    assert!(warning.unwrap().contains("set aside"));
    assert!(cache.list::<Persona>("personas").is_none());
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    let stem = path.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(names.iter().any(|n| n.starts_with(&format!("{stem}.bad-"))), "{names:?}");
    assert!(!names.contains(&stem));
}

#[test]
fn a_foreign_or_older_cache_is_set_aside_too() {
    let dir = tempfile::tempdir().unwrap();
    let a = cache_file(dir.path(), "a", STAGING);
    std::fs::write(&a, format!(r#"{{"schemaVersion":2,"profile":"b","service":"{STAGING}","lists":{{}}}}"#)).unwrap();
    let (_, warning) = Cache::load(dir.path(), "a", STAGING);
    assert!(warning.unwrap().contains("profile \"b\""));
    let c = cache_file(dir.path(), "c", STAGING);
    std::fs::write(&c, format!(r#"{{"schemaVersion":999,"profile":"c","service":"{STAGING}","lists":{{}}}}"#)).unwrap();
    let (_, warning) = Cache::load(dir.path(), "c", STAGING);
    assert!(warning.unwrap().contains("schema version 999"));
}

#[test]
fn each_service_has_its_own_cache_and_never_sees_anothers() {
    let dir = tempfile::tempdir().unwrap();
    let (mut first, _) = Cache::load(dir.path(), "local", "http://127.0.0.1:8787");
    first.put_list("personas", &[persona(1)]);
    first.save().unwrap();
    // The same profile on another address: its own file, empty, the first one untouched.
    let (other, warning) = Cache::load(dir.path(), "local", "http://127.0.0.1:9");
    assert!(warning.is_none());
    assert_ne!(other.path(), first.path());
    assert!(other.list::<Persona>("personas").is_none(), "another address's lists are never shown");
    let (again, _) = Cache::load(dir.path(), "local", "http://127.0.0.1:8787");
    assert_eq!(again.list::<Persona>("personas").unwrap().0, vec![persona(1)]);
    // A file renamed to look like another service's is refused by what it says inside.
    std::fs::copy(first.path(), other.path()).unwrap();
    let (moved, warning) = Cache::load(dir.path(), "local", "http://127.0.0.1:9");
    assert!(moved.list::<Persona>("personas").is_none());
    assert!(warning.unwrap().contains("another service"));
    // One address written two ways is one service.
    assert_eq!(Cache::service_identity("HTTP://Api.Example.com/"), Cache::service_identity("http://api.example.com"));
    let name = first.path().file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.starts_with("local-") && name.ends_with(".json"), "readable: {name}");
}

#[test]
fn the_key_never_appears_in_cache_files() {
    let dir = tempfile::tempdir().unwrap();
    let c = config(&format!("[profiles.p]\nbase_url = \"http://x\"\napi_key = \"{KEY}\"\n"));
    let resolved = c.resolve(&Overrides { profile: Some("p".into()), ..overrides() }).unwrap();
    let (mut cache, _) = Cache::load(dir.path(), &resolved.profile, "http://x");
    cache.put_list("personas", &[persona(7)]);
    cache.save().unwrap();
    let text = std::fs::read_to_string(cache.path()).unwrap();
    assert!(text.contains("Persona 7"));
    assert!(!text.contains(KEY));
}
