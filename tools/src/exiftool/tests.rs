use super::*;

use std::path::Path;

/// The `exiftool` program, or a panic naming the setup script if it is missing.
fn exiftool() -> OsString {
    let program = OsString::from("exiftool");
    match std::process::Command::new(&program).arg("-ver").output() {
        Ok(out) if out.status.success() => program,
        Ok(out) => panic!("`exiftool -ver` failed ({}): run scripts/setup", out.status),
        Err(e) => panic!(
            "exiftool is not installed ({e}): run scripts/setup \
             (Debian package libimage-exiftool-perl)"
        ),
    }
}

fn tool() -> ExifTool {
    ExifTool::new(
        exiftool(),
        Duration::from_secs(30),
        1 << 20,
        Isolation::default(),
    )
}

/// `-X --System:all PATH`: RDF/XML without the volatile file-system fields.
fn xml_args(path: &Path) -> Vec<OsString> {
    vec!["-X".into(), "--System:all".into(), path.into()]
}

/// A 1×1 GIF and a small text file in a fresh folder.
fn samples() -> (tempfile::TempDir, [std::path::PathBuf; 2]) {
    const GIF: &[u8] = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\
        !\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;";
    let dir = tempfile::tempdir().unwrap();
    let gif = dir.path().join("f000001.gif");
    let txt = dir.path().join("f000002.txt");
    std::fs::write(&gif, GIF).unwrap();
    std::fs::write(&txt, "one line\nand another\n").unwrap();
    (dir, [gif, txt])
}

#[tokio::test]
async fn one_worker_answers_like_one_shot_runs() {
    let (_dir, files) = samples();
    let tool = tool();
    for file in &files {
        let args = xml_args(file);
        let got = tool.analyse(&args).await;
        let want = std::process::Command::new(exiftool())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(got.ended, Ended::Exited(Some(0)));
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want.stdout)
        );
        assert!(got.stdout.starts_with(b"<?xml"), "{:?}", got);
        assert!(got.stderr.is_empty(), "{:?}", got);
        assert!(!got.truncated);
    }
    assert_eq!(tool.starts(), 1);
}

#[tokio::test]
async fn stderr_belongs_to_its_request() {
    let (dir, files) = samples();
    let tool = tool();
    let missing = tool
        .analyse(&xml_args(&dir.path().join("f000009.gif")))
        .await;
    assert_eq!(missing.ended, Ended::Exited(Some(1)), "{missing:?}");
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("File not found"), "{stderr}");
    assert!(
        !stderr.contains("{done"),
        "the marker is not output: {stderr}"
    );

    let clean = tool.analyse(&xml_args(&files[0])).await;
    assert_eq!(clean.ended, Ended::Exited(Some(0)));
    assert!(clean.stderr.is_empty(), "{clean:?}");
    assert!(!clean.stdout.is_empty());
    assert_eq!(tool.starts(), 1);
}

#[tokio::test]
async fn timeout_kills_the_worker_and_the_next_request_restarts_it() {
    let (_dir, files) = samples();
    let tool = tool();
    let first = tool
        .analyse_all_within(&[xml_args(&files[0])], Duration::from_millis(1))
        .await
        .pop()
        .unwrap();
    assert_eq!(first.ended, Ended::TimedOut);
    assert!(!tool.resident.has_idle().await, "the worker was dropped");

    let second = tool.analyse(&xml_args(&files[0])).await;
    assert_eq!(second.ended, Ended::Exited(Some(0)), "{second:?}");
    assert!(!second.stdout.is_empty());
    assert_eq!(tool.starts(), 2);
}

#[tokio::test]
async fn a_dropped_request_drops_its_worker() {
    let (_dir, files) = samples();
    let tool = tool();
    let args = xml_args(&files[0]);
    let abandoned = tokio::time::timeout(Duration::from_millis(1), tool.analyse(&args));
    assert!(abandoned.await.is_err());

    let next = tool.analyse(&xml_args(&files[1])).await;
    assert_eq!(next.ended, Ended::Exited(Some(0)), "{next:?}");
    assert_eq!(tool.starts(), 2);
}

#[tokio::test]
async fn a_dead_worker_is_replaced() {
    let (_dir, files) = samples();
    let tool = tool();
    assert_eq!(
        tool.analyse(&xml_args(&files[0])).await.ended,
        Ended::Exited(Some(0))
    );
    tool.resident.kill_idle().await;

    let next = tool.analyse(&xml_args(&files[1])).await;
    assert_eq!(next.ended, Ended::Exited(Some(0)), "{next:?}");
    assert_eq!(tool.starts(), 2);
}

#[tokio::test]
async fn output_past_the_cap_is_truncated_and_the_worker_stays_in_step() {
    let (_dir, files) = samples();
    let tool = ExifTool::new(
        exiftool(),
        Duration::from_secs(30),
        100,
        Isolation::default(),
    );
    let capped = tool.analyse(&xml_args(&files[0])).await;
    assert_eq!(capped.ended, Ended::Exited(Some(0)));
    assert_eq!(capped.stdout.len(), 100);
    assert!(capped.truncated);

    let small = tool
        .analyse(&["-s3".into(), "-FileType".into(), files[1].clone().into()])
        .await;
    assert_eq!(small.ended, Ended::Exited(Some(0)));
    assert_eq!(small.stdout, b"TXT\n");
    assert_eq!(tool.starts(), 1);
}

#[tokio::test]
async fn a_missing_program_is_not_found() {
    let tool = ExifTool::new(
        "/nonexistent/exiftool".into(),
        Duration::from_secs(5),
        1024,
        Isolation::default(),
    );
    let outcome = tool.analyse(&["-ver".into()]).await;
    assert_eq!(outcome.ended, Ended::NotFound);
    assert_eq!(tool.starts(), 0);
}

#[tokio::test]
async fn arguments_the_argfile_cannot_carry_are_refused() {
    let tool = ExifTool::new(
        "/nonexistent/exiftool".into(),
        Duration::from_secs(5),
        1024,
        Isolation::default(),
    );
    for arg in [
        "a\nb",
        "",
        " lead",
        "#x",
        "--",
        "-stay_open",
        "-EXECUTE3",
        "-@",
    ] {
        let outcome = tool.analyse(&["-X".into(), arg.into()]).await;
        match outcome.ended {
            Ended::Failed(reason) => assert!(reason.contains("cannot be sent"), "{reason}"),
            other => panic!("{arg:?}: {other:?}"),
        }
    }
    assert_eq!(tool.starts(), 0, "nothing was started");
}

#[tokio::test]
async fn a_page_of_requests_written_ahead_answers_each_like_one_shot_runs() {
    let (_dir, files) = samples();
    let tool = tool();
    let requests = vec![
        xml_args(&files[0]),
        vec!["-X".into(), "bad\narg".into()],
        xml_args(&files[1]),
        xml_args(&files[0].with_file_name("f000009.gif")),
        xml_args(&files[0]),
    ];
    let got = tool.analyse_all(&requests).await;
    assert_eq!(got.len(), 5);
    for i in [0, 2, 4] {
        let want = std::process::Command::new(exiftool())
            .args(&requests[i])
            .output()
            .unwrap();
        assert_eq!(got[i].ended, Ended::Exited(Some(0)), "{i}: {:?}", got[i]);
        assert_eq!(
            String::from_utf8_lossy(&got[i].stdout),
            String::from_utf8_lossy(&want.stdout)
        );
        assert!(got[i].stderr.is_empty(), "{i}: {:?}", got[i]);
    }
    match &got[1].ended {
        Ended::Failed(reason) => assert!(reason.contains("cannot be sent"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(got[3].ended, Ended::Exited(Some(1)), "{:?}", got[3]);
    assert!(String::from_utf8_lossy(&got[3].stderr).contains("File not found"));
    assert_eq!(tool.starts(), 1, "one worker answered the page");
}

#[tokio::test]
async fn after_a_timeout_the_rest_of_the_page_goes_to_a_fresh_worker() {
    let (_dir, files) = samples();
    let tool = tool();
    let requests = vec![xml_args(&files[0]), xml_args(&files[1])];
    let got = tool
        .analyse_all_within(&requests, Duration::from_millis(1))
        .await;
    assert_eq!(got.len(), 2);
    assert!(got.iter().all(|o| o.ended == Ended::TimedOut), "{got:?}");
    assert_eq!(
        tool.starts(),
        2,
        "the second request had a worker of its own"
    );
    let next = tool.analyse_all(&requests).await;
    assert!(
        next.iter().all(|o| o.ended == Ended::Exited(Some(0))),
        "{next:?}"
    );
}
