//! Scale: a tree of many small files (100 per folder): the first index's time and the server's
//! memory; a restart with the stored index; ListIdentifiers page latency at the start of the list
//! vs at 99 % of it; a folder set's page and ListSets over every folder (`sets`); the ResourceSync
//! lists of the same index (`doors`).

use std::process::Command;
use std::time::Instant;

use super::Ctx;
use crate::data;
use crate::http::{encode, Http};
use crate::procs::{nginx, serve_with_state, timed};
use crate::report::{median, Figure};

pub(crate) async fn run(ctx: &Ctx) -> anyhow::Result<Vec<Figure>> {
    let n = ctx.size(1_000_000, 5_000);
    let site = ctx.dir("scale/site")?;
    let made = Instant::now();
    data::small_files(&site, n)?;
    eprintln!(
        "bench: scale: {n} files made in {:.1} s",
        made.elapsed().as_secs_f64()
    );
    // The tree is written out before anything is timed: the kernel's writeback of a million
    // fresh inodes would otherwise run during whichever walk comes second (about 4 s of it).
    anyhow::ensure!(Command::new("sync").status()?.success(), "sync failed");
    // The peer of the index build: walking the same tree with find(1), a lower bound for any index.
    let walk = timed("find", Command::new("find").arg(&site).args(["-type", "f"]))?;
    let state = ctx.dir("scale/state")?;
    let (server, _, ready) = serve_with_state(&ctx.bins, &site, &state, &[]).await?;
    let rss_first = server.rss_mib();
    drop(server);
    // The same server started again: the stored index answers at once (a reconciling scan of
    // the disk runs in the background meanwhile).
    let (server, base, restart) = serve_with_state(&ctx.bins, &site, &state, &[]).await?;
    // Memory once the reconciling scan is done (it walks the whole tree once).
    tokio::time::sleep(std::time::Duration::from_secs(ctx.size(10, 1))).await;
    let rss_ready = server.rss_mib();
    let http = Http::new();
    let oai = format!("{base}modoai");
    let first = format!("{oai}?verb=ListIdentifiers&metadataPrefix=oai_dc");
    let mut urls = vec![first.clone()];
    let mut url = first.clone();
    let listing = Instant::now();
    loop {
        let page = http.get(&url).await?;
        anyhow::ensure!(page.status == 200, "{url}: HTTP {}", page.status);
        match page.token() {
            Some(t) => {
                url = format!("{oai}?verb=ListIdentifiers&resumptionToken={}", encode(&t));
                urls.push(url.clone());
            }
            None => break,
        }
    }
    let list_secs = listing.elapsed().as_secs_f64();
    let at99 = urls[(urls.len() - 1) * 99 / 100].clone();
    let time = |u: String| {
        let http = http.clone();
        let samples = ctx.size(20, 5);
        async move {
            let mut v = Vec::new();
            for _ in 0..samples {
                v.push(http.get(&u).await?.elapsed.as_secs_f64() * 1e3);
            }
            Ok::<f64, anyhow::Error>(median(&v))
        }
    };
    let start_ms = time(first).await?;
    let end_ms = time(at99).await?;
    let folders = n.div_ceil(data::FILES_PER_FOLDER);
    let sets = super::sets::figures(&http, &oai, folders, start_ms, &urls, ctx.size(20, 5)).await?;
    let doors =
        super::doors::rates(&http, &base, &site, n, ctx.size(50_000, 250), list_secs).await?;
    let rss_peak = server.peak_mib();
    drop(server);
    let (ngx, _) = nginx(&site, &ctx.dir("scale/nginx")?).await?;
    let nginx_rss = ngx.rss_mib();
    drop(ngx);
    let pages = urls.len();
    let mut figures = vec![
        Figure::new(
            "scale",
            format!("first index of {n} files: start to first list answer"),
            ready.as_secs_f64(),
            "s",
        )
        .peer("find -type f over the tree", walk.as_secs_f64()),
        Figure::new(
            "scale",
            format!("restart with {n} files indexed: start to first list answer"),
            restart.as_secs_f64(),
            "s",
        )
        .peer("find -type f over the tree", walk.as_secs_f64())
        .note("the stored index answers; the disk is reconciled in the background"),
        Figure::new(
            "scale",
            format!("server RSS with the index of {n} files"),
            rss_ready,
            "MiB",
        )
        .peer("nginx master RSS, same root", nginx_rss)
        .note(format!(
            "after the restart and its reconciling scan; after the first index {rss_first:.0} MiB; peak after paging {rss_peak:.0} MiB"
        )),
        Figure::new(
            "scale",
            format!("ListIdentifiers page latency at 99 % ({pages} pages)"),
            end_ms,
            "ms",
        )
        .peer("first page", start_ms),
    ];
    figures.extend(sets);
    figures.extend(doors);
    Ok(figures)
}
