//! `modoai`: a static file server whose every file is an OAI-PMH 2.0 record.
//!
//! Parses the arguments, runs one command of [`modoai::cli`] and exits with the code its outcome
//! maps to (listed in `modoai --help`).

use std::process::ExitCode;

use clap::Parser;
use modoai::cli::{self, Cli, CliError, Command, PluginsCommand, RecordsArgs, ServeArgs};

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            // The index's store logs its routine work (recovery, flushes) at info.
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,fjall=warn,lsm_tree=warn".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(cli::colours())
        .init();
    let result = match Cli::parse().command {
        Command::Serve(args) => serve(*args),
        Command::Records(args) => records(args),
        Command::Plugins(cmd) => plugins(cmd),
        Command::HashSecret(args) => cli::hash_secret(&args),
        Command::Completions(args) => cli::completions(&args),
        Command::Man(args) => cli::man(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let code = err.exit_code();
            eprintln!("modoai: {:#}", anyhow::Error::from(err));
            ExitCode::from(code)
        }
    }
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
