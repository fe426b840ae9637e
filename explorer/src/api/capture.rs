//! `GET /api/v1/capture/{id}`: everything known about one capture, with the CRATE's plugin
//! results read from the archive, or the explorer's own (`index --tools`) from the index.

use axum::extract::Path;
use axum::response::IntoResponse;
use axum::Json;
use modoai_archive::facts::PluginFacts;
use serde_json::{json, Value};

use super::shown::{self, Shown};
use crate::capture::{crate_facts, RecordAt};
use crate::search::SAME_BYTES;
use crate::web::{Api, AppError, Caller};

pub(super) async fn capture(
    Path(id): Path<String>,
    caller: Caller<Api>,
) -> Result<impl IntoResponse, AppError> {
    let answer = caller
        .run(move |s, who| {
            let scope = who.scope();
            let (archive, item, stored) = s.library.capture(&id, &scope)?.ok_or_else(|| {
                AppError::NotFound(format!("no capture {id:?} (or not in your scope)"))
            })?;
            let dir = &s.library.archives()[archive].dir;
            let crate_doc = match &stored.crate_at {
                Some(at) => crate_json(dir, at),
                None => Value::Null,
            };
            let same = s.library.same_bytes(&item.sha1, &scope, SAME_BYTES)?;
            let tools = match stored.tools.is_empty() {
                true => Value::Null,
                false => json!({
                    "source": item.source,
                    "plugins": plugins_json(&stored.tools),
                }),
            };
            let record = &stored.record;
            Ok(json!({
                "capture": Shown::from(item),
                "record": {"file": record.file, "offset": record.offset, "length": record.length},
                "problem": stored.problem,
                "crate": crate_doc,
                "tools": tools,
                "same_bytes": shown::all(same),
            }))
        })
        .await?;
    Ok((caller.rate_limit(), Json(answer)))
}

/// The CRATE's descriptors: HTTP status and headers, and each plugin's label, version, status,
/// text output and the leaf elements of its XML output.
fn crate_json(dir: &std::path::Path, at: &RecordAt) -> Value {
    let Some(facts) = crate_facts(dir, at) else {
        return json!({"error": "the CRATE record cannot be read"});
    };
    let plugins = plugins_json(&facts.plugins);
    json!({
        "uid": facts.crate_uid,
        "created": facts.crate_created,
        "http_status": facts.http_status,
        "http_headers": facts.http_headers.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
        "plugins": plugins,
    })
}

/// Each plugin's label, version, status, text output and the leaf elements of its XML output.
fn plugins_json(plugins: &[PluginFacts]) -> Vec<Value> {
    plugins
        .iter()
        .map(|p| {
            json!({
                "label": p.label, "version": p.version, "status": p.status_name(),
                "cached": p.cached, "duration_ms": p.duration_ms, "note": p.note,
                "text": p.text,
                "fields": p.fields.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
            })
        })
        .collect()
}
