//! `profile`: MementoMap profiles (generate, compact, lookup).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use modoai_harvester::archive::ArchiveLayout;
use modoai_harvester::profile::{self, CompactOptions, Header, Stats};

use super::{usage, EXIT_FAILED, EXIT_OK};

/// `profile --archive DIR --out FILE`, or `profile compact|lookup …`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct ProfileArgs {
    #[command(subcommand)]
    command: Option<ProfileCommand>,
    #[command(flatten)]
    generate: GenerateArgs,
}

/// Generates the full profile of an archive.
#[derive(Debug, Args)]
struct GenerateArgs {
    /// The archive folder (its index.cdxj is read).
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
    Lookup {
        /// The profile.
        file: PathBuf,
        /// A URL or a SURT.
        uri: String,
    },
}

pub(crate) fn run(args: ProfileArgs) -> anyhow::Result<ExitCode> {
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
            report(&stats);
            Ok(ExitCode::from(EXIT_OK))
        }
        Some(ProfileCommand::Lookup { file, uri }) => {
            match profile::lookup(&file, &uri)
                .with_context(|| format!("cannot search {}", file.display()))?
            {
                Some(hit) => {
                    println!("{} {} {}", hit.key, hit.frequency, hit.distance);
                    Ok(ExitCode::from(EXIT_OK))
                }
                None => {
                    println!("no key of {} covers {uri}", file.display());
                    Ok(ExitCode::from(EXIT_FAILED))
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
            let layout = ArchiveLayout::new(&archive);
            layout.require_index()?;
            let index = layout.index();
            let archive_id = modoai_harvester::archive::stored_archive_id(&archive)?;
            let header = Header {
                id: id.or(archive_id).unwrap_or_default(),
                name: name.unwrap_or_else(|| {
                    archive
                        .canonicalize()
                        .ok()
                        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                        .unwrap_or_default()
                }),
                generated: modoai_harvester::warc::warc_date(time::OffsetDateTime::now_utc()),
            };
            let stats = profile::generate(&index, &out, &header)
                .with_context(|| format!("cannot write {}", out.display()))?;
            report(&stats);
            Ok(ExitCode::from(EXIT_OK))
        }
    }
}

/// The reference tool's figures: lines in and out, bytes in and out, roll-ups; then skipped lines.
fn report(s: &Stats) {
    println!(
        "{} {} {} {} {} (lines in, lines out, bytes in, bytes out, roll-ups; {} lines skipped)",
        s.in_lines, s.out_lines, s.in_bytes, s.out_bytes, s.rollups, s.skipped
    );
}
