//! ListSets (§4.6): the MIME sets, the named sets, then the folder sets, paged by resumption
//! tokens in that stable order; `completeListSize` counts all three.

use http::Response;
use modoai_protocol::setspec::{mime_set_name, PATH_ROOT};
use modoai_protocol::{ns, Datestamp, ErrorCode, OaiError, Verb};

use super::paging::{decode, write_token};
use super::response::{self, OaiBody};
use super::token::Token;
use super::{Pairs, Repository};
use crate::index::View;
use crate::sets::{folder_spec, FolderSets};
use crate::xml::Xml;

/// One set of the list, with its place in the order: a group digit (0 MIME, 1 named, 2
/// folders), `:`, and its key in the group (the spec; a folder's URL path, empty for the root).
struct Row {
    place: String,
    spec: String,
    name: String,
    description: Option<String>,
}

pub(super) fn list_sets(
    repo: &Repository,
    pairs: &Pairs,
    token: Option<&str>,
) -> Result<Response<OaiBody>, OaiError> {
    let resumed = token.map(|t| decode(repo, t, Verb::ListSets)).transpose()?;
    let view = repo.index.view();
    let size = total(&view);
    if size == 0 {
        return Err(OaiError::new(
            ErrorCode::NoSetHierarchy,
            "the repository holds no records and defines no sets, so it has no sets",
        ));
    }
    let after = resumed.as_ref().map(|t| t.last.1.as_str());
    let mut page = rows(&view, after, repo.config.page_size + 1);
    let more = page.len() > repo.config.page_size;
    page.truncate(repo.config.page_size);
    let size = resumed.as_ref().map_or(size, |t| t.size);
    let mut x = response::open_at(&repo.base_url, pairs, view.date);
    drop(view);
    x.start("ListSets", &[]);
    for row in &page {
        write_set(&mut x, row);
    }
    let cursor = resumed.as_ref().map_or(0, |t| t.cursor);
    let next = match (more, page.last()) {
        (true, Some(last)) => Some(Token {
            verb: Verb::ListSets,
            prefix: String::new(),
            from: None,
            until: None,
            set: None,
            last: (Datestamp::from_unix(0), last.place.clone()),
            cursor: cursor + page.len() as u64,
            size,
            issued: Datestamp::now(),
        }),
        _ => None,
    };
    let n = page.len();
    write_token(
        repo,
        &mut x,
        resumed.is_some(),
        cursor,
        n,
        size,
        next.as_ref(),
    );
    x.end("ListSets");
    Ok(response::complete(x))
}

/// How many sets there are: MIME sets with records, every named set, and the folder sets (the
/// root folder among them) with records.
fn total(view: &View<'_>) -> u64 {
    let mime = view.mime_set_specs().len() as u64;
    let root = u64::from(has_root(view));
    let folders = view.folder_sets(None, 0).1;
    mime + view.defs.named().len() as u64 + root + folders
}

fn has_root(view: &View<'_>) -> bool {
    view.defs.folders != FolderSets::Off && view.count(&Default::default()) > 0
}

/// Up to `limit` sets after the place `after`, in order.
fn rows(view: &View<'_>, after: Option<&str>, limit: usize) -> Vec<Row> {
    let past = |place: &str| after.is_none_or(|a| place > a);
    let mut rows: Vec<Row> = view
        .mime_set_specs()
        .into_iter()
        .map(|spec| Row {
            place: format!("0:{spec}"),
            name: mime_set_name(&spec),
            spec,
            description: None,
        })
        .filter(|r| past(&r.place))
        .take(limit)
        .collect();
    let named = view.defs.named().iter().map(|s| Row {
        place: format!("1:{}", s.spec()),
        spec: s.spec().to_owned(),
        name: s.name().to_owned(),
        description: s.description_text().map(str::to_owned),
    });
    rows.extend(named.filter(|r| past(&r.place)).take(limit - rows.len()));
    if rows.len() < limit && has_root(view) && past("2:") {
        rows.push(Row {
            place: "2:".to_owned(),
            spec: PATH_ROOT.to_owned(),
            name: "/ (every file of the site, by folder)".to_owned(),
            description: None,
        });
    }
    if rows.len() < limit {
        let from = after
            .and_then(|a| a.strip_prefix("2:"))
            .filter(|f| !f.is_empty());
        let (folders, _) = view.folder_sets(from, limit - rows.len());
        rows.extend(folders.into_iter().map(|(folder, _)| Row {
            place: format!("2:{folder}"),
            spec: folder_spec(&folder),
            name: folder_name(&folder),
            description: None,
        }));
    }
    rows
}

/// A folder's name as people see it: its path from the root, decoded, between slashes.
fn folder_name(folder: &str) -> String {
    let decoded = crate::index::url_path::decode(folder);
    format!("/{}/", decoded.to_string_lossy())
}

fn write_set(x: &mut Xml, row: &Row) {
    x.start("set", &[]);
    x.leaf("setSpec", &[], &row.spec);
    x.leaf("setName", &[], &row.name);
    if let Some(text) = &row.description {
        // §4.6: a set's description is a container in a format of its own; oai_dc, as the
        // specification's example.
        let schema_location = format!("{} {}", ns::OAI_DC, ns::OAI_DC_XSD);
        x.start("setDescription", &[]);
        x.start(
            "oai_dc:dc",
            &[
                ("xmlns:oai_dc", ns::OAI_DC),
                ("xmlns:dc", ns::DC),
                ("xmlns:xsi", ns::XSI),
                ("xsi:schemaLocation", &schema_location),
            ],
        );
        x.leaf("dc:description", &[], text);
        x.end("oai_dc:dc");
        x.end("setDescription");
    }
    x.end("set");
}
