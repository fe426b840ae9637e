//! `profile`: MementoMap profiles (generate, compact, lookup).

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use modoai_archive::archive::{Reader, Timeline};
use modoai_archive::profile::{self, CompactOptions, Header, Stats};
use modoai_cli::Exit;
use serde::Serialize;

use super::usage;

const PROFILE_HELP: &str = "\
Examples:
  modoai-harvester profile --archive archive/ --out archive.ukvs
  modoai-harvester profile compact archive.ukvs small.ukvs --path-factor 0.5
  modoai-harvester profile lookup small.ukvs https://example.org/a.pdf

Generating reads the archive only (no write access, no lock), so it works while a harvest runs.
It prints `lines-in lines-out bytes-in bytes-out roll-ups` (with --json, an object of them).

Exit codes: see modoai-harvester --help.";

/// `profile --archive DIR --out FILE`, or `profile compact|lookup …`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, after_help = PROFILE_HELP)]
pub(crate) struct ProfileArgs {
    #[command(subcommand)]
    command: Option<ProfileCommand>,
    #[command(flatten)]
    generate: GenerateArgs,
    /// Print the figures (or the lookup's hit) as JSON.
    #[arg(long, global = true)]
    json: bool,
}

/// Generates the full profile of an archive.
#[derive(Debug, Args)]
struct GenerateArgs {
    /// The archive folder (its index and the items not indexed yet are read).
    #[arg(long, value_name = "DIR")]
    archive: Option<PathBuf>,
    /// The profile to write (UKVS).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// The archive described (`!id`), e.g. its replay URL. Default: the archive's PWID id.
    #[arg(long, value_name = "URI")]
    id: Option<String>,
    /// A name for `!meta`. Default: the archive folder's name.
    #[arg(long, value_name = "TEXT")]
    name: Option<String>,
}

#[derive(Debug, Subcommand)]
enum ProfileCommand {
    /// Roll sub-trees up into wildcard keys (one pass over the sorted input, memory bounded by
    /// the key depth).
    ///
    /// Smaller factors roll up more; the defaults (1.0) are the reference tool's.
    #[command(after_help = "\
Examples:
  modoai-harvester profile compact archive.ukvs small.ukvs
  modoai-harvester profile compact archive.ukvs small.ukvs --host-factor 0.5 --path-factor 0.5 --json

Exit codes: see modoai-harvester --help.")]
    Compact {
        /// The profile to compact.
        input: PathBuf,
        /// The compacted profile to write.
        output: PathBuf,
        /// Host compaction factor: smaller rolls up more.
        #[arg(long, default_value_t = 1.0, value_name = "W")]
        host_factor: f64,
        /// Path compaction factor: smaller rolls up more.
        #[arg(long, default_value_t = 1.0, value_name = "W")]
        path_factor: f64,
    },
    /// Find the most specific key of a profile that covers a URI (exit 1 when none does).
    ///
    /// Prints `KEY FREQUENCY DISTANCE` (with --json an object of them, or `null`).
    #[command(after_help = "\
Examples:
  modoai-harvester profile lookup small.ukvs https://example.org/a.pdf
  modoai-harvester profile lookup small.ukvs 'org,example)/a.pdf' --json

Exit codes: see modoai-harvester --help.")]
    Lookup {
        /// The profile.
        file: PathBuf,
        /// A URL or a SURT.
        uri: String,
    },
}

pub(crate) fn run(args: ProfileArgs) -> anyhow::Result<Exit> {
    let json = args.json;
    match args.command {
        Some(ProfileCommand::Compact {
            input,
            output,
            host_factor,
            path_factor,
        }) => {
            if !(host_factor > 0.0 && path_factor > 0.0) {
                return Err(usage("--host-factor and --path-factor must be positive"));
            }
            let options = CompactOptions::default()
                .host_factor(host_factor)
                .path_factor(path_factor);
            let stats = profile::compact(&input, &output, &options)
                .with_context(|| format!("cannot compact {}", input.display()))?;
            report(&stats, None, json)?;
            Ok(Exit::Done)
        }
        Some(ProfileCommand::Lookup { file, uri }) => {
            match profile::lookup(&file, &uri)
                .with_context(|| format!("cannot search {}", file.display()))?
            {
                Some(hit) => {
                    let hit = HitReport {
                        key: hit.key,
                        frequency: hit.frequency.to_string(),
                        distance: hit.distance,
                    };
                    match json {
                        true => print(&serde_json::to_string_pretty(&hit)?)?,
                        false => print(&format!("{} {} {}", hit.key, hit.frequency, hit.distance))?,
                    }
                    Ok(Exit::Done)
                }
                None => {
                    match json {
                        true => print("null")?,
                        false => print(&format!("no key of {} covers {uri}", file.display()))?,
                    }
                    Ok(Exit::Failed)
                }
            }
        }
        None => {
            let GenerateArgs {
                archive,
                out,
                id,
                name,
            } = args.generate;
            let (Some(archive), Some(out)) = (archive, out) else {
                return Err(usage(
                    "profile needs --archive DIR and --out FILE (or: profile compact | profile lookup)",
                ));
            };
            let reader = Reader::open(&archive)?;
            let header = Header {
                id: id
                    .or(reader.archive_id().map(str::to_owned))
                    .unwrap_or_default(),
                name: name.unwrap_or_else(|| {
                    archive
                        .canonicalize()
                        .ok()
                        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                        .unwrap_or_default()
                }),
                generated: modoai_archive::warc::warc_date(time::OffsetDateTime::now_utc()),
                deletions: Some(deletions(&reader)?),
            };
            let input = reader
                .cdxj()
                .with_context(|| format!("cannot read the index of {}", archive.display()))?;
            let stats = profile::generate_from(input, &out, &header)
                .with_context(|| format!("cannot write {}", out.display()))?;
            report(&stats, header.deletions, json)?;
            Ok(Exit::Done)
        }
    }
}

/// What `profile lookup --json` prints.
#[derive(Debug, Serialize)]
struct HitReport {
    key: String,
    /// `M/R`: mementos of R distinct URIs.
    frequency: String,
    distance: usize,
}

/// One line (or a JSON value) on stdout.
fn print(text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()
}

/// The deletions the archive recorded, each once ([`Timeline`]).
fn deletions(reader: &Reader) -> anyhow::Result<u64> {
    let mut timeline = Timeline::new();
    let mut entries = reader.entries()?;
    let mut count = 0;
    while let Some(entry) = entries.next() {
        count += u64::from(timeline.see(entries.position(), &entry?).is_some());
    }
    Ok(count)
}

/// What `profile --json` prints: the figures, and when generating, the deletions counted apart.
#[derive(Debug, Serialize)]
struct StatsReport<'a> {
    #[serde(flatten)]
    stats: &'a Stats,
    #[serde(skip_serializing_if = "Option::is_none")]
    deletions: Option<u64>,
}

/// The reference tool's figures: lines in and out, bytes in and out, roll-ups; then skipped
/// lines and the deletions (no mementos, counted apart).
fn report(s: &Stats, deletions: Option<u64>, json: bool) -> anyhow::Result<()> {
    if json {
        let r = StatsReport {
            stats: s,
            deletions,
        };
        return Ok(print(&serde_json::to_string_pretty(&r)?)?);
    }
    let deletions = deletions
        .map(|n| format!("; {n} deletions, counted apart (no mementos)"))
        .unwrap_or_default();
    Ok(print(&format!(
        "{} {} {} {} {} (lines in, lines out, bytes in, bytes out, roll-ups; {} lines skipped{deletions})",
        s.in_lines, s.out_lines, s.in_bytes, s.out_bytes, s.rollups, s.skipped
    ))?)
}
