//! `--store`: WARC files moved to a real S3 server (s3s-fs) and checked, the index, ledger and
//! state beside them, `fetch-archive` bringing back an archive pywb replays; kill -9 between the
//! steps of an upload, and a store that refuses or does not answer.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use integration_tests::process::{free_port, program};
use integration_tests::s3::S3Server;
use integration_tests::{Server, TestSite};
use rand::{Rng, SeedableRng};

use super::our_server::site_files;
use super::{archive_check, pywb_replay};

const BUCKET: &str = "archives";

/// The harvester with `args` and the environment `env`.
fn run(args: &[&str], env: &[(&str, String)]) -> Output {
    Command::new(program("modoai-harvester"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .env("RUST_LOG", "warn")
        .output()
        .expect("run modoai-harvester")
}

/// Like [`run`], asserting the exit code; returns stderr.
fn run_ok(args: &[&str], env: &[(&str, String)], code: i32) -> String {
    let out = run(args, env);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "modoai-harvester {args:?}\nstdout:\n{}\nstderr:\n{stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

/// A site with small files and one of 9 MB (random, so its WARC file needs a multipart upload).
fn site(seed: u64) -> TestSite {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let site = TestSite::empty();
    for i in 0..5u32 {
        let text = format!("file {i} of seed {seed}\n").repeat(50);
        site.write(
            &format!("f{i}.txt"),
            text.as_bytes(),
            Some(1_700_000_000 + u64::from(i)),
        );
    }
    let big: Vec<u8> = (0..9_000_000).map(|_| rng.random()).collect();
    site.write("big.bin", &big, Some(1_700_000_100));
    site
}

/// The closed WARC files of a folder.
fn warc_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".warc.gz"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn harvest_args<'a>(oai: &'a str, archive: &'a str, store: &'a str) -> Vec<&'a str> {
    vec![
        "harvest",
        oai,
        "--archive",
        archive,
        "--store",
        store,
        "--quiet",
        "--metadata-prefix",
        "oai_didl",
        "--max-file-size",
        "200000",
    ]
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The journal's pending uploads.
fn pending(archive: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(archive.join("store.json")).unwrap_or_default();
    let journal: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    journal["pending"].as_array().cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn harvests_move_their_warcs_to_the_store_and_fetch_archive_brings_back_a_replayable_archive()
{
    let s3 = S3Server::start(BUCKET);
    let site = site(1);
    let server = Server::start(site.path(), |c| c.page_size(2)).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let oai = server.oai.clone();
    let env = s3.env();
    let store = format!("s3://{BUCKET}/nsl/site-a");
    let (a, st) = (archive.clone(), store.clone());
    let env2 = env.clone();
    tokio::task::spawn_blocking(move || {
        run_ok(&harvest_args(&oai, path(&a), &st), &env2, 0);
    })
    .await
    .unwrap();
    // The local WARC files are gone; the store has them, beside copies of the other files.
    assert_eq!(warc_files(&archive.join("warcs")), Vec::<String>::new());
    let stored = warc_files(&s3.object(BUCKET, "nsl/site-a/warcs"));
    assert!(!stored.is_empty());
    for name in ["ledger.jsonl", "index.cdxj", "state.json"] {
        let object = std::fs::read(s3.object(BUCKET, &format!("nsl/site-a/{name}"))).unwrap();
        assert_eq!(object, std::fs::read(archive.join(name)).unwrap(), "{name}");
    }
    assert!(pending(&archive).is_empty());
    assert!(s3.incomplete_parts().is_empty());
    // `inspect archive` says where the WARC files went.
    let out = run(&["inspect", "archive", path(&archive)], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("{} more WARC files in {store}", stored.len())),
        "{text}"
    );
    // Downloaded, the archive is whole again: warcio, our index against theirs, pywb.
    let copy = work.path().join("copy");
    let (c, st) = (copy.clone(), store.clone());
    let stderr = tokio::task::spawn_blocking(move || {
        run_ok(
            &["fetch-archive", "--store", &st, "--out", path(&c)],
            &env,
            0,
        )
    })
    .await
    .unwrap();
    assert!(stderr.contains("fetched"), "{stderr}");
    assert_eq!(warc_files(&copy.join("warcs")), stored);
    archive_check(&copy);
    pywb_replay(&copy, &site_files(site.path(), &server.base), &[]);
    let out = run(&["inspect", "archive", path(&copy)], &[]);
    assert!(out.status.success());
    server.stop().await;
}

/// Runs a harvest that kills itself at `point`; asserts it died of SIGKILL.
fn killed_at(point: &str, args: &[&str], env: &[(&str, String)]) {
    use std::os::unix::process::ExitStatusExt as _;
    let mut env = env.to_vec();
    env.push(("MODOAI_HARVESTER_CRASH", point.to_owned()));
    let out = run(args, &env);
    assert_eq!(
        out.status.signal(),
        Some(9),
        "{point}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_harvest_killed_mid_upload_or_before_removing_a_warc_is_finished_by_the_next_run() {
    let s3 = S3Server::start(BUCKET);
    let site = site(2);
    let server = Server::start(site.path(), |c| c.page_size(2)).await;
    // A second endpoint, harvested into the same archive later: new WARC files.
    let late = TestSite::empty();
    late.write("late.txt", b"a file harvested later\n", Some(1_700_000_000));
    let late_server = Server::start(late.path(), |c| c.page_size(2)).await;
    let late_oai = late_server.oai.clone();
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let (oai, store) = (server.oai.clone(), format!("s3://{BUCKET}/crash"));
    let env = s3.env();
    let warcs = archive.join("warcs");
    let stored_dir = s3.object(BUCKET, "crash/warcs");
    let a = archive.clone();
    let s3 = tokio::task::spawn_blocking(move || {
        let args = harvest_args(&oai, path(&a), &store);
        // kill -9 with one part of a multipart upload sent: the upload is left incomplete.
        killed_at("store-part", &args, &env);
        assert!(!s3.incomplete_parts().is_empty());
        let journal = pending(&a);
        assert_eq!(journal.len(), 1, "{journal:?}");
        assert_eq!(journal[0]["step"], "uploading");
        let big = journal[0]["file"].as_str().unwrap().to_owned();
        assert!(warc_files(&a.join("warcs")).contains(&big));
        // The next run aborts it, uploads everything and removes the local copies.
        run_ok(&args, &env, 0);
        assert!(s3.incomplete_parts().is_empty());
        assert!(pending(&a).is_empty());
        assert!(warc_files(&a.join("warcs")).is_empty());
        assert!(warc_files(&stored_dir).contains(&big));
        // New files; kill -9 after a WARC file is uploaded and verified, before it is removed.
        let args = harvest_args(&late_oai, path(&a), &store);
        killed_at("store-verified", &args, &env);
        let journal = pending(&a);
        assert_eq!(journal.len(), 1, "{journal:?}");
        assert_eq!(journal[0]["step"], "uploaded");
        let late = journal[0]["file"].as_str().unwrap().to_owned();
        assert!(warc_files(&a.join("warcs")).contains(&late));
        assert!(warc_files(&stored_dir).contains(&late));
        // The next run verifies it again (no new upload needed) and removes the local copy.
        run_ok(&args, &env, 0);
        assert!(pending(&a).is_empty());
        assert!(warc_files(&a.join("warcs")).is_empty());
        s3
    })
    .await
    .unwrap();
    assert!(warc_files(&warcs).is_empty());
    // Every item exactly once, every record whole, every file replayed from the fetched copy.
    let copy = work.path().join("copy");
    let store = format!("s3://{BUCKET}/crash");
    let (c, env) = (copy.clone(), s3.env());
    tokio::task::spawn_blocking(move || {
        run_ok(
            &["fetch-archive", "--store", &store, "--out", path(&c)],
            &env,
            0,
        )
    })
    .await
    .unwrap();
    let items = super::ledger(&copy);
    let mut ids: Vec<&str> = items.iter().map(|e| e.identifier.as_str()).collect();
    let before = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), before, "an item archived twice");
    archive_check(&copy);
    let mut files = site_files(site.path(), &server.base);
    files.extend(site_files(late.path(), &late_server.base));
    pywb_replay(&copy, &files, &[]);
    server.stop().await;
    late_server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_refuses_or_does_not_answer_leaves_the_warcs_local_for_the_next_run() {
    let s3 = S3Server::start(BUCKET);
    let site = TestSite::empty();
    site.write("a.txt", b"a small file\n", Some(1_700_000_000));
    let server = Server::start(site.path(), |c| c.page_size(2)).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let (oai, a) = (server.oai.clone(), archive.clone());
    let env = s3.env();
    let s3 = tokio::task::spawn_blocking(move || {
        // A harvest without a store leaves its WARC files local.
        run_ok(&["harvest", &oai, "--archive", path(&a), "--quiet"], &[], 0);
        let local = warc_files(&a.join("warcs"));
        assert!(!local.is_empty());
        let store = format!("s3://{BUCKET}/later");
        let args = [
            "harvest",
            &oai,
            "--archive",
            path(&a),
            "--quiet",
            "--store",
            &store,
        ];
        let with = |key: &'static str, value: String| {
            let mut e: Vec<(&'static str, String)> =
                env.iter().filter(|(k, _)| *k != key).cloned().collect();
            e.push((key, value));
            e
        };
        let cases = [
            (
                "wrong credentials",
                with("AWS_SECRET_ACCESS_KEY", "wrong".into()),
            ),
            (
                "unreachable",
                with(
                    "AWS_ENDPOINT_URL",
                    format!("http://127.0.0.1:{}", free_port()),
                ),
            ),
        ];
        for (case, env) in cases {
            let stderr = run_ok(&args, &env, 1);
            assert!(
                stderr.contains("the archive stays local"),
                "{case}: {stderr}"
            );
            assert!(stderr.contains("AWS_ACCESS_KEY_ID"), "{case}: {stderr}");
            assert_eq!(warc_files(&a.join("warcs")), local, "{case}");
        }
        let missing = [
            "harvest",
            &oai,
            "--archive",
            path(&a),
            "--store",
            "s3://no-such-bucket/x",
        ];
        let stderr = run_ok(&missing, &env, 1);
        assert!(stderr.contains("s3://no-such-bucket/x"), "{stderr}");
        assert_eq!(warc_files(&a.join("warcs")), local);
        let stderr = run_ok(
            &["harvest", &oai, "--archive", path(&a), "--store", "/data/x"],
            &env,
            2,
        );
        assert!(stderr.contains("expected s3://BUCKET"), "{stderr}");
        let index = [&args[..], &["--index"]].concat();
        let stderr = run_ok(&index, &env, 2);
        assert!(stderr.contains("index a fetched copy"), "{stderr}");
        // An object of that name with other bytes (another archive's?) is never overwritten.
        let other = s3.object(BUCKET, &format!("later/warcs/{}", local[0]));
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        std::fs::write(&other, b"another archive's bytes").unwrap();
        let stderr = run_ok(&args, &env, 1);
        assert!(stderr.contains("exists with other content"), "{stderr}");
        assert_eq!(warc_files(&a.join("warcs")), local);
        assert_eq!(std::fs::read(&other).unwrap(), b"another archive's bytes");
        std::fs::remove_file(&other).unwrap();
        // Once the store answers, the same command moves them.
        run_ok(&args, &env, 0);
        assert!(warc_files(&a.join("warcs")).is_empty());
        let stored: Vec<PathBuf> = local
            .iter()
            .map(|n| s3.object(BUCKET, &format!("later/warcs/{n}")))
            .collect();
        assert!(stored.iter().all(|p| p.exists()), "{stored:?}");
        s3
    })
    .await
    .unwrap();
    drop(s3);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn harvest_lists_put_each_archive_under_its_folder_name_in_the_store() {
    let s3 = S3Server::start(BUCKET);
    let site = TestSite::empty();
    site.write("a.txt", b"a small file\n", Some(1_700_000_000));
    let server = Server::start(site.path(), |c| c.page_size(2)).await;
    let work = tempfile::tempdir().unwrap();
    let list = work.path().join("list.toml");
    let body = format!(
        "[[endpoint]]\nurl = \"{0}\"\narchive = \"archives/one\"\n\n\
         [[endpoint]]\nurl = \"{0}\"\narchive = \"other/one\"\nmetadata-prefix = \"oai_dc\"\n",
        server.oai
    );
    std::fs::write(&list, &body).unwrap();
    let (l, env) = (list.clone(), s3.env());
    let store = format!("s3://{BUCKET}/lists");
    let s3 = tokio::task::spawn_blocking(move || {
        let args = ["harvest-list", path(&l), "--quiet", "--store", &store];
        let stderr = run_ok(&args, &env, 2);
        assert!(stderr.contains("would share one/"), "{stderr}");
        std::fs::write(&l, body.replace("other/one", "other/two")).unwrap();
        run_ok(&args, &env, 0);
        s3
    })
    .await
    .unwrap();
    for name in ["one", "two"] {
        assert!(!warc_files(&s3.object(BUCKET, &format!("lists/{name}/warcs"))).is_empty());
        assert!(s3
            .object(BUCKET, &format!("lists/{name}/index.cdxj"))
            .exists());
    }
    assert!(warc_files(&work.path().join("archives/one/warcs")).is_empty());
    server.stop().await;
}
