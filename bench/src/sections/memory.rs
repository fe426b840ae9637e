//! Peak memory for one large file: the server disseminating it in oai_didl (vs nginx serving it),
//! and the harvester archiving it (vs Sickle harvesting it).

use std::process::Stdio;

use super::Ctx;
use crate::data;
use crate::http::{encode, Http};
use crate::procs::{nginx, serve, status_kib, Proc};
use crate::report::Figure;

/// The largest VmHWM among nginx's processes (master and workers), in MiB.
fn nginx_peak(master: &Proc) -> f64 {
    let pid = master.pid();
    let children =
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    std::iter::once(pid)
        .chain(children.split_whitespace().filter_map(|c| c.parse().ok()))
        .filter_map(|p| status_kib(p, "VmHWM:"))
        .max()
        .unwrap_or(0) as f64
        / 1024.0
}

pub(crate) async fn run(ctx: &Ctx) -> anyhow::Result<Vec<Figure>> {
    let size: u64 = ctx.size(1 << 30, 64 << 20);
    let site = ctx.dir("memory/site")?;
    data::sparse(&site.join("big.iso"), size)?;
    let label = if size >= 1 << 30 {
        format!("{} GiB", size >> 30)
    } else {
        format!("{} MiB", size >> 20)
    };
    let http = Http::new();
    let (server, base, _) = serve(
        &ctx.bins,
        &site,
        &[
            "--inline-max",
            &(2 * size).to_string(),
            "--page-bytes",
            &(4 * size).to_string(),
        ],
    )
    .await?;
    let oai = format!("{base}modoai");
    let id = encode(&format!("{base}big.iso"));
    let r = http
        .get(&format!(
            "{oai}?verb=GetRecord&metadataPrefix=oai_didl&identifier={id}"
        ))
        .await?;
    anyhow::ensure!(
        r.status == 200 && r.bytes > size,
        "GetRecord of big.iso: HTTP {}, {} bytes",
        r.status,
        r.bytes
    );
    let server_peak = server.peak_mib();
    let mut cmd = ctx.bins.harvester();
    let archive = ctx.work.join("memory/archive");
    cmd.args(["harvest", &oai, "--archive"])
        .arg(&archive)
        .args(["--metadata-prefix", "oai_didl", "--quiet"])
        .stdout(Stdio::null());
    let (status, _, harvester_peak) = Proc::spawn("modoai-harvester", &mut cmd)?.wait_peak()?;
    anyhow::ensure!(status.success(), "the harvest of big.iso failed: {status}");
    let _ = std::fs::remove_dir_all(&archive);
    let (_, sickle_peak, records) = ctx.bins.sickle(&oai, "oai_didl")?;
    anyhow::ensure!(records == 1, "Sickle harvested {records} records");
    drop(server);
    let (ngx, nbase) = nginx(&site, &ctx.dir("memory/nginx")?).await?;
    let r = http.get(&format!("{nbase}big.iso")).await?;
    anyhow::ensure!(r.bytes == size, "nginx sent {} bytes", r.bytes);
    let nginx_peak = nginx_peak(&ngx);
    drop(ngx);
    Ok(vec![
        Figure::new(
            "memory",
            format!("server peak RSS, GetRecord oai_didl of a {label} file"),
            server_peak,
            "MiB",
        )
        .peer("nginx serving it raw (largest process)", nginx_peak),
        Figure::new(
            "memory",
            format!("harvester peak RSS, archiving the {label} file"),
            harvester_peak,
            "MiB",
        )
        .peer("Sickle 0.7.0 harvesting it", sickle_peak),
    ])
}
