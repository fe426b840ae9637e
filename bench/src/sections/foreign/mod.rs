//! Foreign archives: a synthetic crawl WARC (`crawl`) read by the reader of any web archive
//! (`modoai_archive::any::Records`) and indexed by `modoai-explorer index --archive`, each next to
//! `cdxj-indexer` writing only a URL index of the same file, and the explorer's peak memory; and
//! the search of a million foreign captures (`search`).
//!
//! When the explorer cannot index the WARC, its rows are left out with the reason on stderr; the
//! reader's row and the rest of the bench still run.

mod crawl;
mod search;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use modoai_archive::any::{Found, ReadOptions, Records, Source};

use super::{Ctx, MB};
use crate::procs::{timed, Proc, Usage};
use crate::report::{median, Figure};

const GB: f64 = 1e9;

pub(crate) async fn run(ctx: &Ctx) -> anyhow::Result<Vec<Figure>> {
    let size = ctx.size(1 << 30, 4 << 20);
    let dir = ctx.dir("foreign")?;
    let warc = dir.join("crawl.warc.gz");
    let started = Instant::now();
    let written = crawl::write(&warc, &crawl::Shape::bytes(size), &ctx.bins.repo)?;
    eprintln!(
        "bench: foreign: crawl.warc.gz of {:.0} MB, {} records ({} revisits) written in {:.1} s",
        written.bytes as f64 / MB,
        written.records,
        written.revisits,
        started.elapsed().as_secs_f64()
    );
    let peer = cdxj_indexer(ctx, &warc, &dir)?;
    let gb = written.bytes as f64 / GB;
    let mut figures = vec![reader(ctx, &warc, written.records, peer)?];
    match explorer_index(ctx, &warc, &dir) {
        Ok((secs, peak, anon)) => {
            figures.push(
                Figure::new(
                    "foreign",
                    "explorer index of a crawl WARC",
                    secs / gb,
                    "s/GB",
                )
                .peer("cdxj-indexer", peer / gb)
                .note("ours/peer, target <= 2 and <= 60 s/GB"),
            );
            figures.push(
                Figure::new("foreign", "explorer index peak RSS", peak, "MiB").note(format!(
                    "target <= 512 MiB; of which at most {anon:.0} MiB anonymous (the rest: \
                     files mapped)"
                )),
            );
        }
        Err(e) => eprintln!("bench: foreign: explorer rows left out: {e:#}"),
    }
    match search::run(ctx, &dir).await {
        Ok(figure) => figures.push(figure),
        Err(e) => eprintln!("bench: foreign: search row left out: {e:#}"),
    }
    Ok(figures)
}

/// The median seconds `cdxj-indexer` takes to write a URL index of `warc`.
fn cdxj_indexer(ctx: &Ctx, warc: &Path, dir: &Path) -> anyhow::Result<f64> {
    let program = ctx.bins.repo.join(".venv/bin/cdxj-indexer");
    let out = dir.join("crawl.cdxj");
    let mut runs = Vec::new();
    for run in 0..=ctx.runs {
        let took = timed(
            "cdxj-indexer",
            Command::new(&program).arg(warc).arg("-o").arg(&out),
        )?;
        if run > 0 {
            runs.push(took.as_secs_f64());
        }
    }
    Ok(median(&runs))
}

/// Every record of `warc` read with `Records`: records/s, with MB/s in the note, next to
/// cdxj-indexer's records/s over the same file.
fn reader(ctx: &Ctx, warc: &Path, records: u64, peer_secs: f64) -> anyhow::Result<Figure> {
    let bytes = std::fs::metadata(warc)?.len() as f64;
    let mut runs = Vec::new();
    for run in 0..=ctx.runs {
        let started = Instant::now();
        let mut n = 0u64;
        for found in Records::open(&Source::file(warc), ReadOptions::default())? {
            match found {
                Found::Record(r) if r.block_digest.is_failed() || r.payload_digest.is_failed() => {
                    anyhow::bail!("a digest of the crawl fails: {:?}", r.fields.target_uri)
                }
                Found::Record(_) => n += 1,
                Found::Skipped(s) => anyhow::bail!("the reader skipped part of the crawl: {s:?}"),
            }
        }
        anyhow::ensure!(n == records, "the reader found {n} records of {records}");
        if run > 0 {
            runs.push(started.elapsed().as_secs_f64());
        }
    }
    let secs = median(&runs);
    Ok(Figure::new(
        "foreign",
        "any::Records over a crawl WARC",
        records as f64 / secs,
        "records/s",
    )
    .peer("cdxj-indexer", records as f64 / peer_secs)
    .note(format!(
        "ours/peer; {:.0} MB/s vs {:.0} MB/s",
        bytes / secs / MB,
        bytes / peer_secs / MB
    )))
}

/// `modoai-explorer index --archive WARC --index-dir DIR --settle 0`: median seconds, peak MiB
/// and peak anonymous MiB.
fn explorer_index(ctx: &Ctx, warc: &Path, dir: &Path) -> anyhow::Result<(f64, f64, f64)> {
    let (mut secs, mut peak, mut anon) = (Vec::new(), 0f64, 0f64);
    for run in 0..=ctx.runs {
        let index = dir.join(format!("index-{run}"));
        let usage = index_once(ctx, warc, &index)?;
        let _ = std::fs::remove_dir_all(&index);
        if run > 0 {
            secs.push(usage.took.as_secs_f64());
            peak = peak.max(usage.peak);
            anon = anon.max(usage.peak_anon);
        }
    }
    Ok((median(&secs), peak, anon))
}

/// One `modoai-explorer index --archive WARC --index-dir INDEX --settle 0`, its log and its
/// state folder (the identification cache, empty: every payload is identified, as at a first
/// index) beside `INDEX`; an error with the log's first error line when it fails.
fn index_once(ctx: &Ctx, warc: &Path, index: &Path) -> anyhow::Result<Usage> {
    let log = index.with_extension("log");
    let state = index.with_extension("state");
    let _ = std::fs::remove_dir_all(&state);
    let mut cmd = Command::new(ctx.bins.dir.join("modoai-explorer"));
    cmd.env("XDG_STATE_HOME", &state)
        .arg("index")
        .arg("--archive")
        .arg(warc)
        .arg("--index-dir")
        .arg(index)
        // The WARC was just written: read it now rather than wait for it to settle.
        .args(["--settle", "0"])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log)?);
    let usage = Proc::spawn("modoai-explorer", &mut cmd)?.wait_usage()?;
    let _ = std::fs::remove_dir_all(&state);
    if !usage.status.success() {
        let said = std::fs::read_to_string(&log).unwrap_or_default();
        let last = said
            .lines()
            .find(|l| l.to_lowercase().contains("error"))
            .or_else(|| said.lines().rev().find(|l| !l.trim().is_empty()))
            .unwrap_or("");
        anyhow::bail!(
            "modoai-explorer index --archive FILE.warc.gz does not index a foreign WARC here ({}): {last}",
            usage.status
        );
    }
    Ok(usage)
}
