//! Running documented commands: the binaries, a work folder, servers, plain HTTP probes.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use integration_tests::http;
use integration_tests::process::{program, signal};
use integration_tests::repo_root;
use rustix::process::Signal;
use tempfile::TempDir;

/// How long a command or a server start may take before the test calls it hung: generous, since
/// the walkthrough's `oai_crate` harvest runs every metadata tool of the example site cold (JHOVE
/// starts a JVM) on a debug build, on a machine other builds may share.
const PATIENCE: Duration = Duration::from_secs(300);

/// A work folder: the doc commands' relative paths resolve here as they would in the repository
/// (`examples/` links to the repository's; `plugins.toml` is a copy, so its cache stays here).
pub(crate) fn work_dir() -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = repo_root();
    std::os::unix::fs::symlink(root.join("examples"), dir.path().join("examples"))
        .expect("link examples/");
    std::fs::copy(root.join("plugins.toml"), dir.path().join("plugins.toml"))
        .expect("copy plugins.toml");
    dir
}

/// The command as the shell runs it: `cargo run -p BIN --` becomes the built binary (found, and
/// refused when stale, by the support library's [`program`]), and the
/// docs' example address `127.0.0.1:8080` becomes `address`, and `.venv/bin/resync-sync` and
/// `.venv/bin/wacz` the repository's.
pub(crate) fn rewrite(command: &str, address: &str) -> String {
    let mut out = command.to_owned();
    for bin in ["modoai-harvester", "modoai-explorer", "modoai"] {
        let path = format!("'{}'", program(bin).display());
        for quiet in ["", "-q "] {
            out = out.replace(&format!("cargo run {quiet}-p {bin} --"), &path);
        }
    }
    // The Python peers of the docs' examples are in the repository's venv.
    let venv = format!("'{}/.venv/bin/", repo_root().display());
    out.replace("127.0.0.1:8080", address)
        .replace(".venv/bin/resync-sync", &format!("{venv}resync-sync'"))
        .replace(".venv/bin/wacz ", &format!("{venv}wacz' "))
}

/// `bash -c COMMAND` in `dir` (the environment gives `$PW` and `$KEY` for the `hash-secret`
/// examples), killed after [`PATIENCE`].
pub(crate) fn shell(dir: &Path, command: &str) -> Output {
    let child = bash(dir, command)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash starts");
    let pid = child.id();
    let (done, waited) = mpsc::channel();
    thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    match waited.recv_timeout(PATIENCE) {
        Ok(output) => output.expect("the command's output"),
        Err(_) => {
            signal(pid, Signal::KILL);
            panic!("`{command}` did not finish within {PATIENCE:?}");
        }
    }
}

fn bash(dir: &Path, command: &str) -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg("-c").arg(command).current_dir(dir);
    cmd.env("PW", "a password for the docs test");
    cmd.env(
        "KEY",
        "an-api-key-of-more-than-32-characters-for-the-docs-test",
    );
    cmd.env_remove("RUST_LOG").env("NO_COLOR", "1");
    // The servers' default state folder (the site index), one per test process: two tests that
    // serve the example site at once would otherwise share one index, which only one server may
    // hold; and nothing is left in the home folder.
    cmd.env("XDG_STATE_HOME", state_home())
        .env_remove("STATE_DIRECTORY");
    cmd.stdin(Stdio::null());
    cmd
}

/// This test process's default state folder, in the build's own temporary folder; the first call
/// removes those that processes no longer running left behind (a test process cannot remove its
/// own when it ends).
fn state_home() -> std::path::PathBuf {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs-state");
    SWEPT.call_once(|| {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let pid = entry.file_name().to_string_lossy().parse::<u32>();
            if pid.is_ok_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    });
    dir.join(std::process::id().to_string())
}

/// A server started from a documented command, stopped (SIGTERM) when dropped.
pub(crate) struct Server {
    child: Option<Child>,
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub(crate) base: String,
}

impl Server {
    /// Starts `command` (rewritten, listening on port 0) and waits for the base URL it prints.
    pub(crate) fn start(dir: &Path, command: &str) -> Server {
        let command = rewrite(command, "127.0.0.1:0");
        let log = tempfile::NamedTempFile::new_in(dir).expect("a log file");
        // A state folder in the test's own folder: the tests of this process run at once, and two
        // servers of the example site cannot hold one index.
        let mut child = bash(dir, &format!("exec {command}"))
            .env("XDG_STATE_HOME", dir.join("server-state"))
            .stdout(Stdio::piped())
            .stderr(log.reopen().expect("the log file"))
            .spawn()
            .expect("bash starts");
        let (lines, seen) = mpsc::channel();
        let stdout = child.stdout.take().expect("stdout is piped");
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let deadline = Instant::now() + PATIENCE;
        let base = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = seen.recv_timeout(left).unwrap_or_else(|_| {
                let stderr = std::fs::read_to_string(log.path()).unwrap_or_default();
                panic!("`{command}` printed no URL within {PATIENCE:?}; stderr:\n{stderr}")
            });
            if let Some(base) = served_base(&line) {
                break base;
            }
        };
        Server {
            child: Some(child),
            base,
        }
    }

    /// `host:port`.
    pub(crate) fn address(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    /// GETs `path` until it answers 200 (the site index is built in the background; until then
    /// the route answers 503), and returns the body.
    pub(crate) fn probe(&self, path: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            match get(self.address(), path) {
                Some((200, body)) => return body,
                other if Instant::now() > deadline => {
                    panic!("GET {}{path} never answered 200: {other:?}", self.base)
                }
                _ => thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    /// Sends SIGTERM and waits for the exit status.
    pub(crate) fn stop(mut self) -> ExitStatus {
        let mut child = self.child.take().expect("stopped once");
        signal(child.id(), Signal::TERM);
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = child.try_wait().expect("wait for the server") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("the server did not stop within {PATIENCE:?} of SIGTERM");
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            signal(child.id(), Signal::TERM);
            let _ = child.wait();
        }
    }
}

/// The base URL in a line such as `modoai is serving examples/site at http://127.0.0.1:PORT/`.
fn served_base(line: &str) -> Option<String> {
    let start = line.find("http://127.0.0.1:")?;
    let url = line[start..].split_whitespace().next()?;
    Some(url.trim_end_matches('/').to_owned())
}

/// A GET through the support library's one HTTP client: the status and the body, or `None`
/// when nothing answers at `address` (`127.0.0.1:PORT`).
fn get(address: &str, path: &str) -> Option<(u16, String)> {
    let port = address.rsplit_once(':')?.1.parse().ok()?;
    let raw = http::get(port, path);
    if raw.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(&raw);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    Some((http::status_code(&raw), body.to_owned()))
}
