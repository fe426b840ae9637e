//! The fields of a `warcinfo` record (`application/warc-fields`, WARC 1.1 §6.2): who wrote the
//! file, with what, for which collection.

use serde::{Deserialize, Serialize};

/// A warcinfo record's fields, the usual ones typed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warcinfo {
    /// `software`: the crawler and its version.
    pub software: Option<String>,
    /// `operator`: who ran the crawl.
    pub operator: Option<String>,
    /// `isPartOf`: the collection or crawl's name.
    pub is_part_of: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `format` (`WARC File Format 1.0`, …).
    pub format: Option<String>,
    /// `hostname` of the crawling machine.
    pub hostname: Option<String>,
    /// `http-header-user-agent`.
    pub user_agent: Option<String>,
    /// Every field, in order.
    pub fields: Vec<(String, String)>,
}

impl Warcinfo {
    /// Parses `name: value` lines (CRLF or LF; other lines are skipped).
    pub fn parse(block: &[u8]) -> Warcinfo {
        let text = String::from_utf8_lossy(block);
        let mut info = Warcinfo::default();
        for line in text.lines() {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let (name, value) = (name.trim(), value.trim());
            if name.is_empty() || name.contains(' ') {
                continue;
            }
            let slot = match name.to_ascii_lowercase().as_str() {
                "software" => &mut info.software,
                "operator" => &mut info.operator,
                "ispartof" => &mut info.is_part_of,
                "description" => &mut info.description,
                "format" => &mut info.format,
                "hostname" => &mut info.hostname,
                "http-header-user-agent" => &mut info.user_agent,
                _ => {
                    info.fields.push((name.to_owned(), value.to_owned()));
                    continue;
                }
            };
            slot.get_or_insert_with(|| value.to_owned());
            info.fields.push((name.to_owned(), value.to_owned()));
        }
        info
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wget_style_fields() {
        let info = Warcinfo::parse(
            b"software: Wget/1.14 (linux-gnu)\r\nformat: WARC File Format 1.0\r\nisPartOf: crawl\r\nrobots: classic\r\n",
        );
        assert_eq!(info.software.as_deref(), Some("Wget/1.14 (linux-gnu)"));
        assert_eq!(info.is_part_of.as_deref(), Some("crawl"));
        assert_eq!(info.fields.len(), 4);
        assert!(info.operator.is_none());
    }
}
