//! The Resource List: an index of parts, each the live files between two URL paths (at most
//! [`MAX_ENTRIES`]), with `lastmod` (the file's mtime, its `Last-Modified`), `length`, `type` and
//! the MD5 when the plugins have already computed it.

use std::ops::Bound;
use std::sync::Arc;

use http::{Response, StatusCode};
use modoai_protocol::{form, Datestamp};

use super::sitemap::{self, Root, MAX_ENTRIES};
use super::{arg, only, Urls};
use crate::index::Entry;
use crate::oai::response::{self, http_error, Halt, Sink};
use crate::oai::{OaiBody, Repository};

/// Records read and described per step of a streamed list.
pub(super) const BATCH: usize = 1_000;

/// What a list says of one live file.
pub(super) struct Described {
    pub(super) loc: String,
    pub(super) lastmod: Datestamp,
    md5: Option<String>,
    length: String,
    mime: Arc<str>,
}

impl Described {
    /// The file of record `e`, its MD5 taken from the plugin results if known (never computed).
    pub(super) fn of(repo: &Repository, e: &Entry) -> Described {
        let md5 = repo
            .config
            .plugins
            .as_ref()
            .and_then(|p| p.known_md5(&repo.subject(e)));
        Described {
            loc: repo.identifier(e),
            lastmod: Datestamp::from_unix(e.stamp.mtime_ns.div_euclid(1_000_000_000) as i64),
            md5: md5.map(|h| format!("md5:{h}")),
            length: e.stamp.size.to_string(),
            mime: e.mime.clone(),
        }
    }

    /// The `rs:md` attributes, `extra` (a change's kind and time) first.
    pub(super) fn write(&self, x: &mut crate::xml::Xml, extra: &[(&str, &str)]) {
        let mut md: Vec<(&str, &str)> = extra.to_vec();
        if let Some(h) = &self.md5 {
            md.push(("hash", h));
        }
        md.extend([("length", self.length.as_str()), ("type", &self.mime)]);
        sitemap::url(x, &self.loc, Some(self.lastmod), &md);
    }
}

/// The Resource List Index (of the site, or of the named set `set`): one part per
/// [`MAX_ENTRIES`] files, the first from the start of the path order and the last to its end, so
/// that every file is in exactly one part. A named set's index reads every record to find its
/// own.
pub(super) async fn index(
    repo: &Arc<Repository>,
    urls: &Urls,
    set: Option<String>,
) -> Response<OaiBody> {
    let r = repo.clone();
    let named = set.clone();
    let (marks, at) = blocking(move || {
        let view = r.index.view();
        (view.path_marks(MAX_ENTRIES, named.as_deref()).0, view.date)
    })
    .await;
    let at = at.to_string();
    let (up, list) = match &set {
        Some(s) => (urls.set_capabilities(s), urls.set_resources(s)),
        None => (urls.capabilities.clone(), urls.resources.clone()),
    };
    let mut x = sitemap::open(
        Root::Index,
        &[("up", &up)],
        &[("capability", "resourcelist"), ("at", &at)],
    );
    let mut starts: Vec<&str> = marks.iter().map(String::as_str).collect();
    match starts.first_mut() {
        Some(first) => *first = "",
        None => starts.push(""),
    }
    for (i, start) in starts.iter().enumerate() {
        let loc = part_url(&list, start, starts.get(i + 1).copied());
        sitemap::sitemap(&mut x, &loc, &[("at", &at)]);
    }
    sitemap::complete(x, Root::Index)
}

/// The URL of the part from `start` to before `end` (to the end of the order without one) of
/// the list `list` (which may have a query of its own).
fn part_url(list: &str, start: &str, end: Option<&str>) -> String {
    let sep = if list.contains('?') { '&' } else { '?' };
    match end {
        Some(end) => format!(
            "{list}{sep}start={}&end={}",
            form::encode(start),
            form::encode(end)
        ),
        None => format!("{list}{sep}start={}", form::encode(start)),
    }
}

/// One part of the Resource List, streamed; 404 when no file lies between its paths any more.
pub(super) async fn part(
    repo: &Arc<Repository>,
    urls: &Urls,
    args: &[(String, String)],
    set: Option<String>,
) -> Response<OaiBody> {
    let (start, end) = match bounds(args) {
        Ok(b) => b,
        Err(why) => return http_error(StatusCode::BAD_REQUEST, why),
    };
    let at = repo.index.view().date.to_string();
    let range = Range { end, set };
    let first = read(repo, Bound::Included(start.clone()), range.clone(), BATCH).await;
    if first.is_empty() && !start.is_empty() {
        return http_error(
            StatusCode::NOT_FOUND,
            "no file of the site lies in this part of the Resource List; read its index again\n",
        );
    }
    let (up, index) = match &range.set {
        Some(s) => (urls.set_capabilities(s), urls.set_resources(s)),
        None => (urls.capabilities.clone(), urls.resources.clone()),
    };
    let head = sitemap::open(
        Root::List,
        &[("up", &up), ("index", &index)],
        &[("capability", "resourcelist"), ("at", &at)],
    );
    let repo = repo.clone();
    let body = response::stream_body(
        head,
        move |sink| stream(repo, sink, first, range),
        sitemap::close_list,
    );
    sitemap::typed(Response::new(body))
}

/// The `start` (required, empty for the first part) and `end` (optional) of a part.
fn bounds(args: &[(String, String)]) -> Result<(String, Option<String>), &'static str> {
    only(args, &["start", "end"])?;
    let start = arg(args, "start")?.ok_or("a part of the Resource List needs start=PATH\n")?;
    let end = arg(args, "end")?;
    if end.is_some_and(|e| e <= start) {
        return Err("end must come after start\n");
    }
    Ok((start.to_owned(), end.map(str::to_owned)))
}

/// Where a part ends, and the named set it is of.
#[derive(Clone)]
struct Range {
    end: Option<String>,
    set: Option<String>,
}

/// Writes `first` and the files after it, up to [`MAX_ENTRIES`] in all.
async fn stream(
    repo: Arc<Repository>,
    mut sink: Sink,
    first: Vec<(Arc<str>, Described)>,
    range: Range,
) -> (Sink, Result<(), Halt>) {
    let mut batch = first;
    let mut written = 0;
    while let Some((last, _)) = batch.last() {
        let after = Bound::Excluded(last.to_string());
        for (_, d) in &batch {
            d.write(&mut sink.xml, &[]);
        }
        written += batch.len();
        if let Err(halt) = sink.flush().await {
            return (sink, Err(halt));
        }
        let room = (MAX_ENTRIES - written).min(BATCH);
        batch = match room {
            0 => Vec::new(),
            n => read(&repo, after, range.clone(), n).await,
        };
    }
    (sink, Ok(()))
}

/// Up to `limit` live files (of the range's set) from `start` on and before the range's end,
/// described.
async fn read(
    repo: &Arc<Repository>,
    start: Bound<String>,
    range: Range,
    limit: usize,
) -> Vec<(Arc<str>, Described)> {
    let repo = repo.clone();
    blocking(move || {
        let view = repo.index.view();
        let Range { end, set } = range;
        view.by_path(start.as_ref().map(String::as_str), limit, set.as_deref())
            .into_iter()
            .take_while(|e| end.as_deref().is_none_or(|end| &*e.path < end))
            .map(|e| (e.path.clone(), Described::of(&repo, &e)))
            .collect()
    })
    .await
}

/// Runs index reads (and the plugin cache's file reads) off the async threads.
pub(super) async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f)
        .await
        .expect("index reads do not panic")
}
