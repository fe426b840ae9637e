//! From an HTTP request to an OAI-PMH response: read the arguments, check everything that can
//! fail, and only then start the (possibly streaming) response.

use std::sync::Arc;

use http::header::CONTENT_TYPE;
use http::{Method, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, Limited};
use modoai_protocol::{form, Granularity, OaiError, Request as Oai, Verb};

use super::guard::{self, Gate};
use super::list::list;
use super::response::{self, OaiBody};
use super::sets::list_sets;
use super::verbs::{get_record, identify, list_formats};
use super::{Pairs, Repository};
use crate::doors::html::{self, View};
use crate::doors::{prefers_html, vary_on_accept, Door};
use crate::fetch::BoxError;
use crate::observe::{OaiFacts, Refusal};

/// Largest accepted POST body.
const MAX_FORM: usize = 64 * 1024;

/// Answers one request to the OAI route (`door` [`Door::Oai`], where a browser that prefers
/// HTML gets the HTML view) or to the route that always answers XML ([`Door::OaiXml`]); the
/// response carries the [`OaiFacts`] of the request.
pub(crate) async fn handle<B>(
    repo: Arc<Repository>,
    req: Request<B>,
    door: Door,
) -> Response<OaiBody>
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let negotiates = door == Door::Oai && repo.config.doors.html;
    let view = (negotiates && prefers_html(req.headers())).then(|| {
        let query = req.uri().query().unwrap_or("").to_owned();
        let raw = format!("{}/xml", repo.base_url);
        View::new(repo.config.repository_name.clone(), raw, query)
    });
    let mut facts = OaiFacts::default();
    let mut res = answer(repo, req, &mut facts).await;
    if let Some(view) = view {
        res = html::render(res, view);
    }
    if negotiates {
        vary_on_accept(&mut res);
    }
    res.extensions_mut().insert(facts);
    res
}

async fn answer<B>(
    repo: Arc<Repository>,
    req: Request<B>,
    facts: &mut OaiFacts,
) -> Response<OaiBody>
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
    facts.verb = arg(&pairs, "verb").and_then(|v| v.parse().ok());
    facts.metadata_prefix = arg(&pairs, "metadataPrefix").map(str::to_owned);
    if !repo.index.is_ready() {
        facts.refusal = Some(Refusal::Indexing);
        return response::indexing();
    }
    let request = match Oai::parse(&pairs, Granularity::Seconds) {
        Ok(r) => r,
        Err(errors) => {
            facts.errors = errors.iter().map(|e| e.code).collect();
            return response::errors(&repo.base_url, &pairs, &errors);
        }
    };
    let admission = match guard::admit(&repo, gate, &request, facts).await {
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
    admission.attach(outcome.unwrap_or_else(|e| {
        facts.errors = vec![e.code];
        response::errors(&repo.base_url, &pairs, &[e])
    }))
}

/// The value of the first argument named `name`.
fn arg<'a>(pairs: &'a Pairs, name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
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
