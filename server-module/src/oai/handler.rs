//! From an HTTP request to an OAI-PMH response: read the arguments, check everything that can
//! fail, and only then start the (possibly streaming) response.

use std::sync::Arc;

use http::header::CONTENT_TYPE;
use http::{Method, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, Limited};
use modoai_protocol::request::Selection;
use modoai_protocol::setspec::{mime_set_name, MIME_ROOT};
use modoai_protocol::{
    form, Datestamp, ErrorCode, Granularity, ListArgs, OaiError, Request as Oai, SetSpec, Verb,
};

use super::guard::{self, Gate};
use super::response::{self, Halt, OaiBody, Sink};
use super::token::Token;
use super::Repository;
use crate::fetch::BoxError;
use crate::formats::{write_dc, write_didl, Fetched, Format};
use crate::index::{Entry, Filter, Key};
use crate::plugins::PluginResult;
use crate::xml::Xml;

/// Largest accepted POST body.
const MAX_FORM: usize = 64 * 1024;
/// Seconds a harvester is asked to wait while the first index scan runs.
const RETRY_WHILE_INDEXING: u32 = 5;

type Pairs = Vec<(String, String)>;

/// Answers one request to the OAI route.
pub(crate) async fn handle<B>(repo: Arc<Repository>, req: Request<B>) -> Response<OaiBody>
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let gate = Gate::of(&req);
    let pairs = match read_args(&repo, req).await {
        Ok(p) => p,
        Err(res) => return res,
    };
    if !repo.index.is_ready() {
        return response::unavailable(
            RETRY_WHILE_INDEXING,
            "the site index is being built; retry shortly\n",
        );
    }
    let request = match Oai::parse(&pairs, Granularity::Seconds) {
        Ok(r) => r,
        Err(errors) => return response::errors(&repo.base_url, &pairs, &errors),
    };
    let admission = match guard::admit(&repo, gate, &request).await {
        Ok(a) => a,
        Err(res) => return res,
    };
    let outcome = match request {
        Oai::Identify => Ok(identify(&repo, &pairs)),
        Oai::ListMetadataFormats { identifier } => {
            list_formats(&repo, &pairs, identifier.as_deref())
        }
        Oai::ListSets { resumption_token } => list_sets(&repo, &pairs, resumption_token.as_deref()),
        Oai::ListIdentifiers(args) => list(&repo, &pairs, Verb::ListIdentifiers, args),
        Oai::ListRecords(args) => list(&repo, &pairs, Verb::ListRecords, args),
        Oai::GetRecord {
            identifier,
            metadata_prefix,
        } => get_record(&repo, &pairs, &identifier, &metadata_prefix).await,
    };
    admission.attach(outcome.unwrap_or_else(|e| response::errors(&repo.base_url, &pairs, &[e])))
}

/// The arguments of GET (query) or POST (form body); with POST, query arguments count too, so
/// an argument in both places is a repeat.
async fn read_args<B>(repo: &Repository, req: Request<B>) -> Result<Pairs, Response<OaiBody>>
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let (parts, body) = req.into_parts();
    let mut raw = parts.uri.query().unwrap_or("").as_bytes().to_vec();
    match parts.method {
        Method::GET | Method::HEAD => {}
        Method::POST => {
            let form = parts
                .headers
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(crate::mime::essence);
            if form.as_deref() != Some("application/x-www-form-urlencoded") {
                return Err(response::http_error(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "POST requires application/x-www-form-urlencoded\n",
                ));
            }
            let bytes = match Limited::new(body, MAX_FORM).collect().await {
                Ok(c) => c.to_bytes(),
                Err(_) => {
                    return Err(response::http_error(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "request body too large or unreadable\n",
                    ))
                }
            };
            raw.push(b'&');
            raw.extend_from_slice(&bytes);
        }
        _ => {
            let mut res = response::http_error(StatusCode::METHOD_NOT_ALLOWED, "use GET or POST\n");
            res.headers_mut().insert(
                http::header::ALLOW,
                http::HeaderValue::from_static("GET, HEAD, POST"),
            );
            return Err(res);
        }
    }
    form::parse_bytes(&raw).map_err(|e| {
        response::errors(
            &repo.base_url,
            &[],
            &[OaiError::bad_argument(e.to_string())],
        )
    })
}

fn identify(repo: &Repository, pairs: &Pairs) -> Response<OaiBody> {
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
        if c.deleted_records { "transient" } else { "no" },
    );
    x.leaf("granularity", &[], Granularity::Seconds.as_str());
    x.end("Identify");
    response::complete(x)
}

fn list_formats(
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

fn list_sets(
    repo: &Repository,
    pairs: &Pairs,
    token: Option<&str>,
) -> Result<Response<OaiBody>, OaiError> {
    let specs = repo.index.set_specs();
    if specs.is_empty() {
        return Err(OaiError::new(
            ErrorCode::NoSetHierarchy,
            "the repository holds no records, so it has no sets",
        ));
    }
    let resumed = token.map(|t| decode(repo, t, Verb::ListSets)).transpose()?;
    let (start, size) = match &resumed {
        Some(t) => (specs.partition_point(|s| *s <= t.last.1), t.size),
        None => (0, specs.len() as u64),
    };
    let page: Vec<&String> = specs[start..].iter().take(repo.config.page_size).collect();
    let last = page
        .last()
        .map(|s| (Datestamp::from_unix(0), s.to_string()));
    let more = start + page.len() < specs.len();
    let mut x = response::open(&repo.base_url, pairs);
    x.start("ListSets", &[]);
    for spec in &page {
        x.start("set", &[]);
        x.leaf("setSpec", &[], spec);
        x.leaf("setName", &[], &mime_set_name(spec));
        x.end("set");
    }
    let cursor = resumed.as_ref().map_or(0, |t| t.cursor);
    let next = more.then(|| Token {
        verb: Verb::ListSets,
        prefix: String::new(),
        from: None,
        until: None,
        set: None,
        last: last.unwrap_or((Datestamp::from_unix(0), String::new())),
        cursor: cursor + page.len() as u64,
        size,
        issued: Datestamp::now(),
    });
    write_token(
        repo,
        &mut x,
        resumed.is_some(),
        cursor,
        page.len(),
        size,
        next.as_ref(),
    );
    x.end("ListSets");
    Ok(response::complete(x))
}

/// The state of a list request, fresh or resumed.
struct ListState {
    format: Format,
    filter: Filter,
    after: Option<Key>,
    cursor: u64,
    size: u64,
    resumed: bool,
}

fn list(
    repo: &Arc<Repository>,
    pairs: &Pairs,
    verb: Verb,
    args: ListArgs,
) -> Result<Response<OaiBody>, OaiError> {
    let state = match args {
        ListArgs::Resume(t) => resume(repo, &t, verb)?,
        ListArgs::Select(sel) => select(repo, sel)?,
    };
    let candidates = repo.index.page(
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
    let next = (candidates.len() > taken).then(|| Token {
        verb,
        prefix: state.format.prefix().to_owned(),
        from: state.filter.from,
        until: state.filter.until,
        set: state.filter.set.as_ref().map(|s| s.to_string()),
        last: (page[taken - 1].datestamp, page[taken - 1].path.to_string()),
        cursor: state.cursor + taken as u64,
        size: state.size,
        issued: Datestamp::now(),
    });
    let mut x = response::open(&repo.base_url, pairs);
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
    let repo = repo.clone();
    let format = state.format;
    Ok(response::streaming(x, move |mut sink| async move {
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
    }))
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

fn select(repo: &Repository, sel: Selection) -> Result<ListState, OaiError> {
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
        .is_some_and(|s| !SetSpec::parse(MIME_ROOT).is_some_and(|root| root.contains(s.as_str())))
    {
        return Err(OaiError::new(
            ErrorCode::NoRecordsMatch,
            "no such set in this repository",
        ));
    }
    let size = repo.index.count(&filter);
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

fn decode(repo: &Repository, token: &str, verb: Verb) -> Result<Token, OaiError> {
    repo.tokens
        .decode(token, verb, Datestamp::now())
        .map_err(|e| OaiError::new(ErrorCode::BadResumptionToken, e.to_string()))
}

/// The resumptionToken element (§3.5): a token while the list goes on, an empty element on the
/// last page of a list that had several, nothing for a list that fit one page.
fn write_token(
    repo: &Repository,
    x: &mut Xml,
    resumed: bool,
    cursor: u64,
    n: usize,
    size: u64,
    next: Option<&Token>,
) {
    let complete = size
        .max(cursor + n as u64 + u64::from(next.is_some()))
        .to_string();
    let cursor = cursor.to_string();
    match next {
        Some(t) => {
            let expires = repo.tokens.expires(t.issued).to_string();
            let attrs = [
                ("expirationDate", expires.as_str()),
                ("completeListSize", &complete),
                ("cursor", &cursor),
            ];
            x.leaf("resumptionToken", &attrs, &repo.tokens.encode(t));
        }
        None if resumed => x.empty(
            "resumptionToken",
            &[("completeListSize", &complete), ("cursor", &cursor)],
        ),
        None => {}
    }
}

fn write_header(repo: &Repository, x: &mut Xml, e: &Entry) {
    x.start(
        "header",
        if e.deleted {
            &[("status", "deleted")]
        } else {
            &[]
        },
    );
    x.leaf("identifier", &[], &repo.identifier(e));
    x.leaf("datestamp", &[], &e.datestamp.to_string());
    for spec in e.set_specs() {
        x.leaf("setSpec", &[], &spec);
    }
    x.end("header");
}

fn write_record_dc(repo: &Repository, x: &mut Xml, e: &Entry) {
    x.start("record", &[]);
    write_header(repo, x, e);
    if !e.deleted {
        x.start("metadata", &[]);
        write_dc(x, e, &repo.identifier(e));
        x.end("metadata");
    }
    x.end("record");
}

async fn write_record_didl(
    repo: &Repository,
    sink: &mut Sink,
    e: &Entry,
    fetched: Option<Fetched>,
    plugins: Option<&[Arc<PluginResult>]>,
) -> Result<(), Halt> {
    sink.xml.start("record", &[]);
    write_header(repo, &mut sink.xml, e);
    if let Some(fetched) = fetched {
        sink.xml.start("metadata", &[]);
        write_didl(sink, e, &repo.identifier(e), fetched, plugins).await?;
        sink.xml.end("metadata");
    }
    sink.xml.end("record");
    sink.flush().await
}

async fn get_record(
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
