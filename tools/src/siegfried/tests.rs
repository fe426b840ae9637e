use super::*;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::time::Duration;

use crate::resident::Kept;
use crate::run::{Ended, Limits, Outcome};

/// The `modoai-siegfried` program, or a panic naming the setup script if it is missing.
fn program() -> PathBuf {
    let program = PathBuf::from("modoai-siegfried");
    match std::process::Command::new(&program)
        .arg("--version")
        .output()
    {
        Ok(out) if out.status.success() => program,
        Ok(out) => panic!(
            "`modoai-siegfried --version` failed ({}): run scripts/setup",
            out.status
        ),
        Err(e) => panic!(
            "modoai-siegfried is not installed ({e}): run scripts/setup (pygfried from PyPI)"
        ),
    }
}

/// `modoai-siegfried {paths}`, as in `plugins.toml`, with `workers` workers.
fn tool(workers: usize) -> Siegfried {
    let argv = ["modoai-siegfried", "{paths}"].map(String::from);
    Siegfried::new(&program(), &argv, Isolation::default(), workers)
}

fn limits() -> Limits {
    Limits {
        timeout: Duration::from_secs(60),
        max_stdout: 1 << 20,
        max_stderr: 64 * 1024,
    }
}

/// A 1×1 GIF, a text file, an empty JPEG and a path that does not exist, in a fresh folder.
fn samples() -> (tempfile::TempDir, Vec<PathBuf>) {
    const GIF: &[u8] = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\
        !\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;";
    let dir = tempfile::tempdir().unwrap();
    let files = ["f000001.gif", "f000002.txt", "f000003.jpg", "f000004.gif"]
        .map(|n| dir.path().join(n))
        .to_vec();
    std::fs::write(&files[0], GIF).unwrap();
    std::fs::write(&files[1], "one line\nand another\n").unwrap();
    std::fs::write(&files[2], b"").unwrap();
    (dir, files)
}

/// One answer line as JSON.
fn json(line: &str) -> serde_json::Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

/// The file entry of each answer line of `outcome`, which must have ended well.
fn entries(outcome: &Outcome) -> Vec<serde_json::Value> {
    assert_eq!(outcome.ended, Ended::Exited(Some(0)), "{outcome:?}");
    String::from_utf8(outcome.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| json(l)["files"][0].clone())
        .collect()
}

/// The PUID of an entry's first match.
fn puid(entry: &serde_json::Value) -> &str {
    entry["matches"][0]["id"].as_str().unwrap_or("")
}

/// What `modoai-siegfried FILES` writes.
fn one_shot(files: &[PathBuf]) -> Vec<u8> {
    let out = std::process::Command::new(program())
        .args(files)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    out.stdout
}

#[tokio::test]
async fn a_worker_answers_like_a_one_shot_run() {
    let (_dir, files) = samples();
    let tool = tool(1);
    let got = tool.analyse(0, &files, &limits()).await;
    assert_eq!(got.stdout, one_shot(&files));
    let e = entries(&got);
    assert_eq!(e.len(), 4, "one answer per file, in order");
    for (entry, file) in e.iter().zip(&files) {
        assert_eq!(entry["filename"], file.to_str().unwrap());
    }
    assert_eq!(puid(&e[0]), "fmt/4", "GIF 89a: {}", e[0]);
    assert_eq!(puid(&e[1]), "x-fmt/111", "Plain Text File: {}", e[1]);
    assert_eq!(e[2]["errors"], "empty source");
    assert_eq!(e[3]["errors"], "open: no such file or directory");
    assert_eq!(e[3]["matches"], serde_json::json!([]));
    let doc = json(String::from_utf8_lossy(&got.stdout).lines().next().unwrap());
    assert!(
        doc["identifiers"][0]["details"]
            .as_str()
            .unwrap()
            .contains("DROID_SignatureFile_V"),
        "the signature files: {doc}"
    );
    assert!(got.stderr.is_empty(), "{got:?}");

    // The next batch is answered by the same process, and only with its own lines.
    let again = tool.analyse(0, &files[1..2], &limits()).await;
    assert_eq!(again.stdout, one_shot(&files[1..2]));
    assert_eq!(tool.starts(), 1);
}

#[tokio::test]
async fn the_answers_say_which_files_could_not_be_identified() {
    let (_dir, files) = samples();
    let lines: Vec<Vec<u8>> = one_shot(&files)
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    assert_eq!(file_error(&lines[0]), None);
    assert_eq!(file_error(&lines[1]), None);
    assert_eq!(
        file_error(&lines[2]).as_deref(),
        Some("siegfried: empty source")
    );
    assert_eq!(
        file_error(&lines[3]).as_deref(),
        Some("siegfried: open: no such file or directory")
    );
    assert!(file_error(b"{\"siegfried\":\"1.11.9\",\"fil").is_some());
}

/// Bad input and then a good file in one batch, and a good file in the next: each bad input has
/// its own answer, and the answers that follow are their files' own.
async fn stays_in_step(tool: &Siegfried, bad: &Path, why: &str) {
    let (_dir, files) = samples();
    let batch = [bad.to_owned(), files[0].clone()];
    let got = tool.analyse(0, &batch, &limits()).await;
    let e = entries(&got);
    assert_eq!(e.len(), 2, "{got:?}");
    assert_eq!(e[0]["errors"], why, "{}", e[0]);
    assert_eq!(e[0]["filename"], bad.to_string_lossy().as_ref());
    assert_eq!(e[1]["filename"], files[0].to_str().unwrap());
    assert_eq!(puid(&e[1]), "fmt/4", "{}", e[1]);
    let next = tool.analyse(0, &files[1..2], &limits()).await;
    let e = entries(&next);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0]["filename"], files[1].to_str().unwrap());
    assert_eq!(puid(&e[0]), "x-fmt/111");
}

#[tokio::test]
async fn bad_input_gets_its_answer_and_the_worker_stays_in_step() {
    let tool = tool(1);
    let dir = tempfile::tempdir().unwrap();

    let empty = dir.path().join("empty.pdf");
    std::fs::write(&empty, b"").unwrap();
    stays_in_step(&tool, &empty, "empty source").await;

    let gone = dir.path().join("gone.jpg");
    std::fs::write(&gone, b"\xff\xd8\xff\xe0").unwrap();
    std::fs::remove_file(&gone).unwrap();
    stays_in_step(&tool, &gone, "open: no such file or directory").await;

    let fifo = dir.path().join("pipe.txt");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    stays_in_step(&tool, &fifo, "not a regular file: a FIFO").await;
    stays_in_step(&tool, dir.path(), "not a regular file: a directory").await;

    // Names the framing must carry: a newline, bytes that are not UTF-8. The file is read.
    for name in [&b"two\nlines.txt"[..], b"caf\xe9 \xff.txt"] {
        let odd = dir.path().join(OsStr::from_bytes(name));
        std::fs::write(&odd, "plain text\n").unwrap();
        stays_in_step(&tool, &odd, "").await;
        let e = entries(&tool.analyse(0, std::slice::from_ref(&odd), &limits()).await);
        assert_eq!(puid(&e[0]), "x-fmt/111", "{}", e[0]);
    }
    assert_eq!(tool.starts(), 1, "one worker answered everything");
}

#[tokio::test]
async fn a_sparse_file_of_2_gib_times_out_and_the_next_batch_restarts_the_worker() {
    let (dir, files) = samples();
    let sparse = dir.path().join("f000005.img");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let tool = tool(1);
    let short = Limits {
        timeout: Duration::from_secs(2),
        ..limits()
    };
    // Siegfried reads a file of zeros whole, at about 80 MB/s: far longer than the limit.
    let first = tool.analyse(0, &[sparse, files[0].clone()], &short).await;
    assert_eq!(first.ended, Ended::TimedOut);
    assert!(!tool.resident(0).has_idle().await, "the worker was dropped");

    let second = tool.analyse(0, &files[..2], &limits()).await;
    let e = entries(&second);
    assert_eq!((puid(&e[0]), puid(&e[1])), ("fmt/4", "x-fmt/111"));
    assert_eq!(tool.starts(), 2);
}

#[tokio::test]
async fn a_dead_worker_is_replaced_and_a_started_one_is_used() {
    let (_dir, files) = samples();
    let tool = tool(1);
    tool.start_now();
    tool.start_now();
    assert_eq!(
        tool.starts(),
        1,
        "one worker, however often it is asked to start"
    );
    let first = tool.analyse(0, &files[..1], &limits()).await;
    assert_eq!(entries(&first).len(), 1);
    assert_eq!(tool.starts(), 1, "the batch used the started worker");

    tool.resident(0).kill_idle().await;
    let next = tool.analyse(0, &files[..1], &limits()).await;
    assert_eq!(puid(&entries(&next)[0]), "fmt/4");
    assert_eq!(tool.starts(), 2);
}

#[tokio::test]
async fn a_missing_program_is_not_found() {
    let argv = ["modoai-siegfried", "{paths}"].map(String::from);
    let tool = Siegfried::new(
        Path::new("/nonexistent/modoai-siegfried"),
        &argv,
        Isolation::default(),
        1,
    );
    let (_dir, files) = samples();
    let outcome = tool.analyse(0, &files, &limits()).await;
    assert_eq!(outcome.ended, Ended::NotFound);
    assert_eq!(tool.starts(), 0);
}

#[tokio::test]
async fn parts_of_a_batch_run_on_their_own_workers_at_once() {
    let (_dir, files) = samples();
    let tool = tool(2);
    assert_eq!(tool.workers(), 2);
    tool.start_now();
    assert_eq!(tool.starts(), 2, "every worker starts early");
    let l = limits();
    let (a, b) = tokio::join!(
        tool.analyse(0, &files[..2], &l),
        tool.analyse(1, &files[2..], &l)
    );
    assert_eq!(a.stdout, one_shot(&files[..2]));
    assert_eq!(b.stdout, one_shot(&files[2..]));
    // Part numbers beyond the workers wrap around.
    let c = tool.analyse(3, &files[..1], &l).await;
    assert_eq!(c.stdout, one_shot(&files[..1]));
    assert_eq!(tool.starts(), 2);
}
