//! Small requests about an endpoint: Identify, ListMetadataFormats, ListSets (all pages).

use std::collections::HashSet;

use modoai_protocol::form::request_url;
use modoai_protocol::{OaiError, Verb};
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use super::net::Net;
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

/// A set the endpoint lists (ListSets, §4.6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetInfo {
    /// `setSpec`.
    pub spec: String,
    /// `setName`.
    pub name: String,
    /// The text of `setDescription`, if any.
    pub description: Option<String>,
}

/// Fetches and parses one small page whole, with the page retry policy of the harvest; the
/// `first` request to the endpoint gets the short policy ([`Client::get_first`]) and is not
/// fetched again when its body is no OAI-PMH: a wrong URL fails at once.
pub(crate) fn events(net: Net<'_>, url: &str, first: bool) -> Result<Vec<PageEvent>, HarvestError> {
    let mut attempt = 0;
    let max_retries = if first {
        0
    } else {
        net.client.config().max_retries
    };
    loop {
        attempt += 1;
        let response = net.get(url, first)?;
        let reader = response.into_reader(net.handle);
        match PageParser::new(reader).collect::<Result<Vec<_>, _>>() {
            Ok(events) => return Ok(events),
            Err(error) if attempt <= max_retries => {
                let wait = net.client.backoff(attempt);
                tracing::warn!(%url, %error, ?wait, "broken page, retrying");
                net.pause(wait)?;
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

/// The endpoint's Identify answer (the first request to it: see [`Client::get_first`]).
pub fn identify(client: &Client, handle: &Handle, base: &str) -> Result<Identify, HarvestError> {
    identify_with(net(client, handle, &CancellationToken::new()), base)
}

/// A [`Net`] that is never cancelled.
fn net<'a>(client: &'a Client, handle: &'a Handle, never: &'a CancellationToken) -> Net<'a> {
    Net {
        client,
        handle,
        cancel: never,
    }
}

pub(crate) fn identify_with(net: Net<'_>, base: &str) -> Result<Identify, HarvestError> {
    let url = request_url(base, Verb::Identify, &[]);
    let events = events(net, &url, true)?;
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
    formats_with(net(client, handle, &CancellationToken::new()), base)
}

pub(crate) fn formats_with(net: Net<'_>, base: &str) -> Result<Vec<Format>, HarvestError> {
    let url = request_url(base, Verb::ListMetadataFormats, &[]);
    let events = events(net, &url, false)?;
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
pub fn sets(client: &Client, handle: &Handle, base: &str) -> Result<Vec<SetInfo>, HarvestError> {
    sets_with(net(client, handle, &CancellationToken::new()), base)
}

pub(crate) fn sets_with(net: Net<'_>, base: &str) -> Result<Vec<SetInfo>, HarvestError> {
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    let mut seen = HashSet::new();
    loop {
        let url = match &token {
            Some(t) => request_url(base, Verb::ListSets, &[("resumptionToken", t)]),
            None => request_url(base, Verb::ListSets, &[]),
        };
        let events = events(net, &url, false)?;
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
                PageEvent::Set {
                    spec,
                    name,
                    description,
                } => out.push(SetInfo {
                    spec,
                    name,
                    description,
                }),
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
