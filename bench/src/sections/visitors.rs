//! Impact on visitors: plain GETs of site files, idle vs while our harvester pulls oai_crate pages
//! with cold plugins, the harvester as if on another machine (under SCHED_IDLE: it gets the CPU
//! time the site leaves) and on the same cores; the same GETs from nginx as the reference point.

use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rand::seq::IndexedRandom as _;

use super::Ctx;
use crate::data;
use crate::http::Http;
use crate::procs::{nginx, serve, Proc};
use crate::report::{percentile, Figure};

/// Latencies in ms of GETs of random files: `count` of them, and more until `stop` is set. They
/// are timed by a client on a thread of its own with a single-threaded runtime, as a visitor's
/// browser is a process of its own: on the bench's shared runtime each GET's wake-ups hop between
/// its two workers, and under load those hops, not the server, made most of the p99 (1.5 ms where
/// curl, one thread, measured 0.3 ms against the same server in the same harvest).
fn gets(
    base: &str,
    files: &[String],
    count: usize,
    stop: Arc<AtomicBool>,
) -> tokio::task::JoinHandle<anyhow::Result<Vec<f64>>> {
    let (base, files) = (base.to_owned(), files.to_vec());
    tokio::task::spawn_blocking(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        rt.block_on(async {
            let http = Http::new();
            let mut v = Vec::new();
            let mut rng = rand::rng();
            // Not timed: the GET that opens the connection.
            http.get(&format!("{base}{}", files[0])).await?;
            while v.len() < count || !stop.load(Ordering::Acquire) {
                let f = files.choose(&mut rng).expect("files");
                let r = http.get(&format!("{base}{f}")).await?;
                anyhow::ensure!(r.status == 200, "GET {f}: HTTP {}", r.status);
                v.push(r.elapsed.as_secs_f64() * 1e3);
                if v.len() > 200_000 {
                    break;
                }
            }
            Ok(v)
        })
    })
}

/// A stop flag already set: exactly `count` GETs.
fn counted() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(true))
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

/// The GETs of one server and of nginx while both are idle, in turns.
#[derive(Default)]
struct Idle {
    modoai: Vec<f64>,
    nginx: Vec<f64>,
}

impl Idle {
    /// `count` GETs of each, in blocks taken in turn (modoai, nginx, modoai, …), so that a
    /// drift of the machine's speed weighs on both.
    async fn take(
        &mut self,
        base: &str,
        nginx: &str,
        files: &[String],
        count: usize,
    ) -> anyhow::Result<()> {
        const BLOCKS: usize = 5;
        for _ in 0..BLOCKS {
            self.modoai
                .extend(gets(base, files, count / BLOCKS, counted()).await??);
            self.nginx
                .extend(gets(nginx, files, count / BLOCKS, counted()).await??);
        }
        Ok(())
    }
}

/// A server with a cold plugin cache: visitors' GETs idle (half before the harvest, half after,
/// each in turns with nginx's), and during a whole oai_crate harvest (the JPEGs cold, tool
/// processes running), until the harvest is done.
async fn harvest_while_visiting(
    ctx: &Ctx,
    site: &std::path::Path,
    files: &[String],
    nginx: &str,
    harvester: Harvester,
) -> anyhow::Result<(Idle, Vec<f64>)> {
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
    gets(&base, files, 100, counted()).await??; // warm-up
    gets(nginx, files, 100, counted()).await??;
    let mut idle = Idle::default();
    let half = ctx.size(1000, 100);
    idle.take(&base, nginx, files, half).await?;
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
    let stop = Arc::new(AtomicBool::new(false));
    let loaded = gets(&base, files, ctx.size(200, 20), stop.clone());
    let status = loop {
        if let Some(status) = harvest.child.try_wait()? {
            break status;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    stop.store(true, Ordering::Release);
    let loaded = loaded.await??;
    anyhow::ensure!(status.success(), "the oai_crate harvest failed: {status}");
    idle.take(&base, nginx, files, half).await?;
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
    let (ngx, nbase) = nginx(&site, &ctx.dir("visitors/nginx")?).await?;
    let (near_idle, near) =
        harvest_while_visiting(ctx, &site, &files, &nbase, Harvester::SameCores).await?;
    let (remote_idle, remote) =
        harvest_while_visiting(ctx, &site, &files, &nbase, Harvester::Remote).await?;
    drop(ngx);
    let mut out = Vec::new();
    for (idle, loaded, how) in [
        (&remote_idle, &remote, "harvester as if remote"),
        (&near_idle, &near, "harvester on the same cores"),
    ] {
        let n = format!(
            "{} GETs idle (before and after), {} during the harvest",
            idle.modoai.len(),
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
                .peer("modoai idle", percentile(&idle.modoai, p))
                .note(n.clone()),
            );
        }
    }
    let idle = [near_idle.modoai.as_slice(), &remote_idle.modoai].concat();
    let nginx_idle = [near_idle.nginx.as_slice(), &remote_idle.nginx].concat();
    for p in [50.0, 99.0] {
        out.push(
            Figure::new(
                "visitors",
                format!("plain GET p{p}, idle"),
                percentile(&idle, p),
                "ms",
            )
            .peer("nginx idle, same files", percentile(&nginx_idle, p))
            .note("in turns, blocks of a fifth of the samples"),
        );
    }
    Ok(out)
}
