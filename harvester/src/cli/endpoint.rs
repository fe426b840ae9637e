//! `inspect endpoint`: Identify, metadata formats and (optionally) sets, as text or JSON.

use std::io::Write;

use modoai_harvester::client::Client;
use modoai_harvester::harvest::endpoint;
use serde::Serialize;
use tokio::runtime::Handle;

/// What `inspect endpoint --json` prints.
#[derive(Debug, Serialize)]
struct EndpointReport {
    repository_name: String,
    base_url: String,
    protocol_version: String,
    admin_emails: Vec<String>,
    /// `None` when the endpoint sent none or an illegal one.
    earliest_datestamp: Option<String>,
    /// `None` when the endpoint's value is not a legal one.
    granularity: Option<&'static str>,
    deleted_record: String,
    compression: Vec<String>,
    formats: Vec<FormatReport>,
    /// Only with `--sets`.
    #[serde(skip_serializing_if = "Option::is_none")]
    sets: Option<Vec<SetReport>>,
}

#[derive(Debug, Serialize)]
struct FormatReport {
    prefix: String,
    namespace: String,
    schema: String,
}

#[derive(Debug, Serialize)]
struct SetReport {
    spec: String,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
}

/// Asks the endpoint, then prints what it answered.
pub(crate) fn show(
    client: &Client,
    handle: &Handle,
    url: &str,
    with_sets: bool,
    json: bool,
) -> anyhow::Result<()> {
    let id = endpoint::identify(client, handle, url)?;
    let formats = endpoint::formats(client, handle, url)?
        .into_iter()
        .map(|f| FormatReport {
            prefix: f.prefix,
            namespace: f.namespace,
            schema: f.schema,
        })
        .collect();
    let sets = match with_sets {
        true => Some(
            endpoint::sets(client, handle, url)?
                .into_iter()
                .map(|s| SetReport {
                    spec: s.spec,
                    name: s.name,
                    description: s.description,
                })
                .collect(),
        ),
        false => None,
    };
    let report = EndpointReport {
        repository_name: id.repository_name,
        base_url: id.base_url,
        protocol_version: id.protocol_version,
        admin_emails: id.admin_emails,
        earliest_datestamp: id.earliest_datestamp.map(|d| d.to_string()),
        granularity: id.granularity.map(|g| g.as_str()),
        deleted_record: id.deleted_record,
        compression: id.compression,
        formats,
        sets,
    };
    let mut out = std::io::stdout().lock();
    match json {
        true => writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?,
        false => text(&mut out, &report)?,
    }
    Ok(out.flush()?)
}

fn text(out: &mut impl Write, r: &EndpointReport) -> std::io::Result<()> {
    writeln!(out, "repository:   {}", r.repository_name)?;
    writeln!(out, "base URL:     {}", r.base_url)?;
    writeln!(out, "protocol:     {}", r.protocol_version)?;
    writeln!(out, "admin:        {}", r.admin_emails.join(", "))?;
    let earliest = r.earliest_datestamp.as_deref().unwrap_or("?");
    writeln!(out, "earliest:     {earliest}")?;
    let granularity = r.granularity.unwrap_or("? (not a legal value)");
    writeln!(out, "granularity:  {granularity}")?;
    writeln!(out, "deleted:      {}", r.deleted_record)?;
    if !r.compression.is_empty() {
        writeln!(out, "compression:  {}", r.compression.join(", "))?;
    }
    writeln!(out, "formats:")?;
    for f in &r.formats {
        writeln!(out, "  {:<12} {}  {}", f.prefix, f.namespace, f.schema)?;
    }
    if let Some(sets) = &r.sets {
        writeln!(out, "sets: {}", sets.len())?;
        for s in sets {
            writeln!(out, "  {:<30} {}", s.spec, s.name)?;
            if let Some(d) = &s.description {
                writeln!(out, "  {:<30}   {d}", "")?;
            }
        }
    }
    Ok(())
}
