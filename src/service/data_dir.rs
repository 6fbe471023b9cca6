//! The data dir is its owner's alone: made 0700, and every file the service keeps in it (the
//! SQLite database and its journals, the generated API key, the secrets key file) 0600, for
//! they hold the service's keys and data. Data dirs and files an older build left readable by
//! others are tightened.

use std::path::{Path, PathBuf};

/// The SQLite database's file in the data dir.
pub const DATABASE_FILE: &str = "switchboard.db";
/// The secrets key file's default place in the data dir (`serve --secrets-key-file`).
pub const SECRETS_KEY_FILE: &str = "secrets.key";
/// The generated API key's file.
pub const API_KEY_FILE: &str = "api_key";

/// Files whose presence says a directory is a service's data dir.
const OURS: [&str; 3] = [DATABASE_FILE, SECRETS_KEY_FILE, API_KEY_FILE];

/// Makes the data dir (0700) or, where it is already one, takes away any access others had.
/// A directory that holds other things (a data dir pointed at a home folder, say) is left
/// as it is, with a warning in the log.
pub fn prepare(dir: &Path) -> std::io::Result<()> {
    if !dir.exists() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        return builder.create(dir);
    }
    if !is_open_to_others(dir)? {
        return Ok(());
    }
    let empty = std::fs::read_dir(dir)?.next().is_none();
    if empty || OURS.iter().any(|name| dir.join(name).exists()) {
        restrict(dir, 0o700)
    } else {
        tracing::warn!(dir = %dir.display(), "the data dir is open to other users and holds files of others; left as it is");
        Ok(())
    }
}

/// Makes `path` an empty file only its owner can read and write, or takes away any access
/// others have to the one there. SQLite gives its journals (`-wal`, `-shm`) the database file's
/// permissions, so a database file made this way before SQLite opens it keeps them private.
pub fn private_file(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            if is_open_to_others(path)? {
                restrict(path, 0o600)?;
            }
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// The database file and the journals SQLite keeps beside it.
pub fn database_files(dir: &Path) -> [PathBuf; 3] {
    let db = dir.join(DATABASE_FILE);
    let journal = |suffix: &str| PathBuf::from(format!("{}{suffix}", db.display()));
    [journal("-wal"), journal("-shm"), db]
}

/// Takes away the access others have to the database's journals an older build left (the
/// database file itself is made private before it is opened).
pub fn restrict_journals(dir: &Path) -> std::io::Result<()> {
    for file in database_files(dir).iter().filter(|f| f.exists()) {
        if is_open_to_others(file)? {
            restrict(file, 0o600)?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn is_open_to_others(path: &Path) -> std::io::Result<bool> {
    use std::os::unix::fs::PermissionsExt;
    Ok(std::fs::metadata(path)?.permissions().mode() & 0o077 != 0)
}

#[cfg(not(unix))]
fn is_open_to_others(_path: &Path) -> std::io::Result<bool> {
    Ok(false)
}

#[cfg(unix)]
fn restrict(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn restrict(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap_or_else(|e| panic!("{e}")).permissions().mode() & 0o777
    }

    #[test]
    fn a_new_data_dir_and_its_files_are_the_owners_alone() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("nested").join("data");
        prepare(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        private_file(&dir.join(DATABASE_FILE)).unwrap();
        assert_eq!(mode(&dir.join(DATABASE_FILE)), 0o600);
    }

    #[test]
    fn an_older_builds_open_data_dir_is_tightened_and_a_stranger_dir_is_not() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join(DATABASE_FILE), b"").unwrap();
        std::fs::write(dir.join(format!("{DATABASE_FILE}-wal")), b"").unwrap();
        for path in [dir.join(DATABASE_FILE), dir.join(format!("{DATABASE_FILE}-wal")), dir.clone()] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        prepare(&dir).unwrap();
        private_file(&dir.join(DATABASE_FILE)).unwrap();
        restrict_journals(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join(DATABASE_FILE)), 0o600);
        assert_eq!(mode(&dir.join(format!("{DATABASE_FILE}-wal"))), 0o600);

        let home = root.path().join("home");
        std::fs::create_dir(&home).unwrap();
        std::fs::write(home.join("notes.txt"), b"mine").unwrap();
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o755)).unwrap();
        prepare(&home).unwrap();
        assert_eq!(mode(&home), 0o755, "a folder holding other things is left alone");
    }
}
