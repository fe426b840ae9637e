//! Our harvester vs Sickle on the same endpoints: records/s over many oai_dc records, oai_didl
//! payload MB/s; payload ingest of incompressible data vs `gzip -1` on the same bytes.

use std::fs::File;
use std::process::{Command, Stdio};

use super::{Ctx, MB};
use crate::data;
use crate::procs::{serve, timed, Proc};
use crate::report::{median, Figure};

/// Our harvester, into a fresh archive each run: seconds per run (median) and peak MiB.
fn ours(ctx: &Ctx, oai: &str, prefix: &str, tag: &str) -> anyhow::Result<(f64, f64)> {
    let (mut times, mut peak) = (Vec::new(), 0f64);
    for run in 0..=ctx.runs {
        let archive = ctx.work.join(format!("harvester/{tag}-{run}"));
        let mut cmd = ctx.bins.harvester();
        cmd.args(["harvest", oai, "--archive"])
            .arg(&archive)
            .args(["--metadata-prefix", prefix, "--quiet"])
            .stdout(Stdio::null());
        let (status, took, p) = Proc::spawn("modoai-harvester", &mut cmd)?.wait_peak()?;
        anyhow::ensure!(
            status.success(),
            "modoai-harvester {prefix} failed: {status}"
        );
        let _ = std::fs::remove_dir_all(&archive);
        if run > 0 {
            times.push(took.as_secs_f64());
            peak = peak.max(p);
        }
    }
    Ok((median(&times), peak))
}

fn sickle(ctx: &Ctx, oai: &str, prefix: &str, expect: u64) -> anyhow::Result<f64> {
    let mut times = Vec::new();
    for run in 0..=ctx.runs {
        let (took, _, records) = ctx.bins.sickle(oai, prefix)?;
        anyhow::ensure!(
            records == expect,
            "Sickle harvested {records} records of {expect}"
        );
        if run > 0 {
            times.push(took.as_secs_f64());
        }
    }
    Ok(median(&times))
}

pub(crate) async fn run(ctx: &Ctx) -> anyhow::Result<Vec<Figure>> {
    let mut out = Vec::new();
    let n = ctx.size(100_000, 1_000);
    let site = ctx.dir("harvester/dc")?;
    data::small_files(&site, n)?;
    let (server, base, _) = serve(&ctx.bins, &site, &[]).await?;
    let oai = format!("{base}modoai");
    let (t_ours, _) = ours(ctx, &oai, "oai_dc", "dc")?;
    let t_sickle = sickle(ctx, &oai, "oai_dc", n as u64)?;
    drop(server);
    out.push(
        Figure::new(
            "harvester",
            format!("oai_dc, {n} records: records/s"),
            n as f64 / t_ours,
            "rec/s",
        )
        .peer(
            "Sickle 0.7.0, same endpoint (parse only)",
            n as f64 / t_sickle,
        )
        .note("ours also writes WARC + CDXJ"),
    );
    let size = ctx.size(10 << 20, 512 << 10);
    let site = ctx.dir("harvester/didl")?;
    let files = data::random_files(&site, 20, size)?;
    let payload = (20 * size) as f64;
    let (server, base, _) = serve(&ctx.bins, &site, &["--inline-max", "33554432"]).await?;
    let oai = format!("{base}modoai");
    let (t_didl, _) = ours(ctx, &oai, "oai_didl", "didl")?;
    let t_sickle = sickle(ctx, &oai, "oai_didl", 20)?;
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
            payload / t_sickle / MB,
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
        .peer("gzip -1 on the same bytes", payload / median(&gz) / MB),
    );
    Ok(out)
}
