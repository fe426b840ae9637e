//! The reports of `modoai plugins check` (every plugin's program, version and health) and
//! `modoai plugins explain` (which plugins apply to a file, and why).

use std::path::Path;

use serde::Serialize;

use super::isolate::Isolation;
use super::loaded::{Loaded, LoadedPlugins};
use super::probe::is_unknown;
use super::registry::Kind;

/// The settings a check report starts with.
pub(crate) struct Settings<'a> {
    pub(crate) path: &'a Path,
    pub(crate) cache_dir: &'a Path,
    pub(crate) max_processes: usize,
    pub(crate) isolation: &'a Isolation,
}

/// Whether a plugin can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Health {
    /// A built-in, or a program that answered its version command.
    Ok,
    /// The program was found but its version command failed.
    Unhealthy,
    /// The program is not on `PATH`.
    Missing,
}

impl Health {
    fn of(l: &Loaded) -> Health {
        match (&l.plugin.kind, &l.plugin.program) {
            (Kind::Builtin(_), _) => Health::Ok,
            (_, Some(_)) if !is_unknown(&l.version) => Health::Ok,
            (_, Some(_)) => Health::Unhealthy,
            (_, None) => Health::Missing,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Health::Ok => "ok",
            Health::Unhealthy => "UNHEALTHY: the version command failed",
            Health::Missing => "MISSING: not found on PATH",
        }
    }
}

/// True if every plugin's program was found and answered its version command.
pub(crate) fn all_healthy(plugins: &LoadedPlugins) -> bool {
    plugins.iter().all(|l| Health::of(l) == Health::Ok)
}

/// One line on the plugins' health for the start-up banner: "7 plugins, all healthy", or
/// "7 plugins: 5 healthy, 1 missing (fido), 1 unhealthy (jhove)".
pub(crate) fn health_line(plugins: &LoadedPlugins) -> String {
    let total = plugins.iter().count();
    let named = |h: Health| -> Vec<&str> {
        plugins
            .iter()
            .filter(|l| Health::of(l) == h)
            .map(|l| l.plugin.label.as_str())
            .collect()
    };
    let (missing, unhealthy) = (named(Health::Missing), named(Health::Unhealthy));
    let noun = if total == 1 { "plugin" } else { "plugins" };
    if missing.is_empty() && unhealthy.is_empty() {
        return format!("{total} {noun}, all healthy");
    }
    let mut line = format!(
        "{total} {noun}: {} healthy",
        total - missing.len() - unhealthy.len()
    );
    for (what, ids) in [("missing", missing), ("unhealthy", unhealthy)] {
        if !ids.is_empty() {
            line.push_str(&format!(", {} {what} ({})", ids.len(), ids.join(", ")));
        }
    }
    line
}

/// Whether a plugin can run, as `modoai plugins check --json` gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PluginStatus {
    /// A built-in, or a program that answered its version command.
    Ok,
    /// The program was found but its version command failed.
    Unhealthy,
    /// The program is not on `PATH`.
    Missing,
}

impl From<Health> for PluginStatus {
    fn from(h: Health) -> Self {
        match h {
            Health::Ok => PluginStatus::Ok,
            Health::Unhealthy => PluginStatus::Unhealthy,
            Health::Missing => PluginStatus::Missing,
        }
    }
}

/// One plugin of `modoai plugins check`: what it runs and whether it can run.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct PluginCheck {
    /// The plugin's `label` in `plugins.toml` (its id in CRATEs and in the cache).
    pub id: String,
    /// The line of `plugins.toml` where the plugin starts.
    pub line: usize,
    /// The absolute path of its program; `None` for a built-in or a program not on `PATH`.
    pub program: Option<String>,
    /// The version its version command printed; `None` when it could not be learned.
    pub version: Option<String>,
    /// Whether it can run.
    pub status: PluginStatus,
    /// What the status means, and what to do about it.
    pub message: String,
}

/// Every plugin's [`PluginCheck`], in `plugins.toml` order.
pub(crate) fn check_entries(plugins: &LoadedPlugins) -> Vec<PluginCheck> {
    plugins.iter().map(check_entry).collect()
}

fn check_entry(l: &Loaded) -> PluginCheck {
    let p = &l.plugin;
    let health = Health::of(l);
    let program = match (&p.kind, &p.program) {
        (Kind::Builtin(_), _) => None,
        (_, program) => program.as_ref().map(|prog| prog.display().to_string()),
    };
    let argv0 = p.kind.argv().map(|a| a[0].clone()).unwrap_or_default();
    let message = match health {
        Health::Ok => "ok".to_owned(),
        Health::Unhealthy => format!(
            "the version command `{}` failed: run it by hand to see why",
            p.version_command.join(" ")
        ),
        Health::Missing => format!(
            "{argv0} is not on PATH: install it (scripts/setup installs the default tools) or remove the plugin"
        ),
    };
    PluginCheck {
        id: p.label.clone(),
        line: p.line,
        program,
        version: (!is_unknown(&l.version)).then(|| l.version.clone()),
        status: health.into(),
        message,
    }
}

/// A report of every plugin: program, version, health.
pub(crate) fn check(s: &Settings<'_>, plugins: &LoadedPlugins) -> String {
    let mut out = format!(
        "plugins from {} (cache {}, at most {} tool processes)\ntools start through: {}\n",
        s.path.display(),
        s.cache_dir.display(),
        s.max_processes,
        s.isolation.describe(),
    );
    for l in plugins.iter() {
        out.push_str(&entry(l));
    }
    out
}

/// One plugin's lines of the check report.
fn entry(l: &Loaded) -> String {
    let p = &l.plugin;
    let program = match (&p.kind, &p.program) {
        (Kind::Builtin(_), _) => "(in-process)".to_owned(),
        (_, Some(prog)) => prog.display().to_string(),
        (_, None) => p.kind.argv().map(|a| a[0].clone()).unwrap_or_default(),
    };
    format!(
        "{label:<10} line {line:<4} {health}\n    mime {mime}; runner {runner}; output {output:?}; timeout {t} s\n    program {program}\n    version {v}\n    command {cmd}\n",
        label = p.label,
        line = p.line,
        health = Health::of(l).describe(),
        mime = patterns(l),
        runner = p.kind.runner(),
        output = p.output,
        t = p.timeout.as_secs(),
        v = l.version,
        cmd = p.command_line(),
    )
}

/// Which plugins apply to a file of type `mime` and `size`, and why; with the version of each
/// that would run (Siegfried's names its signature files).
pub(crate) fn explain(plugins: &LoadedPlugins, mime: &str, size: u64) -> String {
    let mut out = format!("type {mime}, {size} bytes\n");
    for l in plugins.iter() {
        let p = &l.plugin;
        let line = match (p.applies(mime), p.max_input) {
            (None, _) => format!(
                "  no   {:<10} none of its patterns matches ({})",
                p.label,
                patterns(l)
            ),
            (Some(pat), Some(max)) if size > max => format!(
                "  skip {:<10} {pat} matches, but the file is larger than max-input-bytes ({max})",
                p.label
            ),
            (Some(pat), _) => format!(
                "  yes  {:<10} {pat} matches: {}\n       {:<10} version {}",
                p.label,
                p.command_line(),
                "",
                l.version
            ),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The plugin's MIME patterns, comma-separated.
fn patterns(l: &Loaded) -> String {
    let patterns: Vec<String> = l.plugin.patterns.iter().map(ToString::to_string).collect();
    patterns.join(", ")
}
