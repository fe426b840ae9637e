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
    cli::init_logging(args.quiet);
    match cli::run(args) {
        Ok(code) => code,
        Err(e) if cli::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(cli::exit_code(&e))
        }
    }
}
