//! `inspect endpoint` and `inspect archive`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Subcommand;
use std::io::Write as _;

use modoai_harvester::archive::{entries, parts_of, Archive, ArchiveOptions, Entry};
use modoai_harvester::harvest::endpoint;
use serde::Serialize;
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

/// One list's figures in an archive.
#[derive(Debug, Default, Serialize)]
struct ListReport {
    endpoint: String,
    prefix: String,
    items: u64,
    deleted: u64,
    bytes: u64,
    records: BTreeMap<String, u64>,
    fixity_errors: u64,
    first_harvested: Option<String>,
    last_harvested: Option<String>,
}

#[derive(Debug, Serialize)]
struct Report {
    archive: String,
    archive_id: String,
    warc_files: u64,
    warc_bytes: u64,
    index_lines: u64,
    lists: Vec<ListReport>,
    harvests: Vec<serde_json::Value>,
}

fn show_archive(dir: &std::path::Path, json: bool) -> anyhow::Result<()> {
    anyhow::ensure!(
        dir.join("ledger.jsonl").exists(),
        "{} is not an archive (no ledger.jsonl)",
        dir.display()
    );
    // Opening takes the lock and finishes an interrupted run, so the figures are consistent.
    let archive = Archive::open(dir, ArchiveOptions::default())
        .with_context(|| format!("cannot open the archive {}", dir.display()))?;
    let mut lists: BTreeMap<(String, String), ListReport> = BTreeMap::new();
    let ledger = std::fs::read_to_string(dir.join("ledger.jsonl"))?;
    for line in ledger.lines() {
        let e: Entry = serde_json::from_str(line)?;
        let r = lists
            .entry((e.endpoint.clone(), e.prefix.clone()))
            .or_insert_with(|| ListReport {
                endpoint: e.endpoint.clone(),
                prefix: e.prefix.clone(),
                ..ListReport::default()
            });
        r.items += 1;
        r.deleted += u64::from(e.deleted);
        r.bytes += e.bytes;
        r.fixity_errors += e.fixity_errors.len() as u64;
        for w in &e.records {
            *r.records.entry(w.kind.as_str().to_owned()).or_default() += 1;
        }
        if r.first_harvested.is_none() {
            r.first_harvested = Some(e.harvested.clone());
        }
        r.last_harvested = Some(e.harvested.clone());
    }
    let (mut warc_files, mut warc_bytes) = (0, 0);
    for e in std::fs::read_dir(dir.join("warcs"))?.flatten() {
        if e.file_name().to_string_lossy().ends_with(".warc.gz") {
            warc_files += 1;
            warc_bytes += e.metadata()?.len();
        }
    }
    let index_lines = std::fs::read_to_string(dir.join("index.cdxj"))
        .map(|t| t.lines().count() as u64)
        .unwrap_or(0);
    let mut harvests = Vec::new();
    for l in archive.state().lists.values() {
        for run in &l.runs {
            harvests.push(serde_json::json!({
                "endpoint": l.key.endpoint, "prefix": l.key.prefix, "set": l.key.set,
                "started": run.started, "finished": run.finished, "from": run.from, "until": run.until,
                "archived": run.archived, "skipped": run.skipped, "bytes": run.bytes, "pages": run.pages,
                "outcome": run.outcome,
            }));
        }
        if let Some(r) = &l.running {
            harvests.push(serde_json::json!({
                "endpoint": l.key.endpoint, "prefix": l.key.prefix, "set": l.key.set,
                "started": r.started, "outcome": format!("interrupted after {} pages; run the harvest again to continue", r.pages),
            }));
        }
    }
    let report = Report {
        archive: dir.display().to_string(),
        archive_id: archive.archive_id().to_owned(),
        warc_files,
        warc_bytes,
        index_lines,
        lists: lists.into_values().collect(),
        harvests,
    };
    drop(archive);
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!(
        "archive {} (PWID archive id {}): {} WARC files, {:.2} MB, {} index lines",
        report.archive,
        report.archive_id,
        warc_files,
        warc_bytes as f64 / 1e6,
        index_lines
    );
    for l in &report.lists {
        let records: Vec<String> = l.records.iter().map(|(k, v)| format!("{v} {k}")).collect();
        println!(
            "  {} ({}): {} items ({} deleted), {:.2} MB payload, records: {}; harvested {} .. {}{}",
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
        );
    }
    println!("harvests:");
    for h in &report.harvests {
        println!(
            "  {} {} {}: started {}, {}",
            h["endpoint"].as_str().unwrap_or(""),
            h["prefix"].as_str().unwrap_or(""),
            h["set"].as_str().unwrap_or("-"),
            h["started"].as_str().unwrap_or(""),
            match h["archived"].as_u64() {
                Some(n) => format!(
                    "{n} archived, {} skipped, {} pages: {}",
                    h["skipped"],
                    h["pages"],
                    h["outcome"].as_str().unwrap_or("")
                ),
                None => h["outcome"].as_str().unwrap_or("").to_owned(),
            }
        );
    }
    Ok(())
}

/// One line (or JSON object) per archived part, read from the ledger one entry at a time.
fn show_parts(dir: &std::path::Path, json: bool) -> anyhow::Result<()> {
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
