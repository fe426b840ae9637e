//! Impact on visitors: plain GETs of site files, idle vs while our harvester pulls oai_crate pages
//! with cold plugins, the harvester as if on another machine (under SCHED_IDLE: it gets the CPU
//! time the site leaves) and on the same cores; the same GETs from nginx as the reference point.

use std::process::Stdio;

use rand::seq::IndexedRandom as _;

use super::Ctx;
use crate::data;
use crate::http::Http;
use crate::procs::{nginx, serve, Proc};
use crate::report::{percentile, Figure};

/// Latencies in ms of `count` GETs of random files (or until `until` says stop, at least `count`).
async fn gets(
    http: &Http,
    base: &str,
    files: &[String],
    count: usize,
    mut until: impl FnMut() -> bool,
) -> anyhow::Result<Vec<f64>> {
    let mut v = Vec::new();
    let mut rng = rand::rng();
    while v.len() < count || !until() {
        let f = files.choose(&mut rng).expect("files");
        let r = http.get(&format!("{base}{f}")).await?;
        anyhow::ensure!(r.status == 200, "GET {f}: HTTP {}", r.status);
        v.push(r.elapsed.as_secs_f64() * 1e3);
        if v.len() > 200_000 {
            break;
        }
    }
    Ok(v)
}

/// Where the harvester's CPU time comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Harvester {
    /// A normal process on this machine's cores, competing with the server (a worst case on a
    /// 2-core machine).
    SameCores,
    /// Run under SCHED_IDLE, so its CPU time is what the site leaves: in production the harvester
    /// runs on another machine; here it still pulls every record through the network stack.
    Remote,
}

/// A server with a cold plugin cache: visitors' GETs idle, then during a whole oai_crate
/// harvest (the JPEGs cold, tool processes running), until the harvest is done.
async fn harvest_while_visiting(
    ctx: &Ctx,
    site: &std::path::Path,
    files: &[String],
    http: &Http,
    harvester: Harvester,
) -> anyhow::Result<(Vec<f64>, Vec<f64>)> {
    let name = if harvester == Harvester::Remote {
        "remote"
    } else {
        "near"
    };
    let toml = data::plugins_toml(
        &ctx.bins.repo,
        &ctx.dir(&format!("visitors/conf-{name}"))?,
        &ctx.work.join(format!("visitors/cache-{name}")),
    )?;
    let toml_arg = toml.to_string_lossy().into_owned();
    let (server, base, _) = serve(&ctx.bins, site, &["--plugins", &toml_arg]).await?;
    gets(http, &base, files, 100, || true).await?; // warm-up
    let idle = gets(http, &base, files, ctx.size(2000, 200), || true).await?;
    let archive = ctx.work.join(format!("visitors/archive-{name}"));
    let mut cmd = ctx.bins.harvester();
    if harvester == Harvester::Remote {
        let program = cmd.get_program().to_owned();
        cmd = std::process::Command::new("chrt");
        cmd.args(["--idle", "0"])
            .arg(program)
            .env("RUST_LOG", "error");
    }
    cmd.args(["harvest", &format!("{base}modoai"), "--archive"])
        .arg(&archive)
        .args(["--metadata-prefix", "oai_crate", "--quiet"])
        .stdout(Stdio::null());
    let mut harvest = Proc::spawn("modoai-harvester", &mut cmd)?;
    let mut done = false;
    let loaded = gets(http, &base, files, ctx.size(200, 20), || {
        done = done || matches!(harvest.child.try_wait(), Ok(Some(_)));
        done
    })
    .await?;
    let status = harvest.child.wait()?;
    anyhow::ensure!(status.success(), "the oai_crate harvest failed: {status}");
    drop(server);
    Ok((idle, loaded))
}

pub(crate) async fn run(ctx: &Ctx) -> anyhow::Result<Vec<Figure>> {
    let site = ctx.dir("visitors/site")?;
    let files = data::small_files(&site.join("pages"), 2000)?
        .into_iter()
        .map(|p| format!("pages/{p}"))
        .collect::<Vec<_>>();
    data::jpegs(&ctx.bins.repo, &site, ctx.size(100, 10), "v")?;
    let http = Http::new();
    let samples = ctx.size(2000, 200);
    let (idle, near) =
        harvest_while_visiting(ctx, &site, &files, &http, Harvester::SameCores).await?;
    let (_, remote) = harvest_while_visiting(ctx, &site, &files, &http, Harvester::Remote).await?;
    let (ngx, nbase) = nginx(&site, &ctx.dir("visitors/nginx")?).await?;
    gets(&http, &nbase, &files, 100, || true).await?;
    let nginx_idle = gets(&http, &nbase, &files, samples, || true).await?;
    drop(ngx);
    let mut out = Vec::new();
    for (loaded, how) in [
        (&remote, "harvester as if remote"),
        (&near, "harvester on the same cores"),
    ] {
        let n = format!(
            "{} GETs idle, {} during the harvest",
            idle.len(),
            loaded.len()
        );
        for p in [50.0, 99.0] {
            out.push(
                Figure::new(
                    "visitors",
                    format!("plain GET p{p}, during a cold oai_crate harvest, {how}"),
                    percentile(loaded, p),
                    "ms",
                )
                .peer("modoai idle", percentile(&idle, p))
                .note(n.clone()),
            );
        }
    }
    for p in [50.0, 99.0] {
        out.push(
            Figure::new(
                "visitors",
                format!("plain GET p{p}, idle"),
                percentile(&idle, p),
                "ms",
            )
            .peer("nginx idle, same files", percentile(&nginx_idle, p)),
        );
    }
    Ok(out)
}
