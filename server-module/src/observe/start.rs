//! Starting what the settings ask for: the access log (and its reopening on SIGHUP) and the
//! metrics.

use std::io;
use std::sync::Arc;

use tokio::task::JoinHandle;

use super::metrics::{IndexSource, Metrics};
use super::observer::{Health, Observer};
use super::writer::AccessLog;
use super::AccessLogFormat;
use crate::Config;

/// The observer of a server with `config`; `index` reads the index for the metrics.
pub(crate) fn observer(config: &Config, index: IndexSource) -> io::Result<Arc<Observer>> {
    let o = &config.observation;
    let log = match o.access_log {
        AccessLogFormat::Off => None,
        format => Some(AccessLog::start(format, o.access_file.as_deref())?),
    };
    let metrics = o.metrics.as_ref().map(|_| Metrics::new(index));
    let metrics_route = o
        .metrics
        .as_ref()
        .filter(|m| m.listen.is_none())
        .map(|m| m.route.clone());
    Ok(Arc::new(Observer {
        log,
        metrics,
        metrics_route,
        health: Health::default(),
        policy: config.policy().clone(),
    }))
}

/// Reopens the access log file on each SIGHUP (logrotate's `postrotate`), when there is one;
/// the task ends when aborted.
pub(crate) fn reopen_on_sighup(
    config: &Config,
    observer: &Arc<Observer>,
) -> io::Result<Option<JoinHandle<()>>> {
    let (Some(log), Some(_)) = (observer.log.clone(), &config.observation.access_file) else {
        return Ok(None);
    };
    use tokio::signal::unix::{signal, SignalKind};
    let mut hup = signal(SignalKind::hangup())?;
    Ok(Some(tokio::spawn(async move {
        while hup.recv().await.is_some() {
            tracing::info!("SIGHUP: reopening the access log");
            log.reopen();
        }
    })))
}
