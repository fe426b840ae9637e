//! Options shared by the harvesting commands: the HTTP client's and the WARC writer's.

use std::time::Duration;

use clap::Args;
use modoai_archive::archive::ArchiveOptions;
use modoai_harvester::client::{Client, ClientConfig};

use super::usage;

/// Options of the HTTP client.
#[derive(Debug, Args, Clone)]
pub(crate) struct ClientArgs {
    /// Seconds to wait between two requests to the same host.
    #[arg(long, default_value_t = 0.0, value_name = "SECONDS")]
    delay: f64,
    /// Retries of a failed request or a broken page. The first request to an endpoint is retried
    /// at most once, and not at all when it cannot connect: a wrong URL fails at once.
    #[arg(long, default_value_t = 8, value_name = "N")]
    retries: u32,
    /// The User-Agent header.
    #[arg(long, value_name = "TEXT")]
    user_agent: Option<String>,
}

impl ClientArgs {
    pub(crate) fn client(&self) -> anyhow::Result<Client> {
        if !(self.delay.is_finite() && self.delay >= 0.0) {
            return Err(usage("--delay must be a number of seconds"));
        }
        let mut config = ClientConfig::default()
            .delay(Duration::from_secs_f64(self.delay))
            .max_retries(self.retries);
        if let Some(ua) = &self.user_agent {
            config = config.user_agent(ua.clone());
        }
        Ok(Client::new(config))
    }
}

/// How WARC files are written.
#[derive(Debug, Args, Clone)]
pub(crate) struct WarcArgs {
    /// WARC file name prefix.
    #[arg(long, default_value = "modoai", value_name = "TEXT")]
    warc_prefix: String,
    /// Start a new WARC file once one reaches this many bytes.
    #[arg(long, default_value_t = 1_000_000_000, value_name = "BYTES")]
    max_file_size: u64,
    /// The archive id of the archive's PWIDs (A-Z a-z 0-9 - . _ ~, e.g. its domain). Fixed by
    /// the first harvest into the archive; default: this machine's name.
    #[arg(long, value_name = "ID")]
    archive_id: Option<String>,
    /// Move the archive to S3-compatible object storage: each closed WARC file is uploaded,
    /// read back and checked, then removed locally; the ledger, index and state are uploaded at
    /// the end. Credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION,
    /// AWS_ENDPOINT_URL. harvest-list puts each archive under PREFIX/<its folder name>.
    #[arg(long, value_name = "s3://BUCKET/PREFIX")]
    pub(crate) store: Option<String>,
}

impl WarcArgs {
    pub(crate) fn options(&self) -> ArchiveOptions {
        ArchiveOptions {
            prefix: self.warc_prefix.clone(),
            max_file_size: self.max_file_size,
            archive_id: self.archive_id.clone(),
            ..ArchiveOptions::default()
        }
    }
}
