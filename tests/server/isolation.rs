//! Tool processes run niced, in a lower I/O class and under CPU-time and memory limits:
//! what a running tool sees of itself, the persistent ExifTool worker's limits, and tools stopped
//! by each limit reported with status `limit` in CRATEs that still validate.

use std::path::Path;

use integration_tests::{element_attrs, require_tool, texts, Reply, Server, TestSite};
use modoai::Plugins;

/// Writes `plugins.toml` with `settings` (cache inside `dir`) and `body`, and loads it.
async fn plugins(dir: &Path, settings: &str, body: &str) -> Plugins {
    let path = dir.join("plugins.toml");
    let text = format!("[settings]\ncache-dir = \"cache\"\n{settings}\n\n{body}");
    std::fs::write(&path, text).unwrap();
    Plugins::load(&path).await.expect("plugins.toml loads")
}

/// The CRATE of `a.txt`, validated.
async fn crate_of_a(server: &Server) -> Reply {
    let r = server
        .oai(&format!(
            "verb=GetRecord&metadataPrefix=oai_crate&identifier={}",
            server.id("a.txt")
        ))
        .await;
    r.assert_valid();
    r
}

/// The `crate:plugin` attributes of `label`.
fn plugin(r: &Reply, label: &str) -> std::collections::BTreeMap<String, String> {
    element_attrs(&r.body, "plugin")
        .into_iter()
        .find(|a| a["label"] == label)
        .unwrap_or_else(|| panic!("no plugin {label}: {}", r.text()))
}

/// Field 19 of `/proc/PID/stat` (nice; field 41, the scheduling policy, must be SCHED_IDLE), and
/// the lines of `/proc/PID/limits` for CPU time and data size, as the soft and hard values.
fn nice_and_limits(stat: &str, limits: &str) -> (i32, [String; 4]) {
    let after = &stat[stat.rfind(')').expect("stat has a command name") + 1..];
    let nice = after.split_whitespace().nth(16).unwrap().parse().unwrap();
    // Field 41: the scheduling policy; 5 is SCHED_IDLE (cpu-class = "idle").
    assert_eq!(after.split_whitespace().nth(38), Some("5"), "{stat}");
    let row = |name: &str| -> (String, String) {
        let line = limits
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} in {limits}"));
        let mut cols = line[name.len()..].split_whitespace();
        (
            cols.next().unwrap().to_owned(),
            cols.next().unwrap().to_owned(),
        )
    };
    let (cpu_soft, cpu_hard) = row("Max cpu time");
    let (data_soft, data_hard) = row("Max data size");
    (nice, [cpu_soft, cpu_hard, data_soft, data_hard])
}

#[tokio::test]
async fn a_running_tool_is_niced_and_limited() {
    let site = TestSite::empty();
    site.write("a.txt", b"hello", None);
    let work = tempfile::tempdir().unwrap();
    let p = plugins(
        work.path(),
        "nice = 7\nio-class = \"idle\"\ncpu-secs = 40\nmemory-mb = 300",
        r#"
[[plugin]]
label = "self"
mime = "*/*"
command = ["sh", "-c", "sleep 0.2; cat /proc/self/stat; echo =====; cat /proc/self/limits; echo =====; ionice", "sh", "{path}"]
version-command = ["sh", "-c", "echo self 1"]
"#,
    )
    .await;
    let server = Server::start(site.path(), |c| c.plugins(p)).await;
    let r = crate_of_a(&server).await;
    assert_eq!(plugin(&r, "self")["status"], "ok");
    let out = texts(&r.body, "output").remove(0);
    let parts: Vec<&str> = out.split("=====\n").collect();
    let (nice, limits) = nice_and_limits(parts[0], parts[1]);
    assert_eq!(nice, 7, "{out}");
    assert_eq!(
        limits,
        ["40", "45", "314572800", "314572800"].map(String::from),
        "{out}"
    );
    assert_eq!(parts[2].trim(), "idle", "the I/O class");
}

/// The pids of running processes whose parent is this test process and whose command line
/// contains `needle`.
fn my_children_with(needle: &str) -> Vec<u32> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let (Ok(stat), Ok(cmdline)) = (
            std::fs::read_to_string(format!("/proc/{pid}/stat")),
            std::fs::read(format!("/proc/{pid}/cmdline")),
        ) else {
            continue;
        };
        let after = &stat[stat.rfind(')').unwrap() + 1..];
        let ppid = after.split_whitespace().nth(1).unwrap();
        if ppid == me && String::from_utf8_lossy(&cmdline).contains(needle) {
            found.push(pid);
        }
    }
    found
}

#[tokio::test]
async fn the_exiftool_and_fido_workers_are_niced_and_limited() {
    require_tool("exiftool", "apt-get install libimage-exiftool-perl");
    require_tool("fido", "pip install opf-fido into .venv-tools");
    let site = TestSite::empty();
    site.write("a.txt", b"hello", None);
    let work = tempfile::tempdir().unwrap();
    let p = plugins(
        work.path(),
        "nice = 12\ncpu-secs = 50\nmemory-mb = 400",
        r#"
[[plugin]]
label = "exiftool"
mime = "*/*"
runner = "exiftool"
command = ["exiftool", "-X", "--System:all", "{path}"]
version-command = ["exiftool", "-ver"]
output = "xml"

[[plugin]]
label = "fido"
mime = "*/*"
runner = "fido-batch"
command = ["fido", "-q", "{paths}"]
version-command = ["fido", "-v"]
output = "text"
"#,
    )
    .await;
    let server = Server::start(site.path(), |c| c.plugins(p)).await;
    let r = crate_of_a(&server).await;
    assert_eq!(plugin(&r, "exiftool")["status"], "ok");
    let fido = plugin(&r, "fido");
    assert_eq!(fido["status"], "ok", "{fido:?}");
    // The workers stay after the request; tests run in parallel, so only workers started by
    // this process with these limits are looked at.
    let want = (12, ["50", "55", "419430400", "419430400"].map(String::from));
    for marker in ["-stay_open", "-input"] {
        let workers: Vec<(i32, [String; 4])> = my_children_with(marker)
            .into_iter()
            .filter_map(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).ok()?;
                Some(nice_and_limits(&stat, &limits))
            })
            .collect();
        assert!(workers.contains(&want), "{marker}: {workers:?}");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_cpu_burning_tool_is_stopped_by_the_cpu_limit() {
    let site = TestSite::empty();
    site.write("a.txt", b"hello", None);
    let work = tempfile::tempdir().unwrap();
    let p = plugins(
        work.path(),
        "cpu-secs = 1\ntimeout-secs = 600",
        r#"
[[plugin]]
label = "burner"
mime = "*/*"
command = ["sh", "-c", "while :; do :; done", "sh", "{path}"]
version-command = ["sh", "-c", "echo burner 1"]
"#,
    )
    .await;
    let server = Server::start(site.path(), |c| c.plugins(p)).await;
    let r = crate_of_a(&server).await;
    let attrs = plugin(&r, "burner");
    assert_eq!(attrs["status"], "limit", "{attrs:?}");
    assert!(attrs["note"].contains("SIGXCPU"), "{attrs:?}");
    assert!(attrs["note"].contains("cpu-secs = 1"), "{attrs:?}");
}

#[tokio::test]
async fn a_memory_hungry_tool_fails_within_the_memory_limit() {
    require_tool("perl", "apt-get install perl");
    let site = TestSite::empty();
    site.write("a.txt", b"hello", None);
    let work = tempfile::tempdir().unwrap();
    let p = plugins(
        work.path(),
        "memory-mb = 64",
        r#"
[[plugin]]
label = "hungry"
mime = "*/*"
command = ["perl", "-e", "my $x = 'a' x 500_000_000; print length $x", "{path}"]
version-command = ["perl", "-e", "print qq(hungry 1\n)"]

[[plugin]]
label = "modest"
mime = "*/*"
command = ["perl", "-e", "my $x = 'a' x 1_000_000; print length $x", "{path}"]
version-command = ["perl", "-e", "print qq(modest 1\n)"]
"#,
    )
    .await;
    let server = Server::start(site.path(), |c| c.plugins(p)).await;
    let r = crate_of_a(&server).await;
    let hungry = plugin(&r, "hungry");
    assert_eq!(hungry["status"], "limit", "{hungry:?}");
    assert!(hungry["note"].contains("memory-mb = 64"), "{hungry:?}");
    assert!(
        texts(&r.body, "stderr")
            .iter()
            .any(|t| t.contains("Out of memory")),
        "{}",
        r.text()
    );
    let modest = plugin(&r, "modest");
    assert_eq!(modest["status"], "ok", "a tool within the limit runs");
    assert!(texts(&r.body, "output").contains(&"1000000".to_owned()));
}

#[tokio::test]
async fn bad_isolation_settings_name_their_key() {
    let work = tempfile::tempdir().unwrap();
    for (settings, key) in [
        ("nice = 25", "nice"),
        ("io-class = \"fast\"", "io-class"),
        ("cpu-class = \"fast\"", "cpu-class"),
        ("cpu-secs = -3", "cpu-secs"),
        ("memory-mb = \"lots\"", "memory-mb"),
    ] {
        let path = work.path().join("plugins.toml");
        std::fs::write(&path, format!("[settings]\n{settings}\n")).unwrap();
        let err = Plugins::load(&path).await.expect_err(settings).to_string();
        assert!(err.contains(key), "{settings}: {err}");
    }
}
