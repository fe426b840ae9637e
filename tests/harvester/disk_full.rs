//! A harvest into a file system that fills up: each run stops with a message that says the disk
//! is full and what to do, counts only the items it stored whole, and the same command continues
//! once there is room. The file system is a real one that runs out of space: a small tmpfs,
//! grown after each failure (`mount -o remount,size=…`), so the runs stop at different points
//! (WARC records, ledger lines, the state, the index), for large payloads and for small items
//! stored in batches.

use std::path::{Path, PathBuf};
use std::process::Command;

use integration_tests::{Server, TestSite};
use rand::{Rng, SeedableRng};

use super::our_server::site_files;
use super::{archive_check, assert_each_file_once, harvester, ledger, pywb_replay};

/// A tmpfs mounted on a fresh folder, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// A tmpfs of `kib` KiB, or why it cannot be mounted (not root, no mount in a container).
    fn mount(kib: u64) -> Result<Tmpfs, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let size = format!("size={kib}k");
        mount(&["-t", "tmpfs", "-o", &size, "tmpfs"], dir.path())?;
        Ok(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Makes room: the file system grows to `kib` KiB, its files untouched.
    fn grow(&self, kib: u64) {
        let options = format!("remount,size={kib}k");
        mount(&["-o", &options], self.path()).unwrap();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

fn mount(args: &[&str], dir: &Path) -> Result<(), String> {
    let out = Command::new("mount")
        .args(args)
        .arg(dir)
        .output()
        .map_err(|e| format!("cannot run mount: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&out.stderr).trim().to_owned()),
    }
}

/// `N archived` of a summary.
fn archived(summary: &str) -> usize {
    let (before, _) = summary.split_once(" archived (").expect(summary);
    before.rsplit(' ').next().unwrap().parse().expect(summary)
}

/// Harvests `site` in `prefix` into a tmpfs of `kib` KiB, grown by `step` KiB after each run
/// that stops on the full disk, until a run completes; checks each stop's message and counts,
/// then the archive. Returns how many times the disk filled up.
async fn fill_up(site: &TestSite, page_size: usize, prefix: &str, kib: u64, step: u64) -> usize {
    let Ok(fs) = Tmpfs::mount(kib).map_err(|e| {
        println!("SKIPPED: cannot mount a tmpfs to fill up (needs root and mount rights): {e}");
    }) else {
        return usize::MAX;
    };
    let server = Server::start(site.path(), |c| c.page_size(page_size)).await;
    let archive: PathBuf = fs.path().join("archive");
    let a = archive.to_str().unwrap().to_owned();
    let (oai, prefix) = (server.oai.clone(), prefix.to_owned());
    let args = move || {
        let args = [
            "harvest",
            oai.as_str(),
            "--archive",
            a.as_str(),
            "--metadata-prefix",
            prefix.as_str(),
        ];
        args.map(str::to_owned)
    };
    let (mut size, mut stops, mut held) = (kib, 0, 0);
    loop {
        let args = args();
        let out =
            tokio::task::spawn_blocking(move || harvester(&args.each_ref().map(String::as_str)))
                .await
                .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let all = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
        let now = ledger(&archive).len();
        assert_eq!(now - held, archived(&stdout), "counted = ledgered:\n{all}");
        held = now;
        if out.status.success() {
            break;
        }
        assert_eq!(out.status.code(), Some(1), "{all}");
        assert!(all.contains("the disk is full"), "{all}");
        assert!(all.contains("run the same command again"), "{all}");
        stops += 1;
        assert!(stops < 40, "never finished:\n{all}");
        size += step;
        fs.grow(size);
    }
    let files = site_files(site.path(), &server.base);
    assert_each_file_once(&archive, &files);
    // warcio finds every record whole, and no record the index does not list.
    archive_check(&archive);
    pywb_replay(&archive, &files[..3], &[]);
    server.stop().await;
    stops
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_stops_cleanly_and_the_next_run_continues() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(15);
    let site = TestSite::empty();
    for i in 0..30u32 {
        // Incompressible, so the WARC files grow by what they hold.
        let len = rng.random_range(60_000..200_000);
        let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        site.write(
            &format!("f{i:02}.bin"),
            &bytes,
            Some(1_700_000_000 + u64::from(i)),
        );
    }
    let stops = fill_up(&site, 4, "oai_didl", 768, 512).await;
    assert!(stops >= 3, "the disk filled up {stops} times only");
}

/// Small items are stored in batches (their records, then their ledger lines, written
/// together): a batch that does not fit is counted and kept whole or not at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_amid_batches_of_small_items_loses_and_counts_none() {
    let site = TestSite::empty();
    for i in 0..200u32 {
        let text = format!(
            "note {i}: {}\n",
            "words of a small file ".repeat(1 + i as usize % 7)
        );
        site.write(
            &format!("n{i:03}.txt"),
            text.as_bytes(),
            Some(1_700_000_000 + u64::from(i)),
        );
    }
    let stops = fill_up(&site, 50, "oai_didl", 160, 128).await;
    assert!(stops >= 3, "the disk filled up {stops} times only");
}
