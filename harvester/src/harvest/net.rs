//! [`Net`]: the requests and waits of a harvest, each ended early by its cancellation token.

use std::time::Duration;

use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use super::HarvestError;
use crate::client::{Client, Response};

/// The client, the runtime it runs on, and the token that interrupts the harvest.
#[derive(Clone, Copy)]
pub(crate) struct Net<'a> {
    pub(crate) client: &'a Client,
    pub(crate) handle: &'a Handle,
    pub(crate) cancel: &'a CancellationToken,
}

impl Net<'_> {
    /// GETs `url` with the client's retries (`first`: with the short policy of a first
    /// request, [`Client::get_first`]); a cancellation ends the request and its retry waits.
    pub(crate) fn get(&self, url: &str, first: bool) -> Result<Response, HarvestError> {
        let request = async {
            match first {
                true => self.client.get_first(url).await,
                false => self.client.get(url).await,
            }
        };
        self.handle.block_on(async {
            tokio::select! {
                () = self.cancel.cancelled() => Err(HarvestError::Interrupted),
                r = request => r.map_err(|e| HarvestError::Fetch(Box::new(e))),
            }
        })
    }

    /// Sleeps `wait`, or less if the harvest is cancelled meanwhile.
    pub(crate) fn pause(&self, wait: Duration) -> Result<(), HarvestError> {
        self.handle.block_on(async {
            tokio::select! {
                () = self.cancel.cancelled() => Err(HarvestError::Interrupted),
                () = tokio::time::sleep(wait) => Ok(()),
            }
        })
    }

    /// Fails once the harvest is cancelled: checked at each safe point (between items).
    pub(crate) fn check(&self) -> Result<(), HarvestError> {
        match self.cancel.is_cancelled() {
            true => Err(HarvestError::Interrupted),
            false => Ok(()),
        }
    }
}
