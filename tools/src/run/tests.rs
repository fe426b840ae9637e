use super::*;

use std::sync::Arc;

/// Generous limits: 30 s, 1 MiB of stdout, 64 KiB of stderr.
fn limits() -> Limits {
    Limits {
        timeout: Duration::from_secs(30),
        max_stdout: 1 << 20,
        max_stderr: 64 << 10,
    }
}

fn argv(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// `sh -c SCRIPT ARGS…`.
fn sh(script: &str, args: &[&str]) -> Vec<OsString> {
    let mut v = argv(&["sh", "-c", script, "sh"]);
    v.extend(args.iter().map(OsString::from));
    v
}

async fn run_with(argv: &[OsString], stdin: Option<Vec<u8>>, limits: &Limits) -> Outcome {
    run(argv, stdin, limits, &Semaphore::new(1)).await
}

/// State and process group of a process from `/proc/PID/stat`, `None` if there is no such process.
fn stat(pid: i32) -> Option<(char, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may contain spaces and parentheses: fields resume after the last ')'.
    let mut fields = text[text.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?.chars().next()?;
    let pgrp = fields.nth(1)?.parse().ok()?;
    Some((state, pgrp))
}

/// Whether `pid` is a running (not zombie) process.
fn alive(pid: i32) -> bool {
    matches!(stat(pid), Some((state, _)) if state != 'Z' && state != 'X')
}

/// Running (not zombie) processes whose process group is `pgid`.
fn group_members(pgid: i32) -> Vec<i32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        if let Some((state, pgrp)) = stat(pid) {
            if pgrp == pgid && state != 'Z' && state != 'X' {
                members.push(pid);
            }
        }
    }
    members
}

/// Asserts that no process of group `pgid` nor `pid` runs, allowing the kernel a moment to
/// deliver SIGKILL (the deadline only bounds a failing test).
async fn assert_gone(pgid: i32, pid: i32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !group_members(pgid).is_empty() || alive(pid) {
        assert!(
            Instant::now() < deadline,
            "still running: group {pgid}: {:?}, grandchild {pid}: {:?}",
            group_members(pgid),
            stat(pid)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The two numbers `$$ $!` a script printed: its own pid (= its process group) and its child's.
fn pids(text: &[u8]) -> (i32, i32) {
    let text = std::str::from_utf8(text).unwrap();
    let mut it = text.split_whitespace().map(|s| s.parse().unwrap());
    (it.next().unwrap(), it.next().unwrap())
}

#[tokio::test]
async fn exit_codes() {
    let ok = run_with(&argv(&["true"]), None, &limits()).await;
    assert_eq!(ok.ended, Ended::Exited(Some(0)));
    let three = run_with(&sh("echo out; echo err >&2; exit 3", &[]), None, &limits()).await;
    assert_eq!(three.ended, Ended::Exited(Some(3)));
    assert_eq!(three.stdout, b"out\n");
    assert_eq!(three.stderr, b"err\n");
    assert!(!three.truncated);
    let killed = run_with(&sh("kill -9 $$", &[]), None, &limits()).await;
    assert_eq!(killed.ended, Ended::Killed(9));
}

#[tokio::test]
async fn a_missing_program_is_not_found() {
    for program in ["/nonexistent/tool", "modoai-no-such-tool"] {
        let outcome = run_with(&argv(&[program]), None, &limits()).await;
        assert_eq!(outcome.ended, Ended::NotFound, "{program}");
    }
}

#[tokio::test]
async fn other_start_failures_are_failed() {
    let dir = tempfile::tempdir().unwrap();
    let not_executable = dir.path().join("tool");
    std::fs::write(&not_executable, "#!/bin/sh\n").unwrap();
    let outcome = run_with(&[not_executable.into()], None, &limits()).await;
    assert!(matches!(outcome.ended, Ended::Failed(_)), "{outcome:?}");
    let empty = run_with(&[], None, &limits()).await;
    assert!(matches!(empty.ended, Ended::Failed(_)), "{empty:?}");
}

#[tokio::test]
async fn large_output_on_both_streams_is_capped_without_deadlock() {
    // stderr first: a runner that read stdout to its end before stderr would hang here.
    let script = "head -c 5000000 /dev/zero >&2; head -c 5000000 /dev/zero; echo end >&2";
    let outcome = run_with(&sh(script, &[]), None, &limits()).await;
    assert_eq!(outcome.ended, Ended::Exited(Some(0)));
    assert_eq!(outcome.stdout.len(), 1 << 20);
    assert_eq!(outcome.stderr.len(), 64 << 10);
    assert!(outcome.truncated);
}

#[tokio::test]
async fn output_exactly_at_the_cap_is_not_truncated() {
    let limits = Limits {
        max_stdout: 3,
        max_stderr: 3,
        ..limits()
    };
    let at = run_with(&sh("printf abc; printf def >&2", &[]), None, &limits).await;
    assert_eq!(
        (&at.stdout[..], &at.stderr[..], at.truncated),
        (&b"abc"[..], &b"def"[..], false)
    );
    let past = run_with(&sh("printf abcd", &[]), None, &limits).await;
    assert_eq!((&past.stdout[..], past.truncated), (&b"abc"[..], true));
}

#[tokio::test]
async fn stdin_is_fed_or_closed() {
    let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    let limits = Limits {
        max_stdout: 4 << 20,
        ..limits()
    };
    // More than a pipe holds each way: feeding and draining must run together.
    let echoed = run_with(&argv(&["cat"]), Some(big.clone()), &limits).await;
    assert_eq!(echoed.ended, Ended::Exited(Some(0)));
    assert!(
        echoed.stdout == big,
        "cat returned {} bytes",
        echoed.stdout.len()
    );

    let closed = run_with(&argv(&["cat"]), None, &limits).await;
    assert_eq!(closed.ended, Ended::Exited(Some(0)));
    assert!(closed.stdout.is_empty());

    let unread = run_with(&argv(&["true"]), Some(big), &limits).await;
    assert_eq!(
        unread.ended,
        Ended::Exited(Some(0)),
        "a tool may ignore its input"
    );
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    let limits = Limits {
        timeout: Duration::from_millis(300),
        ..limits()
    };
    let outcome = run_with(&sh("sleep 100 & echo $$ $!; wait", &[]), None, &limits).await;
    assert_eq!(outcome.ended, Ended::TimedOut);
    assert!(outcome.duration >= Duration::from_millis(300));
    // What the tool wrote before the timeout is kept.
    let (pgid, grandchild) = pids(&outcome.stdout);
    assert_gone(pgid, grandchild).await;
}

#[tokio::test]
async fn leftovers_of_a_finished_tool_are_killed() {
    // The background sleep keeps stdout open after the shell exits; without killing the group
    // the run would last until the 30 s timeout.
    let outcome = run_with(&sh("sleep 100 & echo $$ $!", &[]), None, &limits()).await;
    assert_eq!(outcome.ended, Ended::Exited(Some(0)));
    let (pgid, grandchild) = pids(&outcome.stdout);
    assert_gone(pgid, grandchild).await;
}

#[tokio::test]
async fn dropping_the_run_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let argv = sh(
        "sleep 100 & echo $$ $! > \"$1\"; wait",
        &[pid_file.to_str().unwrap()],
    );
    let permits = Arc::new(Semaphore::new(1));
    let task = tokio::spawn({
        let permits = Arc::clone(&permits);
        async move { run(&argv, None, &limits(), &permits).await }
    });
    let text = loop {
        match std::fs::read_to_string(&pid_file) {
            Ok(text) if text.ends_with('\n') => break text,
            _ => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    };
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    let (pgid, grandchild) = pids(text.as_bytes());
    assert_gone(pgid, grandchild).await;
    assert_eq!(permits.available_permits(), 1, "the permit was given back");
}

#[tokio::test]
async fn one_permit_runs_one_process_at_a_time() {
    let permits = Semaphore::new(1);
    let (sleep, limits) = (argv(&["sleep", "0.3"]), limits());
    let started = Instant::now();
    let (a, b) = tokio::join!(
        run(&sleep, None, &limits, &permits),
        run(&sleep, None, &limits, &permits)
    );
    assert_eq!(
        (a.ended, b.ended),
        (Ended::Exited(Some(0)), Ended::Exited(Some(0)))
    );
    assert!(
        started.elapsed() >= Duration::from_millis(600),
        "the two runs overlapped: {:?}",
        started.elapsed()
    );
}
