//! Plugin cost: GetRecord oai_crate (warm) vs oai_didl; a cold oai_crate page of JPEGs vs warm.
//! The server runs in this process (the `modoai` library, the binary's code) so that the tool
//! processes it starts can be counted (`Plugins::processes_started`).

use super::Ctx;
use crate::data;
use crate::http::{encode, Http};
use crate::report::{median, Figure};

pub(crate) async fn run(ctx: &Ctx) -> anyhow::Result<Vec<Figure>> {
    let n = ctx.size(100, 10);
    let site = ctx.dir("plugins/site")?;
    data::jpegs(&ctx.bins.repo, &site, n, "p")?;
    let toml = data::plugins_toml(
        &ctx.bins.repo,
        &ctx.dir("plugins/conf")?,
        &ctx.work.join("plugins/cache"),
    )?;
    let plugins = modoai::Plugins::load(&toml).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}/", listener.local_addr()?);
    let config = modoai::Config::new(&site, &base)?
        .plugins(plugins.clone())
        .page_size(n);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(modoai::serve(listener, config, async move {
        let _ = stopped.await;
    }));
    let http = Http::new();
    let oai = format!("{base}modoai");
    let page = format!("{oai}?verb=ListRecords&metadataPrefix=oai_crate");
    // OAI requests are answered 503 until the index is built.
    let probe = format!("{oai}?verb=ListIdentifiers&metadataPrefix=oai_dc");
    while http.get(&probe).await?.status != 200 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let before = plugins.processes_started();
    let cold = http.get(&page).await?;
    anyhow::ensure!(cold.status == 200, "cold page: HTTP {}", cold.status);
    let cold_procs = plugins.processes_started() - before;
    let mut warm = Vec::new();
    let before = plugins.processes_started();
    for _ in 0..ctx.runs.max(1) {
        warm.push(http.get(&page).await?.elapsed.as_secs_f64());
    }
    let warm_procs = (plugins.processes_started() - before) / ctx.runs.max(1);
    let didl_page = format!("{oai}?verb=ListRecords&metadataPrefix=oai_didl");
    let mut didl = Vec::new();
    for _ in 0..=ctx.runs.max(1) {
        didl.push(http.get(&didl_page).await?.elapsed.as_secs_f64());
    }
    didl.remove(0);
    let id = encode(&format!("{base}img/p0000.jpg"));
    let latency = |prefix: &'static str| {
        let (http, url) = (
            http.clone(),
            format!("{oai}?verb=GetRecord&metadataPrefix={prefix}&identifier={id}"),
        );
        let samples = ctx.size(30, 5);
        async move {
            let mut v = Vec::new();
            for i in 0..=samples {
                let r = http.get(&url).await?;
                anyhow::ensure!(
                    r.status == 200 && !r.tail.windows(6).any(|w| w == b"error "),
                    "{url}"
                );
                if i > 0 {
                    v.push(r.elapsed.as_secs_f64() * 1e3);
                }
            }
            Ok::<f64, anyhow::Error>(median(&v))
        }
    };
    let crate_ms = latency("oai_crate").await?;
    let didl_ms = latency("oai_didl").await?;
    let _ = stop.send(());
    server.await??;
    Ok(vec![
        Figure::new(
            "plugins",
            "GetRecord oai_crate, warm cache, median latency",
            crate_ms,
            "ms",
        )
        .peer("GetRecord oai_didl, same file", didl_ms),
        Figure::new(
            "plugins",
            format!("ListRecords oai_crate page of {n} JPEGs, cold plugins"),
            cold.elapsed.as_secs_f64(),
            "s",
        )
        .peer("same page, warm cache", median(&warm)),
        Figure::new(
            "plugins",
            format!("ListRecords oai_crate page of {n} JPEGs, warm cache"),
            median(&warm),
            "s",
        )
        .peer("same page in oai_didl", median(&didl))
        .note("cache lookups and embedding over the DIDL's cost"),
        Figure::new(
            "plugins",
            "tool processes started for that page, cold",
            cold_procs as f64,
            "processes",
        )
        .peer("same page, warm cache", warm_procs as f64)
        .note("ratio undefined when warm starts none"),
    ])
}
