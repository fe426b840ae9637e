//! oai_didl ListRecords over 20 large files vs nginx serving the same files raw.

use std::time::Instant;

use super::{Ctx, MB};
use crate::data;
use crate::http::Http;
use crate::procs::{nginx, serve};
use crate::report::{median, Figure};

pub(crate) async fn run(ctx: &Ctx) -> anyhow::Result<Vec<Figure>> {
    let size = ctx.size(10 << 20, 256 << 10);
    let site = ctx.dir("throughput/site")?;
    let files = data::random_files(&site, 20, size)?;
    let payload = (20 * size) as f64;
    let http = Http::new();
    let (server, base, _) = serve(&ctx.bins, &site, &["--inline-max", "33554432"]).await?;
    let oai = format!("{base}modoai");
    let mut ours = Vec::new();
    for run in 0..=ctx.runs {
        let start = Instant::now();
        http.list(&oai, "ListRecords", "oai_didl").await?;
        if run > 0 {
            ours.push(payload / start.elapsed().as_secs_f64() / MB);
        }
    }
    drop(server);
    let (ngx, nbase) = nginx(&site, &ctx.dir("throughput/nginx")?).await?;
    let mut peer = Vec::new();
    for run in 0..=ctx.runs {
        let start = Instant::now();
        for f in &files {
            let name = f.file_name().unwrap_or_default().to_string_lossy();
            let r = http.get(&format!("{nbase}{name}")).await?;
            anyhow::ensure!(
                r.bytes == size as u64,
                "nginx sent {} bytes of {name}",
                r.bytes
            );
        }
        if run > 0 {
            peer.push(payload / start.elapsed().as_secs_f64() / MB);
        }
    }
    drop(ngx);
    Ok(vec![Figure::new(
        "throughput",
        format!(
            "oai_didl ListRecords, 20 x {} KiB, payload rate",
            size >> 10
        ),
        median(&ours),
        "MB/s",
    )
    .peer("nginx, same files raw", median(&peer))
    .note("Base64 + XML vs sendfile")])
}
