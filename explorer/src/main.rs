//! `modoai-explorer`: parses the command line, runs the command, exits with its code.

use std::process::ExitCode;

use clap::Parser;
use modoai_explorer::cli::{exit_code, run, Cli};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(exit_code(&e))
        }
    }
}
