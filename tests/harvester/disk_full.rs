//! A harvest into a file system that fills up: each run stops with a message that says the disk
//! is full and what to do, counts only the items it stored whole, and the same command continues
//! once there is room. The file system is a real one that runs out of space: a small tmpfs,
//! grown after each failure (`mount -o remount,size=…`), so the runs stop at different points
//! (WARC records, ledger lines, the state, the index), for large payloads and for small items
//! stored in batches. The tmpfs lives in a user and mount namespace of its own, so the test needs
//! no privilege; one that cannot make it fails.

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use integration_tests::process::{in_private_mount_namespace, program};
use integration_tests::{Server, TestSite};
use rand::{Rng, SeedableRng};

use super::our_server::site_files;
use super::{archive_check, assert_each_file_once, ledger, pywb_replay};

/// A tmpfs mounted on a fresh folder in a private user and mount namespace (`unshare
/// --map-root-user`, as an unprivileged user may), held by a `sleep` that stays in both; gone
/// with the namespace when dropped. Programs run in it through `nsenter`; the test reads it
/// through the holder's `/proc/PID/root`.
struct Tmpfs {
    dir: tempfile::TempDir,
    holder: Child,
}

impl Tmpfs {
    /// A tmpfs of `kib` KiB; panics with the reason when the namespace or the mount fails.
    fn mount(kib: u64) -> Tmpfs {
        let dir = tempfile::tempdir().unwrap();
        let script = "mount -t tmpfs -o size=\"$2\"k tmpfs \"$1\" || exit 99; \
                      echo mounted; exec sleep infinity";
        let mut holder = in_private_mount_namespace(script)
            .arg(dir.path())
            .arg(kib.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("unshare (util-linux) runs");
        let mut line = String::new();
        let stdout = holder.stdout.take().unwrap();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        if line.trim() != "mounted" {
            let _ = holder.wait();
            let mut err = String::new();
            let _ = holder.stderr.take().unwrap().read_to_string(&mut err);
            panic!(
                "cannot mount a tmpfs in a user and mount namespace of its own \
                 (unprivileged user namespaces must be allowed): {err}"
            );
        }
        Tmpfs { dir, holder }
    }

    /// The tmpfs as the programs run in it see it.
    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `inside`, a path under [`Tmpfs::path`], as this process sees it.
    fn outside(&self, inside: &Path) -> PathBuf {
        let root = PathBuf::from(format!("/proc/{}/root", self.holder.id()));
        root.join(inside.strip_prefix("/").unwrap())
    }

    /// `program` with `args`, run in the tmpfs's namespaces.
    fn run(&self, program: &Path, args: &[&str]) -> Output {
        Command::new("nsenter")
            // Keeping the credentials: a user namespace made by an unprivileged user refuses
            // setgroups, and the uid is root there anyway.
            .args(["--preserve-credentials", "--user", "--mount", "--target"])
            .arg(self.holder.id().to_string())
            .arg(program)
            .args(args)
            .env("RUST_LOG", "warn")
            .output()
            .expect("nsenter (util-linux) runs")
    }

    /// Makes room: the file system grows to `kib` KiB, its files untouched.
    fn grow(&self, kib: u64) {
        let options = format!("remount,size={kib}k");
        let path = self.path().to_str().unwrap();
        // Type and source given: mount(8) in a user namespace does not look them up.
        let args = ["-t", "tmpfs", "-o", &options, "tmpfs", path];
        let out = self.run(Path::new("mount"), &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = self.holder.kill();
        let _ = self.holder.wait();
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
    let fs = Tmpfs::mount(kib);
    let server = Server::start(site.path(), |c| c.page_size(page_size)).await;
    let inside = fs.path().join("archive");
    let held_at = fs.outside(&inside);
    let a = inside.to_str().unwrap().to_owned();
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
    let fs = std::sync::Arc::new(fs);
    loop {
        let (args, fs2) = (args(), fs.clone());
        let out = tokio::task::spawn_blocking(move || {
            fs2.run(
                &program("modoai-harvester"),
                &args.each_ref().map(String::as_str),
            )
        })
        .await
        .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let all = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
        let now = ledger(&held_at).len();
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
    // pywb and warcio resolve `/proc/PID/root` to this namespace's root: they read a copy.
    let copy = tempfile::tempdir().unwrap();
    let archive = copy.path().join("archive");
    let cp = Command::new("cp")
        .arg("-a")
        .args([&fs.outside(&inside), &archive])
        .status();
    assert!(cp.unwrap().success(), "cp -a of the archive");
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
