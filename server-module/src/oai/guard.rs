//! The access and flow checks of one OAI-PMH request: made once its arguments are parsed (the
//! format is known, a resumption token decoded) and before anything is read from the site or a
//! tool started.

use std::net::IpAddr;

use http::header::{AUTHORIZATION, FORWARDED};
use http::{HeaderMap, HeaderName, Request, Response, StatusCode};
use modoai_protocol::{Datestamp, ListArgs, Request as Oai, Verb};
use tokio::sync::OwnedSemaphorePermit;

use super::response::{self, OaiBody};
use super::Repository;
use crate::access::{self, ClientAddr, Credentials, Verdict};
use crate::flow::{self, PermitBody};
use crate::formats::Format;
use crate::observe::{OaiFacts, Refusal};

/// Retry-After while the password checks are all busy.
const RETRY_WHILE_VERIFYING: u32 = 1;

const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// What the checks need of a request, taken before its body is read.
pub(crate) struct Gate {
    peer: Option<IpAddr>,
    headers: HeaderMap,
}

impl Gate {
    pub(crate) fn of<B>(req: &Request<B>) -> Self {
        let mut headers = HeaderMap::new();
        for name in [AUTHORIZATION, FORWARDED, X_FORWARDED_FOR] {
            for value in req.headers().get_all(&name) {
                headers.append(name.clone(), value.clone());
            }
        }
        Gate {
            peer: req.extensions().get::<ClientAddr>().map(|c| c.0.ip()),
            headers,
        }
    }
}

/// An admitted request: it holds an enhanced-response permit if it needs one.
pub(crate) struct Admission {
    permit: Option<OwnedSemaphorePermit>,
}

impl Admission {
    /// Ties the permit to the response body, so it is held until the body ends or is dropped.
    pub(crate) fn attach(self, res: Response<OaiBody>) -> Response<OaiBody> {
        use http_body_util::BodyExt;
        match self.permit {
            Some(permit) => res.map(|body| PermitBody::new(body, permit).boxed_unsync()),
            None => res,
        }
    }
}

/// Checks the access rule of the format the request names, the client's rate limit and the bound
/// on enhanced responses; the response to send instead if any says no. `facts` learns the
/// format, the identity proved and the refusal.
pub(crate) async fn admit(
    repo: &Repository,
    gate: Gate,
    request: &Oai,
    facts: &mut OaiFacts,
) -> Result<Admission, Response<OaiBody>> {
    let policy = repo.config.policy.current();
    let format = named_format(repo, request);
    if let Some(f) = format {
        facts.metadata_prefix = Some(f.prefix().to_owned());
    }
    let access = &policy.access;
    let ip = access::client_ip(
        gate.peer,
        &gate.headers,
        &access.trusted_proxies,
        access.forwarded,
    );
    let identity = match format {
        Some(format) => check_access(access, format, ip, &gate.headers)
            .await
            .map_err(|(refusal, res)| {
                facts.refusal = Some(refusal);
                res
            })?,
        None => None,
    };
    facts.user.clone_from(&identity);
    let client = identity.unwrap_or_else(|| flow::address_key(ip));
    if let Err(secs) = policy.flow.admit(&client, format.map(Format::prefix)) {
        tracing::debug!(client, retry_after = secs, "503: rate limit");
        facts.refusal = Some(Refusal::RateLimit);
        return Err(response::unavailable(
            secs,
            "rate limit reached; retry after the time given\n",
        ));
    }
    let permit = if is_enhanced(request, format) {
        let permit = policy.flow.enhanced().map_err(|secs| {
            facts.refusal = Some(Refusal::EnhancedBusy);
            enhanced_busy(secs)
        })?;
        Some(permit)
    } else {
        None
    };
    Ok(Admission { permit })
}

/// The access rule of `format` for this client: the identity it proved (if any), or the response
/// to send instead (401 with a challenge, 403, or 503 while password checks are busy).
async fn check_access(
    access: &access::AccessRules,
    format: Format,
    ip: Option<IpAddr>,
    headers: &HeaderMap,
) -> Result<Option<String>, (Refusal, Response<OaiBody>)> {
    let creds = Credentials::from_headers(headers);
    let kind = creds.kind();
    match access.check(format.prefix(), ip, creds).await {
        Verdict::Allow(who) => Ok(who),
        Verdict::Challenge { basic, bearer } => {
            tracing::debug!(
                ?ip,
                format = format.prefix(),
                credentials = kind,
                "401: credentials needed"
            );
            let mut res = response::http_error(
                StatusCode::UNAUTHORIZED,
                "credentials are needed for this metadata format\n",
            );
            access::challenge(res.headers_mut(), access.realm_name(), basic, bearer);
            Err((Refusal::Unauthorized, res))
        }
        Verdict::Forbidden(why) => {
            tracing::info!(
                ?ip,
                format = format.prefix(),
                credentials = kind,
                why,
                "403: access refused"
            );
            Err((
                Refusal::Forbidden,
                response::http_error(
                    StatusCode::FORBIDDEN,
                    "this client may not receive this metadata format\n",
                ),
            ))
        }
        Verdict::Busy => Err((
            Refusal::VerifyingBusy,
            response::unavailable(
                RETRY_WHILE_VERIFYING,
                "too many password checks at once; retry shortly\n",
            ),
        )),
    }
}

/// The 503 to send while enhanced responses are at their bound.
fn enhanced_busy(retry_after: u32) -> Response<OaiBody> {
    tracing::debug!(retry_after, "503: enhanced responses at their bound");
    response::unavailable(
        retry_after,
        "too many oai_didl/oai_crate responses in progress; retry later\n",
    )
}

/// The format a request names, if the repository disseminates it: its metadataPrefix, or the
/// one in its resumption token (a token that does not decode names none; the handler answers
/// badResumptionToken without reading anything).
fn named_format(repo: &Repository, request: &Oai) -> Option<Format> {
    let (verb, args) = match request {
        Oai::GetRecord {
            metadata_prefix, ..
        } => return repo.format(metadata_prefix),
        Oai::ListRecords(args) => (Verb::ListRecords, args),
        Oai::ListIdentifiers(args) => (Verb::ListIdentifiers, args),
        _ => return None,
    };
    match args {
        ListArgs::Select(sel) => repo.format(&sel.metadata_prefix),
        ListArgs::Resume(token) => {
            let t = repo.tokens.decode(token, verb, Datestamp::now()).ok()?;
            repo.format(&t.prefix)
        }
    }
}

/// ListRecords and GetRecord in `oai_didl` or `oai_crate`: the responses that carry files.
fn is_enhanced(request: &Oai, format: Option<Format>) -> bool {
    matches!(request, Oai::ListRecords(_) | Oai::GetRecord { .. })
        && matches!(format, Some(Format::Didl | Format::Crate))
}
