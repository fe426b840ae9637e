//! The verbs that answer in one response: Identify, ListMetadataFormats and GetRecord.

use std::sync::Arc;

use http::{Response, StatusCode};
use modoai_protocol::{ns, Datestamp, ErrorCode, Granularity, OaiError};

use super::records::{write_record_dc, write_record_didl};
use super::response::{self, OaiBody};
use super::{Pairs, Repository};
use crate::formats::{Fetched, Format};

pub(super) fn identify(repo: &Repository, pairs: &Pairs) -> Response<OaiBody> {
    let c = &repo.config;
    let mut x = response::open(&repo.base_url, pairs);
    x.start("Identify", &[]);
    x.leaf("repositoryName", &[], &c.repository_name);
    x.leaf("baseURL", &[], &repo.base_url);
    x.leaf("protocolVersion", &[], "2.0");
    for email in &c.admin_emails {
        x.leaf("adminEmail", &[], email);
    }
    let earliest = repo.index.earliest().unwrap_or_else(Datestamp::now);
    x.leaf("earliestDatestamp", &[], &earliest.to_string());
    x.leaf(
        "deletedRecord",
        &[],
        match (c.deleted_records, repo.index.is_persistent()) {
            (false, _) => "no",
            (true, true) => "persistent",
            (true, false) => "transient",
        },
    );
    x.leaf("granularity", &[], Granularity::Seconds.as_str());
    if c.doors.resourcesync {
        let urls = crate::doors::resourcesync::Urls::of(repo);
        let schema_location = format!("{} {}/modoai.xsd", ns::MODOAI, repo.base_url);
        x.start("description", &[]);
        x.empty(
            "resourceSync",
            &[
                ("xmlns", ns::MODOAI),
                ("xsi:schemaLocation", &schema_location),
                ("sourceDescription", &urls.description),
                ("capabilityList", &urls.capabilities),
            ],
        );
        x.end("description");
    }
    x.end("Identify");
    response::complete(x)
}

pub(super) fn list_formats(
    repo: &Repository,
    pairs: &Pairs,
    identifier: Option<&str>,
) -> Result<Response<OaiBody>, OaiError> {
    if let Some(id) = identifier {
        repo.entry(id)?;
    }
    let mut x = response::open(&repo.base_url, pairs);
    x.start("ListMetadataFormats", &[]);
    for f in Format::available(repo.config.plugins.is_some()) {
        x.start("metadataFormat", &[]);
        x.leaf("metadataPrefix", &[], f.prefix());
        x.leaf("schema", &[], f.schema());
        x.leaf("metadataNamespace", &[], f.namespace());
        x.end("metadataFormat");
    }
    x.end("ListMetadataFormats");
    Ok(response::complete(x))
}

pub(super) async fn get_record(
    repo: &Arc<Repository>,
    pairs: &Pairs,
    identifier: &str,
    prefix: &str,
) -> Result<Response<OaiBody>, OaiError> {
    let e = repo.entry(identifier)?;
    let format = repo.format(prefix).ok_or_else(|| {
        OaiError::new(
            ErrorCode::CannotDisseminateFormat,
            "this repository does not disseminate that metadataPrefix",
        )
    })?;
    let mut x = response::open(&repo.base_url, pairs);
    x.start("GetRecord", &[]);
    if e.deleted || format == Format::Dc {
        write_record_dc(repo, &mut x, &e);
        x.end("GetRecord");
        return Ok(response::complete(x));
    }
    // Ask the site before the response starts: a file it no longer serves is no record.
    let fetched = Fetched::fetch(&repo.site, &e, repo.config.inline_max).await;
    match fetched.status() {
        Some(s) if s.is_success() => {}
        Some(_) => {
            return Err(OaiError::new(
                ErrorCode::IdDoesNotExist,
                "the site no longer serves this file",
            ))
        }
        None => {
            return Ok(response::http_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error\n",
            ))
        }
    }
    let repo = repo.clone();
    Ok(response::streaming(x, move |mut sink| async move {
        let plugins = repo
            .analyse(std::slice::from_ref(&e), format)
            .await
            .pop()
            .flatten();
        let result =
            write_record_didl(&repo, &mut sink, &e, Some(fetched), plugins.as_deref()).await;
        if result.is_ok() {
            sink.xml.end("GetRecord");
        }
        (sink, result)
    }))
}
