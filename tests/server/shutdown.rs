//! SIGTERM with the real `modoai` binary: the server exits within its grace period even
//! when a tool hangs, leaves no tool process behind, and lets a response that is streaming a large
//! `oai_didl` body finish. Time bounds here detect hangs (grace plus a generous margin); they are
//! not performance thresholds.

use std::io::Read;
use std::process::Command;
use std::time::{Duration, Instant};

use base64::Engine;
use integration_tests::http::{get, read_some, send_get, MARGIN};
use integration_tests::process::{signal, start_modoai, Running};
use rustix::process::Signal;

fn sigterm(server: &Running) {
    signal(server.0.id(), Signal::TERM);
}

/// Waits for the server to exit; panics when it takes longer than `bound`.
fn exits_within(server: &mut Running, bound: Duration) -> std::process::ExitStatus {
    let t = Instant::now();
    loop {
        if let Some(status) = server.0.try_wait().unwrap() {
            return status;
        }
        assert!(
            t.elapsed() < bound,
            "the server did not exit within {bound:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Pids of live processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                s.rsplit_once(')')
                    .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
            })
            .unwrap_or(true);
        if !zombie && String::from_utf8_lossy(&cmdline).contains(marker) {
            found.push(pid);
        }
    }
    found
}

#[test]
fn sigterm_kills_hanging_tools_and_leaves_no_process() {
    let exiftool = program_path("exiftool", "Debian package libimage-exiftool-perl");
    let fido = program_path("fido", "FIDO from PyPI");
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("a.txt"), "hello").unwrap();
    std::fs::write(root.path().join("b.txt"), "world").unwrap();
    let work = tempfile::tempdir().unwrap();
    let marker = format!("modoai-hang-{}-{}", std::process::id(), rand_suffix());
    // The ExifTool and FIDO workers carry the marker in their programs' names.
    let tool = work.path().join(format!("exiftool-{marker}"));
    std::os::unix::fs::symlink(&exiftool, &tool).unwrap();
    let fido_tool = work.path().join(format!("fido-{marker}"));
    std::os::unix::fs::symlink(&fido, &fido_tool).unwrap();
    let plugins = work.path().join("plugins.toml");
    std::fs::write(
        &plugins,
        format!(
            r#"[settings]
cache-dir = "cache"
timeout-secs = 3600

[[plugin]]
label = "exiftool"
mime = "*/*"
runner = "exiftool"
command = ["{tool}", "-X", "--System:all", "{{path}}"]
version-command = ["{tool}", "-ver"]
output = "xml"

[[plugin]]
label = "fido"
mime = "*/*"
runner = "fido-batch"
command = ["{fido_tool}", "-q", "{{paths}}"]
version-command = ["{fido_tool}", "-v"]
output = "text"

[[plugin]]
label = "hang"
mime = "text/*"
command = ["sh", "-c", "sh -c 'sleep 3600; :' {marker}-child & sleep 3600; :", "{marker}", "{{path}}"]
version-command = ["sh", "-c", "echo hang 1"]
"#,
            tool = tool.display(),
            fido_tool = fido_tool.display()
        ),
    )
    .unwrap();
    let grace = 2;
    let (mut server, port) = start_modoai(
        root.path(),
        work.path(),
        &format!(
            "[server]\nplugins = \"{}\"\ngrace-secs = {grace}\n",
            plugins.display()
        ),
        &["--no-watch"],
    );
    let id = format!("http://127.0.0.1:{port}/a.txt");
    let target = format!("/modoai?verb=GetRecord&metadataPrefix=oai_crate&identifier={id}");
    let client = std::thread::spawn(move || get(port, &target));
    // The hanging tool and its child, and the ExifTool and FIDO workers, are running.
    let t = Instant::now();
    while processes_with(&marker).len() < 4 {
        assert!(
            t.elapsed() < MARGIN,
            "the tools did not start: {:?}",
            processes_with(&marker)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    sigterm(&server);
    let status = exits_within(&mut server, Duration::from_secs(grace) + MARGIN);
    assert!(status.success(), "{status}");
    let _ = client.join();
    // Killed processes are reaped by init; allow that a moment.
    let t = Instant::now();
    while !processes_with(&marker).is_empty() && t.elapsed() < MARGIN {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(processes_with(&marker), Vec::<u32>::new(), "orphans remain");
}

/// Where `tool` is on `PATH`, or a panic naming the setup script.
fn program_path(tool: &str, package: &str) -> String {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .unwrap();
    assert!(
        found.status.success(),
        "{tool} is not installed: run scripts/setup ({package})"
    );
    String::from_utf8(found.stdout).unwrap().trim().to_owned()
}

fn rand_suffix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
}

#[test]
fn a_response_streaming_at_sigterm_completes_within_grace() {
    let root = tempfile::tempdir().unwrap();
    // 24 MiB of varied bytes: its Base64 far exceeds what socket buffers and the response
    // channel hold, so the response is mid-stream when the signal comes.
    let bytes: Vec<u8> = (0..24u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(root.path().join("big.bin"), &bytes).unwrap();
    let work = tempfile::tempdir().unwrap();
    let grace = 60;
    let (mut server, port) = start_modoai(
        root.path(),
        work.path(),
        &format!("[server]\ngrace-secs = {grace}\n[oai]\ninline-max = 1000000000\n"),
        &["--no-watch"],
    );
    let id = format!("http://127.0.0.1:{port}/big.bin");
    let target = format!("/modoai?verb=GetRecord&metadataPrefix=oai_didl&identifier={id}");
    let mut s = send_get(port, &target, &[]).expect("the server listens");
    let mut response = vec![0u8; 64 * 1024];
    let n = read_some(&mut s, &mut response).unwrap();
    response.truncate(n);
    assert!(response.starts_with(b"HTTP/1.0 200"), "{response:?}");
    sigterm(&server);
    // The server stops accepting while this response goes on.
    std::thread::sleep(Duration::from_millis(300));
    s.read_to_end(&mut response).unwrap();
    let status = exits_within(&mut server, Duration::from_secs(grace) + MARGIN);
    assert!(status.success(), "{status}");
    let text = String::from_utf8(response).expect("UTF-8 XML");
    let body = &text[text.find("\r\n\r\n").unwrap() + 4..];
    assert!(
        body.trim_end().ends_with("</OAI-PMH>"),
        "the whole document"
    );
    let start = body.find("encoding=\"base64\">").expect("inline bytes") + 18;
    let end = start + body[start..].find('<').unwrap();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(body[start..end].trim())
        .unwrap();
    assert!(decoded == bytes, "the file's exact bytes");
    assert!(
        get(port, "/modoai?verb=Identify").is_empty(),
        "the server is gone"
    );
}
