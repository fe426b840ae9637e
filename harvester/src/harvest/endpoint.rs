//! Small requests about an endpoint: Identify, ListMetadataFormats, ListSets (all pages).

use std::collections::HashSet;

use modoai_protocol::form::request_url;
use modoai_protocol::{OaiError, Verb};
use tokio::runtime::Handle;

use super::HarvestError;
use crate::client::Client;
use crate::parse::{Identify, PageEvent, PageParser};

/// A metadata format the endpoint offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    /// `metadataPrefix`.
    pub prefix: String,
    /// `schema`.
    pub schema: String,
    /// `metadataNamespace`.
    pub namespace: String,
}

/// Fetches and parses one small page whole, with the page retry policy of the harvest.
pub(crate) fn events(
    client: &Client,
    handle: &Handle,
    url: &str,
) -> Result<Vec<PageEvent>, HarvestError> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let response = handle
            .block_on(client.get(url))
            .map_err(|e| HarvestError::Fetch(Box::new(e)))?;
        let reader = response.into_reader(handle);
        match PageParser::new(reader).collect::<Result<Vec<_>, _>>() {
            Ok(events) => return Ok(events),
            Err(error) if attempt <= client.config().max_retries => {
                let wait = client.backoff(attempt);
                tracing::warn!(%url, %error, ?wait, "broken page, retrying");
                std::thread::sleep(wait);
            }
            Err(error) => {
                return Err(HarvestError::BrokenPage {
                    url: url.to_owned(),
                    attempts: attempt,
                    error,
                })
            }
        }
    }
}

fn oai_errors(events: &[PageEvent]) -> Vec<OaiError> {
    events
        .iter()
        .filter_map(|e| match e {
            PageEvent::Error(e) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

/// The endpoint's Identify answer.
pub fn identify(client: &Client, handle: &Handle, base: &str) -> Result<Identify, HarvestError> {
    let url = request_url(base, Verb::Identify, &[]);
    let events = events(client, handle, &url)?;
    let errors = oai_errors(&events);
    events
        .into_iter()
        .find_map(|e| match e {
            PageEvent::Identify(i) => Some(i),
            _ => None,
        })
        .ok_or(HarvestError::Oai { url, errors })
}

/// The formats the endpoint offers.
pub fn formats(client: &Client, handle: &Handle, base: &str) -> Result<Vec<Format>, HarvestError> {
    let url = request_url(base, Verb::ListMetadataFormats, &[]);
    let events = events(client, handle, &url)?;
    let errors = oai_errors(&events);
    if !errors.is_empty() {
        return Err(HarvestError::Oai { url, errors });
    }
    Ok(events
        .into_iter()
        .filter_map(|e| match e {
            PageEvent::Format {
                prefix,
                schema,
                namespace,
            } => Some(Format {
                prefix,
                schema,
                namespace,
            }),
            _ => None,
        })
        .collect())
}

/// Every set (`noSetHierarchy` is an empty list), following resumption tokens.
pub fn sets(
    client: &Client,
    handle: &Handle,
    base: &str,
) -> Result<Vec<(String, String)>, HarvestError> {
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    let mut seen = HashSet::new();
    loop {
        let url = match &token {
            Some(t) => request_url(base, Verb::ListSets, &[("resumptionToken", t)]),
            None => request_url(base, Verb::ListSets, &[]),
        };
        let events = events(client, handle, &url)?;
        let errors = oai_errors(&events);
        if errors
            .iter()
            .any(|e| e.code == modoai_protocol::ErrorCode::NoSetHierarchy)
        {
            return Ok(out);
        }
        if !errors.is_empty() {
            return Err(HarvestError::Oai { url, errors });
        }
        token = None;
        for e in events {
            match e {
                PageEvent::Set { spec, name } => out.push((spec, name)),
                PageEvent::Token(t) if !t.is_final() => token = Some(t.token),
                _ => {}
            }
        }
        match &token {
            None => return Ok(out),
            Some(t) if !seen.insert(t.clone()) => {
                return Err(HarvestError::RepeatedToken {
                    url,
                    token: t.clone(),
                })
            }
            Some(_) => {}
        }
    }
}
