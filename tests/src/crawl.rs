//! Real producers of web archives, run on a site that `modoai serve` serves: wget's
//! `--warc-file` crawl, warcprox recording what a client (curl) fetches through it, and
//! `wacz create` packaging a WARC. `scripts/setup` installs all three (docs/testing.md).
//!
//! The site is served on 127.0.0.2, not 127.0.0.1: warcprox refuses to fetch from 127.0.0.1
//! ("localhost access is not permitted", with no option to allow it), and the rest of 127.0.0.0/8
//! is loopback too on Linux.

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rustix::process::Signal;

use crate::http::MARGIN;
use crate::process::{free_port, modoai, require_tool, signal, Running};
use crate::python::venv_tool;
use crate::site::repo_root;

/// The address the crawled site is served on (see the module docs).
pub const SITE_ADDRESS: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);

/// What [`warcprox_crawl`] fetches of the example site (`examples/site`), in this order: every
/// page and file its home page links to, then `about.html` a second time, which warcprox
/// records as a revisit (identical payload digest).
pub const EXAMPLE_PATHS: [&str; 6] = [
    "/",
    "/about.html",
    "/docs/report.pdf",
    "/images/sunset.jpg",
    "/data/measurements.csv",
    "/about.html",
];

/// `modoai serve` of a folder on [`SITE_ADDRESS`], killed when dropped.
pub struct CrawlSite {
    _server: Running,
    base: String,
}

impl CrawlSite {
    /// Serves `root` with an empty configuration written to `work` (its index goes there too)
    /// and waits until Identify answers: until then the OAI-PMH base URL, which the home page of
    /// the example site links to, answers 503 while the site is indexed.
    ///
    /// # Panics
    ///
    /// When the server does not answer within [`MARGIN`].
    pub fn serve(root: &Path, work: &Path) -> CrawlSite {
        let port = free_port_on(SITE_ADDRESS);
        let config = work.join("modoai.toml");
        std::fs::write(&config, "").expect("write the configuration");
        let child = modoai()
            .arg("serve")
            .arg("--root")
            .arg(root)
            .args(["--listen", &format!("{SITE_ADDRESS}:{port}"), "--config"])
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the modoai binary starts");
        let site = CrawlSite {
            _server: Running(child),
            base: format!("http://{SITE_ADDRESS}:{port}"),
        };
        wait_until(
            || curl_status(&site.url("/modoai?verb=Identify"), None) == Some(200),
            "modoai serve",
        );
        site
    }

    /// The URL of `path` (which starts with `/`) on this site.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

/// Crawls `site` from its home page with `wget --recursive --warc-file` into `work` and returns
/// the WARC it wrote (`work/wget.warc.gz`, gzip per record, with wget's request, response,
/// metadata and resource records).
///
/// # Panics
///
/// When wget is missing or fails.
pub fn wget_crawl(site: &CrawlSite, work: &Path) -> PathBuf {
    require_tool("wget", "apt-get install wget");
    let prefix = work.join("wget");
    let out = Command::new("wget")
        .args([
            "--recursive",
            "--level=inf",
            "--no-verbose",
            "-e",
            "robots=off",
        ])
        .args(["--no-host-directories", "--directory-prefix"])
        .arg(work.join("wget-files"))
        .arg(format!("--warc-file={}", prefix.display()))
        .arg(site.url("/"))
        .output()
        .expect("wget runs");
    assert!(
        out.status.success(),
        "wget failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    prefix.with_extension("warc.gz")
}

/// Fetches [`EXAMPLE_PATHS`] of `site` with curl through a warcprox started for the purpose,
/// stops it and returns the WARC files it wrote (see [`Warcprox::finish`]).
pub fn warcprox_crawl(site: &CrawlSite, work: &Path) -> Vec<PathBuf> {
    let proxy = Warcprox::start(work);
    for path in EXAMPLE_PATHS {
        assert_eq!(proxy.fetch(&site.url(path)), 200, "{path} through warcprox");
    }
    proxy.finish()
}

/// Packages `warc` with `wacz create` (py-wacz in the venv) as `out`; returns `out`.
///
/// # Panics
///
/// When `wacz` is missing or fails.
pub fn wacz_create(warc: &Path, out: &Path) -> PathBuf {
    let wacz = venv_tool("wacz");
    let output = Command::new(wacz)
        .args(["create", "-o"])
        .arg(out)
        .arg(warc)
        .output()
        .expect("wacz runs");
    assert!(
        output.status.success(),
        "wacz create failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    out.to_owned()
}

/// warcprox (in `.venv-warcprox`) on a free port of 127.0.0.1, writing gzipped WARC files, its
/// CA, certificates and deduplication database under a folder of its own; killed when dropped
/// unless [`finish`](Warcprox::finish)ed.
pub struct Warcprox {
    process: Running,
    port: u16,
    warcs: PathBuf,
}

impl Warcprox {
    /// Starts warcprox with everything it writes under `work/warcprox` and waits until it
    /// accepts connections. Deduplication is on (revisits of identical payloads), statistics off.
    ///
    /// # Panics
    ///
    /// When warcprox is not installed or does not listen within [`MARGIN`].
    pub fn start(work: &Path) -> Warcprox {
        let program = repo_root().join(".venv-warcprox/bin/warcprox");
        assert!(
            program.exists(),
            "warcprox is not installed: run scripts/setup (it makes .venv-warcprox)"
        );
        let dir = work.join("warcprox");
        std::fs::create_dir_all(&dir).expect("make warcprox's folder");
        let port = free_port();
        let warcs = dir.join("warcs");
        let child = Command::new(program)
            .args([
                "--address",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--gzip",
            ])
            .args([
                "--prefix",
                "warcprox",
                "--stats-db-file",
                "/dev/null",
                "--dir",
            ])
            .arg(&warcs)
            .arg("--cacert")
            .arg(dir.join("ca.pem"))
            .arg("--certs-dir")
            .arg(dir.join("certs"))
            .arg("--dedup-db-file")
            .arg(dir.join("dedup.sqlite"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("warcprox.log")).expect("warcprox's log"))
            .spawn()
            .expect("warcprox starts");
        let proxy = Warcprox {
            process: Running(child),
            port,
            warcs,
        };
        wait_until(
            || TcpStream::connect(("127.0.0.1", port)).is_ok(),
            "warcprox",
        );
        proxy
    }

    /// The proxy's URL, for a client's proxy setting.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// GETs `url` with curl through the proxy and returns the status (0 when curl got none).
    pub fn fetch(&self, url: &str) -> u16 {
        curl_status(url, Some(&self.url())).unwrap_or(0)
    }

    /// Stops warcprox with SIGTERM (it then writes what it holds and closes its WARC files,
    /// dropping their `.open` suffix), waits for it to exit and returns its WARC files in name
    /// order.
    ///
    /// # Panics
    ///
    /// When it does not exit within [`MARGIN`] or leaves a file open.
    pub fn finish(mut self) -> Vec<PathBuf> {
        signal(self.process.0.id(), Signal::TERM);
        wait_until(
            || self.process.0.try_wait().ok().flatten().is_some(),
            "warcprox to exit",
        );
        let mut files: Vec<PathBuf> = std::fs::read_dir(&self.warcs)
            .expect("warcprox made its WARC folder")
            .map(|e| e.expect("a folder entry").path())
            .collect();
        files.sort();
        assert!(
            files
                .iter()
                .all(|f| f.extension().is_some_and(|e| e == "gz")),
            "warcprox left files that are not closed WARCs: {files:?}"
        );
        files
    }
}

/// A port of `address` that was free a moment ago.
fn free_port_on(address: Ipv4Addr) -> u16 {
    TcpListener::bind((address, 0))
        .and_then(|l| l.local_addr())
        .expect("bind an ephemeral port")
        .port()
}

/// The status curl gets for `url`, through `proxy` if given; `None` when it gets no answer.
fn curl_status(url: &str, proxy: Option<&str>) -> Option<u16> {
    require_tool("curl", "apt-get install curl");
    let mut cmd = Command::new("curl");
    cmd.args([
        "--silent",
        "--output",
        "/dev/null",
        "--write-out",
        "%{http_code}",
    ]);
    if let Some(proxy) = proxy {
        cmd.args(["--proxy", proxy]);
    }
    let out = cmd.arg(url).output().expect("curl runs");
    String::from_utf8_lossy(&out.stdout)
        .parse()
        .ok()
        .filter(|&s| s != 0)
}

/// Polls `ready` until it holds; panics after [`MARGIN`] naming what did not happen.
fn wait_until(mut ready: impl FnMut() -> bool, what: &str) {
    let started = Instant::now();
    while !ready() {
        assert!(started.elapsed() < MARGIN, "waited too long for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}
