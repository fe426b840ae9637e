//! `modoai-explorer`: parses the command line, runs the command, exits with its code, through
//! what the three programs share (`modoai-cli`).

use std::process::ExitCode;

use clap::Parser;
use modoai_explorer::cli::{classify, log_filter, run, Cli, PROGRAM};

/// mimalloc: glibc's allocator kept what the index build's threads freed, in per-thread arenas
/// (docs/explorer.md: the indexer's memory).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    modoai_cli::init_logging(&log_filter(cli.quiet()), std::io::stderr);
    modoai_cli::finish(PROGRAM, run(cli), classify)
}
