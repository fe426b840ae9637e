//! Siegfried on bad input, through [`Plugins::analyse`]: a file that disappears between listing
//! and identification, an empty file, a FIFO, names with a newline or bytes that are not UTF-8,
//! a 2 GiB sparse file. Each gets its defined status, and every other file of the page, and the
//! page after it, gets its own answer.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use modoai_tools::{PluginResult, Plugins, Status, Subject};

/// A 1×1 GIF 89a.
const GIF: &[u8] = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff\
    !\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;";

/// Plugins with Siegfried alone, as `plugins.toml` has it but with a timeout of `secs` seconds,
/// a cache in `work`.
async fn siegfried(work: &Path, secs: u64) -> Plugins {
    let text = format!(
        "[settings]\ncache-dir = \"cache\"\n\n[[plugin]]\nlabel = \"siegfried\"\nmime = \"*/*\"\n\
         command = [\"modoai-siegfried\", \"{{paths}}\"]\nversion-command = [\"modoai-siegfried\", \
         \"--version\"]\nrunner = \"siegfried\"\ntimeout-secs = {secs}\n"
    );
    let path = work.join("plugins.toml");
    std::fs::write(&path, text).unwrap();
    let plugins = Plugins::load(&path).await.unwrap();
    assert!(
        plugins.all_healthy(),
        "modoai-siegfried is installed (scripts/setup, pygfried from PyPI):\n{}",
        plugins.check_report()
    );
    plugins
}

/// The file at `rel` under `root` as the index lists it (`lstat`, so a FIFO is listed as is).
fn listed(root: &Path, rel: &OsStr) -> Subject {
    let abs = root.join(rel);
    let m = std::fs::symlink_metadata(&abs).unwrap();
    Subject {
        abs,
        rel: PathBuf::from(rel),
        mime: "application/octet-stream".into(),
        size: m.len(),
        mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
        inode: m.ino(),
    }
}

/// A file of `bytes` at `name` under `root`, listed.
fn file(root: &Path, name: &[u8], bytes: &[u8]) -> Subject {
    let name = OsStr::from_bytes(name);
    std::fs::write(root.join(name), bytes).unwrap();
    listed(root, name)
}

/// Siegfried's result of each subject (the one plugin).
async fn analyse(plugins: &Plugins, subjects: &[Subject]) -> Vec<Arc<PluginResult>> {
    let rows = plugins.analyse(subjects).await;
    rows.into_iter()
        .map(|row| {
            assert_eq!(row.len(), 1);
            row[0].clone()
        })
        .collect()
}

/// The file entry of a result's answer.
fn entry(r: &PluginResult) -> serde_json::Value {
    let doc: serde_json::Value = serde_json::from_slice(&r.run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&r.run.stdout)));
    doc["files"][0].clone()
}

/// A result that is `ok` with `puid` as its first match, for its own file `f00000N.ext`.
fn assert_identified(r: &PluginResult, n: usize, ext: &str, puid: &str) {
    assert_eq!(r.run.status, Status::Ok, "{r:?}");
    let e = entry(r);
    assert_eq!(e["matches"][0]["id"], puid, "{e}");
    let name = e["filename"].as_str().unwrap();
    assert!(
        name.ends_with(&format!("/f{n:06}.{ext}")),
        "its own answer: {e}"
    );
}

/// An `error` whose note and answer give Siegfried's reason `why`.
fn assert_unreadable(r: &PluginResult, why: &str) {
    assert_eq!(r.run.status, Status::Error, "{r:?}");
    assert_eq!(
        r.run.note.as_deref(),
        Some(format!("siegfried: {why}").as_str())
    );
    assert_eq!(entry(r)["errors"], why);
}

#[tokio::test]
async fn bad_input_gets_its_status_and_every_other_file_its_own_answer() {
    let (site, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = site.path();
    let plugins = siegfried(work.path(), 30).await;
    let gone = file(root, b"gone.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00");
    assert!(std::process::Command::new("mkfifo")
        .arg(root.join("pipe.txt"))
        .status()
        .unwrap()
        .success());
    let page = vec![
        file(root, b"a.gif", GIF),
        file(root, b"empty.pdf", b""),
        gone,
        listed(root, OsStr::new("pipe.txt")),
        file(root, b"two\nlines.txt", b"plain text\n"),
        file(root, b"caf\xe9 \xff.txt", b"plain text\n"),
        file(root, b"z.gif", GIF),
    ];
    // Listed, then gone before it is identified.
    std::fs::remove_file(root.join("gone.jpg")).unwrap();
    let r = analyse(&plugins, &page).await;
    assert_identified(&r[0], 1, "gif", "fmt/4");
    assert_unreadable(&r[1], "empty source");
    let warning = entry(&r[1])["matches"][0]["warning"].to_string();
    assert!(
        warning.contains("possibilities based on extension are fmt/"),
        "Siegfried still names the extension's formats: {warning}"
    );
    assert_unreadable(&r[2], "open: no such file or directory");
    assert_unreadable(&r[3], "not a regular file: a FIFO");
    assert_identified(&r[4], 5, "txt", "x-fmt/111");
    assert_identified(&r[5], 6, "txt", "x-fmt/111");
    assert_identified(&r[6], 7, "gif", "fmt/4");
    assert!(
        r.iter()
            .all(|r| r.version.contains("DROID_SignatureFile_V")),
        "the version names the signature files: {}",
        r[0].version
    );
    let started = plugins.processes_started();
    assert_eq!(started, 1, "one worker answered the whole page");

    // The next page is answered by the same worker, with its own answer; the page before is
    // cached, errors included.
    let next = analyse(&plugins, &[file(root, b"next.gif", GIF)]).await;
    assert_identified(&next[0], 1, "gif", "fmt/4");
    let again = analyse(&plugins, &page).await;
    assert!(again.iter().all(|r| r.cached), "{again:?}");
    assert_eq!(plugins.processes_started(), started);
    plugins.shutdown();
}

#[tokio::test]
async fn a_sparse_file_of_2_gib_times_out_alone_and_the_others_are_identified() {
    let (site, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = site.path();
    // Siegfried reads a file of zeros whole, at about 80 MB/s (docs/plugins.md, "Tool facts"):
    // about 26 s here, far past a 2 s limit.
    let plugins = siegfried(work.path(), 2).await;
    std::fs::File::create(root.join("disk.img"))
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let page = vec![
        file(root, b"a.gif", GIF),
        listed(root, OsStr::new("disk.img")),
        file(root, b"notes.txt", b"plain text\n"),
    ];
    let r = analyse(&plugins, &page).await;
    assert_identified(&r[0], 1, "gif", "fmt/4");
    assert_eq!(r[1].run.status, Status::Timeout, "{:?}", r[1]);
    assert_identified(&r[2], 3, "txt", "x-fmt/111");
    let next = analyse(&plugins, &[file(root, b"next.gif", GIF)]).await;
    assert_identified(&next[0], 1, "gif", "fmt/4");
    plugins.shutdown();
}
