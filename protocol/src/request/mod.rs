//! A typed OAI-PMH request, parsed from its argument pairs by every rule of §3.1, §3.3 and §4.

use crate::datestamp::{Datestamp, Granularity};
use crate::error::{ErrorCode, OaiError};
use crate::setspec::SetSpec;
use crate::syntax::is_metadata_prefix;
use crate::verb::Verb;

/// At most this many errors are reported for one request.
const MAX_ERRORS: usize = 16;

/// A request that passed every syntactic check of the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// §4.2.
    Identify,
    /// §4.4, optionally for one item.
    ListMetadataFormats {
        /// The item, if given.
        identifier: Option<String>,
    },
    /// §4.6.
    ListSets {
        /// A continuation of an earlier ListSets.
        resumption_token: Option<String>,
    },
    /// §4.3.
    ListIdentifiers(ListArgs),
    /// §4.5.
    ListRecords(ListArgs),
    /// §4.1.
    GetRecord {
        /// The item.
        identifier: String,
        /// The format.
        metadata_prefix: String,
    },
}

/// The arguments of ListIdentifiers and ListRecords: either a fresh selection or a continuation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListArgs {
    /// `resumptionToken`, the exclusive argument.
    Resume(String),
    /// `metadataPrefix` with optional `from`, `until` and `set`.
    Select(Selection),
}

/// A selection of records (§2.7). Bounds are inclusive and already widened to whole seconds:
/// `until=2024-01-01` is stored as `2024-01-01T23:59:59Z`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The format.
    pub metadata_prefix: String,
    /// The earliest datestamp to include.
    pub from: Option<Datestamp>,
    /// The latest datestamp to include.
    pub until: Option<Datestamp>,
    /// The set, including its descendants.
    pub set: Option<SetSpec>,
}

impl Selection {
    /// True if a datestamp lies within `from` and `until`.
    pub fn admits(&self, d: Datestamp) -> bool {
        self.from.is_none_or(|f| d >= f) && self.until.is_none_or(|u| d <= u)
    }
}

impl Request {
    /// The verb of this request.
    pub fn verb(&self) -> Verb {
        match self {
            Request::Identify => Verb::Identify,
            Request::ListMetadataFormats { .. } => Verb::ListMetadataFormats,
            Request::ListSets { .. } => Verb::ListSets,
            Request::ListIdentifiers(_) => Verb::ListIdentifiers,
            Request::ListRecords(_) => Verb::ListRecords,
            Request::GetRecord { .. } => Verb::GetRecord,
        }
    }

    /// Parses decoded argument pairs (see [`crate::form`]). `granularity` is the repository's:
    /// a bound finer than it is badArgument (§3.3.1).
    ///
    /// On failure the errors are all `badVerb` or all `badArgument`, so the response's `request`
    /// element must carry no attributes.
    pub fn parse(
        pairs: &[(String, String)],
        granularity: Granularity,
    ) -> Result<Request, Vec<OaiError>> {
        let verb = parse_verb(pairs)?;
        let args = Args::check(verb, pairs)?;
        args.build(verb, granularity)
    }
}

fn parse_verb(pairs: &[(String, String)]) -> Result<Verb, Vec<OaiError>> {
    let mut verbs = pairs.iter().filter(|(k, _)| k == "verb");
    let bad = |m: &str| vec![OaiError::new(ErrorCode::BadVerb, m)];
    match (verbs.next(), verbs.next()) {
        (None, _) => Err(bad("the verb argument is missing")),
        (Some(_), Some(_)) => Err(bad("the verb argument is repeated")),
        (Some((_, v)), None) => v
            .parse()
            .map_err(|_| bad("the value of verb is not a legal OAI-PMH verb")),
    }
}

/// The non-verb arguments, each present at most once and allowed for the verb.
struct Args<'a>(Vec<(&'a str, &'a str)>);

impl<'a> Args<'a> {
    fn check(verb: Verb, pairs: &'a [(String, String)]) -> Result<Self, Vec<OaiError>> {
        let mut errors = Vec::new();
        let mut args: Vec<(&str, &str)> = Vec::new();
        for (k, v) in pairs.iter().filter(|(k, _)| k != "verb") {
            if !verb.allowed_args().contains(&k.as_str()) {
                errors.push(bad(format!(
                    "{verb} does not take the argument '{}'",
                    clip(k)
                )));
            } else if args.iter().any(|(seen, _)| seen == k) {
                errors.push(bad(format!("the argument '{k}' is repeated")));
            } else if v.is_empty() {
                errors.push(bad(format!("the argument '{k}' is empty")));
            } else {
                args.push((k, v));
            }
        }
        if args.iter().any(|(k, _)| *k == "resumptionToken") && args.len() > 1 {
            errors.push(bad("resumptionToken is an exclusive argument"));
        }
        errors.dedup();
        // A hostile request with thousands of arguments gets a bounded answer.
        errors.truncate(MAX_ERRORS);
        if errors.is_empty() {
            Ok(Args(args))
        } else {
            Err(errors)
        }
    }

    fn get(&self, key: &str) -> Option<&'a str> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    fn build(&self, verb: Verb, granularity: Granularity) -> Result<Request, Vec<OaiError>> {
        let mut errors = Vec::new();
        let identifier = self.get("identifier").map(|id| {
            if !is_uri(id) {
                errors.push(bad("the identifier is not a URI"));
            }
            id.to_owned()
        });
        let prefix = self.get("metadataPrefix").map(|p| {
            if !is_metadata_prefix(p) {
                errors.push(bad("the metadataPrefix has illegal syntax"));
            }
            p.to_owned()
        });
        let token = self.get("resumptionToken").map(str::to_owned);
        let request = match verb {
            Verb::Identify => Request::Identify,
            Verb::ListMetadataFormats => Request::ListMetadataFormats { identifier },
            Verb::ListSets => Request::ListSets {
                resumption_token: token,
            },
            Verb::GetRecord => match (identifier, prefix) {
                (Some(identifier), Some(metadata_prefix)) => Request::GetRecord {
                    identifier,
                    metadata_prefix,
                },
                _ => {
                    errors.push(bad("GetRecord requires identifier and metadataPrefix"));
                    Request::Identify
                }
            },
            Verb::ListIdentifiers | Verb::ListRecords => {
                let args = match (token, prefix) {
                    (Some(t), _) => ListArgs::Resume(t),
                    (None, Some(metadata_prefix)) => {
                        ListArgs::Select(self.selection(metadata_prefix, granularity, &mut errors))
                    }
                    (None, None) => {
                        errors.push(bad(format!(
                            "{verb} requires metadataPrefix or resumptionToken"
                        )));
                        ListArgs::Resume(String::new())
                    }
                };
                if verb == Verb::ListRecords {
                    Request::ListRecords(args)
                } else {
                    Request::ListIdentifiers(args)
                }
            }
        };
        if errors.is_empty() {
            Ok(request)
        } else {
            Err(errors)
        }
    }

    fn selection(
        &self,
        metadata_prefix: String,
        repo: Granularity,
        errors: &mut Vec<OaiError>,
    ) -> Selection {
        let mut bound = |key: &str| {
            let value = self.get(key)?;
            let parsed = Datestamp::parse_request(value);
            if parsed.is_none() {
                errors.push(bad(format!(
                    "the value of {key} is not a legal UTCdatetime"
                )));
            }
            parsed
        };
        let (from, until) = (bound("from"), bound("until"));
        if let (Some((_, fg)), Some((_, ug))) = (from, until) {
            if fg != ug {
                errors.push(bad("from and until have different granularities"));
            }
        }
        if [from, until].iter().flatten().any(|(_, g)| *g > repo) {
            errors.push(bad(
                "the granularity of from/until is finer than the repository's",
            ));
        }
        let from = from.map(|(d, _)| d);
        let until = until.map(|(d, g)| {
            if g == Granularity::Day {
                d.end_of_day()
            } else {
                d
            }
        });
        if let (Some(f), Some(u)) = (from, until) {
            if f > u {
                errors.push(bad("from is later than until"));
            }
        }
        let set = self.get("set").and_then(|s| {
            let spec = SetSpec::parse(s);
            if spec.is_none() {
                errors.push(bad("the set argument has illegal setSpec syntax"));
            }
            spec
        });
        Selection {
            metadata_prefix,
            from,
            until,
            set,
        }
    }
}

fn bad(message: impl Into<String>) -> OaiError {
    OaiError::bad_argument(message)
}

/// Keeps hostile argument names short in error messages.
fn clip(s: &str) -> String {
    s.chars().take(64).collect()
}

/// True if `s` is an absolute URI by RFC 3986 syntax (scheme, `:`, then only URI characters).
///
/// ```
/// assert!(modoai_protocol::request::is_uri("http://example.org/a%20b.jpg"));
/// assert!(!modoai_protocol::request::is_uri("invalid\"id"));
/// ```
pub fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let scheme_ok = scheme
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
    let bytes = rest.as_bytes();
    let rest_ok = bytes.iter().enumerate().all(|(i, &b)| {
        b.is_ascii_alphanumeric()
            || b"-._~:/?#[]@!$&'()*+,;=".contains(&b)
            || (b == b'%'
                && bytes
                    .get(i + 1..i + 3)
                    .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)))
    });
    scheme_ok && !rest.is_empty() && rest_ok
}

#[cfg(test)]
mod tests;
