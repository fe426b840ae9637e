//! `wacz`: an archive packaged as WACZ 1.1.1, checked by the `wacz` package's own validator and
//! replayed by pywb from the package; targets that cannot be written (a missing folder, a
//! read-only file system, a full disk) and an archive a killed harvest left.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use integration_tests::process::{in_private_mount_namespace, program};
use integration_tests::python::{json, python};
use integration_tests::{Server, TestSite};
use sha2::{Digest, Sha256};

use super::our_server::{light_plugins, site_files};
use super::{blocking, pywb_replay_args, run};

/// The example site harvested in oai_crate (light plugins) into `work/archive`.
async fn harvested(work: &Path) -> (TestSite, String, PathBuf) {
    let site = TestSite::example();
    let plugins = light_plugins(work).await;
    let server = Server::start(site.path(), |c| c.page_size(4).plugins(plugins)).await;
    let archive = work.join("archive");
    let (a, oai) = (archive.to_str().unwrap().to_owned(), server.oai.clone());
    blocking(move || run(&["harvest", &oai, "--archive", &a, "--quiet"], 0)).await;
    let base = server.base.clone();
    server.stop().await;
    (site, base, archive)
}

fn sha256_hex(path: &Path) -> String {
    format!(
        "sha256:{}",
        hex_of(&Sha256::digest(std::fs::read(path).unwrap()))
    )
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The archive's closed WARC files, by name.
fn warcs(archive: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(archive.join("warcs"))
        .unwrap()
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_package_validates_carries_the_crate_records_and_replays_in_pywb() {
    let work = tempfile::tempdir().unwrap();
    let (site, base, archive) = harvested(work.path()).await;
    let wacz = work.path().join("harvest.wacz");
    let (a, w) = (archive.to_str().unwrap(), wacz.to_str().unwrap());
    let (stdout, _) = run(
        &["wacz", "--archive", a, "--out", w, "--title", "Example"],
        0,
    );
    assert!(stdout.contains("pages"), "{stdout}");
    let report = json(&python("wacz_check.py", &[w]));
    assert!(
        report["validate"].as_str().unwrap().contains("succeeded"),
        "{report}"
    );
    // Every WARC travels byte for byte, STORED; the CRATE findings are in them.
    let resources = report["datapackage"]["resources"].as_array().unwrap();
    let hash_of = |path: &str| {
        resources
            .iter()
            .find(|r| r["path"] == path)
            .unwrap_or_else(|| panic!("{path} not listed"))["hash"]
            .clone()
    };
    let mut crate_fields = false;
    for (name, path) in warcs(&archive) {
        let entry = format!("archive/{name}");
        assert_eq!(report["entries"][&entry], "stored", "{entry}");
        assert_eq!(hash_of(&entry), sha256_hex(&path), "{entry}");
        let mut text = Vec::new();
        flate2::read::MultiGzDecoder::new(std::fs::File::open(&path).unwrap())
            .read_to_end(&mut text)
            .unwrap();
        crate_fields |= String::from_utf8_lossy(&text).contains("\r\ncrate-plugin: ");
    }
    assert!(crate_fields, "the WARCs carry the CRATE metadata records");
    assert_eq!(report["entries"]["indexes/index.cdx.gz"], "stored");
    for listed in ["indexes/index.idx", "pages/pages.jsonl"] {
        hash_of(listed);
    }
    assert_eq!(
        resources.len() + 2,
        report["entries"].as_object().unwrap().len()
    );
    let cdxj = std::fs::read_to_string(archive.join("index.cdxj")).unwrap();
    assert_eq!(report["index_lines"], cdxj.lines().count());
    assert_eq!(report["datapackage"]["wacz_version"], "1.1.1");
    assert_eq!(report["datapackage"]["title"], "Example");
    // One page per harvested HTML file.
    let files = site_files(site.path(), &base);
    let mut html: Vec<&str> = files
        .iter()
        .map(|(u, _)| u.as_str())
        .filter(|u| u.ends_with(".html"))
        .collect();
    let mut pages: Vec<&str> = report["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["url"].as_str().unwrap())
        .collect();
    html.sort();
    pages.sort();
    assert_eq!(pages, html);
    assert!(!html.is_empty());
    // pywb, given only the package, replays every file with its exact bytes.
    let args = pywb_replay_args(&archive, &files, &[], Some(&wacz));
    python(
        "pywb_replay.py",
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
}

/// `modoai-harvester wacz` in a private mount namespace where `dir` is a fresh tmpfs mounted
/// with `options`; returns its exit code, stderr, and what `dir` held afterwards.
fn wacz_on_tmpfs(archive: &Path, dir: &Path, options: &str) -> (i32, String, String) {
    let script = format!(
        "mount -t tmpfs -o {options} tmpfs \"$1\" || exit 99; \
         \"$2\" wacz --archive \"$3\" --out \"$1/h.wacz\"; code=$?; \
         echo \"left: $(ls -A \"$1\")\" >&2; exit $code"
    );
    let out = in_private_mount_namespace(&script)
        .arg(dir)
        .arg(program("modoai-harvester"))
        .arg(archive)
        .output()
        .expect("unshare (util-linux) runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_ne!(
        out.status.code(),
        Some(99),
        "cannot mount a tmpfs: {stderr}"
    );
    let left = stderr
        .lines()
        .find_map(|l| l.strip_prefix("left: "))
        .unwrap_or_default()
        .to_owned();
    (out.status.code().unwrap_or(-1), stderr, left)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_cannot_be_written_stops_with_a_message_and_leaves_no_file() {
    let work = tempfile::tempdir().unwrap();
    let (_site, _base, archive) = harvested(work.path()).await;
    let a = archive.to_str().unwrap();
    // A missing folder: nothing created.
    let missing = work.path().join("no/such/h.wacz");
    let (_, err) = run(
        &["wacz", "--archive", a, "--out", missing.to_str().unwrap()],
        1,
    );
    assert!(
        err.contains("does not exist") && err.contains("nothing was written"),
        "{err}"
    );
    assert!(!work.path().join("no").exists());
    // A read-only file system, and a disk too small for the WARCs.
    let mnt = work.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let (code, err, left) = wacz_on_tmpfs(&archive, &mnt, "ro");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("read-only"), "{err}");
    assert_eq!(left, "", "{err}");
    let warc_bytes: u64 = warcs(&archive)
        .iter()
        .map(|(_, p)| std::fs::metadata(p).unwrap().len())
        .sum();
    assert!(warc_bytes > 16 * 1024, "{warc_bytes} bytes of WARC");
    let size = format!("size={}k", warc_bytes / 2 / 1024);
    let (code, err, left) = wacz_on_tmpfs(&archive, &mnt, &size);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("the disk is full") && err.contains("nothing was written"),
        "{err}"
    );
    assert_eq!(left, "", "a half package was left: {err}");
    // A folder as target, and a name that is no .wacz: usage errors.
    let out = work.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let (_, err) = run(&["wacz", "--archive", a, "--out", out.to_str().unwrap()], 2);
    assert!(err.contains(".wacz"), "{err}");
    let zip = out.join("h.zip");
    run(&["wacz", "--archive", a, "--out", zip.to_str().unwrap()], 2);
    // The same target on a good disk: written, and a second run replaces it whole.
    let good = out.join("h.wacz");
    let g = good.to_str().unwrap();
    run(&["wacz", "--archive", a, "--out", g], 0);
    run(&["wacz", "--archive", a, "--out", g], 0);
    let names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, [std::ffi::OsString::from("h.wacz")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archive_a_killed_harvest_left_is_refused_until_repaired() {
    let work = tempfile::tempdir().unwrap();
    let (_site, _base, archive) = harvested(work.path()).await;
    // What kill -9 leaves: the last WARC file still `.open`.
    let (_, last) = warcs(&archive).pop().unwrap();
    let open = PathBuf::from(format!("{}.open", last.display()));
    std::fs::rename(&last, &open).unwrap();
    let target = work.path().join("h.wacz");
    std::fs::write(&target, b"an older package").unwrap();
    let (a, t) = (archive.to_str().unwrap(), target.to_str().unwrap());
    let (_, err) = run(&["wacz", "--archive", a, "--out", t], 1);
    assert!(
        err.contains("not ready") && err.contains("repair --archive"),
        "{err}"
    );
    assert_eq!(std::fs::read(&target).unwrap(), b"an older package");
    run(&["repair", "--archive", a], 0);
    run(&["wacz", "--archive", a, "--out", t], 0);
    let report = json(&python("wacz_check.py", &[t]));
    assert!(report["validate"].as_str().unwrap().contains("succeeded"));
}
