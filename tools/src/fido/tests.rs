use super::*;

use std::time::Duration;

use crate::resident::Kept;
use crate::run::{Ended, Limits};

/// The `fido` program, or a panic naming the setup script if it is missing.
fn fido() -> PathBuf {
    let program = PathBuf::from("fido");
    match std::process::Command::new(&program).arg("-v").output() {
        Ok(out) if out.status.success() => program,
        Ok(out) => panic!("`fido -v` failed ({}): run scripts/setup", out.status),
        Err(e) => panic!("fido is not installed ({e}): run scripts/setup (FIDO from PyPI)"),
    }
}

/// `fido -q {paths}`, as in `plugins.toml`.
fn tool() -> Fido {
    let argv = ["fido", "-q", "{paths}"].map(String::from);
    Fido::new(&fido(), &argv, Isolation::default(), 1)
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

/// FIDO's lines without their second field, the milliseconds it took.
fn untimed(csv: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(csv)
        .lines()
        .map(|l| {
            let mut fields: Vec<&str> = l.split(',').collect();
            if fields.len() > 2 && (l.starts_with("OK,") || l.starts_with("KO,")) {
                fields.remove(1);
            }
            fields.join(",")
        })
        .collect()
}

/// What `fido -q FILES` writes.
fn one_shot(files: &[PathBuf]) -> std::process::Output {
    std::process::Command::new(fido())
        .arg("-q")
        .args(files)
        .output()
        .unwrap()
}

#[tokio::test]
async fn a_worker_answers_like_a_one_shot_batch() {
    let (_dir, files) = samples();
    let tool = tool();
    let got = tool.analyse(0, &files, &limits()).await;
    let want = one_shot(&files);
    assert_eq!(got.ended, Ended::Exited(Some(0)));
    assert_eq!(untimed(&got.stdout), untimed(&want.stdout));
    assert!(
        String::from_utf8_lossy(&got.stdout).contains("fmt/4,"),
        "the GIF is identified: {got:?}"
    );
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(stderr.starts_with("FIDO: Zero byte file"), "{stderr}");
    assert_eq!(stderr, String::from_utf8_lossy(&want.stderr));
    assert!(!String::from_utf8_lossy(&got.stdout).contains("end-"));

    // The next batch is answered by the same process, and only with its own lines.
    let again = tool.analyse(0, &files[1..2], &limits()).await;
    assert_eq!(again.ended, Ended::Exited(Some(0)));
    assert_eq!(
        untimed(&again.stdout),
        untimed(&one_shot(&files[1..2]).stdout)
    );
    assert!(untimed(&again.stdout)
        .iter()
        .all(|l| l.contains("f000002.txt")));
    assert!(again.stderr.is_empty());
    assert_eq!(tool.starts(), 1);
}

#[tokio::test]
async fn a_timeout_kills_the_worker_and_the_next_batch_restarts_it() {
    let (_dir, files) = samples();
    let tool = tool();
    let short = Limits {
        timeout: Duration::from_millis(1),
        ..limits()
    };
    let first = tool.analyse(0, &files, &short).await;
    assert_eq!(first.ended, Ended::TimedOut);
    assert!(!tool.resident(0).has_idle().await, "the worker was dropped");

    let second = tool.analyse(0, &files[..1], &limits()).await;
    assert_eq!(second.ended, Ended::Exited(Some(0)), "{second:?}");
    assert!(second.stdout.starts_with(b"OK,"), "{second:?}");
    assert_eq!(tool.starts(), 2);
}

#[tokio::test]
async fn a_dead_worker_is_replaced_and_a_started_one_is_used() {
    let (_dir, files) = samples();
    let tool = tool();
    tool.start_now();
    tool.start_now();
    assert_eq!(
        tool.starts(),
        1,
        "one worker, however often it is asked to start"
    );
    let first = tool.analyse(0, &files[..1], &limits()).await;
    assert_eq!(first.ended, Ended::Exited(Some(0)), "{first:?}");
    assert_eq!(tool.starts(), 1, "the batch used the started worker");

    tool.resident(0).kill_idle().await;
    let next = tool.analyse(0, &files[..1], &limits()).await;
    assert_eq!(next.ended, Ended::Exited(Some(0)), "{next:?}");
    assert_eq!(tool.starts(), 2);
}

#[tokio::test]
async fn output_past_the_cap_is_truncated_and_the_worker_stays_in_step() {
    let (_dir, files) = samples();
    let tool = tool();
    let capped = Limits {
        max_stdout: 10,
        ..limits()
    };
    let first = tool.analyse(0, &files, &capped).await;
    assert_eq!(first.ended, Ended::Exited(Some(0)));
    assert_eq!(first.stdout.len(), 10);
    assert!(first.truncated);

    let next = tool.analyse(0, &files[1..2], &limits()).await;
    assert_eq!(
        untimed(&next.stdout),
        untimed(&one_shot(&files[1..2]).stdout)
    );
    assert_eq!(tool.starts(), 1);
}

#[tokio::test]
async fn a_missing_program_is_not_found() {
    let argv = ["fido", "-q", "{paths}"].map(String::from);
    let tool = Fido::new(
        Path::new("/nonexistent/fido"),
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
    let argv = ["fido", "-q", "{paths}"].map(String::from);
    let tool = Fido::new(&fido(), &argv, Isolation::default(), 2);
    assert_eq!(tool.workers(), 2);
    tool.start_now();
    assert_eq!(tool.starts(), 2, "every worker starts early");
    let l = limits();
    let (a, b) = tokio::join!(
        tool.analyse(0, &files[..2], &l),
        tool.analyse(1, &files[2..], &l)
    );
    assert_eq!(untimed(&a.stdout), untimed(&one_shot(&files[..2]).stdout));
    assert_eq!(untimed(&b.stdout), untimed(&one_shot(&files[2..]).stdout));
    assert!(b.stderr.starts_with(b"FIDO: Zero byte file"), "{b:?}");
    assert!(a.stderr.is_empty(), "{a:?}");
    // Part numbers beyond the workers wrap around.
    let c = tool.analyse(3, &files[..1], &l).await;
    assert_eq!(untimed(&c.stdout), untimed(&one_shot(&files[..1]).stdout));
    assert_eq!(tool.starts(), 2);
}
