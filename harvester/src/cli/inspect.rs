//! `inspect endpoint` and `inspect archive`.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::Subcommand;
use modoai_archive::archive::{
    parts_of, ArchiveReport, Deletion, HarvestReport, ListReport, Reader, Timeline,
};

use serde::Serialize;
use tokio::runtime::Runtime;

use super::ClientArgs;

#[derive(Debug, Subcommand)]
pub(crate) enum Inspect {
    /// Identify, metadata formats and sets of an endpoint.
    #[command(after_help = "\
Examples:
  modoai-harvester inspect endpoint https://example.org/modoai
  modoai-harvester inspect endpoint https://example.org/modoai --sets --json

Exit codes: see modoai-harvester --help.")]
    Endpoint {
        /// The OAI-PMH base URL.
        url: String,
        /// Also list the sets, with their names and descriptions (may take many requests).
        #[arg(long)]
        sets: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        client: ClientArgs,
    },
    /// What an archive holds: per endpoint and format, items, bytes, harvests.
    ///
    /// Needs read access only, and works while a harvest writes the archive (it shows the
    /// complete items).
    #[command(after_help = "\
Examples:
  modoai-harvester inspect archive archive/
  modoai-harvester inspect archive archive/ --json
  modoai-harvester inspect archive archive/ --parts --json > parts.jsonl

Exit codes: see modoai-harvester --help.")]
    Archive {
        /// The archive folder.
        dir: PathBuf,
        /// Print JSON instead of text (with --parts: one JSON object per line).
        #[arg(long)]
        json: bool,
        /// List every archived part with its PWID, WARC file, offset, length and content type,
        /// and every deletion with its file's URL and its datestamp, in harvest order.
        #[arg(long)]
        parts: bool,
    },
}

pub(crate) fn run(runtime: &Runtime, inspect: Inspect) -> anyhow::Result<()> {
    match inspect {
        Inspect::Endpoint {
            url,
            sets,
            json,
            client,
        } => {
            let client = client.client()?;
            let handle = runtime.handle().clone();
            runtime.block_on(async move {
                tokio::task::spawn_blocking(move || {
                    super::endpoint::show(&client, &handle, &url, sets, json)
                })
                .await?
            })
        }
        Inspect::Archive { dir, json, parts } => {
            let reader = Reader::open(&dir)?;
            match parts {
                true => show_parts(&reader, json),
                false => show_archive(&reader, json),
            }
        }
    }
}

fn show_archive(reader: &Reader, json: bool) -> anyhow::Result<()> {
    let report = ArchiveReport::read(reader)?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        writeln!(
            out,
            "archive {} (PWID archive id {}): {} WARC files, {:.2} MB, {} index lines",
            report.archive,
            report.archive_id,
            report.warc_files,
            report.warc_bytes as f64 / 1e6,
            report.index_lines
        )?;
        if let Some(line) = super::store::stored_line(reader.dir()) {
            writeln!(out, "  {line}")?;
        }
        for l in &report.lists {
            writeln!(out, "  {}", list_line(l))?;
        }
        writeln!(out, "harvests:")?;
        for h in &report.harvests {
            writeln!(out, "  {}", harvest_line(h))?;
        }
    }
    out.flush()?;
    warn_open(
        reader.dir(),
        report.open_warc_files,
        report.incomplete_items,
    );
    Ok(())
}

/// Says on stderr what `.open` WARC files mean and which command closes them.
pub(crate) fn warn_open(dir: &Path, open_files: u64, incomplete: u64) {
    if open_files == 0 && incomplete == 0 {
        return;
    }
    tracing::warn!(
        "{open_files} WARC files of {} are still open and {incomplete} items are not complete \
         on disk: a harvest is writing them, or one was killed. Only complete items are shown. \
         When no harvest runs, `modoai-harvester repair --archive {}` closes the files and \
         brings the index up to date.",
        dir.display(),
        dir.display()
    );
}

fn list_line(l: &ListReport) -> String {
    let records: Vec<String> = l.records.iter().map(|(k, v)| format!("{v} {k}")).collect();
    let mut line = format!(
        "{} ({}): {} items ({} deleted), {:.2} MB payload, records: {}; harvested {} .. {}",
        l.endpoint,
        l.prefix,
        l.items,
        l.deleted,
        l.bytes as f64 / 1e6,
        records.join(", "),
        l.first_harvested.as_deref().unwrap_or("?"),
        l.last_harvested.as_deref().unwrap_or("?"),
    );
    if l.fixity_errors > 0 {
        line.push_str(&format!(", {} FIXITY MISMATCHES", l.fixity_errors));
    }
    if l.site_pages > 0 {
        line.push_str(&format!(
            "; {} captures of the site's root page",
            l.site_pages
        ));
    }
    line
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

/// One line of `inspect archive --parts --json`.
#[derive(Debug, Serialize)]
struct PartLine<'a> {
    pwid: String,
    #[serde(rename = "type")]
    kind: &'a str,
    url: &'a str,
    identifier: &'a str,
    datestamp: &'a str,
    file: &'a str,
    offset: u64,
    length: u64,
    content_type: &'a str,
    digest: &'a str,
}

/// One line of `inspect archive --parts --json` for a deletion: the file's URL (from the item's
/// last capture; null when the archive never captured it) and the deletion's datestamp.
#[derive(Debug, Serialize)]
struct DeletionLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    url: Option<&'a str>,
    identifier: &'a str,
    datestamp: &'a str,
    harvested: &'a str,
    endpoint: &'a str,
}

fn write_deletion(out: &mut dyn std::io::Write, d: &Deletion, json: bool) -> anyhow::Result<()> {
    let urls: Vec<Option<&str>> = match d.urls.is_empty() {
        true => vec![None],
        false => d.urls.iter().map(|u| Some(u.as_str())).collect(),
    };
    for url in urls {
        if json {
            let line = DeletionLine {
                kind: "deletion",
                url,
                identifier: &d.identifier,
                datestamp: &d.datestamp,
                harvested: &d.harvested,
                endpoint: &d.endpoint,
            };
            writeln!(out, "{}", serde_json::to_string(&line)?)?;
        } else {
            let url = url.unwrap_or(&d.identifier);
            writeln!(out, "deleted {}  {url}", d.datestamp)?;
        }
    }
    Ok(())
}

/// One line (or JSON object) per archived part and per deletion, read from the ledger one entry
/// at a time.
fn show_parts(reader: &Reader, json: bool) -> anyhow::Result<()> {
    let id = reader.archive_id().unwrap_or_default().to_owned();
    // The file's name on disk: `….warc.gz.open` while a harvest writes it.
    let mut names: HashMap<String, String> = HashMap::new();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut entries = reader.entries()?;
    let mut timeline = Timeline::new();
    while let Some(entry) = entries.next() {
        let entry = entry?;
        if let Some(d) = timeline.see(entries.position(), &entry) {
            write_deletion(&mut out, &d, json)?;
        }
        for part in parts_of(&entry, &id) {
            let r = &part.record;
            if !names.contains_key(&r.file) {
                let on_disk = reader
                    .warc_file(&r.file)?
                    .and_then(|f| f.path.file_name().map(|n| n.to_string_lossy().into_owned()));
                names.insert(r.file.clone(), on_disk.unwrap_or_else(|| r.file.clone()));
            }
            let file = &names[&r.file];
            if json {
                let line = PartLine {
                    pwid: part.pwid.to_string(),
                    kind: r.kind.as_str(),
                    url: &r.uri,
                    identifier: &entry.identifier,
                    datestamp: &entry.datestamp,
                    file,
                    offset: r.offset,
                    length: r.length,
                    content_type: &r.mime,
                    digest: &r.digest,
                };
                writeln!(out, "{}", serde_json::to_string(&line)?)?;
            } else {
                writeln!(
                    out,
                    "{}  {}:{}+{}  {}",
                    part.pwid, file, r.offset, r.length, r.mime
                )?;
            }
        }
    }
    out.flush()?;
    let open = reader.open_files()?.len() as u64;
    warn_open(reader.dir(), open, entries.incomplete());
    Ok(())
}
