//! The Change List: the index's change log (created, updated, deleted, each at its datestamp:
//! the time a harvester learns of it, as in OAI-PMH) as an index of pages of at most
//! [`MAX_ENTRIES`] changes. A page starts at a change and is closed (`until`) once the log holds
//! more than it takes; the last page is open. The log keeps changes for a configured period
//! (`change-log-days`): the index's and the first page's `from` is where the kept history
//! starts, and no page claims to cover anything before it.

use std::sync::Arc;

use http::{Response, StatusCode};
use modoai_protocol::Datestamp;

use super::resources::{blocking, Described, BATCH};
use super::sitemap::{self, Root, MAX_ENTRIES};
use super::{arg, only, Urls};
use crate::index::{Change, ChangeKind};
use crate::oai::response::{self, http_error, Halt, Sink};
use crate::oai::{OaiBody, Repository};

/// The first change of a page: its datestamp and sequence number (0: the first at that time).
type Place = (Datestamp, u64);

/// The Change List Index: a page for each [`MAX_ENTRIES`] changes of the log, all closed but the
/// last, the first from where the kept history starts; an empty log has one open page from there.
pub(super) async fn index(repo: &Arc<Repository>, urls: &Urls) -> Response<OaiBody> {
    let r = repo.clone();
    let (mut marks, start) =
        blocking(move || (r.index.change_marks(MAX_ENTRIES).0, history_start(&r))).await;
    match marks.first_mut() {
        Some(first) => *first = (start.min(first.0), 0),
        None => marks.push((start, 0)),
    }
    let from = marks[0].0.to_string();
    let mut x = sitemap::open(
        Root::Index,
        &[("up", &urls.capabilities)],
        &[("capability", "changelist"), ("from", &from)],
    );
    for (i, place) in marks.iter().enumerate() {
        let from = place.0.to_string();
        let until = marks.get(i + 1).map(|next| next.0.to_string());
        let mut md = vec![("from", from.as_str())];
        md.extend(until.as_deref().map(|u| ("until", u)));
        sitemap::sitemap(&mut x, &page_url(&urls.changes, *place), &md);
    }
    sitemap::complete(x, Root::Index)
}

/// Where the change log's kept history starts (now for an index still being built).
pub(super) fn history_start(repo: &Repository) -> Datestamp {
    repo.index.changes_from().unwrap_or_else(Datestamp::now)
}

/// The URL of the page that starts at `place`.
fn page_url(list: &str, (from, seq): Place) -> String {
    match seq {
        0 => format!("{list}?from={from}"),
        _ => format!("{list}?from={from}&seq={seq}"),
    }
}

/// One page of the Change List, streamed; 404 for a page that starts in the future.
pub(super) async fn page(
    repo: &Arc<Repository>,
    urls: &Urls,
    args: &[(String, String)],
) -> Response<OaiBody> {
    let place = match place(args) {
        Ok(p) => p,
        Err(why) => return http_error(StatusCode::BAD_REQUEST, why),
    };
    if place.0 > Datestamp::now() {
        return http_error(
            StatusCode::NOT_FOUND,
            "this page of the Change List starts in the future\n",
        );
    }
    let r = repo.clone();
    let (mut changes, start) = blocking(move || {
        let after = (place.1 > 0).then(|| (place.0, place.1 - 1));
        let changes = r.index.changes(Some(place.0), None, after, MAX_ENTRIES + 1);
        (changes, history_start(&r))
    })
    .await;
    let until = (changes.len() > MAX_ENTRIES).then(|| changes[MAX_ENTRIES].datestamp.to_string());
    changes.truncate(MAX_ENTRIES);
    // A page asked for from before the kept history covers only what is kept.
    let from = place.0.max(start).to_string();
    let mut md = vec![("capability", "changelist"), ("from", from.as_str())];
    md.extend(until.as_deref().map(|u| ("until", u)));
    let head = sitemap::open(
        Root::List,
        &[("up", &urls.capabilities), ("index", &urls.changes)],
        &md,
    );
    let repo = repo.clone();
    let body = response::stream_body(
        head,
        move |sink| stream(repo, sink, changes),
        sitemap::close_list,
    );
    sitemap::typed(Response::new(body))
}

/// The `from` (a UTC datetime, or a day) and `seq` (default 0) of a page.
fn place(args: &[(String, String)]) -> Result<Place, &'static str> {
    only(args, &["from", "seq"])?;
    let from = arg(args, "from")?.ok_or("a page of the Change List needs from=DATETIME\n")?;
    let (from, _) = Datestamp::parse_request(from)
        .ok_or("from must be a UTC datetime, YYYY-MM-DDThh:mm:ssZ, or a day, YYYY-MM-DD\n")?;
    let seq = match arg(args, "seq")? {
        Some(s) => s.parse().map_err(|_| "seq must be a change number\n")?,
        None => 0,
    };
    Ok((from, seq))
}

/// Writes the changes, describing [`BATCH`] at a time off the async threads.
async fn stream(
    repo: Arc<Repository>,
    mut sink: Sink,
    changes: Vec<Change>,
) -> (Sink, Result<(), Halt>) {
    let mut rest = changes.into_iter();
    loop {
        let batch: Vec<Change> = rest.by_ref().take(BATCH).collect();
        if batch.is_empty() {
            return (sink, Ok(()));
        }
        let r = repo.clone();
        let lines = blocking(move || describe(&r, batch)).await;
        for (c, d) in &lines {
            write(&mut sink, &repo, c, d.as_ref());
        }
        if let Err(halt) = sink.flush().await {
            return (sink, Err(halt));
        }
    }
}

/// Each change with its file as the index holds it now, when that is still the version the
/// change made (a later change supersedes it, and a deletion has nothing to describe).
fn describe(repo: &Repository, batch: Vec<Change>) -> Vec<(Change, Option<Described>)> {
    let view = repo.index.view();
    batch
        .into_iter()
        .map(|c| {
            let now = (c.kind != ChangeKind::Deleted)
                .then(|| view.get(&c.path))
                .flatten()
                .filter(|e| !e.deleted && e.datestamp == c.datestamp)
                .map(|e| Described::of(repo, &e));
            (c, now)
        })
        .collect()
}

/// One change: with the file's description when it has one, else its URL, kind and time.
fn write(sink: &mut Sink, repo: &Repository, c: &Change, d: Option<&Described>) {
    let change = match c.kind {
        ChangeKind::Created => "created",
        ChangeKind::Updated => "updated",
        _ => "deleted",
    };
    let datetime = c.datestamp.to_string();
    let extra = [("change", change), ("datetime", datetime.as_str())];
    match d {
        Some(d) => d.write(&mut sink.xml, &extra),
        None => {
            sitemap::url(&mut sink.xml, &repo.url_of(&c.path), None, &extra);
        }
    }
}
