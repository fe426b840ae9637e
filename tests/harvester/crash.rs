//! kill -9 at random moments, then the same command again: every file ends up in the archive
//! exactly once, no `.open` file is left, and warcio finds every record whole.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use integration_tests::process::program;
use integration_tests::{Server, TestSite};
use rand::{Rng, SeedableRng};

use super::our_server::site_files;
use super::{archive_check, assert_each_file_once, harvest_ok, pywb_replay};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_harvests_complete_with_every_record_exactly_once() {
    let seed: u64 = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    println!("seed {seed}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let site = TestSite::empty();
    for i in 0..24u32 {
        // A mix of small text and 0.5-2 MB incompressible files, so kills land mid-record too.
        let len = if i % 4 == 0 {
            rng.random_range(500_000..2_000_000)
        } else {
            rng.random_range(10..5_000)
        };
        let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        site.write(
            &format!("f{i:02}.bin"),
            &bytes,
            Some(1_700_000_000 + u64::from(i)),
        );
    }
    let server = Server::start(site.path(), |c| c.page_size(3)).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let a = archive.to_str().unwrap().to_owned();
    let args = vec![
        "harvest".to_owned(),
        server.oai.clone(),
        "--archive".into(),
        a.clone(),
        "--metadata-prefix".into(),
        "oai_didl".into(),
        "--max-file-size".into(),
        "3000000".into(),
    ];
    let mut kills = 0;
    let kill_points: Vec<u64> = (0..6).map(|_| rng.random_range(20..1500)).collect();
    for wait in kill_points {
        let args = args.clone();
        let killed = tokio::task::spawn_blocking(move || {
            let mut child = Command::new(program("modoai-harvester"))
                .args(&args)
                .arg("--quiet")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let start = Instant::now();
            while start.elapsed() < Duration::from_millis(wait) {
                if child.try_wait().unwrap().is_some() {
                    return false;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            true
        })
        .await
        .unwrap();
        kills += usize::from(killed);
    }
    println!("killed {kills} times");
    let out = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        harvest_ok(&args, 0)
    })
    .await
    .unwrap();
    println!("{out}");
    let files = site_files(site.path(), &server.base);
    assert_each_file_once(&archive, &files);
    // Exactly one resource per file in the index.
    let index = std::fs::read_to_string(archive.join("index.cdxj")).unwrap();
    for (url, _) in &files {
        let n = index
            .lines()
            .filter(|l| l.contains(&format!("\"url\": \"{url}\"")))
            .count();
        assert_eq!(n, 1, "{url} indexed {n} times");
    }
    archive_check(&archive);
    pywb_replay(&archive, &files[..4], &[]);
    server.stop().await;
}
