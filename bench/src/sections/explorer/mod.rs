//! Explorer: a synthetic archive of mixed captures (`modoai_explorer::synthetic`) indexed by
//! `modoai-explorer index` (rate, size per capture, an incremental 1 %), searched with three
//! facets at 1 and 16 concurrent clients (p50/p99, server RSS), every hit walked by cursor (last
//! pages against first pages) and a tenth of it exported as CSV (rows/s, server RSS), and the
//! TimeMap of a URL with 1,000 captures against pywb's own TimeMap of the same archive; and a
//! smaller archive indexed with identification alone and with `--tools` (JHOVE, md5).

mod export;
pub(crate) mod search;
mod tools;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use modoai_explorer::synthetic::{write, Spec, HOT_URL};

use super::Ctx;
use crate::procs::{free_port, Proc, Usage};
use crate::report::{median, Figure};

/// Targets of the issue that the figures are read against.
const TARGET_RATE: f64 = 20_000.0;
pub(crate) const TARGET_P99_MS: f64 = 50.0;
pub(crate) const TARGET_RSS_MIB: f64 = 256.0;

pub(crate) async fn run(ctx: &Ctx) -> anyhow::Result<Vec<Figure>> {
    let n = ctx.size(1_000_000u64, 3_000);
    let archive = ctx.dir("explorer/archive")?;
    let spec = Spec {
        captures: n,
        hot: 0,
        first: 0,
        text: (200, 3000),
        seed: 1,
    };
    let made = Instant::now();
    tokio::task::block_in_place(|| write(&archive, &spec))?;
    eprintln!(
        "bench: explorer: {n} captures written in {:.1} s",
        made.elapsed().as_secs_f64()
    );
    let first = index(ctx, &archive)?;
    let (took, peak) = (first.took, first.peak);
    let rate = n as f64 / took.as_secs_f64();
    let size = dir_bytes(&archive.join("explorer-index"))? as f64 / n as f64;
    let more = n / 100;
    tokio::task::block_in_place(|| {
        write(
            &archive,
            &Spec {
                captures: more,
                first: n,
                ..spec.clone()
            },
        )
    })?;
    let again = index(ctx, &archive)?.took;
    let mut figures = vec![
        Figure::new(
            "explorer",
            format!("index build of {n} captures"),
            rate,
            "captures/s",
        )
        .peer("target", TARGET_RATE)
        .note(format!(
            "{:.1} s, indexer peak RSS {peak:.0} MiB, of which at most {:.0} MiB anonymous (the \
             rest: index files mapped while segments merge, pages the kernel can take back)",
            took.as_secs_f64(),
            first.peak_anon
        )),
        Figure::new("explorer", "index size per capture", size, "bytes"),
        Figure::new(
            "explorer",
            format!("incremental re-index of 1 % ({more} new captures)"),
            again.as_secs_f64(),
            "s",
        )
        .peer("full build", took.as_secs_f64())
        .note(format!(
            "{:.0} captures/s",
            more as f64 / again.as_secs_f64()
        )),
    ];
    figures.extend(search::run(ctx, &archive).await?);
    figures.extend(export::run(ctx, &archive).await?);
    figures.push(timemap(ctx).await?);
    // The same archive indexed again from scratch without identification: what Siegfried costs
    // on the captures without a CRATE (all but the JPEGs), from an empty cache above.
    std::fs::remove_dir_all(archive.join("explorer-index"))?;
    let off = index_with(ctx, &archive, &["--no-identify"])?.took;
    figures.push(
        Figure::new(
            "explorer",
            format!("index build of {n} captures, identification off"),
            n as f64 / off.as_secs_f64(),
            "captures/s",
        )
        .peer("identification on", rate)
        .note(format!("{:.1} s", off.as_secs_f64())),
    );
    figures.push(tools::run(ctx)?);
    Ok(figures)
}

/// `modoai-explorer index --archive DIR`: its time and peak memory.
fn index(ctx: &Ctx, archive: &Path) -> anyhow::Result<Usage> {
    index_with(ctx, archive, &[])
}

/// `modoai-explorer index --archive DIR FLAGS…`, its identification cache in the bench's folder
/// (empty at the first run): its time and peak memory.
fn index_with(ctx: &Ctx, archive: &Path, flags: &[&str]) -> anyhow::Result<Usage> {
    index_in(ctx, archive, "explorer/state", flags)
}

/// `modoai-explorer index --archive DIR FLAGS…` with the bench's folder `state` as its state
/// folder (its caches): its time and peak memory.
fn index_in(ctx: &Ctx, archive: &Path, state: &str, flags: &[&str]) -> anyhow::Result<Usage> {
    let mut cmd = explorer(ctx);
    cmd.args(["index", "--quiet", "--archive"])
        .arg(archive)
        .args(flags)
        .env("XDG_STATE_HOME", ctx.dir(state)?)
        .stdout(Stdio::null());
    let usage = Proc::spawn("modoai-explorer index", &mut cmd)?.wait_usage()?;
    if !usage.status.success() {
        bail!("modoai-explorer index failed: {}", usage.status);
    }
    Ok(usage)
}

pub(crate) fn explorer(ctx: &Ctx) -> Command {
    let mut c = Command::new(ctx.bins.dir.join("modoai-explorer"));
    c.env("RUST_LOG", "error");
    c
}

/// `modoai-explorer serve` over `archive` with the API open, answering once the index is open;
/// `index_dir`: where a foreign collection's index is (`--index-dir`), its files read at once
/// (`--settle 0`: the bench has just written them).
pub(crate) async fn serve(
    ctx: &Ctx,
    archive: &Path,
    index_dir: Option<&Path>,
) -> anyhow::Result<(Proc, String)> {
    let port = free_port()?;
    let config = archive.with_extension("toml");
    std::fs::write(
        &config,
        "[access]\nanonymous-api = true\n[index]\nrefresh-secs = 0\n",
    )?;
    let mut cmd = explorer(ctx);
    cmd.args([
        "serve",
        "--listen",
        &format!("127.0.0.1:{port}"),
        "--archive",
    ])
    .arg(archive)
    .arg("--config")
    .arg(&config)
    .arg("--keys")
    .arg(archive.with_extension("keys.toml"))
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    if let Some(dir) = index_dir {
        cmd.arg("--index-dir").arg(dir).args(["--settle", "0"]);
    }
    let proc = Proc::spawn("modoai-explorer serve", &mut cmd)?;
    let base = format!("http://127.0.0.1:{port}");
    let http = crate::http::Http::new();
    let start = Instant::now();
    loop {
        if let Ok(r) = http.get(&format!("{base}/api/v1/search?size=1")).await {
            if r.status == 200 {
                return Ok((proc, base));
            }
        }
        if start.elapsed() > Duration::from_secs(1800) {
            bail!("modoai-explorer did not answer within 30 minutes");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The TimeMap of a URL with 1,000 captures (of 10,000 in the archive), ours and pywb's.
async fn timemap(ctx: &Ctx) -> anyhow::Result<Figure> {
    let hot = ctx.size(1000u64, 100);
    let archive = ctx.dir("explorer/timemap")?;
    let spec = Spec {
        captures: hot * 10,
        hot,
        first: 0,
        text: (200, 1000),
        seed: 2,
    };
    tokio::task::block_in_place(|| write(&archive, &spec))?;
    index(ctx, &archive)?;
    let (server, base) = serve(ctx, &archive, None).await?;
    let http = crate::http::Http::new();
    let url = format!("{base}/timemap/link/{HOT_URL}");
    let mut ours = Vec::new();
    for i in 0..=ctx.size(20, 5) {
        let r = http.get(&url).await?;
        if r.status != 200 {
            bail!("{url}: HTTP {}", r.status);
        }
        if i > 0 {
            ours.push(r.elapsed.as_secs_f64() * 1e3);
        }
    }
    drop(server);
    let out = Command::new(ctx.bins.python()?)
        .arg(ctx.bins.repo.join("tests/python/pywb_memento.py"))
        .arg(&archive)
        .arg(HOT_URL)
        .args(["--time", &ctx.size(21, 6).to_string()])
        .output()
        .context("run tests/python/pywb_memento.py")?;
    if !out.status.success() {
        bail!("pywb: {}", String::from_utf8_lossy(&out.stderr));
    }
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let listed = report["urls"][HOT_URL]["timemap"]
        .as_array()
        .map_or(0, Vec::len);
    if listed as u64 != hot {
        bail!("pywb's TimeMap lists {listed} mementos, not {hot}");
    }
    let theirs: Vec<f64> = report["timemap_ms"]
        .as_array()
        .into_iter()
        .flatten()
        .skip(1)
        .filter_map(|v| v.as_f64())
        .collect();
    let (ours, theirs) = (median(&ours), median(&theirs));
    Ok(Figure::new(
        "explorer",
        format!("TimeMap of a URL with {hot} captures"),
        ours,
        "ms",
    )
    .peer("pywb TimeMap, same archive", theirs)
    .note(format!(
        "pywb / modoai = {:.1}x (target >= 10x)",
        theirs / ours
    )))
}

/// Bytes of the files under `dir`.
fn dir_bytes(dir: &Path) -> anyhow::Result<u64> {
    let mut n = 0;
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let m = e.metadata()?;
        n += if m.is_dir() {
            dir_bytes(&e.path())?
        } else {
            m.len()
        };
    }
    Ok(n)
}
