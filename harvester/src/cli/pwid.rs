//! `pwid resolve` and `corpus`.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use modoai_harvester::archive::{extract, resolve, ArchiveLayout, ResolveError};
use modoai_harvester::corpus::{write_corpus, Selection};
use modoai_harvester::pwid::Pwid;
use modoai_protocol::Datestamp;

use super::{EXIT_FAILED, EXIT_OK, EXIT_USAGE};

#[derive(Debug, Subcommand)]
pub(crate) enum PwidCommand {
    /// Find the WARC record a PWID names (file and offset), and optionally its bytes. Exit 1 when
    /// the archive holds no such capture, 2 when the PWID is malformed or names another archive.
    Resolve {
        /// `urn:pwid:ARCHIVE:YYYY-MM-DDThh:mm:ssZ:COVERAGE:URI` (or the older `pwid:` form).
        pwid: String,
        /// The archive folder.
        #[arg(long, value_name = "DIR")]
        archive: PathBuf,
        /// Write the archived bytes (a revisit's original) to FILE, or `-` for stdout.
        #[arg(long, value_name = "FILE")]
        extract: Option<PathBuf>,
    },
}

/// `corpus --archive DIR … --out FILE`.
#[derive(Debug, Args)]
pub(crate) struct CorpusArgs {
    /// The archive folder.
    #[arg(long, value_name = "DIR")]
    archive: PathBuf,
    /// Only parts whose URL has this host.
    #[arg(long, value_name = "HOST")]
    host: Option<String>,
    /// Only items of this set (setSpec).
    #[arg(long, value_name = "SPEC")]
    set: Option<String>,
    /// Only items with a datestamp at or after this date (YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ).
    #[arg(long, value_name = "DATE")]
    from: Option<String>,
    /// Only items with a datestamp at or before this date (a day includes all of it).
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// A description of the corpus.
    #[arg(long, value_name = "TEXT")]
    description: Option<String>,
    /// The corpus definition to write (XML, schemas/corpus.xsd), or `-` for stdout.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

pub(crate) fn run(cmd: PwidCommand) -> anyhow::Result<ExitCode> {
    let PwidCommand::Resolve {
        pwid,
        archive,
        extract: to,
    } = cmd;
    let pwid: Pwid = match pwid.parse() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {pwid:?} is not a PWID: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    ArchiveLayout::new(&archive).require_index()?;
    let found = match resolve(&archive, &pwid) {
        Ok(found) => found,
        Err(e @ ResolveError::OtherArchive { .. }) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
        Err(e @ (ResolveError::NotFound { .. } | ResolveError::Ambiguous { .. })) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(EXIT_FAILED));
        }
        Err(e) => return Err(e.into()),
    };
    let name = found
        .file
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    eprintln!("{pwid}");
    eprintln!(
        "  {name} offset {} length {} {} {}",
        found.offset, found.length, found.mime, found.digest
    );
    let to_stdout = to.as_ref().is_some_and(|p| p.as_os_str() == "-");
    if !to_stdout {
        println!("{name} {}", found.offset);
    }
    match to {
        None => {}
        Some(path) => {
            let mut out: Box<dyn Write> = if path.as_os_str() == "-" {
                Box::new(io::stdout().lock())
            } else {
                Box::new(BufWriter::new(
                    File::create(&path)
                        .with_context(|| format!("cannot create {}", path.display()))?,
                ))
            };
            let n = extract(&archive, &found, &mut out)?;
            out.flush()?;
            eprintln!("  {n} bytes extracted");
        }
    }
    Ok(ExitCode::from(EXIT_OK))
}

pub(crate) fn corpus(args: CorpusArgs) -> anyhow::Result<ExitCode> {
    let date = |name: &str, v: &Option<String>, end: bool| -> anyhow::Result<Option<Datestamp>> {
        super::check_date(name, v.as_deref())?;
        Ok(v.as_deref()
            .and_then(Datestamp::parse_request)
            .map(|(d, g)| match (end, g) {
                (true, modoai_protocol::Granularity::Day) => d.end_of_day(),
                _ => d,
            }))
    };
    let selection = Selection {
        host: args.host,
        set: args.set,
        from: date("--from", &args.from, false)?,
        until: date("--until", &args.until, true)?,
    };
    ArchiveLayout::new(&args.archive).require_ledger()?;
    let out: Box<dyn Write> = if args.out.as_os_str() == "-" {
        Box::new(io::stdout().lock())
    } else {
        Box::new(BufWriter::new(File::create(&args.out).with_context(
            || format!("cannot create {}", args.out.display()),
        )?))
    };
    let corpus = write_corpus(&args.archive, &selection, args.description.as_deref(), out)?;
    eprintln!("{}: {} parts", corpus.pwid, corpus.parts);
    Ok(ExitCode::from(EXIT_OK))
}
