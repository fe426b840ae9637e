//! Every result of a search: a walk of every hit by cursor (`after=`, 100 a page), the last
//! pages' latency against the first pages', and an export of about a tenth of the archive as CSV
//! (rows per second) and as WARC (against `cat` of the same bytes, and against nginx serving
//! them as a file to the same client), with the server's memory.

use std::path::Path;
use std::time::Instant;

use anyhow::{bail, ensure};

use super::{serve, TARGET_RSS_MIB as RSS_TARGET};
use crate::http::{encode, Http};
use crate::procs::Proc;
use crate::report::{median, Figure};
use crate::sections::Ctx;

/// The last page's latency at most, as a multiple of the first page's.
const TARGET_LAST_PAGE: f64 = 1.2;
/// CSV rows exported per second at least.
const TARGET_CSV_ROWS: f64 = 100_000.0;
/// A WARC export's throughput at least, as a fraction of `cat`'s of the same bytes.
const TARGET_WARC_OF_CAT: f64 = 0.5;
/// Pages timed at each end of the walk.
const ENDS: usize = 10;

pub(super) async fn run(ctx: &Ctx, archive: &Path) -> anyhow::Result<Vec<Figure>> {
    let (server, base) = serve(ctx, archive, None).await?;
    let http = Http::new();
    let (pages, hits, first, last) = walk(&http, &base).await?;
    let mut figures = vec![Figure::new(
        "explorer",
        format!("cursor walk of {hits} hits, 100 a page: last pages / first pages"),
        last / first,
        "x",
    )
    .peer("target", TARGET_LAST_PAGE)
    .note(format!(
        "{pages} pages; median of the first {ENDS} {first:.1} ms, of the last {ENDS} {last:.1} ms"
    ))];
    figures.push(
        Figure::new(
            "explorer",
            "server RSS after the cursor walk",
            server.peak_mib(),
            "MiB",
        )
        .peer("target", RSS_TARGET),
    );
    let (mime, expected) = tenth(&http, &base).await?;
    let url = format!("{base}/api/v1/export?format=csv&mime={}", encode(&mime));
    let started = Instant::now();
    let r = http.get(&url).await?;
    let took = started.elapsed().as_secs_f64();
    ensure!(r.status == 200, "{url}: HTTP {}", r.status);
    let tail = String::from_utf8_lossy(&r.tail);
    let done = format!("# complete: {expected} captures");
    ensure!(
        tail.trim_end().ends_with(&done),
        "{url}: the export ends {:?}",
        tail.lines().last()
    );
    figures.push(
        Figure::new(
            "explorer",
            format!("export of {expected} captures as CSV"),
            expected as f64 / took,
            "rows/s",
        )
        .peer("target", TARGET_CSV_ROWS)
        .note(format!(
            "{:.1} s, {:.1} MiB, mime={mime}; server peak RSS {:.0} MiB (target {RSS_TARGET} MiB)",
            took,
            r.bytes as f64 / (1 << 20) as f64,
            server.peak_mib()
        )),
    );
    let after_csv = server.peak_mib();
    figures.extend(warc(ctx, &http, &base, &mime, expected, after_csv, &server).await?);
    Ok(figures)
}

/// The same captures exported as WARC, saved to a file, against `cat` of that file (from the
/// page cache) to `/dev/null`: the export's bytes per second as a fraction of `cat`'s; and
/// against nginx sending that file (`sendfile`) to the same client, saved the same way: what
/// the fastest HTTP server does with the same bytes when it need not find them.
async fn warc(
    ctx: &Ctx,
    http: &Http,
    base: &str,
    mime: &str,
    expected: u64,
    peak_before: f64,
    server: &Proc,
) -> anyhow::Result<[Figure; 2]> {
    let dir = ctx.dir("export")?;
    let file = dir.join("export.warc.gz");
    let url = format!("{base}/api/v1/export?format=warc&mime={}", encode(mime));
    let r = http.save(&url, &file).await?;
    ensure!(r.status == 200, "{url}: HTTP {}", r.status);
    let took = r.elapsed.as_secs_f64();
    let started = Instant::now();
    let cat = std::process::Command::new("cat")
        .arg(&file)
        .stdout(std::process::Stdio::null())
        .status()?;
    let cat_took = started.elapsed().as_secs_f64();
    ensure!(cat.success(), "cat {}", file.display());
    let (nginx, nginx_base) = crate::procs::nginx(&dir, &ctx.dir("export-nginx")?).await?;
    let copy = dir.join("copy.warc.gz");
    let served = http
        .save(&format!("{nginx_base}export.warc.gz"), &copy)
        .await?;
    drop(nginx);
    ensure!(
        served.status == 200 && served.bytes == r.bytes,
        "nginx sent {} bytes with HTTP {}",
        served.bytes,
        served.status
    );
    let nginx_took = served.elapsed.as_secs_f64();
    std::fs::remove_file(&file)?;
    std::fs::remove_file(&copy)?;
    let mib = r.bytes as f64 / (1 << 20) as f64;
    let name = format!("export of {expected} captures as WARC");
    Ok([
        Figure::new("explorer", format!("{name}, against cat of its bytes"), cat_took / took, "x")
            .peer("target", TARGET_WARC_OF_CAT)
            .note(format!(
                "{mib:.1} MiB in {took:.1} s ({:.0} MiB/s, {:.0} captures/s), cat {:.0} MiB/s; \
                 server peak RSS {:.0} MiB (after CSV {peak_before:.0} MiB, target {RSS_TARGET} MiB)",
                mib / took,
                expected as f64 / took,
                mib / cat_took.max(1e-9),
                server.peak_mib()
            )),
        Figure::new("explorer", format!("{name}, MiB/s"), mib / took, "MiB/s")
            .peer("nginx sending the exported file", mib / nginx_took.max(1e-9))
            .note("the same client saves both to a file"),
    ])
}

/// Walks every capture, newest first, 100 a page by cursor: pages, hits, and the median
/// latency (ms) of the first and of the last [`ENDS`] pages.
async fn walk(http: &Http, base: &str) -> anyhow::Result<(usize, u64, f64, f64)> {
    let mut times = Vec::new();
    let (mut after, mut hits) = (String::new(), 0u64);
    loop {
        let url = format!("{base}/api/v1/search?size=100&facets=&after={after}");
        let started = Instant::now();
        let page: serde_json::Value = serde_json::from_str(&http.text(&url).await?)?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
        if page["partial"] == true {
            bail!("{url}: a partial page (raise [search] budget-ms)");
        }
        hits += page["count"].as_u64().unwrap_or_default();
        match page["next"].as_str() {
            Some(next) => after = next.to_owned(),
            None => break,
        }
    }
    let ends = ENDS.min(times.len());
    let first = median(&times[..ends]);
    let last = median(&times[times.len() - ends..]);
    Ok((times.len(), hits, first, last))
}

/// The MIME type whose captures are nearest a tenth of the archive, and their count.
async fn tenth(http: &Http, base: &str) -> anyhow::Result<(String, u64)> {
    let page: serde_json::Value = serde_json::from_str(
        &http
            .text(&format!("{base}/api/v1/search?size=1&facets=mime"))
            .await?,
    )?;
    let goal = page["total"].as_u64().unwrap_or_default() / 10;
    let values = page["facets"]["mime"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let best = values
        .iter()
        .filter_map(|v| Some((v["value"].as_str()?.to_owned(), v["count"].as_u64()?)))
        .min_by_key(|(_, n)| n.abs_diff(goal));
    best.ok_or_else(|| anyhow::anyhow!("no MIME facet in {page}"))
}
