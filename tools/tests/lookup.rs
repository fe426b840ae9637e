//! [`Plugins::lookup`]: a result known without a run is answered from the identity alone (no
//! file read), across a restart; one plugin left to run makes the whole lookup a miss; and
//! [`Plugins::load_with_cache`] keeps results where its caller says.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use modoai_tools::{PluginObserver, Plugins, Status, Subject};

const TABLE: &str = "[settings]\ncache-dir = \"unused\"\n\n[[plugin]]\nlabel = \"md5\"\n\
    mime = \"*/*\"\nbuiltin = \"md5\"\n\n[[plugin]]\nlabel = \"sha1\"\nmime = \"text/*\"\n\
    builtin = \"sha1\"\n";

#[derive(Debug, Default)]
struct Hits(AtomicU64);

impl PluginObserver for Hits {
    fn run(&self, _: &str, _: &'static str, _: u64) {}
    fn cache(&self, _: &str, hit: bool) {
        if hit {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A payload named by its digest, as the explorer names them (no mtime, no inode).
fn named(abs: PathBuf, name: &str, mime: &str, size: u64) -> Subject {
    Subject {
        abs,
        rel: PathBuf::from(name),
        mime: mime.into(),
        size,
        mtime_ns: 0,
        inode: 0,
    }
}

async fn load(work: &Path, cache: &Path) -> Plugins {
    let path = work.join("plugins.toml");
    std::fs::write(&path, TABLE).unwrap();
    Plugins::load_with_cache(&path, cache).await.unwrap()
}

#[tokio::test]
async fn lookup_answers_without_the_file_once_every_plugin_is_known() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("own-cache");
    let file = work.path().join("payload");
    std::fs::write(&file, b"a").unwrap();
    let plugins = load(work.path(), &cache).await;
    assert_eq!(plugins.cache_dir(), cache);
    let subject = named(file.clone(), "DIGEST.txt", "text/plain", 1);
    assert!(plugins.lookup(&subject).is_none(), "nothing has run yet");
    let ran = plugins.analyse(std::slice::from_ref(&subject)).await;
    assert_eq!(ran[0].len(), 2);
    assert!(ran[0]
        .iter()
        .all(|r| !r.cached && r.run.status == Status::Ok));
    std::fs::remove_file(&file).unwrap();
    let known = plugins.lookup(&subject).expect("both results are known");
    assert_eq!(known.len(), 2);
    assert_eq!(
        String::from_utf8_lossy(&known[0].run.stdout).trim(),
        "0cc175b9c0f1b6a831c399e269772661"
    );
    // Another process (a new table on the same cache) answers from the disk, and counts hits.
    let again = load(work.path(), &cache).await;
    let hits = Arc::new(Hits::default());
    again.observe_with(hits.clone());
    let known = again.lookup(&subject).expect("from the persistent cache");
    assert!(known.iter().all(|r| r.cached));
    assert_eq!(hits.0.load(Ordering::Relaxed), 2);
    // Another size is another payload; another type runs another table (md5 alone, known).
    let other = named(file.clone(), "DIGEST.txt", "text/plain", 2);
    assert!(again.lookup(&other).is_none());
    assert_eq!(hits.0.load(Ordering::Relaxed), 2, "a miss counts nothing");
    let binary = named(file, "DIGEST.txt", "application/octet-stream", 1);
    assert_eq!(again.lookup(&binary).map(|r| r.len()), Some(1));
    assert!(!work.path().join("unused").exists());
}
