//! Our harvester vs Sickle on the same endpoints: records/s over many oai_dc records and the CPU
//! time (user + system) each spends per record, oai_didl payload MB/s; payload ingest of
//! incompressible data vs `gzip -1` on the same bytes. Targets: records/s at least 2x Sickle's,
//! CPU per record at most half of Sickle's, ingest at least 5x `gzip -1`. Ours and Sickle run in
//! turn, run by run, so that a drift of the machine's speed weighs on both.

use std::fs::File;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::{Ctx, MB};
use crate::data;
use crate::procs::{serve, timed, Proc, Usage};
use crate::report::{median, Figure};

/// Seconds per run and CPU seconds per run (medians), and the bytes of our archive's ledger
/// and CDXJ index (the last run's; zero for Sickle, which writes nothing).
struct Timing {
    wall: f64,
    cpu: f64,
    ledger: u64,
    index: u64,
}

fn file_len(path: &std::path::Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// One run of our harvester into a fresh archive: its usage, and the bytes of its ledger and
/// CDXJ index.
fn ours_once(
    ctx: &Ctx,
    oai: &str,
    prefix: &str,
    tag: &str,
    run: usize,
) -> anyhow::Result<(Usage, u64, u64)> {
    let archive = ctx.work.join(format!("harvester/{tag}-{run}"));
    let mut cmd = ctx.bins.harvester();
    cmd.args(["harvest", oai, "--archive"])
        .arg(&archive)
        .args(["--metadata-prefix", prefix, "--quiet"])
        .stdout(Stdio::null());
    let u = Proc::spawn("modoai-harvester", &mut cmd)?.wait_usage()?;
    anyhow::ensure!(
        u.status.success(),
        "modoai-harvester {prefix} failed: {}",
        u.status
    );
    let sizes = (
        file_len(&archive.join("ledger.jsonl")),
        file_len(&archive.join("index.cdxj")),
    );
    let _ = std::fs::remove_dir_all(&archive);
    Ok((u, sizes.0, sizes.1))
}

/// One run of Sickle, which must harvest `expect` records.
fn sickle_once(ctx: &Ctx, oai: &str, prefix: &str, expect: u64) -> anyhow::Result<Usage> {
    let (u, records) = ctx.bins.sickle_usage(oai, prefix)?;
    anyhow::ensure!(
        records == expect,
        "Sickle harvested {records} records of {expect}"
    );
    Ok(u)
}

/// Our harvester and Sickle on the same endpoint, run in turn (ours, Sickle, ours, …) so that
/// a machine whose speed drifts during the section weighs on both alike; the first pair is the
/// warm-up.
fn both(
    ctx: &Ctx,
    oai: &str,
    prefix: &str,
    tag: &str,
    expect: u64,
) -> anyhow::Result<(Timing, Timing)> {
    let (mut ours, mut peer) = (Runs::default(), Runs::default());
    let (mut ledger, mut index) = (0, 0);
    for run in 0..=ctx.runs {
        let (u, l, i) = ours_once(ctx, oai, prefix, tag, run)?;
        (ledger, index) = (l, i);
        let s = sickle_once(ctx, oai, prefix, expect)?;
        if run > 0 {
            ours.add(&u);
            peer.add(&s);
        }
    }
    Ok((ours.timing(ledger, index), peer.timing(0, 0)))
}

/// Wall and CPU seconds of the measured runs.
#[derive(Default)]
struct Runs {
    wall: Vec<f64>,
    cpu: Vec<f64>,
}

impl Runs {
    fn add(&mut self, u: &Usage) {
        self.wall.push(secs(u.took));
        self.cpu.push(secs(u.cpu));
    }

    fn timing(&self, ledger: u64, index: u64) -> Timing {
        Timing {
            wall: median(&self.wall),
            cpu: median(&self.cpu),
            ledger,
            index,
        }
    }
}

pub(crate) async fn run(ctx: &Ctx) -> anyhow::Result<Vec<Figure>> {
    let mut out = Vec::new();
    let n = ctx.size(100_000, 1_000);
    let site = ctx.dir("harvester/dc")?;
    data::small_files(&site, n)?;
    let (server, base, _) = serve(&ctx.bins, &site, &[]).await?;
    let oai = format!("{base}modoai");
    let (t_ours, t_sickle) = both(ctx, &oai, "oai_dc", "dc", n as u64)?;
    drop(server);
    out.push(
        Figure::new(
            "harvester",
            format!("oai_dc, {n} records: records/s"),
            n as f64 / t_ours.wall,
            "rec/s",
        )
        .peer(
            "Sickle 0.7.0, same endpoint (parse only)",
            n as f64 / t_sickle.wall,
        )
        .note("ours also writes WARC + CDXJ; target ratio >= 2"),
    );
    out.push(
        Figure::new(
            "harvester",
            format!("oai_dc, {n} records: CPU (user+sys) per record"),
            t_ours.cpu / n as f64 * 1e6,
            "us",
        )
        .peer(
            "Sickle 0.7.0, same endpoint (parse only)",
            t_sickle.cpu / n as f64 * 1e6,
        )
        .note("harvester process only, server apart; target ratio <= 0.5"),
    );
    out.push(
        Figure::new(
            "harvester",
            format!("oai_dc, {n} records: ledger bytes per item"),
            t_ours.ledger as f64 / n as f64,
            "B",
        )
        .peer(
            "CDXJ index bytes per item, same archive",
            t_ours.index as f64 / n as f64,
        )
        .note("JSON lines without repeated fields; 1,105 B with every field"),
    );
    let size = ctx.size(10 << 20, 512 << 10);
    let site = ctx.dir("harvester/didl")?;
    let files = data::random_files(&site, 20, size)?;
    let payload = (20 * size) as f64;
    let (server, base, _) = serve(&ctx.bins, &site, &["--inline-max", "33554432"]).await?;
    let oai = format!("{base}modoai");
    let (t_didl, t_sickle) = both(ctx, &oai, "oai_didl", "didl", 20)?;
    let t_didl = t_didl.wall;
    drop(server);
    out.push(
        Figure::new(
            "harvester",
            format!("oai_didl, 20 x {} KiB random: payload MB/s", size >> 10),
            payload / t_didl / MB,
            "MB/s",
        )
        .peer(
            "Sickle 0.7.0, same endpoint (no decoding)",
            payload / t_sickle.wall / MB,
        ),
    );
    let mut gz = Vec::new();
    for run in 0..=ctx.runs {
        let mut cmd = Command::new("gzip");
        cmd.args(["-1", "-c"])
            .args(&files)
            .stdout(File::create("/dev/null")?);
        let took = timed("gzip -1", &mut cmd)?;
        if run > 0 {
            gz.push(took.as_secs_f64());
        }
    }
    out.push(
        Figure::new(
            "harvester",
            "ingest of incompressible payload (whole harvest)",
            payload / t_didl / MB,
            "MB/s",
        )
        .peer("gzip -1 on the same bytes", payload / median(&gz) / MB)
        .note("target ratio >= 5"),
    );
    Ok(out)
}
