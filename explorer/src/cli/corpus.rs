//! `modoai-explorer corpus verify FILE --archive PATH…`.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use modoai_archive::any::Input;
use modoai_archive::archive::Reader;
use modoai_archive::corpus::{verify, Collection, Finding};
use modoai_cli::{usage, Exit};

use crate::collection::CollectionArg;

#[derive(Debug, Subcommand)]
pub(crate) enum CorpusCommand {
    /// Check a corpus definition (an export's, or `modoai-harvester corpus`'s) against the
    /// archives: every part's PWID resolved, its payload's digest computed again.
    #[command(after_help = "\
Examples:
  modoai-explorer corpus verify export.corpus.xml --archive my-archive
  modoai-explorer corpus verify export.corpus.xml --archive crawl=/data/heritrix/warcs

A modoai archive is found by its archive id; a folder of WARC/ARC files, one such file or a
WACZ is the collection of that name (NAME=PATH, or its folder's or file's name, as `index` and
`serve` name it), and its files are read once to find the parts.

Prints a line per part missing or changed (`missing PWID: why`, `changed PWID: listed D, now D`);
exits 3 when there is one, 0 when every part is there with the same digest.")]
    Verify(VerifyArgs),
}

#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// The corpus definition (XML, schemas/corpus.xsd).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Where the parts are: a modoai archive (found by its archive id), or `NAME=PATH` (or
    /// `PATH`, named after it) of WARC/ARC files or a WACZ; repeat for several.
    #[arg(long = "archive", value_name = "PATH|NAME=PATH", required = true)]
    archives: Vec<CollectionArg>,
}

/// Runs `corpus …`.
pub(crate) fn run(c: CorpusCommand) -> anyhow::Result<Exit> {
    let CorpusCommand::Verify(a) = c;
    let (mut readers, mut collections) = (Vec::new(), Vec::new());
    for arg in &a.archives {
        let bad =
            |e: &dyn std::fmt::Display| usage(format!("--archive {}: {e}", arg.path.display()));
        match Input::detect(&arg.path).map_err(|e| bad(&e))? {
            Input::Archive(dir) => readers.push(Reader::open(&dir).map_err(|e| bad(&e))?),
            input => collections.push(Collection {
                name: arg.name.clone().unwrap_or_else(|| input.name()),
                input,
            }),
        }
    }
    let file = File::open(&a.file).map_err(|e| usage(format!("{}: {e}", a.file.display())))?;
    let checked = verify(BufReader::new(file), &readers, &collections)?;
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
