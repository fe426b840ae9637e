//! The explorer's own folder: where its key file is kept when nothing else names one.

use std::path::{Path, PathBuf};

/// The key file's name in the state folder.
const KEYS: &str = "keys.toml";
/// Where versions before the state folder kept their keys: the folder `keys add` ran in.
const OLD_KEYS: &str = "explorer-keys.toml";

/// The explorer's state folder: `$STATE_DIRECTORY` (systemd's `StateDirectory=`), else
/// `$XDG_STATE_HOME/modoai-explorer`, else `~/.local/state/modoai-explorer`, else
/// `modoai-explorer-state` in the current folder (no home).
pub(crate) fn state_dir() -> PathBuf {
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("STATE_DIRECTORY")
        .or_else(|| env("XDG_STATE_HOME").map(|d| d.join("modoai-explorer")))
        .or_else(|| env("HOME").map(|h| h.join(".local/state/modoai-explorer")))
        .unwrap_or_else(|| PathBuf::from("modoai-explorer-state"))
}

/// The key file of `--keys`, else of the configuration, else the state folder's `keys.toml`.
pub(crate) fn key_file(given: Option<&Path>, configured: Option<&Path>) -> PathBuf {
    given
        .or(configured)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| state_dir().join(KEYS))
}

/// When `keys` does not exist but the current folder has a key file where earlier versions put
/// it, the sentence that says how to use it; none otherwise.
pub(crate) fn old_key_file_hint(keys: &Path) -> Option<String> {
    let old = Path::new(OLD_KEYS);
    (!keys.exists() && old.is_file()).then(|| {
        format!(
            "{OLD_KEYS} here is not read (earlier versions kept keys in the folder `keys add` ran \
             in): move it to {} or pass --keys {OLD_KEYS}",
            keys.display()
        )
    })
}

/// ` --keys FILE` when `keys` is not where `keys add` writes without one: the words to add to a
/// suggested command.
pub(crate) fn keys_option(keys: &Path) -> String {
    if keys == key_file(None, None) {
        String::new()
    } else {
        format!(" --keys {}", keys.display())
    }
}
