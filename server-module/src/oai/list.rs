//! ListIdentifiers and ListRecords: a fresh selection or a resumed one, one page of it, and the
//! token of the next.

use std::sync::Arc;

use http::Response;
use modoai_protocol::request::Selection;
use modoai_protocol::{Datestamp, ErrorCode, ListArgs, OaiError, SetSpec, Verb};

use super::paging::{decode, write_token};
use super::records::{write_header, write_record_dc, write_record_didl};
use super::response::{self, OaiBody};
use super::token::Token;
use super::{Pairs, Repository};
use crate::formats::{Fetched, Format};
use crate::index::{Entry, Filter, Key, View};
use crate::sets::Lookup;
use crate::xml::Xml;

/// The state of a list request, fresh or resumed.
struct ListState {
    format: Format,
    filter: Filter,
    after: Option<Key>,
    cursor: u64,
    size: u64,
    resumed: bool,
}

pub(super) fn list(
    repo: &Arc<Repository>,
    pairs: &Pairs,
    verb: Verb,
    args: ListArgs,
) -> Result<Response<OaiBody>, OaiError> {
    // One view for the page and its count, dated before it is read: a version stored after it
    // gets a later datestamp than this response's date (see the index's datestamp rule).
    let view = repo.index.view();
    let state = match args {
        ListArgs::Resume(t) => resume(repo, &t, verb)?,
        ListArgs::Select(sel) => select(repo, &view, sel)?,
    };
    let candidates = view.page(
        &state.filter,
        state.after.as_ref(),
        repo.config.page_size + 1,
    );
    let with_records = verb == Verb::ListRecords;
    let taken = take_page(repo, &state, &candidates, with_records);
    if taken == 0 {
        return Err(OaiError::new(
            ErrorCode::NoRecordsMatch,
            "no records remain in this list",
        ));
    }
    let page: Vec<Arc<Entry>> = candidates[..taken].to_vec();
    let next = (candidates.len() > taken).then(|| next_token(verb, &state, &page));
    let mut x = response::open_at(&repo.base_url, pairs, view.date);
    drop(view);
    x.start(verb.as_str(), &[]);
    let tail = move |repo: &Repository, x: &mut Xml| {
        write_token(
            repo,
            x,
            state.resumed,
            state.cursor,
            taken,
            state.size,
            next.as_ref(),
        );
        x.end(verb.as_str());
    };
    if !with_records || state.format == Format::Dc {
        for e in &page {
            if with_records {
                write_record_dc(repo, &mut x, e);
            } else {
                write_header(repo, &mut x, e);
            }
        }
        tail(repo, &mut x);
        return Ok(response::complete(x));
    }
    Ok(stream_records(repo, x, page, state.format, tail))
}

/// The token of the page after `page` (which is not empty).
fn next_token(verb: Verb, state: &ListState, page: &[Arc<Entry>]) -> Token {
    let last = &page[page.len() - 1];
    Token {
        verb,
        prefix: state.format.prefix().to_owned(),
        from: state.filter.from,
        until: state.filter.until,
        set: state.filter.set.as_ref().map(|s| s.to_string()),
        last: (last.datestamp, last.path.to_string()),
        cursor: state.cursor + page.len() as u64,
        size: state.size,
        issued: Datestamp::now(),
    }
}

/// Streams `page` as `oai_didl` or `oai_crate` records, each file fetched from the site as its
/// record is written, then `tail` (the resumption token and the closing tag).
fn stream_records<T>(
    repo: &Arc<Repository>,
    x: Xml,
    page: Vec<Arc<Entry>>,
    format: Format,
    tail: T,
) -> Response<OaiBody>
where
    T: FnOnce(&Repository, &mut Xml) + Send + 'static,
{
    let repo = repo.clone();
    response::streaming(x, move |mut sink| async move {
        let mut analyses = repo.analyse(&page, format).await.into_iter();
        for e in &page {
            let fetched = if e.deleted {
                None
            } else {
                Some(Fetched::fetch(&repo.site, e, repo.config.inline_max).await)
            };
            let plugins = analyses.next().flatten();
            if let Err(halt) =
                write_record_didl(&repo, &mut sink, e, fetched, plugins.as_deref()).await
            {
                return (sink, Err(halt));
            }
        }
        tail(&repo, &mut sink.xml);
        (sink, Ok(()))
    })
}

/// How many of `candidates` fit on this page: at most the page size, and for records, no more
/// than the byte budget allows (but always at least one).
fn take_page(
    repo: &Repository,
    state: &ListState,
    candidates: &[Arc<Entry>],
    with_records: bool,
) -> usize {
    let c = &repo.config;
    if !with_records {
        return candidates.len().min(c.page_size);
    }
    let mut bytes = 0u64;
    let mut n = 0;
    for e in candidates.iter().take(c.page_size) {
        let cost = state.format.estimate(e.stamp.size, c.inline_max);
        if n > 0 && bytes + cost > c.page_bytes {
            break;
        }
        bytes += cost;
        n += 1;
    }
    n
}

fn resume(repo: &Repository, token: &str, verb: Verb) -> Result<ListState, OaiError> {
    let t = decode(repo, token, verb)?;
    let format = repo
        .format(&t.prefix)
        .ok_or_else(|| OaiError::new(ErrorCode::BadResumptionToken, "unknown format in token"))?;
    let set = t
        .set
        .as_deref()
        .map(|s| {
            SetSpec::parse(s)
                .ok_or_else(|| OaiError::new(ErrorCode::BadResumptionToken, "bad set in token"))
        })
        .transpose()?;
    Ok(ListState {
        format,
        filter: Filter {
            from: t.from,
            until: t.until,
            set,
        },
        after: Some((t.last.0, t.last.1.as_str().into())),
        cursor: t.cursor,
        size: t.size,
        resumed: true,
    })
}

fn select(repo: &Repository, view: &View<'_>, sel: Selection) -> Result<ListState, OaiError> {
    let format = repo.format(&sel.metadata_prefix).ok_or_else(|| {
        OaiError::new(
            ErrorCode::CannotDisseminateFormat,
            "this repository does not disseminate that metadataPrefix",
        )
    })?;
    let filter = Filter {
        from: sel.from,
        until: sel.until,
        set: sel.set,
    };
    if filter
        .set
        .as_ref()
        .is_some_and(|s| view.defs.lookup(s.as_str()) == Lookup::Unknown)
    {
        return Err(OaiError::new(
            ErrorCode::NoRecordsMatch,
            "no such set in this repository",
        ));
    }
    let size = view.count(&filter);
    if size == 0 {
        return Err(OaiError::new(
            ErrorCode::NoRecordsMatch,
            "no records match the request",
        ));
    }
    Ok(ListState {
        format,
        filter,
        after: None,
        cursor: 0,
        size,
        resumed: false,
    })
}
