//! `pwid resolve` and `corpus`.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use modoai_archive::archive::{Reader, ResolveError, Resolved};
use modoai_archive::corpus::{write_corpus, Selection};
use modoai_archive::pwid::Pwid;
use modoai_cli::Exit;
use modoai_protocol::Datestamp;
use serde::Serialize;

use super::PROGRAM;

#[derive(Debug, Subcommand)]
pub(crate) enum PwidCommand {
    /// Find the WARC record a PWID names (file and offset), and optionally its bytes.
    ///
    /// Exit 1 when the archive holds no such capture, 2 when the PWID is malformed or names
    /// another archive. Needs read access only; works while a harvest writes the archive.
    #[command(after_help = "\
Examples:
  modoai-harvester pwid resolve 'urn:pwid:archive.example.org:2026-01-05T10:00:00Z:part:https://example.org/a.pdf' --archive archive/
  modoai-harvester pwid resolve 'urn:pwid:…' --archive archive/ --extract a.pdf

Prints `FILE OFFSET` of the record (the record's details go to stderr), or with --json one
object: pwid, file, offset, length, content_type, digest and, with --extract, extracted_bytes.

Exit codes: see modoai-harvester --help.")]
    Resolve {
        /// `urn:pwid:ARCHIVE:YYYY-MM-DDThh:mm:ssZ:COVERAGE:URI` (or the older `pwid:` form).
        pwid: String,
        /// The archive folder.
        #[arg(long, value_name = "DIR")]
        archive: PathBuf,
        /// Write the archived bytes (a revisit's original) to FILE, or `-` for stdout.
        #[arg(long, value_name = "FILE")]
        extract: Option<PathBuf>,
        /// Print the record's details as JSON (not with `--extract -`).
        #[arg(long)]
        json: bool,
    },
}

pub(crate) const CORPUS_HELP: &str = "\
Examples:
  modoai-harvester corpus --archive archive/ --out corpus.xml
  modoai-harvester corpus --archive archive/ --host example.org --set mime:image \\
      --from 2026-01-01 --until 2026-06-30 --description 'Images, first half of 2026' --out -
  modoai-harvester corpus --archive archive/ --at 2026-03-31 --out site-on-31-march.xml
  modoai-harvester corpus --archive archive/ --deleted --from 2026-03-01 --until 2026-03-31 --out -

--at DATE: the site as it stood then: each file's last capture dated at or before DATE, files
deleted by then left out. --deleted: the last capture of every file whose deletion is dated
within --from/--until, each <part> with the deletion's datestamp in its `deleted` attribute.

Reads the archive only (no write access, no lock). A corpus names closed WARC files only: parts
in files still open (a harvest running, or killed) are left out with a message and exit code 3.

Exit codes: see modoai-harvester --help.";

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
    /// The state of the site at this date (a day includes all of it): each file's last
    /// capture dated at or before it, files deleted by then left out.
    #[arg(long, value_name = "DATE", conflicts_with_all = ["from", "until", "deleted"])]
    at: Option<String>,
    /// What was deleted: the last capture of each file whose deletion is dated within
    /// --from and --until.
    #[arg(long)]
    deleted: bool,
    /// A description of the corpus.
    #[arg(long, value_name = "TEXT")]
    description: Option<String>,
    /// The corpus definition to write (XML, schemas/corpus.xsd), or `-` for stdout.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// What `pwid resolve --json` prints.
#[derive(Debug, Serialize)]
struct ResolveReport {
    pwid: String,
    /// The WARC file's name (with `.open` while a harvest writes it).
    file: String,
    offset: u64,
    length: u64,
    content_type: String,
    digest: String,
    /// With `--extract`: the bytes written.
    #[serde(skip_serializing_if = "Option::is_none")]
    extracted_bytes: Option<u64>,
}

pub(crate) fn run(cmd: PwidCommand) -> anyhow::Result<Exit> {
    let PwidCommand::Resolve {
        pwid,
        archive,
        extract: to,
        json,
    } = cmd;
    let to_stdout = to.as_ref().is_some_and(|p| p.as_os_str() == "-");
    if json && to_stdout {
        return Err(super::usage(
            "--json and --extract - both write to stdout: extract to a file, or drop --json",
        ));
    }
    let pwid: Pwid = match pwid.parse() {
        Ok(p) => p,
        Err(e) => {
            modoai_cli::report(PROGRAM, format_args!("{pwid:?} is not a PWID: {e}"));
            return Ok(Exit::Usage);
        }
    };
    let reader = Reader::open(&archive)?;
    let found = match reader.resolve(&pwid) {
        Ok(found) => found,
        Err(e @ ResolveError::OtherArchive { .. }) => {
            modoai_cli::report(PROGRAM, &e);
            return Ok(Exit::Usage);
        }
        Err(e @ (ResolveError::NotFound { .. } | ResolveError::Ambiguous { .. })) => {
            modoai_cli::report(PROGRAM, &e);
            if !reader.open_files()?.is_empty() {
                super::inspect::warn_open(&archive, reader.open_files()?.len() as u64, 0);
            }
            return Ok(Exit::Failed);
        }
        Err(e) => return Err(e.into()),
    };
    let mut report = ResolveReport {
        pwid: pwid.to_string(),
        file: found
            .file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned(),
        offset: found.offset,
        length: found.length,
        content_type: found.mime.clone(),
        digest: found.digest.clone(),
        extracted_bytes: None,
    };
    eprintln!("{pwid}");
    eprintln!(
        "  {} offset {} length {} {} {}",
        report.file, found.offset, found.length, found.mime, found.digest
    );
    if let Some(path) = to {
        let n = extract_to(&reader, &found, &path)?;
        eprintln!("  {n} bytes extracted");
        report.extracted_bytes = Some(n);
    }
    let mut out = io::stdout().lock();
    match (json, to_stdout) {
        (true, _) => writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?,
        (false, false) => writeln!(out, "{} {}", report.file, report.offset)?,
        (false, true) => {}
    }
    out.flush()?;
    Ok(Exit::Done)
}

/// Writes the record's payload to `path`, or to stdout for `-`.
fn extract_to(reader: &Reader, found: &Resolved, path: &std::path::Path) -> anyhow::Result<u64> {
    let mut out: Box<dyn Write> = if path.as_os_str() == "-" {
        Box::new(io::stdout().lock())
    } else {
        Box::new(BufWriter::new(
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
        ))
    };
    let n = reader.extract(found, &mut out)?;
    out.flush()?;
    Ok(n)
}

pub(crate) fn corpus(args: CorpusArgs) -> anyhow::Result<Exit> {
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
        at: date("--at", &args.at, true)?,
        deleted: args.deleted,
    };
    let reader = Reader::open(&args.archive)?;
    let out: Box<dyn Write> = if args.out.as_os_str() == "-" {
        Box::new(io::stdout().lock())
    } else {
        Box::new(BufWriter::new(File::create(&args.out).with_context(
            || format!("cannot create {}", args.out.display()),
        )?))
    };
    let corpus = write_corpus(&reader, &selection, args.description.as_deref(), out)?;
    eprintln!("{}: {} parts", corpus.pwid, corpus.parts);
    if corpus.left_out == 0 {
        return Ok(Exit::Done);
    }
    tracing::error!(
        "{} selected parts are left out: their WARC files are still open (`.open`), and a \
         corpus names closed files only. A harvest is writing them, or one was killed: when no \
         harvest runs, `modoai-harvester repair --archive {}` closes them; then write the \
         corpus again.",
        corpus.left_out,
        args.archive.display()
    );
    Ok(Exit::Problems)
}
