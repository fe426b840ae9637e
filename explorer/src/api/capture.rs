//! `GET /api/v1/capture/{id}`: everything known about one capture, with the CRATE's plugin
//! results read from the archive.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use modoai_archive::archive::Reader;
use modoai_archive::facts::Facts;
use modoai_archive::warc::read_record;
use serde_json::{json, Value};

use super::error::ApiError;
use super::routes::answer;
use super::state::AppState;

/// Captures of the same bytes listed at most.
pub const SAME_BYTES: usize = 100;

pub(super) async fn capture(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    answer(state, &headers, move |s, caller| {
        let scope = caller.scope();
        let (archive, item, stored) = s.library.capture(&id, &scope)?.ok_or_else(|| {
            ApiError::not_found(format!("no capture {id:?} (or not in your scope)"))
        })?;
        let dir = &s.library.archives()[archive].dir;
        let crate_doc = match &stored.crate_at {
            Some((file, offset, _)) => crate_json(dir, file, *offset),
            None => Value::Null,
        };
        let same = s.library.same_bytes(&item.sha1, &scope, SAME_BYTES)?;
        Ok(json!({
            "capture": item,
            "record": {"file": stored.file, "offset": stored.offset, "length": stored.length},
            "problem": stored.problem,
            "crate": crate_doc,
            "same_bytes": same,
        }))
    })
    .await
}

/// The CRATE record at `offset` of the WARC file `file` of the archive at `dir`, read: its HTTP
/// status and headers and each plugin's results. `None` when it cannot be read.
pub fn crate_facts(dir: &std::path::Path, file: &str, offset: u64) -> Option<Facts> {
    let reader = Reader::open(dir).ok()?;
    let found = reader.warc_file(file).ok()??;
    let record = read_record(&found.path, offset).ok()?;
    Some(Facts::read(record.block))
}

/// The CRATE's descriptors: HTTP status and headers, and each plugin's label, version, status,
/// text output and the leaf elements of its XML output.
fn crate_json(dir: &std::path::Path, file: &str, offset: u64) -> Value {
    let Some(facts) = crate_facts(dir, file, offset) else {
        return json!({"error": "the CRATE record cannot be read"});
    };
    let plugins: Vec<Value> = facts
        .plugins
        .iter()
        .map(|p| {
            json!({
                "label": p.label, "version": p.version, "status": p.status,
                "cached": p.cached, "duration_ms": p.duration_ms, "note": p.note,
                "text": p.text,
                "fields": p.fields.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "uid": facts.crate_uid,
        "created": facts.crate_created,
        "http_status": facts.http_status,
        "http_headers": facts.http_headers.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
        "plugins": plugins,
    })
}
