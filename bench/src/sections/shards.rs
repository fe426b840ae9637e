//! A harvest list at archive scale: 1,000 endpoints × 100 records in one `harvest-list` run
//! (wall time, peak RSS), then the same list in 4 shards run one after another and merged (each
//! shard's time, the merge's time, and the merged archive against one unsharded run).
//!
//! The setup: 20 real `modoai serve` processes on 127.0.0.1 ports, each a site of 50 folders of
//! 100 files, one MIME type per folder (by extension), so each server publishes 50 sets
//! `mime:TYPE:SUBTYPE` of 100 records: 1,000 distinct lists (endpoint + set) of 100 records.
//! A real server per host keeps the harvester's per-host politeness real (one request at a time
//! to each of the 20 hosts), and sets make the many lists without a thousand processes. The
//! records are `oai_didl` (files inline: one request per page of 100).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::Ctx;
use crate::procs::{serve, Proc};
use crate::report::Figure;

/// Extensions whose MIME types (as the server finds them) are all different and need no
/// escaping in a set spec.
const TYPES: [(&str, &str); 50] = [
    ("txt", "text/plain"),
    ("csv", "text/csv"),
    ("html", "text/html"),
    ("css", "text/css"),
    ("xml", "text/xml"),
    ("json", "application/json"),
    ("pdf", "application/pdf"),
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("bmp", "image/bmp"),
    ("tif", "image/tiff"),
    ("ico", "image/x-icon"),
    ("mp3", "audio/mpeg"),
    ("wav", "audio/wav"),
    ("ogg", "audio/ogg"),
    ("mp4", "video/mp4"),
    ("webm", "video/webm"),
    ("avi", "video/x-msvideo"),
    ("zip", "application/zip"),
    ("tar", "application/x-tar"),
    ("doc", "application/msword"),
    ("xls", "application/vnd.ms-excel"),
    ("ppt", "application/vnd.ms-powerpoint"),
    ("odt", "application/vnd.oasis.opendocument.text"),
    ("ods", "application/vnd.oasis.opendocument.spreadsheet"),
    ("rtf", "application/rtf"),
    ("odp", "application/vnd.oasis.opendocument.presentation"),
    ("js", "text/javascript"),
    ("wasm", "application/wasm"),
    ("woff2", "font/woff2"),
    ("ics", "text/calendar"),
    ("vcf", "text/x-vcard"),
    ("tsv", "text/tab-separated-values"),
    ("jar", "application/java-archive"),
    ("7z", "application/x-7z-compressed"),
    ("bz2", "application/x-bzip2"),
    ("mid", "audio/mid"),
    ("flac", "audio/flac"),
    ("m4a", "audio/m4a"),
    ("mov", "video/quicktime"),
    ("mpg", "video/mpeg"),
    ("ps", "application/postscript"),
    ("tex", "application/x-tex"),
    ("dvi", "application/x-dvi"),
    ("apk", "application/vnd.android.package-archive"),
    ("class", "application/x-java-applet"),
    ("sh", "application/x-sh"),
    ("rs", "text/x-rust"),
];

/// The sites, their servers and the `[[endpoint]]` tables of every list.
struct Endpoints {
    _servers: Vec<Proc>,
    /// (server number, endpoint table without `archive`).
    tables: Vec<(usize, String)>,
    per: usize,
}

async fn start(ctx: &Ctx) -> anyhow::Result<Endpoints> {
    let (servers, types, per) = ctx.size((20, 50, 100), (4, 3, 5));
    let (mut procs, mut tables) = (Vec::new(), Vec::new());
    for k in 0..servers {
        let root = ctx.dir(&format!("shards/site-{k}"))?;
        for (t, (ext, _)) in TYPES[..types].iter().enumerate() {
            let dir = root.join(format!("t{t:02}"));
            std::fs::create_dir_all(&dir)?;
            for i in 0..per {
                let body = format!("server {k} type {t} file {i}\n");
                std::fs::write(dir.join(format!("f{i:03}.{ext}")), body)?;
            }
        }
        let (proc, base, _) = serve(&ctx.bins, &root, &[]).await?;
        for (_, mime) in &TYPES[..types] {
            let set = format!("mime:{}", mime.replace('/', ":"));
            tables.push((
                k,
                format!("\n[[endpoint]]\nurl = \"{base}modoai\"\nset = \"{set}\"\n"),
            ));
        }
        procs.push(proc);
    }
    Ok(Endpoints {
        _servers: procs,
        tables,
        per,
    })
}

/// Writes the list in `dir`: `archive` per endpoint from its server number.
fn list(dir: &Path, e: &Endpoints, archive: impl Fn(usize) -> String) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let mut text = String::from("[defaults]\nmetadata-prefix = \"oai_didl\"\n");
    for (k, table) in &e.tables {
        text.push_str(&format!("{table}archive = \"{}\"\n", archive(*k)));
    }
    let path = dir.join("list.toml");
    std::fs::write(&path, text)?;
    Ok(path)
}

/// One `harvest-list` run: seconds and peak MiB; fails unless every endpoint completed with
/// `per` records.
fn harvest(ctx: &Ctx, list: &Path, extra: &[&str], e: &Endpoints) -> anyhow::Result<(f64, f64)> {
    let report = list.with_file_name(format!("report{}.json", extra.join("").replace('/', "-")));
    let mut cmd = ctx.bins.harvester();
    cmd.arg("harvest-list")
        .arg(list)
        .args(["--jobs", "8", "-q", "--report"])
        .arg(&report);
    cmd.args(extra).stdout(Stdio::null());
    let (status, took, peak) = Proc::spawn("modoai-harvester", &mut cmd)?.wait_peak()?;
    anyhow::ensure!(status.success(), "harvest-list {extra:?} failed: {status}");
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&report)?)?;
    for row in report["endpoints"].as_array().into_iter().flatten() {
        let whole = row["outcome"] == "complete" && row["records"] == e.per as u64;
        anyhow::ensure!(
            whole,
            "an endpoint did not complete with {} records: {row}",
            e.per
        );
    }
    Ok((took.as_secs_f64(), peak))
}

/// Items and payload bytes of an archive, as `inspect archive --json` counts them.
fn totals(ctx: &Ctx, archive: &Path) -> anyhow::Result<(u64, u64)> {
    let out = ctx
        .bins
        .harvester()
        .args(["inspect", "archive"])
        .arg(archive)
        .arg("--json")
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "inspect {}: {}",
        archive.display(),
        out.status
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let lists = v["lists"].as_array().cloned().unwrap_or_default();
    let sum = |k: &str| lists.iter().filter_map(|l| l[k].as_u64()).sum();
    Ok((sum("items"), sum("bytes")))
}

pub(crate) async fn run(ctx: &Ctx) -> anyhow::Result<Vec<Figure>> {
    let e = start(ctx).await?;
    let (n, per) = (e.tables.len(), e.per);
    let mut out = Vec::new();
    // (a) One run, an archive per server: the 20 archives 8 at a time.
    let per_server = list(&ctx.work.join("shards/a"), &e, |k| {
        format!("archives/server-{k}")
    })?;
    let (secs, peak) = harvest(ctx, &per_server, &[], &e)?;
    out.push(
        Figure::new(
            "shards",
            format!("harvest-list, {n} endpoints x {per} records, archive per host: peak RSS"),
            peak,
            "MiB",
        )
        .peer("target", 512.0)
        .note(format!("all complete in {secs:.1} s wall, --jobs 8")),
    );
    // (b) One archive for the whole list, unsharded, then 4 shards one after another and merge.
    let one = list(&ctx.work.join("shards/one"), &e, |_| "archive".into())?;
    let (whole, _) = harvest(ctx, &one, &[], &e)?;
    let (mut shards, mut times) = (Vec::new(), Vec::new());
    for i in 0..4 {
        let l = list(&ctx.work.join(format!("shards/shard-{i}")), &e, |_| {
            "archive".into()
        })?;
        let (t, _) = harvest(ctx, &l, &["--shard", &format!("{i}/4")], &e)?;
        times.push(t);
        // A shard that got no host harvests nothing and leaves no archive.
        let archive = l.with_file_name("archive");
        if archive.exists() {
            shards.push(archive);
        }
    }
    let merged = ctx.work.join("shards/merged");
    let mut cmd = ctx.bins.harvester();
    cmd.args(["merge", "-q", "--out"])
        .arg(&merged)
        .stdout(Stdio::null());
    for s in &shards {
        cmd.arg("--archive").arg(s);
    }
    let (status, took, _) = Proc::spawn("modoai-harvester", &mut cmd)?.wait_peak()?;
    anyhow::ensure!(status.success(), "merge failed: {status}");
    let (m, w) = (
        totals(ctx, &merged)?,
        totals(ctx, &one.with_file_name("archive"))?,
    );
    anyhow::ensure!(
        m == w && m.0 == (n * per) as u64,
        "merged {m:?} items/bytes, one run {w:?}"
    );
    let shard_times: Vec<String> = times.iter().map(|t| format!("{t:.1}")).collect();
    let total = times.iter().sum::<f64>() + took.as_secs_f64();
    out.push(
        Figure::new(
            "shards",
            format!("{n} endpoints in 4 shards one after another + merge: wall s"),
            total,
            "s",
        )
        .peer("one unsharded run into one archive", whole)
        .note(format!(
            "shards {} s, merge {:.1} s; merged = one run: {} items, {} bytes",
            shard_times.join(" / "),
            took.as_secs_f64(),
            m.0,
            m.1
        )),
    );
    Ok(out)
}
