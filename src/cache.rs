//! The local cache: last-seen lists, so the console can show something at once. One JSON file
//! per profile *and* service (a readable name plus a short hash of the service's address), so
//! lists from one address are never shown as another's; written atomically; a corrupt or
//! foreign file is moved aside.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::api::model::Timestamp;

/// Bumped whenever the file's shape changes; older files are set aside, not misread.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CacheFile {
    schema_version: u32,
    profile: String,
    /// The service the lists came from (`Cache::service_identity`).
    #[serde(default)]
    service: String,
    #[serde(default)]
    lists: BTreeMap<String, CachedList>,
    /// Small facts kept between sessions (the issues seen on the last visit).
    #[serde(default)]
    marks: BTreeMap<String, serde_json::Value>,
}

/// A list as it was last fetched.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CachedList {
    pub fetched_at: Timestamp,
    pub items: serde_json::Value,
}

/// One profile's cache of one service.
#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    file: CacheFile,
}

impl Cache {
    /// What names a service for the cache: its base URL, without a trailing slash and with the
    /// scheme and host in lower case (`HTTP://Api.Example.com/` and `http://api.example.com` are
    /// one service).
    pub fn service_identity(base_url: &str) -> String {
        let trimmed = base_url.trim().trim_end_matches('/');
        match trimmed.split_once("://") {
            Some((scheme, rest)) => {
                let (host, path) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
                let path = if path.is_empty() { String::new() } else { format!("/{path}") };
                format!("{}://{}{path}", scheme.to_ascii_lowercase(), host.to_ascii_lowercase())
            }
            None => trimmed.to_owned(),
        }
    }

    /// The cache of `profile` for `service` (`service_identity`, or the embedded service's own
    /// name) under `dir`, plus a warning when a bad file had to be set aside.
    pub fn load(dir: &Path, profile: &str, service: &str) -> (Cache, Option<String>) {
        let path = dir.join(file_name(profile, service));
        let empty = CacheFile {
            schema_version: SCHEMA_VERSION,
            profile: profile.to_owned(),
            service: service.to_owned(),
            lists: BTreeMap::new(),
            marks: BTreeMap::new(),
        };
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(_) => return (Cache { path, file: empty }, None),
        };
        let problem = match serde_json::from_slice::<CacheFile>(&bytes) {
            Ok(file) if file.schema_version == SCHEMA_VERSION && file.profile == profile && file.service == service => {
                return (Cache { path, file }, None);
            }
            Ok(file) if file.profile != profile => format!("it belongs to profile {:?}", file.profile),
            Ok(file) if file.schema_version == SCHEMA_VERSION && file.service != service => {
                format!("it holds lists of another service ({})", file.service)
            }
            Ok(file) => format!("it has schema version {}, this build reads {SCHEMA_VERSION}", file.schema_version),
            Err(e) => format!("it is not a cache file ({e})"),
        };
        let aside = set_aside(&path);
        let warning = match &aside {
            Ok(moved) => format!("cache {} was set aside as {}: {problem}", path.display(), moved.display()),
            Err(e) => format!("cache {} is unusable ({problem}) and could not be moved: {e}", path.display()),
        };
        tracing::warn!("{warning}");
        (Cache { path, file: empty }, Some(warning))
    }

    /// The cache of `profile` for `service` when there is a good one, read only: a missing,
    /// foreign or corrupt file is None and left where it is (for headless commands, which
    /// read what the console kept but never own the file).
    pub fn peek(dir: &Path, profile: &str, service: &str) -> Option<Cache> {
        let path = dir.join(file_name(profile, service));
        let file: CacheFile = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
        (file.schema_version == SCHEMA_VERSION && file.profile == profile && file.service == service)
            .then_some(Cache { path, file })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether it holds no list at all (a first launch).
    pub fn is_empty(&self) -> bool {
        self.file.lists.is_empty()
    }

    /// A cached list and when it was fetched; None when absent or no longer decodable.
    pub fn list<T: DeserializeOwned>(&self, key: &str) -> Option<(Vec<T>, Timestamp)> {
        let cached = self.file.lists.get(key)?;
        let items = serde_json::from_value(cached.items.clone()).ok()?;
        Some((items, cached.fetched_at.clone()))
    }

    /// Remembers a freshly fetched list.
    pub fn put_list<T: Serialize>(&mut self, key: &str, items: &[T]) {
        match serde_json::to_value(items) {
            Ok(items) => {
                self.file.lists.insert(key.to_owned(), CachedList { fetched_at: Timestamp::now(), items });
            }
            Err(e) => tracing::warn!(key, "list not cached: {e}"),
        }
    }

    pub fn mark<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        serde_json::from_value(self.file.marks.get(key)?.clone()).ok()
    }

    pub fn set_mark<T: Serialize>(&mut self, key: &str, value: &T) {
        if let Ok(value) = serde_json::to_value(value) {
            self.file.marks.insert(key.to_owned(), value);
        }
    }

    /// Writes the file now (on quit).
    pub fn save(&self) -> std::io::Result<()> {
        self.snapshot().write()
    }

    /// The file's bytes as they stand, to write later on another thread.
    pub fn snapshot(&self) -> Snapshot {
        let bytes = serde_json::to_vec(&self.file).unwrap_or_default();
        Snapshot { path: self.path.clone(), bytes }
    }
}

/// A cache's content at one moment, ready to write.
pub struct Snapshot {
    path: PathBuf,
    bytes: Vec<u8>,
}

impl Snapshot {
    /// Writes the file atomically and readable by its owner only (it holds what the service
    /// showed): a uniquely named temporary file in the same folder, synced, then renamed, so
    /// two writes at once never share a temporary file and a reader never sees half a file.
    pub fn write(&self) -> std::io::Result<()> {
        if self.bytes.is_empty() {
            return Err(std::io::Error::other("the cache did not serialize"));
        }
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        // tempfile creates the file 0600 on unix.
        let mut out = tempfile::NamedTempFile::new_in(dir)?;
        out.write_all(&self.bytes)?;
        out.as_file().sync_all()?;
        out.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// `staging-1f2e3d4c.json`: the profile, readable, and the first 8 hex digits of a name-based
/// UUID (v5) of the service, stable across builds and platforms.
fn file_name(profile: &str, service: &str) -> String {
    let hash = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, service.as_bytes()).simple().to_string();
    format!("{}-{}.json", file_stem(profile), &hash[..8])
}

/// A profile name made safe as a file name.
fn file_stem(profile: &str) -> String {
    profile.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

fn set_aside(path: &Path) -> std::io::Result<PathBuf> {
    let stamp = jiff::Timestamp::now().as_second();
    let moved = path.with_extension(format!("json.bad-{stamp}"));
    std::fs::rename(path, &moved)?;
    Ok(moved)
}
