//! [`Policy`]: the access rules and flow limits in force, swapped as a whole, and their
//! reading from a configuration file.

use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};

use crate::access::{AccessRules, AccessSection};
use crate::flow::{Flow, FlowLimits, FlowSection};
use crate::sets::{Definitions, SiteSets};
use crate::{ConfigError, FileConfig};

/// The access rules and flow limits of a [`Config`](crate::Config), shared by every service made
/// from it and replaceable while they serve: requests already admitted keep the rules they were
/// checked with, later requests see the new ones. Get it with
/// [`Config::policy`](crate::Config::policy).
#[derive(Clone, Debug)]
pub struct Policy {
    // A poisoned lock is recovered: the only write swaps in a whole new `Arc<Current>`, so the
    // value behind it is never half replaced.
    current: Arc<RwLock<Arc<Current>>>,
}

/// One consistent set of rules and limits.
#[derive(Debug)]
pub(crate) struct Current {
    pub(crate) access: AccessRules,
    pub(crate) flow: Flow,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::new(AccessRules::new(), FlowLimits::new())
    }
}

impl Policy {
    pub(super) fn new(access: AccessRules, flow: FlowLimits) -> Self {
        Policy {
            current: Arc::new(RwLock::new(Arc::new(Current {
                access,
                flow: Flow::new(flow),
            }))),
        }
    }

    /// The rules and limits for one request.
    pub(crate) fn current(&self) -> Arc<Current> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the rules and limits at once. When the limits are unchanged, their state (the
    /// clients' buckets, the enhanced responses in flight) carries over.
    pub fn replace(&self, access: AccessRules, flow: FlowLimits) {
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        let flow = if current.flow.limits == flow {
            // Same limits: keep the state. The old `Current` is only shared by requests in flight.
            Flow::carry_over(&current.flow)
        } else {
            Flow::new(flow)
        };
        *current = Arc::new(Current { access, flow });
    }

    /// Re-reads `[access]` and `[flow]` of a configuration file and replaces the rules with
    /// them; on any error the rules in force stay and the error is returned. The file's other
    /// sections are not applied (they need a restart).
    pub fn reload(&self, path: &Path) -> Result<(), ConfigError> {
        self.reload_with(path, None)
    }

    /// Like [`Policy::reload`], and the named sets of `[[sets]]` into `sets` too: all of them
    /// or, on any error, none.
    pub(crate) fn reload_with(
        &self,
        path: &Path,
        sets: Option<&SiteSets>,
    ) -> Result<(), ConfigError> {
        let file = load_quietly(path)?;
        let (access, flow) = resolve(&file.access, &file.flow)?;
        let defs = match sets {
            Some(s) => Some(Definitions::new(
                s.current().folders,
                file.named_sets().to_vec(),
            )?),
            None => None,
        };
        self.replace(access, flow);
        if let (Some(s), Some(defs)) = (sets, defs) {
            s.replace(defs);
        }
        Ok(())
    }
}

/// Reads a configuration file like [`FileConfig::load`], but a syntax error names the line
/// without quoting it: the line may hold a secret, and reload errors go to the log.
fn load_quietly(path: &Path) -> Result<FileConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
        path: path.to_owned(),
        error,
    })?;
    let mut file: FileConfig = toml::from_str(&text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        ConfigError::Parse {
            path: path.to_owned(),
            message: match line {
                Some(n) => format!("line {n}: {}", e.message()),
                None => e.message().to_owned(),
            },
        }
    })?;
    file.resolve_sets(path, &text)?;
    Ok(file)
}

/// The rules and limits of `[access]` and `[flow]` sections.
pub(super) fn resolve(
    access: &AccessSection,
    flow: &FlowSection,
) -> Result<(AccessRules, FlowLimits), ConfigError> {
    Ok((
        AccessRules::from_section(access)?,
        FlowLimits::from_section(flow)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reload_errors_do_not_quote_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("modoai.toml");
        std::fs::write(&path, "[access.users]\nalice = hunter2-not-quoted\n").unwrap();
        let policy = Policy::default();
        let err = policy.reload(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(!err.contains("hunter2"), "{err}");
    }

    #[tokio::test]
    async fn a_bad_file_keeps_the_rules_in_force() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("modoai.toml");
        std::fs::write(&path, "[access.oai_didl]\naddresses = [\"192.0.2.0/24\"]\n").unwrap();
        let policy = Policy::default();
        policy.reload(&path).unwrap();
        assert!(!policy.current().access.is_open());
        std::fs::write(&path, "[access.oai_didl]\nopen = true\nusers = [\"x\"]\n").unwrap();
        assert!(policy.reload(&path).is_err());
        assert!(!policy.current().access.is_open(), "the old rules stay");
        std::fs::write(&path, "").unwrap();
        policy.reload(&path).unwrap();
        assert!(policy.current().access.is_open());
    }

    #[test]
    fn unchanged_limits_keep_their_state() {
        let policy = Policy::default();
        let limits = FlowLimits::new().max_enhanced(1);
        policy.replace(AccessRules::new(), limits.clone());
        let permit = policy.current().flow.enhanced().unwrap();
        policy.replace(AccessRules::new(), limits);
        assert!(
            policy.current().flow.enhanced().is_err(),
            "the permit in flight still counts"
        );
        drop(permit);
        assert!(policy.current().flow.enhanced().is_ok());
    }
}
