//! The API page (`/api`), PrEV's sandbox: the calls of the OpenAPI document with their
//! parameters, a form that tries a call with a key (JavaScript sends it with
//! `Authorization: Bearer`; without JavaScript the form shows the call's curl command), and
//! curl commands to copy.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use axum::extract::State;
use axum::response::IntoResponse;
use maud::{html, Markup, PreEscaped};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::Value;

use super::layout;
use crate::web::{AppError, AppState, Base, Caller, Pairs, Params, Public, OPENAPI};

/// The script of the form.
const SCRIPT: &str = include_str!("sandbox.js");

/// A call the form offers.
struct Call {
    /// Its name in the form.
    name: &'static str,
    /// Its path.
    path: &'static str,
    /// Example parameters.
    example: &'static str,
    /// What the parameters are.
    takes: Takes,
}

/// What a call's parameters are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Takes {
    /// A query string.
    Query,
    /// An id, the last segment of the path.
    Id,
}

/// The calls the form offers.
const CALLS: [Call; 5] = [
    Call {
        name: "search",
        path: "/api/v1/search",
        example: "q=report&facets=year,mime,jhove&size=5",
        takes: Takes::Query,
    },
    Call {
        name: "terms",
        path: "/api/v1/terms",
        example: "size=20",
        takes: Takes::Query,
    },
    Call {
        name: "captures",
        path: "/api/v1/captures",
        example: "url=http://example.org/",
        takes: Takes::Query,
    },
    Call {
        name: "capture",
        path: "/api/v1/capture/",
        example: "ID",
        takes: Takes::Id,
    },
    Call {
        name: "me",
        path: "/api/v1/me",
        example: "",
        takes: Takes::Query,
    },
];

/// What JavaScript's `encodeURIComponent` escapes: all but letters, digits and `-_.!~*'()`.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// One operation of the OpenAPI document.
struct Operation {
    method: String,
    path: String,
    summary: String,
    parameters: Vec<(String, bool)>,
}

/// The operations of the document, read once.
fn operations() -> &'static [Operation] {
    static OPS: OnceLock<Vec<Operation>> = OnceLock::new();
    OPS.get_or_init(|| {
        let doc: Value = serde_json::from_str(OPENAPI).unwrap_or(Value::Null);
        let mut out = Vec::new();
        for (path, item) in doc["paths"].as_object().into_iter().flatten() {
            for (method, op) in item.as_object().into_iter().flatten() {
                let parameters = op["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|p| Some((p["name"].as_str()?.to_owned(), p["required"] == true)))
                    .collect();
                out.push(Operation {
                    method: method.to_uppercase(),
                    path: path.clone(),
                    summary: op["summary"].as_str().unwrap_or_default().to_owned(),
                    parameters,
                });
            }
        }
        out
    })
}

/// `GET /api`: `call` and `params` (from the form without JavaScript) choose the curl command.
/// The page runs no search: the caller is admitted, and needs no search permit.
pub(super) async fn page(
    State(state): State<Arc<AppState>>,
    caller: Caller<Public>,
    Params(pairs): Params<Pairs>,
    Base(base): Base,
) -> Result<impl IntoResponse, AppError> {
    let pairs: BTreeMap<String, String> = pairs.into_iter().collect();
    let call = pairs
        .get("call")
        .and_then(|c| CALLS.iter().find(|call| call.name == c))
        .unwrap_or(&CALLS[0]);
    let params = pairs.get("params").map_or(call.example, String::as_str);
    let markup = render(&base, call, params, state.access.anonymous_api);
    Ok((caller.rate_limit(), layout::html(markup)))
}

/// The target of a call with its parameters.
fn target(path: &str, takes: Takes, params: &str) -> String {
    let params = params.trim();
    match takes {
        Takes::Id => format!("{path}{}", utf8_percent_encode(params, COMPONENT)),
        Takes::Query if params.is_empty() => path.to_owned(),
        Takes::Query => format!("{path}?{params}"),
    }
}

/// The curl command of a URL, the key left to the shell (`$KEY`).
pub(super) fn curl(url: &str) -> String {
    format!(
        "curl -H \"Authorization: Bearer $KEY\" '{}'",
        url.replace('\'', "'\\''")
    )
}

fn render(base: &str, call: &Call, params: &str, anonymous: bool) -> Markup {
    let paths: BTreeMap<&str, &str> = CALLS.iter().map(|c| (c.name, c.path)).collect();
    let paths = serde_json::to_string(&paths).unwrap_or_default();
    layout::page(
        "The JSON API",
        "",
        html! {
            h1 { "The JSON API" }
            p { "Programs search the archive, count facets, draw word clouds and read captures through the same calls this site makes. "
                @if anonymous { "This server answers calls without a key too; a key adds its own quota and scope." }
                @else { "Every call needs a key, sent as " code { "Authorization: Bearer KEY" } "." }
                " The archive's operator makes keys with " code { "modoai-explorer keys add NAME" } "; each key has a quota, a rate and a scope, and "
                code { "/api/v1/me" } " tells them. The whole interface is described by "
                a href="/api/v1/openapi.json" { "the OpenAPI document" } "." }
            section.try {
                h2 { "Try a call" }
                form #sandbox method="get" action="/api" data-paths=(paths) {
                    label { "Call " select name="call" {
                        @for c in &CALLS { option value=(c.name) selected[c.name == call.name] { (c.path) @if c.takes == Takes::Id { "ID" } } }
                    } }
                    label { "Parameters " input type="text" name="params" value=(params) size="48"; }
                    label { "Key " input #key type="password" autocomplete="off" placeholder="your key (stays in this page)"; }
                    button type="submit" { "Send" }
                }
                p { "The same call with curl (set " code { "KEY" } " first):" }
                pre #curl { (curl(&format!("{base}{}", target(call.path, call.takes, params)))) }
                p #status aria-live="polite" {}
                pre #response {}
                script { (PreEscaped(SCRIPT)) }
            }
            section.calls {
                h2 { "Calls" }
                table.calls {
                    thead { tr { th { "call" } th { "what it answers" } th { "parameters" } } }
                    tbody {
                        @for op in operations() {
                            tr {
                                td.mono { (op.method) " " (op.path) }
                                td { (op.summary) }
                                td { @for (i, (name, required)) in op.parameters.iter().enumerate() {
                                    @if i > 0 { ", " } code { (name) } @if *required { " (required)" }
                                } }
                            }
                        }
                    }
                }
                h3 { "Examples" }
                pre.examples {
                    @for c in &CALLS { (curl(&format!("{base}{}", target(c.path, c.takes, c.example)))) "\n" }
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curl_commands_quote_what_the_shell_would_read() {
        assert_eq!(
            curl("http://h/api/v1/search?q='x'"),
            "curl -H \"Authorization: Bearer $KEY\" 'http://h/api/v1/search?q='\\''x'\\'''"
        );
        assert_eq!(
            target("/api/v1/capture/", Takes::Id, "a b"),
            "/api/v1/capture/a%20b"
        );
        assert_eq!(target("/api/v1/me", Takes::Query, " "), "/api/v1/me");
    }

    #[test]
    fn the_operations_are_those_of_the_openapi_document() {
        let ops = operations();
        assert!(ops
            .iter()
            .any(|o| o.path == "/api/v1/search" && o.method == "GET"));
        let captures = ops.iter().find(|o| o.path == "/api/v1/captures").unwrap();
        assert_eq!(captures.parameters, [("url".to_owned(), true)]);
    }
}
