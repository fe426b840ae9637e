//! The programs under test as child processes: where cargo put the workspace's binaries, a
//! `modoai serve` killed when the test ends, free ports, peak memory, and required tools.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use crate::http::{get, MARGIN};
use crate::site::repo_root;

/// The workspace binary `name` (`modoai`, `modoai-harvester` or `modoai-explorer`, each built by
/// the package of the same name) where cargo puts it: beside the `deps/` folder that holds this test's executable.
///
/// # Panics
///
/// When the binary is absent or older than its sources, with the command that builds it: a test
/// never runs an old build. `cargo build --bins` builds both (scripts/test runs it first); cargo
/// test does not, as it builds a package's binaries only for that package's own `tests/`.
pub fn program(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test executable lies in target/<profile>/deps");
    let path = dir.join(name);
    let build = format!("cargo build -p {name} --bin {name}");
    let built = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .unwrap_or_else(|_| panic!("{} is missing: run `{build}`", path.display()));
    // The crates whose sources make the binary (each program's own crate and the libraries it
    // links: the archive, the tools, the gate, the shared command line). Another package's
    // binary-only sources (its `main.rs`) are not part of it: cargo does not rebuild the binary
    // when they change.
    let crates: &[(&str, &[&str])] = match name {
        "modoai" => &[
            ("server-module", &[]),
            ("protocol", &[]),
            ("tools", &[]),
            ("gate", &[]),
            ("cli", &[]),
        ],
        "modoai-harvester" => &[
            ("harvester", &[]),
            ("archive", &[]),
            ("protocol", &[]),
            ("cli", &[]),
        ],
        "modoai-explorer" => &[
            ("explorer", &[]),
            ("archive", &[]),
            ("tools", &[]),
            ("gate", &[]),
            ("protocol", &[]),
            ("cli", &[]),
        ],
        other => panic!("{other} is not a binary of this workspace"),
    };
    let newer = crates
        .iter()
        .find_map(|(c, skip)| newer_source(&repo_root().join(c), skip, built));
    if let Some(newer) = newer {
        panic!(
            "{} is older than {}: run `{build}`",
            path.display(),
            newer.display()
        );
    }
    path
}

/// A Rust file under `dir`'s `src/` (but not under the entries of `skip`, names in `src/`)
/// modified after `built`: cargo rebuilds, and so rewrites, the binary whenever one of these
/// changes. (Not `Cargo.toml`: cargo leaves the binary as it is when an edit of the manifest
/// changes nothing it builds, such as a comment.)
fn newer_source(dir: &Path, skip: &[&str], built: SystemTime) -> Option<PathBuf> {
    let is_newer = |p: &Path| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t > built)
    };
    let src = dir.join("src");
    let skipped: Vec<PathBuf> = skip.iter().map(|s| src.join(s)).collect();
    let mut folders = vec![src];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if skipped.contains(&path) {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") && is_newer(&path) {
                return Some(path);
            }
        }
    }
    None
}

/// Sends `signal` to the process `pid` (SIGTERM to stop a server, SIGHUP to reload it).
///
/// # Panics
///
/// When the process does not exist.
pub fn signal(pid: u32, signal: rustix::process::Signal) {
    let raw = i32::try_from(pid).expect("a pid fits in i32");
    let pid = rustix::process::Pid::from_raw(raw).expect("a process id is not 0");
    rustix::process::kill_process(pid, signal)
        .unwrap_or_else(|e| panic!("{signal:?} to {raw}: {e}"));
}

/// A child process, killed if the test ends (or fails) before it exits.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `modoai` as a command whose default state folder (`$XDG_STATE_HOME/modoai`, where `modoai
/// serve` keeps the site index when nothing else names one) is this test process's own, beside
/// the binaries (`target/<profile>/test-state/<pid>`), never the user's home. The folders of
/// test processes that are gone are removed when the next one makes its own.
pub fn modoai() -> Command {
    let mut cmd = Command::new(program("modoai"));
    cmd.env("XDG_STATE_HOME", test_state_home());
    cmd
}

/// `modoai-explorer` as a command whose default state folder (`$XDG_STATE_HOME/modoai-explorer`,
/// where its key file is when nothing else names one) is this test process's own, as for
/// [`modoai()`].
pub fn modoai_explorer() -> Command {
    let mut cmd = Command::new(program("modoai-explorer"));
    cmd.env("XDG_STATE_HOME", test_state_home())
        .env_remove("STATE_DIRECTORY");
    cmd
}

/// This test process's state folder (see [`modoai`]), made once.
fn test_state_home() -> &'static Path {
    static HOME: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let all = program("modoai").with_file_name("test-state");
        for entry in std::fs::read_dir(&all).into_iter().flatten().flatten() {
            let pid = entry.file_name().to_string_lossy().into_owned();
            if !Path::new("/proc").join(&pid).exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        let mine = all.join(std::process::id().to_string());
        std::fs::create_dir_all(&mine).expect("make the tests' state folder");
        mine
    })
}

/// `sh -c SCRIPT sh` as root of a user and mount namespace of its own (`unshare --user
/// --map-root-user --mount`): the script may mount a tmpfs without any privilege, and its mounts
/// end with it. Arguments added to the command are the script's `$1`, `$2`, …
pub fn in_private_mount_namespace(script: &str) -> Command {
    let mut cmd = Command::new("unshare");
    cmd.args([
        "--user",
        "--map-root-user",
        "--mount",
        "sh",
        "-c",
        script,
        "sh",
    ]);
    cmd
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind an ephemeral port")
        .local_addr()
        .expect("its address")
        .port()
}

/// Starts `modoai serve ARGS` on `root` with a configuration file in `work` holding `config`,
/// and waits until it answers Identify.
pub fn start_modoai(root: &Path, work: &Path, config: &str, args: &[&str]) -> (Running, u16) {
    let port = free_port();
    let server = spawn_modoai(root, work, config, args, port);
    let started = Instant::now();
    while !get(port, "/modoai?verb=Identify").starts_with(b"HTTP/1.0 200") {
        assert!(started.elapsed() < MARGIN, "the server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, port)
}

/// Starts `modoai serve ARGS` on `root` and `port` with a configuration file in `work` holding
/// `config` (so its state folder, the index, is `work/modoai-state`), without waiting for it.
pub fn spawn_modoai(root: &Path, work: &Path, config: &str, args: &[&str], port: u16) -> Running {
    let config_path = work.join("modoai.toml");
    std::fs::write(&config_path, config).expect("write the configuration");
    let child = modoai()
        .arg("serve")
        .args(args)
        .arg("--root")
        .arg(root)
        .args(["--listen", &format!("127.0.0.1:{port}"), "--config"])
        .arg(&config_path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the modoai binary starts");
    Running(child)
}

/// Peak resident memory (VmHWM) of a running process, in KiB; `None` once it is gone.
pub fn vm_hwm(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Panics with how to install `tool` when it is missing.
pub fn require_tool(tool: &str, install: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status();
    assert!(
        found.is_ok_and(|s| s.success()),
        "{tool} is not installed: run scripts/setup (or: {install})"
    );
}
