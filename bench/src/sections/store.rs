//! `harvest --store` vs `cp`: moving an archive's WARC files to a local S3 server (s3s-fs:
//! multipart upload, read back, SHA-256 check, local removal) against copying the same files
//! to a local folder.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{Ctx, MB};
use crate::data;
use crate::procs::{free_port, serve, timed, Proc};
use crate::report::{median, Figure};

const BUCKET: &str = "bench";
const KEYS: [(&str, &str); 2] = [
    ("AWS_ACCESS_KEY_ID", "bench"),
    ("AWS_SECRET_ACCESS_KEY", "bench-secret"),
];

/// s3s-fs on a free port serving `root` (with the bucket's folder), stopped when dropped.
struct S3 {
    child: std::process::Child,
    endpoint: String,
}

impl S3 {
    fn start(root: &Path) -> anyhow::Result<S3> {
        std::fs::create_dir_all(root.join(BUCKET))?;
        let port = free_port()?;
        let child = Command::new("s3s-fs")
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", KEYS[0].1, "--secret-key", KEYS[1].1])
            .arg(root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| anyhow::anyhow!("s3s-fs does not start ({e}): run scripts/setup"))?;
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            anyhow::ensure!(
                started.elapsed() < Duration::from_secs(30),
                "s3s-fs did not listen"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(S3 {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
        })
    }
}

impl Drop for S3 {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn warc_bytes(dir: &Path) -> anyhow::Result<u64> {
    let mut n = 0;
    for e in std::fs::read_dir(dir)? {
        n += e?.metadata()?.len();
    }
    Ok(n)
}

/// One run of `harvest --store` on a copy of `source` (nothing new to harvest, so the run is
/// the move of its WARC files and of its ledger, index and state): seconds and peak MiB.
fn upload(ctx: &Ctx, s3: &S3, oai: &str, source: &Path, run: usize) -> anyhow::Result<(f64, f64)> {
    let archive = ctx.work.join(format!("store/archive-{run}"));
    timed("cp", Command::new("cp").arg("-r").arg(source).arg(&archive))?;
    let mut cmd = ctx.bins.harvester();
    cmd.args(["harvest", oai, "--quiet", "--archive"])
        .arg(&archive)
        .args(["--store", &format!("s3://{BUCKET}/run-{run}")])
        .envs(KEYS)
        .env("AWS_ENDPOINT_URL", &s3.endpoint)
        .stdout(Stdio::null());
    let (status, took, peak) = Proc::spawn("modoai-harvester", &mut cmd)?.wait_peak()?;
    anyhow::ensure!(
        status.success(),
        "modoai-harvester --store failed: {status}"
    );
    anyhow::ensure!(
        warc_bytes(&archive.join("warcs"))? == 0,
        "WARC files left locally"
    );
    let _ = std::fs::remove_dir_all(&archive);
    Ok((took.as_secs_f64(), peak))
}

pub(crate) async fn run(ctx: &Ctx) -> anyhow::Result<Vec<Figure>> {
    let size = ctx.size(10 << 20, 512 << 10);
    let site = ctx.dir("store/site")?;
    data::random_files(&site, 20, size)?;
    let (server, base, _) = serve(&ctx.bins, &site, &["--inline-max", "33554432"]).await?;
    let oai = format!("{base}modoai");
    let source = ctx.work.join("store/source");
    let mut cmd = ctx.bins.harvester();
    cmd.args([
        "harvest",
        &oai,
        "--quiet",
        "--metadata-prefix",
        "oai_didl",
        "--archive",
    ])
    .arg(&source)
    .args([
        "--max-file-size",
        &ctx.size(100_000_000u64, 2_000_000).to_string(),
    ]);
    timed("modoai-harvester", &mut cmd)?;
    let bytes = warc_bytes(&source.join("warcs"))? as f64;
    let s3 = S3::start(&ctx.dir("store/s3")?)?;
    let (mut ours, mut cp, mut peak) = (Vec::new(), Vec::new(), 0f64);
    for run in 0..=ctx.runs {
        let (took, p) = upload(ctx, &s3, &oai, &source, run)?;
        let dest = ctx.work.join(format!("store/cp-{run}"));
        let t_cp = timed(
            "cp",
            Command::new("cp")
                .arg("-r")
                .arg(source.join("warcs"))
                .arg(&dest),
        )?;
        let _ = std::fs::remove_dir_all(&dest);
        if run > 0 {
            ours.push(took);
            cp.push(t_cp.as_secs_f64());
            peak = peak.max(p);
        }
    }
    drop(server);
    Ok(vec![Figure::new(
        "store",
        format!(
            "harvest --store: {:.0} MB of WARC files to s3s-fs: MB/s",
            bytes / MB
        ),
        bytes / MB / median(&ours),
        "MB/s",
    )
    .peer(
        "cp -r of the same WARC files to a local folder",
        bytes / MB / median(&cp),
    )
    .note(format!(
        "multipart upload, read back and SHA-256 checked, local copy removed; peak {peak:.0} MiB"
    ))])
}
