//! `modoai plugins check|explain`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::{CliError, PluginsCommand};
use crate::{PluginCheck, Plugins};

/// The report of `modoai plugins check --json`.
#[derive(Debug, Serialize)]
pub struct CheckReport {
    /// The plugins file that was checked.
    pub plugins_file: PathBuf,
    /// True when every plugin is healthy (exit code 0; else 3).
    pub healthy: bool,
    /// Each plugin, in the file's order.
    pub plugins: Vec<PluginCheck>,
}

/// Runs `modoai plugins check` (the report on stdout, as text or JSON; [`CliError::Unhealthy`]
/// if any plugin is missing or broken) or `modoai plugins explain` (which plugins apply to a
/// file, and why).
pub async fn plugins(cmd: PluginsCommand) -> Result<(), CliError> {
    match cmd {
        PluginsCommand::Check { plugins, json } => check(&plugins, json).await,
        PluginsCommand::Explain { file, plugins } => explain(&file, &plugins).await,
    }
}

async fn check(plugins: &Path, json: bool) -> Result<(), CliError> {
    let p = Plugins::load(plugins).await?;
    if json {
        let report = CheckReport {
            plugins_file: p.path().to_owned(),
            healthy: p.all_healthy(),
            plugins: p.check_entries(),
        };
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| CliError::runtime("writing the report as JSON")(e.into()))?;
        println!("{text}");
    } else {
        print!("{}", p.check_report());
    }
    if !p.all_healthy() {
        return Err(CliError::Unhealthy);
    }
    Ok(())
}

async fn explain(file: &Path, plugins: &Path) -> Result<(), CliError> {
    let p = Plugins::load(plugins).await?;
    let meta = std::fs::metadata(file).map_err(|source| CliError::Argument {
        context: file.display().to_string(),
        source,
    })?;
    if !meta.is_file() {
        let msg = format!("{} is not a regular file", file.display());
        return Err(CliError::Usage(msg));
    }
    println!("{}", file.display());
    print!("{}", p.explain(&crate::mime::detect(file), meta.len()));
    Ok(())
}
