//! Child processes: our server, nginx, harvesters; their memory; free ports.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use rustix::process::{kill_process, Pid, Signal};

/// A child that is stopped (SIGTERM, then SIGKILL) when dropped.
pub(crate) struct Proc {
    pub(crate) child: Child,
    pub(crate) name: String,
}

impl Proc {
    pub(crate) fn spawn(name: &str, cmd: &mut Command) -> anyhow::Result<Proc> {
        let child = cmd
            .stdin(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {name} ({cmd:?}); run scripts/setup"))?;
        Ok(Proc {
            child,
            name: name.to_owned(),
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Peak resident memory so far, in MiB.
    pub(crate) fn peak_mib(&self) -> f64 {
        status_kib(self.pid(), "VmHWM:").unwrap_or(0) as f64 / 1024.0
    }

    /// Current anonymous resident memory (heap and stacks, not files mapped), in MiB.
    pub(crate) fn anon_mib(&self) -> f64 {
        status_kib(self.pid(), "RssAnon:").unwrap_or(0) as f64 / 1024.0
    }

    /// Current resident memory, in MiB.
    pub(crate) fn rss_mib(&self) -> f64 {
        status_kib(self.pid(), "VmRSS:").unwrap_or(0) as f64 / 1024.0
    }

    /// Waits for the exit, polling the peak memory while it runs; returns (status, elapsed, peak MiB).
    pub(crate) fn wait_peak(self) -> anyhow::Result<(ExitStatus, Duration, f64)> {
        let u = self.wait_usage()?;
        Ok((u.status, u.took, u.peak))
    }

    /// Waits for the exit like [`wait_peak`](Self::wait_peak), also measuring the CPU time
    /// (user + system) the process used. The bench reaps one child at a time, so the growth of
    /// the reaped children's usage across the wait is this child's.
    pub(crate) fn wait_usage(mut self) -> anyhow::Result<Usage> {
        let start = Instant::now();
        let before = children_cpu()?;
        let (mut peak, mut peak_anon) = (0f64, 0f64);
        loop {
            peak = peak.max(self.peak_mib());
            peak_anon = peak_anon.max(self.anon_mib());
            if let Some(status) = self.child.try_wait()? {
                let took = start.elapsed();
                let cpu = children_cpu()?.saturating_sub(before);
                return Ok(Usage {
                    status,
                    took,
                    peak,
                    peak_anon,
                    cpu,
                });
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            if let Some(pid) = Pid::from_raw(self.child.id() as i32) {
                let _ = kill_process(pid, Signal::TERM);
            }
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            eprintln!("bench: {} did not stop on SIGTERM; killing it", self.name);
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// What a finished child used.
pub(crate) struct Usage {
    pub(crate) status: ExitStatus,
    /// Wall time from the start of the wait.
    pub(crate) took: Duration,
    /// Peak resident memory, MiB.
    pub(crate) peak: f64,
    /// Peak anonymous resident memory as sampled every 10 ms (heap and stacks; the rest of the
    /// peak is files mapped, pages the kernel can take back), MiB.
    pub(crate) peak_anon: f64,
    /// User + system CPU time.
    pub(crate) cpu: Duration,
}

/// User + system CPU time of every child reaped so far: `cutime` and `cstime` of
/// `/proc/self/stat` (proc(5), fields 16 and 17, in clock ticks).
fn children_cpu() -> anyhow::Result<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // The fields after the command name, which is in parentheses and may hold spaces: the
    // first of them is field 3.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let tick = |field: usize| -> anyhow::Result<u64> {
        let text = fields
            .get(field - 3)
            .context("/proc/self/stat is too short")?;
        Ok(text.parse()?)
    };
    let ticks = tick(16)? + tick(17)?;
    let per_second = rustix::param::clock_ticks_per_second();
    Ok(Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

/// A field of /proc/PID/status in KiB.
pub(crate) fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// A port free on 127.0.0.1 right now.
pub(crate) fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Runs a command to its end, timing it.
pub(crate) fn timed(name: &str, cmd: &mut Command) -> anyhow::Result<Duration> {
    let (status, took, _) = Proc::spawn(name, cmd.stdout(Stdio::null()))?.wait_peak()?;
    if !status.success() {
        bail!("{name} failed: {status}");
    }
    Ok(took)
}

/// Where the binaries are, and the repository.
#[derive(Clone, Debug)]
pub(crate) struct Bins {
    pub(crate) dir: PathBuf,
    pub(crate) repo: PathBuf,
}

impl Bins {
    pub(crate) fn modoai(&self) -> Command {
        Command::new(self.dir.join("modoai"))
    }

    pub(crate) fn harvester(&self) -> Command {
        let mut c = Command::new(self.dir.join("modoai-harvester"));
        c.env("RUST_LOG", "error");
        c
    }

    pub(crate) fn python(&self) -> anyhow::Result<PathBuf> {
        let p = self.repo.join(".venv/bin/python");
        if !p.exists() {
            bail!(
                "{} missing: run scripts/setup (it installs Sickle)",
                p.display()
            );
        }
        Ok(p)
    }

    /// `tests/python/harvest_sickle.py URL PREFIX`, timed, with its peak memory.
    pub(crate) fn sickle(&self, oai: &str, prefix: &str) -> anyhow::Result<(Duration, f64, u64)> {
        let (u, records) = self.sickle_usage(oai, prefix)?;
        Ok((u.took, u.peak, records))
    }

    /// Sickle harvesting the whole list: what it used, and the records it counted.
    pub(crate) fn sickle_usage(&self, oai: &str, prefix: &str) -> anyhow::Result<(Usage, u64)> {
        let out = tempfile::NamedTempFile::new()?;
        let mut cmd = Command::new(self.python()?);
        cmd.arg(self.repo.join("tests/python/harvest_sickle.py"))
            .args([oai, prefix])
            .stdout(out.reopen()?);
        let u = Proc::spawn("sickle", &mut cmd)?.wait_usage()?;
        if !u.status.success() {
            bail!("Sickle failed: {}", u.status);
        }
        let report: serde_json::Value = serde_json::from_reader(out.reopen()?)?;
        Ok((u, report["records"].as_u64().unwrap_or(0)))
    }
}

/// Starts `modoai serve` on `root` with a new state folder beside it (so the index is built from
/// nothing) and waits until its OAI endpoint answers. Returns the process, its base URL and the
/// time to the first answer.
pub(crate) async fn serve(
    bins: &Bins,
    root: &Path,
    args: &[&str],
) -> anyhow::Result<(Proc, String, Duration)> {
    let state = tempfile::Builder::new()
        .prefix("state-")
        .tempdir_in(root.parent().unwrap_or(Path::new(".")))?
        .keep();
    serve_with_state(bins, root, &state, args).await
}

/// Starts `modoai serve` on `root` with its index in `state` (a stored index is loaded, a new
/// folder gets the first index) and waits until its OAI endpoint answers (OAI requests are
/// answered 503 until the index can answer). Returns the process, its base URL and the time to
/// the first list answer.
pub(crate) async fn serve_with_state(
    bins: &Bins,
    root: &Path,
    state: &Path,
    args: &[&str],
) -> anyhow::Result<(Proc, String, Duration)> {
    let port = free_port()?;
    let base = format!("http://127.0.0.1:{port}/");
    let start = Instant::now();
    let mut cmd = bins.modoai();
    cmd.arg("serve")
        .arg("--root")
        .arg(root)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .arg("--state-dir")
        .arg(state)
        .args(args)
        .env("RUST_LOG", "error")
        .stdout(Stdio::null());
    let proc = Proc::spawn("modoai", &mut cmd)?;
    let http = crate::http::Http::new();
    let probe = format!("{base}modoai?verb=ListIdentifiers&metadataPrefix=oai_dc");
    loop {
        if let Ok(r) = http.get(&probe).await {
            if r.status == 200 {
                return Ok((proc, base, start.elapsed()));
            }
        }
        if start.elapsed() > Duration::from_secs(1800) {
            bail!("modoai did not answer within 30 minutes");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Starts nginx serving `root` on a free port, as this user, with its files in `dir`.
pub(crate) async fn nginx(root: &Path, dir: &Path) -> anyhow::Result<(Proc, String)> {
    let port = free_port()?;
    let conf = dir.join("nginx.conf");
    let d = dir.display();
    std::fs::write(
        &conf,
        format!(
            "daemon off;\nmaster_process on;\nworker_processes 2;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n  access_log off;\n  sendfile on;\n  tcp_nopush on;\n  client_body_temp_path {d}/body;\n\
               proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
               default_type application/octet-stream;\n\
               server {{ listen 127.0.0.1:{port}; root {root}; }}\n}}\n",
            root = root.display()
        ),
    )?;
    let nginx = ["/usr/sbin/nginx", "nginx"]
        .into_iter()
        .find(|p| Command::new(p).arg("-v").output().is_ok())
        .context("nginx is not installed: run scripts/setup (Debian package nginx-light)")?;
    let mut cmd = Command::new(nginx);
    cmd.args(["-e", &format!("{d}/error.log"), "-c"])
        .arg(&conf)
        .stderr(Stdio::null());
    let proc = Proc::spawn("nginx", &mut cmd)?;
    let base = format!("http://127.0.0.1:{port}/");
    let http = crate::http::Http::new();
    let start = Instant::now();
    while http.get(&base).await.is_err() {
        if start.elapsed() > Duration::from_secs(10) {
            bail!("nginx did not start; see {d}/error.log");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok((proc, base))
}
