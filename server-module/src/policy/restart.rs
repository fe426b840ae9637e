//! [`RestartKeys`]: the settings of a configuration file that a reload does not apply (every
//! section but `[access]` and `[flow]`), so that a reload can say which changed keys wait for a
//! restart instead of reporting "reloaded" while the old values stay.

use std::collections::BTreeMap;
use std::path::Path;

/// The sections a reload applies; every other key needs a restart.
const RELOADED: [&str; 3] = ["access", "flow", "sets"];

/// The restart-only keys of a file, `section.key` → value, as the server started with them.
#[derive(Debug, Default, PartialEq)]
pub(super) struct RestartKeys(BTreeMap<String, toml::Value>);

impl RestartKeys {
    /// The restart-only keys of the file at `path`; empty when it cannot be read or parsed
    /// (the reload itself reports that).
    pub(super) fn read(path: &Path) -> RestartKeys {
        let table = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.parse::<toml::Table>().ok())
            .unwrap_or_default();
        RestartKeys::of(table)
    }

    fn of(table: toml::Table) -> RestartKeys {
        let mut keys = BTreeMap::new();
        for (section, value) in table {
            if RELOADED.contains(&section.as_str()) {
                continue;
            }
            match value {
                toml::Value::Table(inner) => {
                    for (key, value) in inner {
                        keys.insert(format!("[{section}] {key}"), value);
                    }
                }
                other => drop(keys.insert(section, other)),
            }
        }
        RestartKeys(keys)
    }

    /// The keys whose value differs between `self` (at start) and `now`, set, changed or
    /// removed, in order.
    pub(super) fn changed(&self, now: &RestartKeys) -> Vec<String> {
        let mut names: Vec<String> = self
            .0
            .iter()
            .filter(|(k, v)| now.0.get(*k) != Some(v))
            .chain(now.0.iter().filter(|(k, _)| !self.0.contains_key(*k)))
            .map(|(k, _)| k.clone())
            .collect();
        names.sort();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> RestartKeys {
        RestartKeys::of(text.parse().unwrap())
    }

    #[test]
    fn names_changed_added_and_removed_keys_outside_access_and_flow() {
        let start = keys("[oai]\npage-size = 100\nroute = \"/modoai\"\n[server]\nlisten = \"127.0.0.1:1\"\n[flow]\nx = 1\n");
        let now = keys(
            "[oai]\npage-size = 5\nroute = \"/modoai\"\n[log]\naccess = \"json\"\n[flow]\nx = 2\n",
        );
        assert_eq!(
            start.changed(&now),
            ["[log] access", "[oai] page-size", "[server] listen"]
        );
        assert!(start.changed(&start).is_empty());
    }
}
