//! `harvest … --index`: the explorer's index of the archive brought up to date after the
//! harvest, by running the `modoai-explorer` program found beside this one (the harvester does
//! not link the explorer: the explorer's library reads archives through this crate's).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context as _;

/// The explorer program's name.
const EXPLORER: &str = "modoai-explorer";

/// `modoai-explorer` in the folder of the running `modoai-harvester`.
fn explorer() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find where modoai-harvester is")?;
    let path = exe.with_file_name(EXPLORER);
    if !path.is_file() {
        anyhow::bail!(
            "--index runs {EXPLORER}, which is not installed beside modoai-harvester ({}); install both (cargo build -p modoai-explorer), or index later with `{EXPLORER} index --archive DIR`",
            path.display()
        );
    }
    Ok(path)
}

/// Runs `modoai-explorer index --archive DIR`; its progress and messages go to this stderr.
pub(crate) fn index(archive: &Path, quiet: bool) -> anyhow::Result<()> {
    let program = explorer()?;
    let mut command = Command::new(&program);
    command.arg("index").arg("--archive").arg(archive);
    if quiet {
        command.arg("--quiet");
    }
    let status = command
        .status()
        .with_context(|| format!("cannot run {}", program.display()))?;
    if !status.success() {
        anyhow::bail!(
            "{EXPLORER} index --archive {} failed ({status}); the harvest itself is complete",
            archive.display()
        );
    }
    Ok(())
}
