//! Files and folders only their owner may read: the data dir, the API key, credentials,
//! secrets and logs. One place for the Unix modes (0700 folders, 0600 files); elsewhere they
//! are no-ops.

use std::io::Write;
use std::path::Path;

/// Folders only their owner may enter.
pub const DIR_MODE: u32 = 0o700;
/// Files only their owner may read and write.
pub const FILE_MODE: u32 = 0o600;

/// Whether others (group or world) have any access to `path`.
#[cfg(unix)]
pub fn is_open_to_others(path: &Path) -> std::io::Result<bool> {
    use std::os::unix::fs::PermissionsExt;
    Ok(std::fs::metadata(path)?.permissions().mode() & 0o077 != 0)
}

#[cfg(not(unix))]
pub fn is_open_to_others(_path: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// Sets `path`'s mode.
#[cfg(unix)]
pub fn restrict(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
pub fn restrict(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

/// Makes `dir` and its parents (new ones 0700), then takes away any access others have to it.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder.create(dir)?;
    if is_open_to_others(dir)? {
        restrict(dir, DIR_MODE)?;
    }
    Ok(())
}

/// Options that create a file 0600 (an existing one keeps its mode: see `write_private`).
pub fn private_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    options
}

/// Writes `bytes` to `path`, made or tightened to 0600 before anything is written, and synced.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = private_options().write(true).create(true).truncate(true).open(path)?;
    // An existing file keeps its old mode through open(); tighten it before writing.
    restrict(path, FILE_MODE)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn files_and_folders_end_up_their_owners_alone() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("a/b");
        private_dir(&folder).unwrap();
        assert_eq!(mode(&folder), DIR_MODE);
        restrict(&folder, 0o755).unwrap();
        assert!(is_open_to_others(&folder).unwrap());
        private_dir(&folder).unwrap();
        assert_eq!(mode(&folder), DIR_MODE, "an open folder is tightened");

        let file = folder.join("key");
        std::fs::write(&file, "old").unwrap();
        restrict(&file, 0o644).unwrap();
        write_private(&file, b"new").unwrap();
        assert_eq!((mode(&file), std::fs::read_to_string(&file).unwrap().as_str()), (FILE_MODE, "new"));
    }
}
