//! `modoai-harvester`: harvests OAI-PMH endpoints into WARC archives, and inspects both.

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc: a harvest's many small allocations per record cost a tenth of its CPU in glibc's
/// allocator, about half that here (docs/architecture.md: Memory and speed).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    modoai_cli::init_logging(modoai_cli::quiet_filter(args.quiet), cli::log_writer);
    modoai_cli::finish(cli::PROGRAM, cli::run(args), cli::classify)
}
