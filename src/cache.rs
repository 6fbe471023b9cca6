//! The local cache: last-seen lists per profile, so the console can show something at once.
//! One JSON file per profile, written atomically; a corrupt or foreign file is moved aside.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::api::model::Timestamp;

/// Bumped whenever the file's shape changes; older files are set aside, not misread.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CacheFile {
    schema_version: u32,
    profile: String,
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

/// One profile's cache.
#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    file: CacheFile,
}

impl Cache {
    /// The cache of `profile` under `dir`, plus a warning when a bad file had to be set aside.
    pub fn load(dir: &Path, profile: &str) -> (Cache, Option<String>) {
        let path = dir.join(format!("{}.json", file_stem(profile)));
        let empty = CacheFile {
            schema_version: SCHEMA_VERSION,
            profile: profile.to_owned(),
            lists: BTreeMap::new(),
            marks: BTreeMap::new(),
        };
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(_) => return (Cache { path, file: empty }, None),
        };
        let problem = match serde_json::from_slice::<CacheFile>(&bytes) {
            Ok(file) if file.schema_version == SCHEMA_VERSION && file.profile == profile => {
                return (Cache { path, file }, None);
            }
            Ok(file) if file.profile != profile => format!("it belongs to profile {:?}", file.profile),
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

    pub fn path(&self) -> &Path {
        &self.path
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

    /// Writes the file atomically: a temporary file in the same folder, synced, then renamed.
    pub fn save(&self) -> std::io::Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let tmp = dir.join(format!(".{}.{}.tmp", file_stem(&self.file.profile), std::process::id()));
        let result = (|| {
            let mut out = std::fs::File::create(&tmp)?;
            out.write_all(&serde_json::to_vec(&self.file).map_err(std::io::Error::other)?)?;
            out.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }
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
