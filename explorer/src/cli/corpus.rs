//! `modoai-explorer corpus verify FILE --archive DIR…`.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use modoai_archive::archive::Reader;
use modoai_archive::corpus::{verify, Finding};
use modoai_cli::{usage, Exit};

#[derive(Debug, Subcommand)]
pub(crate) enum CorpusCommand {
    /// Check a corpus definition (an export's, or `modoai-harvester corpus`'s) against the
    /// archives: every part's PWID resolved, its payload's digest computed again.
    #[command(after_help = "\
Examples:
  modoai-explorer corpus verify export.corpus.xml --archive my-archive

Prints a line per part missing or changed (`missing PWID: why`, `changed PWID: listed D, now D`);
exits 3 when there is one, 0 when every part is there with the same digest.")]
    Verify(VerifyArgs),
}

#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// The corpus definition (XML, schemas/corpus.xsd).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// An archive the parts are in (found by its archive id); repeat for several.
    #[arg(long = "archive", value_name = "DIR", required = true)]
    archives: Vec<PathBuf>,
}

/// Runs `corpus …`.
pub(crate) fn run(c: CorpusCommand) -> anyhow::Result<Exit> {
    let CorpusCommand::Verify(a) = c;
    let mut readers = Vec::new();
    for d in &a.archives {
        readers
            .push(Reader::open(d).map_err(|e| usage(format!("--archive {}: {e}", d.display())))?);
    }
    let file = File::open(&a.file).map_err(|e| usage(format!("{}: {e}", a.file.display())))?;
    let checked = verify(BufReader::new(file), &readers)?;
    let (mut missing, mut changed) = (0, 0);
    for f in &checked.findings {
        match f {
            Finding::Missing { pwid, reason } => {
                missing += 1;
                println!("missing {pwid}: {reason}");
            }
            Finding::Changed {
                pwid,
                listed,
                found,
            } => {
                changed += 1;
                println!("changed {pwid}: listed {listed}, now {found}");
            }
        }
    }
    eprintln!(
        "{}: {} parts: {missing} missing, {changed} changed",
        a.file.display(),
        checked.parts
    );
    Ok(match checked.findings.is_empty() {
        true => Exit::Done,
        false => Exit::Problems,
    })
}
