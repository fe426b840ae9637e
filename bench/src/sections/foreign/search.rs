//! Search of a million foreign captures: a crawl WARC of short pages (`crawl::Shape::records`),
//! indexed once, served, and searched with three facets by one client.

use std::path::Path;

use super::crawl::{self, Shape};
use super::index_once;
use crate::http::Http;
use crate::report::Figure;
use crate::sections::explorer::search::{latencies, queries, words};
use crate::sections::explorer::{serve, TARGET_P99_MS};
use crate::sections::Ctx;

/// The facets every query asks for: the crawl's hosts, its MIME types and its HTTP status classes.
const FACETS: &str = "host,mime,status";

pub(super) async fn run(ctx: &Ctx, dir: &Path) -> anyhow::Result<Figure> {
    let records = ctx.size(1_000_000, 5_000);
    let warc = dir.join("search.warc.gz");
    let _ = std::fs::remove_file(&warc);
    let written = tokio::task::block_in_place(|| {
        crawl::write(&warc, &Shape::records(records), &ctx.bins.repo)
    })?;
    let index = dir.join("search-index");
    let _ = std::fs::remove_dir_all(&index);
    let usage = tokio::task::block_in_place(|| index_once(ctx, &warc, &index))?;
    eprintln!(
        "bench: foreign: {} records ({} revisits, {:.0} MB) indexed in {:.1} s",
        written.records,
        written.revisits,
        written.bytes as f64 / super::MB,
        usage.took.as_secs_f64()
    );
    let (server, base) = serve(ctx, &warc, Some(&index)).await?;
    let http = Http::new();
    let words = words(&http, &base).await?;
    let queries = queries(&base, &words, ctx.size(400, 40), FACETS);
    // Warm-up: the first query opens the index's files; it must find captures.
    let body = http.text(&queries[0]).await?;
    let page: serde_json::Value = serde_json::from_str(&body)?;
    anyhow::ensure!(
        page["total"].as_u64().unwrap_or(0) > 0,
        "{}: no capture found ({})",
        queries[0],
        body.chars().take(200).collect::<String>()
    );
    let (p50, p99) = latencies(&http, &queries, 1).await?;
    drop(server);
    let _ = std::fs::remove_dir_all(&index);
    // Every record but the warcinfo is a capture.
    let captures = written.records - 1;
    Ok(Figure::new(
        "foreign",
        format!("search p99 at {captures} foreign captures, 3 facets, 1 client"),
        p99,
        "ms",
    )
    .peer("target", TARGET_P99_MS)
    .note(format!(
        "p50 {p50:.1} ms, {} queries, facets {FACETS}",
        queries.len()
    )))
}
