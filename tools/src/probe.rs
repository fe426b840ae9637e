//! Each plugin's version, and the fingerprint that keys its cached results.
//!
//! Built-ins are modoai's own version. Tools answer their version command, whose first line is
//! kept; it is cached under the program's path, size and mtime, so a restart starts no process.
//! Siegfried's is the exception: its line names the engine and the signature files, which live
//! in the `pygfried` package, not in the program, so an upgrade of pygfried leaves the program
//! as it was. It is asked at every start (0.15 to 0.25 s), so that new signatures always change
//! the fingerprint and make the results cached under the old ones misses.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::time::Duration;

use tokio::sync::Semaphore;

use super::cache::Cache;
use super::isolate::Isolation;
use super::program::find_program;
use super::registry::{Kind, OutputKind, Plugin};
use super::run::{self, Ended, Limits};

/// Longest a version command may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(30);
/// Bytes of a version command's stdout and of its stderr kept.
const MAX_VERSION_OUTPUT: usize = 64 * 1024;

/// What a plugin reports when its program is not found.
const NOT_FOUND: &str = "unknown (program not found)";

/// Whether `version` is one that [`versions`] gives when it could not learn the real one.
pub(crate) fn is_unknown(version: &str) -> bool {
    version.starts_with("unknown")
}

/// The version of each of `plugins`, in order. Plugins that share a version command ask once.
pub(crate) async fn versions(
    plugins: &[Plugin],
    isolation: &Isolation,
    cache: &Cache,
    permits: &Semaphore,
) -> Vec<String> {
    let mut seen: HashMap<&[String], String> = HashMap::new();
    let mut out = Vec::with_capacity(plugins.len());
    for p in plugins {
        let v = match (&p.kind, &p.program) {
            (Kind::Builtin(_), _) => format!("modoai {}", env!("CARGO_PKG_VERSION")),
            (_, None) => NOT_FOUND.to_owned(),
            (_, Some(_)) => match seen.get(p.version_command.as_slice()) {
                Some(v) => v.clone(),
                None => {
                    let cache = (!matches!(p.kind, Kind::Siegfried(_))).then_some(cache);
                    let v = version_of(&p.version_command, isolation, cache, permits).await;
                    seen.insert(&p.version_command, v.clone());
                    v
                }
            },
        };
        out.push(v);
    }
    out
}

/// The first line a version command writes (stdout, else stderr), from `cache` if there is one
/// and the program has not changed since it was last asked.
async fn version_of(
    argv: &[String],
    isolation: &Isolation,
    cache: Option<&Cache>,
    permits: &Semaphore,
) -> String {
    let program = find_program(&argv[0]);
    let meta = program.as_ref().and_then(|p| std::fs::metadata(p).ok());
    let identity = match (&program, &meta) {
        (Some(p), Some(m)) => format!(
            "{}\0{}\0{}\0{}",
            p.display(),
            m.len(),
            m.mtime_nsec() as i128 + m.mtime() as i128 * 1_000_000_000,
            argv.join("\0")
        ),
        _ => return NOT_FOUND.to_owned(),
    };
    let key = Cache::key("version", identity.as_bytes());
    if let Some(v) = cache.and_then(|c| c.get_text(&key)) {
        return v;
    }
    let argv_os: Vec<OsString> = argv.iter().map(OsString::from).collect();
    let limits = Limits {
        timeout: VERSION_TIMEOUT,
        max_stdout: MAX_VERSION_OUTPUT,
        max_stderr: MAX_VERSION_OUTPUT,
    };
    let o = run::run(&isolation.wrap_probe(&argv_os), None, &limits, permits).await;
    match (
        &o.ended,
        first_line(&o.stdout).or_else(|| first_line(&o.stderr)),
    ) {
        (Ended::Exited(Some(_)), Some(v)) => {
            if let Some(cache) = cache {
                cache.put_text(&key, &v);
            }
            v
        }
        _ => "unknown (the version command failed)".to_owned(),
    }
}

/// The first line of `b` that is not blank, trimmed.
fn first_line(b: &[u8]) -> Option<String> {
    String::from_utf8_lossy(b)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
}

/// What a plugin's cached results depend on besides the file: label, tool version (Siegfried's
/// with its signature files), runner, command and output kind. A change to any of them makes the
/// old results misses.
pub(crate) fn fingerprint(p: &Plugin, version: &str) -> String {
    let parts = [
        p.label.as_str(),
        version,
        p.kind.runner(),
        &p.command_line(),
        if p.output == OutputKind::Xml {
            "xml"
        } else {
            "text"
        },
    ];
    Cache::key(&parts.join("\u{0}"), b"plugin").to_string()
}
