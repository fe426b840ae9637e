//! SIGINT and SIGTERM: the first stops the harvests at their next safe point, the second at once.

use modoai_cli::Exit;
use tokio::runtime::Runtime;
use tokio::signal::unix::{signal, Signal, SignalKind};
use tokio_util::sync::CancellationToken;

use super::progress;

/// What the harvester says when it stopped at a safe point.
pub(crate) const INTERRUPTED: &str = "interrupted; run the same command again to continue";

/// A token cancelled by the first SIGINT or SIGTERM. A second one exits with
/// [`Exit::Interrupted`] at once: the archive may then hold an unfinished WARC file, which the
/// next run of the same command cuts back to its last complete item and closes.
pub(crate) fn on_signal(runtime: &Runtime) -> anyhow::Result<CancellationToken> {
    let token = CancellationToken::new();
    let (mut int, mut term) = runtime.block_on(async {
        Ok::<_, std::io::Error>((
            signal(SignalKind::interrupt())?,
            signal(SignalKind::terminate())?,
        ))
    })?;
    let cancel = token.clone();
    runtime.spawn(async move {
        next(&mut int, &mut term).await;
        cancel.cancel();
        progress::eprintln(
            "stopping after the item being stored (press Ctrl-C again to stop at once)",
        );
        next(&mut int, &mut term).await;
        progress::eprintln(
            "aborted; run the same command again: it repairs the archive and continues",
        );
        std::process::exit(i32::from(Exit::Interrupted.code()));
    });
    Ok(token)
}

/// The next SIGINT or SIGTERM.
async fn next(int: &mut Signal, term: &mut Signal) {
    tokio::select! {
        _ = int.recv() => {}
        _ = term.recv() => {}
    }
}
