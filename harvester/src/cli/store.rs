//! `--store s3://BUCKET/PREFIX` of `harvest` and `harvest-list`: WARC files move to the object
//! store as they close (checked every few seconds during the run, and once more at its end), the
//! ledger, index and state follow at the end; `fetch-archive` downloads the archive again.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use modoai_cli::Exit;
use modoai_harvester::store::{self, Store, StoreError, JOURNAL};
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use super::{usage, PROGRAM};

/// How often closed WARC files are looked for while a harvest runs.
const EVERY: Duration = Duration::from_secs(2);

pub(crate) const FETCH_HELP: &str = "\
Examples:
  modoai-harvester fetch-archive --store s3://archives/nsl/site-a --out site-a/

Credentials, region and endpoint come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION
and AWS_ENDPOINT_URL. Run it again to fetch what is new: files already there are kept.

Exit codes: see modoai-harvester --help.";

/// Arguments of `fetch-archive`.
#[derive(Debug, Args)]
pub(crate) struct FetchArgs {
    /// The archive in the store: s3://BUCKET/PREFIX, as given to `harvest --store`.
    #[arg(long, value_name = "URL")]
    store: String,
    /// The local folder to download it into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// The store an archive goes to, and the task that moves its WARC files while a harvest runs.
pub(crate) struct Sync {
    store: Store,
    dir: PathBuf,
    handle: Handle,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Sync {
    /// Checks the store of `url` (`name`: the archive's own prefix under it, for a harvest
    /// list), moves what an earlier run left, and starts moving WARC files as they close. `None`
    /// without `--store`. Call it once the archive is open (and locked).
    pub(crate) fn start(
        url: Option<&str>,
        name: Option<&str>,
        dir: &Path,
        handle: &Handle,
    ) -> anyhow::Result<Option<Sync>> {
        let Some(url) = url else { return Ok(None) };
        let mut store = open(url)?;
        if let Some(name) = name {
            store = store.child(name);
        }
        let keep = || {
            format!(
                "{}: the archive stays local; run the same command again once the store answers",
                dir.display()
            )
        };
        handle.block_on(store.check()).with_context(keep)?;
        handle
            .block_on(store::push_warcs(&store, dir))
            .with_context(keep)?;
        let stop = CancellationToken::new();
        let task = handle.spawn(moving(store.clone(), dir.to_owned(), stop.clone()));
        Ok(Some(Sync {
            store,
            dir: dir.to_owned(),
            handle: handle.clone(),
            stop,
            task,
        }))
    }

    /// Stops the task.
    fn stop(&mut self) {
        self.stop.cancel();
        let task = std::mem::replace(&mut self.task, self.handle.spawn(async {}));
        let _ = self.handle.block_on(task);
    }

    /// Stops the task, moves the WARC files left, then uploads the ledger, index and state.
    /// Call it after the archive is closed.
    pub(crate) fn finish(mut self, quiet: bool) -> Result<(), StoreError> {
        self.stop();
        let warcs = self
            .handle
            .block_on(store::push_warcs(&self.store, &self.dir))?;
        let files = self
            .handle
            .block_on(store::push_files(&self.store, &self.dir))?;
        if !quiet {
            eprintln!(
                "stored: {} WARC files ({:.2} MB) moved to {}, then {}",
                warcs.files.len(),
                warcs.bytes as f64 / 1e6,
                self.store.url(),
                files.files.join(", ")
            );
        }
        Ok(())
    }
}

/// Moves closed WARC files every [`EVERY`] until stopped; after a failure it waits for the
/// final pass, which reports it.
async fn moving(store: Store, dir: PathBuf, stop: CancellationToken) {
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(EVERY) => {}
        }
        if let Err(e) = store::push_warcs(&store, &dir).await {
            tracing::warn!("{}: {e}; retried at the end of the run", dir.display());
            return;
        }
    }
}

/// The exit code of a run whose harvest ended with `code`, after its store `sync` finished (an
/// interrupted run only stops moving files: the next one moves them).
pub(crate) fn finish(sync: Option<Sync>, dir: &Path, code: Exit, quiet: bool) -> Exit {
    let Some(mut sync) = sync else { return code };
    if code == Exit::Interrupted {
        sync.stop();
        return code;
    }
    match sync.finish(quiet) {
        Ok(()) => code,
        Err(e) => {
            modoai_cli::report(PROGRAM, &e);
            eprintln!(
                "the files not moved stay in {}; run the same command again to move them",
                dir.display()
            );
            match code {
                Exit::Done | Exit::Problems => Exit::Failed,
                other => other,
            }
        }
    }
}

fn open(url: &str) -> anyhow::Result<Store> {
    Store::open(url).map_err(|e| match e {
        StoreError::Url(_) => usage(format!("--store: {e}")),
        other => anyhow::Error::from(other),
    })
}

/// `fetch-archive`: downloads an archive from its store.
pub(crate) fn fetch(handle: &Handle, args: &FetchArgs) -> anyhow::Result<Exit> {
    let store = open(&args.store)?;
    let fetched = handle.block_on(store::fetch(&store, &args.out))?;
    if fetched.files + fetched.kept == 0 {
        modoai_cli::report(PROGRAM, format_args!("{} holds no archive", store.url()));
        return Ok(Exit::Failed);
    }
    eprintln!(
        "fetched {} files ({:.2} MB) into {}; {} already there",
        fetched.files,
        fetched.bytes as f64 / 1e6,
        args.out.display(),
        fetched.kept
    );
    Ok(Exit::Done)
}

/// `inspect archive`'s line on WARC files moved to a store, if any.
pub(crate) fn stored_line(dir: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Moved {
        store: String,
        uploaded: Vec<String>,
    }
    let text = std::fs::read(dir.join(JOURNAL)).ok()?;
    let moved: Moved = serde_json::from_slice(&text).ok()?;
    Some(format!(
        "{} more WARC files in {} (local copies removed; `modoai-harvester fetch-archive --store {} --out DIR` downloads the archive)",
        moved.uploaded.len(),
        moved.store,
        moved.store
    ))
}

/// Fails when two archives of a harvest list would share one prefix of the store (`--store`
/// gives each archive the prefix of its folder's name).
pub(crate) fn check_names<'a>(
    store: Option<&str>,
    archives: impl Iterator<Item = &'a PathBuf>,
) -> anyhow::Result<()> {
    if store.is_none() {
        return Ok(());
    }
    let mut seen = std::collections::BTreeMap::new();
    for a in archives {
        let name = archive_name(a)?;
        if let Some(other) = seen.insert(name.clone(), a) {
            return Err(usage(format!(
                "--store: the archives {} and {} would share {name}/ in the store; give them folders of different names",
                other.display(),
                a.display()
            )));
        }
    }
    Ok(())
}

/// The prefix of an archive of a harvest list under `--store`: its folder's name.
pub(crate) fn archive_name(archive: &Path) -> anyhow::Result<String> {
    archive
        .file_name()
        .and_then(|n| n.to_str())
        .map(str::to_owned)
        .ok_or_else(|| usage(format!("--store: {} has no folder name", archive.display())))
}
