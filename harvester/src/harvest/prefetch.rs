//! [`Prefetch`]: the request of a list's next page, started as soon as this page is parsed, so
//! the endpoint makes the next page while this one is made durable (its checkpoint).
//!
//! Only the request and the reading of the body into the reader's bounded queue run ahead: the
//! next page is parsed and stored after this page's checkpoint, and the checkpoint still saves
//! the next token only once this page's items are durable, so a crash loses nothing.

use tokio::runtime::Handle;
use tokio::task::JoinHandle;

use super::net::Net;
use super::HarvestError;
use crate::client::{BodyReader, Client, FetchError};

/// A request running on the runtime; aborted when dropped unused.
pub(super) struct Prefetch {
    url: String,
    task: Option<JoinHandle<Result<BodyReader, FetchError>>>,
}

impl Prefetch {
    /// Starts GET `url` on `handle`; the body streams into its reader's queue as it comes.
    pub(super) fn start(client: &Client, handle: &Handle, url: String) -> Prefetch {
        let (client, inner) = (client.clone(), handle.clone());
        let target = url.clone();
        let task = handle.spawn(async move {
            let response = client.get(&target).await?;
            Ok(response.into_reader(&inner))
        });
        Prefetch {
            url,
            task: Some(task),
        }
    }

    /// The body of `url` if this is its request, waiting for it (a cancellation ends the
    /// wait); `None` for another URL.
    pub(super) fn take(
        mut self,
        net: Net<'_>,
        url: &str,
    ) -> Option<Result<BodyReader, HarvestError>> {
        if self.url != url {
            return None;
        }
        let task = self.task.as_mut()?;
        let result = net.handle.block_on(async {
            tokio::select! {
                () = net.cancel.cancelled() => Err(HarvestError::Interrupted),
                r = task => match r {
                    Ok(r) => r.map_err(|e| HarvestError::Fetch(Box::new(e))),
                    // Never aborted while awaited: a panic of the request, passed on.
                    Err(e) => std::panic::resume_unwind(e.into_panic()),
                },
            }
        });
        Some(result)
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}
