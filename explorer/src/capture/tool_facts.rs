//! The explorer's own tool results for a capture without a CRATE (`index --tools`), kept in the
//! index as JSON and read back as the [`PluginFacts`] a CRATE's would be, so the capture page
//! and API show them the same way.

use modoai_archive::facts::PluginFacts;
use serde::{Deserialize, Serialize};

/// One plugin's result as stored.
#[derive(Serialize, Deserialize)]
struct Stored {
    label: String,
    version: String,
    status: String,
    cached: String,
    duration_ms: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    note: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    fields: Vec<(String, String)>,
}

/// `facts` as the index stores them.
pub fn encode(facts: &[PluginFacts]) -> String {
    let stored: Vec<Stored> = facts
        .iter()
        .map(|p| Stored {
            label: p.label.clone(),
            version: p.version.clone(),
            status: p.status_name().to_owned(),
            cached: p.cached.clone(),
            duration_ms: p.duration_ms.clone(),
            note: p.note.clone(),
            text: p.text.clone(),
            fields: p.fields.clone(),
        })
        .collect();
    serde_json::to_string(&stored).expect("plugin facts serialize")
}

/// The facts [`encode`] stored; none when `json` is not theirs.
pub fn decode(json: &str) -> Vec<PluginFacts> {
    let stored: Vec<Stored> = serde_json::from_str(json).unwrap_or_default();
    stored
        .into_iter()
        .map(|s| PluginFacts {
            label: s.label,
            version: s.version,
            status: s.status.parse().ok(),
            cached: s.cached,
            duration_ms: s.duration_ms,
            note: s.note,
            text: s.text,
            fields: s.fields,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use modoai_protocol::crate_vocab::PluginStatus;

    #[test]
    fn facts_read_back_as_stored() {
        let facts = vec![
            PluginFacts {
                label: "jhove".into(),
                version: "Jhove (Rel. 1.28.0, 2023-07-15)".into(),
                status: Some(PluginStatus::Ok),
                cached: "false".into(),
                duration_ms: "412".into(),
                fields: vec![("status".into(), "Well-Formed and valid".into())],
                ..PluginFacts::default()
            },
            PluginFacts {
                label: "pdfinfo".into(),
                status: Some(PluginStatus::Missing),
                note: "not on PATH".into(),
                ..PluginFacts::default()
            },
        ];
        assert_eq!(decode(&encode(&facts)), facts);
        assert!(decode("not json").is_empty());
    }
}
