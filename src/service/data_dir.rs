//! The data dir is its owner's alone: made 0700, and every file the service keeps in it (the
//! SQLite database and its journals, the generated API key, the secrets key file) 0600, for
//! they hold the service's keys and data. Data dirs and files an older build left readable by
//! others are tightened.

use std::path::{Path, PathBuf};

use crate::private_files::{DIR_MODE, FILE_MODE, is_open_to_others, private_options, restrict};

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
        return crate::private_files::private_dir(dir);
    }
    if !is_open_to_others(dir)? {
        return Ok(());
    }
    let empty = std::fs::read_dir(dir)?.next().is_none();
    if empty || OURS.iter().any(|name| dir.join(name).exists()) {
        restrict(dir, DIR_MODE)
    } else {
        tracing::warn!(dir = %dir.display(), "the data dir is open to other users and holds files of others; left as it is");
        Ok(())
    }
}

/// Makes `path` an empty file only its owner can read and write, or takes away any access
/// others have to the one there. SQLite gives its journals (`-wal`, `-shm`) the database file's
/// permissions, so a database file made this way before SQLite opens it keeps them private.
pub fn private_file(path: &Path) -> std::io::Result<()> {
    match private_options().write(true).create_new(true).open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            if is_open_to_others(path)? {
                restrict(path, FILE_MODE)?;
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
            restrict(file, FILE_MODE)?;
        }
    }
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
