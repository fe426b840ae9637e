//! Search latency with three facets at 1 and 16 concurrent clients, and the server's memory.

use std::path::Path;

use super::{serve, TARGET_P99_MS as P99_TARGET, TARGET_RSS_MIB as RSS_TARGET};
use crate::http::{encode, Http};
use crate::report::{percentile, Figure};
use crate::sections::Ctx;

pub(super) async fn run(ctx: &Ctx, archive: &Path) -> anyhow::Result<Vec<Figure>> {
    let (server, base) = serve(ctx, archive, None).await?;
    let http = Http::new();
    let words = words(&http, &base).await?;
    let queries = queries(&base, &words, ctx.size(400, 40), "year,host,mime");
    // Warm-up: the first query loads the word segmenter's dictionary.
    http.get(&queries[0]).await?;
    let mut figures = Vec::new();
    for clients in [1usize, 16] {
        let (p50, p99) = latencies(&http, &queries, clients).await?;
        figures.push(
            Figure::new(
                "explorer",
                format!("search p99, 3 facets, {clients} client(s)"),
                p99,
                "ms",
            )
            .peer("target", P99_TARGET)
            .note(format!("p50 {p50:.1} ms, {} queries", queries.len())),
        );
    }
    figures.push(
        Figure::new(
            "explorer",
            "server RSS while serving searches",
            server.peak_mib(),
            "MiB",
        )
        .peer("target", RSS_TARGET)
        .note(format!(
            "peak; now {:.0} MiB, of which {:.0} MiB anonymous (the rest: index files mapped)",
            server.rss_mib(),
            crate::procs::status_kib(server.pid(), "RssAnon:").unwrap_or(0) as f64 / 1024.0
        )),
    );
    Ok(figures)
}

/// `n` searches of one or two of `words` (every third has two), each asking for `facets`.
pub(crate) fn queries(base: &str, words: &[String], n: usize, facets: &str) -> Vec<String> {
    (0..n)
        .map(|i| {
            let q = if i % 3 == 0 {
                let second = &words[(i * 7 + 1) % words.len()];
                format!("{} {second}", words[i % words.len()])
            } else {
                words[(i * 13) % words.len()].clone()
            };
            format!("{base}/api/v1/search?q={}&facets={facets}", encode(&q))
        })
        .collect()
}

/// Words of the archive (its word cloud), for the queries.
pub(crate) async fn words(http: &Http, base: &str) -> anyhow::Result<Vec<String>> {
    let body = http.text(&format!("{base}/api/v1/terms?size=100")).await?;
    let v: serde_json::Value = serde_json::from_str(&body)?;
    let words: Vec<String> = v["terms"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["term"].as_str().map(str::to_owned))
        .collect();
    anyhow::ensure!(!words.is_empty(), "no words in the archive's word cloud");
    Ok(words)
}

/// p50 and p99 in ms of `queries` sent by `clients` clients at once (each its share, in turn).
pub(crate) async fn latencies(
    http: &Http,
    queries: &[String],
    clients: usize,
) -> anyhow::Result<(f64, f64)> {
    let mut tasks = Vec::new();
    for c in 0..clients {
        let mine: Vec<String> = queries.iter().skip(c).step_by(clients).cloned().collect();
        let http = http.clone();
        tasks.push(tokio::spawn(async move {
            let mut v = Vec::new();
            for q in mine {
                let r = http.get(&q).await?;
                anyhow::ensure!(r.status == 200, "{q}: HTTP {}", r.status);
                v.push(r.elapsed.as_secs_f64() * 1e3);
            }
            Ok::<Vec<f64>, anyhow::Error>(v)
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await??);
    }
    Ok((percentile(&all, 50.0), percentile(&all, 99.0)))
}
