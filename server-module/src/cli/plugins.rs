//! `modoai plugins check|explain`.

use crate::cli::{CliError, PluginsCommand};
use crate::Plugins;

/// Runs `modoai plugins check` (the report on stdout; [`CliError::Unhealthy`] if any plugin is
/// missing or broken) or `modoai plugins explain` (which plugins apply to a file, and why).
pub async fn plugins(cmd: PluginsCommand) -> Result<(), CliError> {
    match cmd {
        PluginsCommand::Check { plugins } => {
            let p = Plugins::load(&plugins).await?;
            print!("{}", p.check_report());
            if !p.all_healthy() {
                return Err(CliError::Unhealthy);
            }
        }
        PluginsCommand::Explain { file, plugins } => {
            let p = Plugins::load(&plugins).await?;
            let meta = std::fs::metadata(&file).map_err(|source| CliError::Argument {
                context: file.display().to_string(),
                source,
            })?;
            if !meta.is_file() {
                let msg = format!("{} is not a regular file", file.display());
                return Err(CliError::Usage(msg));
            }
            println!("{}", file.display());
            print!("{}", p.explain(&crate::mime::detect(&file), meta.len()));
        }
    }
    Ok(())
}
