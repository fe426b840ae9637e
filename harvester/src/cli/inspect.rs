//! `inspect endpoint` and `inspect archive`.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Subcommand;
use std::io::Write as _;

use modoai_harvester::archive::{
    entries, parts_of, Archive, ArchiveLayout, ArchiveOptions, ArchiveReport, HarvestReport,
    ListReport,
};
use modoai_harvester::harvest::endpoint;
use tokio::runtime::Runtime;

use super::ClientArgs;

#[derive(Debug, Subcommand)]
pub(crate) enum Inspect {
    /// Identify, metadata formats and sets of an endpoint.
    Endpoint {
        /// The OAI-PMH base URL.
        url: String,
        /// Also list the sets (may take many requests).
        #[arg(long)]
        sets: bool,
        #[command(flatten)]
        client: ClientArgs,
    },
    /// What an archive holds: per endpoint and format, items, bytes, harvests.
    Archive {
        /// The archive folder.
        dir: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// List every archived part with its PWID, WARC file, offset, length and content type.
        #[arg(long)]
        parts: bool,
    },
}

pub(crate) fn run(runtime: &Runtime, inspect: Inspect) -> anyhow::Result<()> {
    match inspect {
        Inspect::Endpoint { url, sets, client } => {
            let client = client.client()?;
            let handle = runtime.handle().clone();
            runtime.block_on(async move {
                tokio::task::spawn_blocking(move || show_endpoint(&client, &handle, &url, sets))
                    .await?
            })
        }
        Inspect::Archive { dir, json, parts } => match parts {
            true => show_parts(&dir, json),
            false => show_archive(&dir, json),
        },
    }
}

fn show_endpoint(
    client: &modoai_harvester::client::Client,
    handle: &tokio::runtime::Handle,
    url: &str,
    with_sets: bool,
) -> anyhow::Result<()> {
    let id = endpoint::identify(client, handle, url)?;
    println!("repository:   {}", id.repository_name);
    println!("base URL:     {}", id.base_url);
    println!("protocol:     {}", id.protocol_version);
    println!("admin:        {}", id.admin_emails.join(", "));
    println!(
        "earliest:     {}",
        id.earliest_datestamp
            .map(|d| d.to_string())
            .unwrap_or_else(|| "?".into())
    );
    println!(
        "granularity:  {}",
        id.granularity
            .map(|g| g.as_str())
            .unwrap_or("? (not a legal value)")
    );
    println!("deleted:      {}", id.deleted_record);
    if !id.compression.is_empty() {
        println!("compression:  {}", id.compression.join(", "));
    }
    println!("formats:");
    for f in endpoint::formats(client, handle, url)? {
        println!("  {:<12} {}  {}", f.prefix, f.namespace, f.schema);
    }
    if with_sets {
        let sets = endpoint::sets(client, handle, url)?;
        println!("sets: {}", sets.len());
        for (spec, name) in sets {
            println!("  {spec:<30} {name}");
        }
    }
    Ok(())
}

fn show_archive(dir: &Path, json: bool) -> anyhow::Result<()> {
    ArchiveLayout::new(dir).require_ledger()?;
    let archive = Archive::open(dir, ArchiveOptions::default())
        .with_context(|| format!("cannot open the archive {}", dir.display()))?;
    let report = ArchiveReport::read(&archive)?;
    drop(archive);
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!(
        "archive {} (PWID archive id {}): {} WARC files, {:.2} MB, {} index lines",
        report.archive,
        report.archive_id,
        report.warc_files,
        report.warc_bytes as f64 / 1e6,
        report.index_lines
    );
    for l in &report.lists {
        println!("  {}", list_line(l));
    }
    println!("harvests:");
    for h in &report.harvests {
        println!("  {}", harvest_line(h));
    }
    Ok(())
}

fn list_line(l: &ListReport) -> String {
    let records: Vec<String> = l.records.iter().map(|(k, v)| format!("{v} {k}")).collect();
    format!(
        "{} ({}): {} items ({} deleted), {:.2} MB payload, records: {}; harvested {} .. {}{}",
        l.endpoint,
        l.prefix,
        l.items,
        l.deleted,
        l.bytes as f64 / 1e6,
        records.join(", "),
        l.first_harvested.as_deref().unwrap_or("?"),
        l.last_harvested.as_deref().unwrap_or("?"),
        if l.fixity_errors > 0 {
            format!(", {} FIXITY MISMATCHES", l.fixity_errors)
        } else {
            String::new()
        }
    )
}

fn harvest_line(h: &HarvestReport) -> String {
    match h {
        HarvestReport::Finished {
            endpoint,
            prefix,
            set,
            started,
            archived,
            skipped,
            pages,
            outcome,
            ..
        } => format!(
            "{endpoint} {prefix} {}: started {started}, {archived} archived, {skipped} skipped, \
             {pages} pages: {outcome}",
            set.as_deref().unwrap_or("-")
        ),
        HarvestReport::Interrupted {
            endpoint,
            prefix,
            set,
            started,
            outcome,
        } => format!(
            "{endpoint} {prefix} {}: started {started}, {outcome}",
            set.as_deref().unwrap_or("-")
        ),
    }
}

/// One line (or JSON object) per archived part, read from the ledger one entry at a time.
fn show_parts(dir: &Path, json: bool) -> anyhow::Result<()> {
    let archive = Archive::open(dir, ArchiveOptions::default())
        .with_context(|| format!("cannot open the archive {}", dir.display()))?;
    let id = archive.archive_id().to_owned();
    drop(archive);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for entry in entries(dir)? {
        let entry = entry?;
        for part in parts_of(&entry, &id) {
            let r = &part.record;
            if json {
                let line = serde_json::json!({
                    "pwid": part.pwid.to_string(), "type": r.kind, "url": r.uri,
                    "identifier": entry.identifier, "datestamp": entry.datestamp,
                    "file": r.file, "offset": r.offset, "length": r.length,
                    "content_type": r.mime, "digest": r.digest,
                });
                writeln!(out, "{line}")?;
            } else {
                writeln!(
                    out,
                    "{}  {}:{}+{}  {}",
                    part.pwid, r.file, r.offset, r.length, r.mime
                )?;
            }
        }
    }
    out.flush()?;
    Ok(())
}
