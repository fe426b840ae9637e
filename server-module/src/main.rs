//! `modoai`: a static file server whose every file is an OAI-PMH 2.0 record.
//!
//! Parses the arguments, runs one command of [`modoai::cli`] and exits with the code its outcome
//! maps to (listed in `modoai --help`), through what the three programs share (`modoai-cli`).

use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use modoai::cli::{self, Cli, CliError, Command, PluginsCommand, RecordsArgs, ServeArgs};
use modoai_cli::Exit;

fn main() -> ExitCode {
    // The index's store logs its routine work (recovery, flushes) at info.
    modoai_cli::init_logging("info,fjall=warn,lsm_tree=warn", std::io::stderr);
    let result = match Cli::parse().command {
        Command::Serve(args) => serve(*args),
        Command::Records(args) => records(args),
        Command::Plugins(cmd) => plugins(cmd),
        Command::HashSecret(args) => cli::hash_secret(&args),
        Command::Completions(args) => {
            modoai_cli::completions(Cli::command(), &args).map_err(CliError::from)
        }
        Command::Man(args) => modoai_cli::man(Cli::command(), &args).map_err(CliError::from),
    };
    let outcome = result.map(|()| Exit::Done).map_err(anyhow::Error::from);
    modoai_cli::finish("modoai", outcome, CliError::classify)
}

#[tokio::main]
async fn serve(args: ServeArgs) -> Result<(), CliError> {
    cli::serve(args).await
}

#[tokio::main]
async fn records(args: RecordsArgs) -> Result<(), CliError> {
    cli::records(args).await
}

#[tokio::main]
async fn plugins(cmd: PluginsCommand) -> Result<(), CliError> {
    cli::plugins(cmd).await
}
