//! CSV (RFC 4180): a header row, one row per capture, and a last line that states whether the
//! export is complete (`# complete: N captures`, or `# incomplete: …` with the reason).

use super::{Ending, Rows};
use crate::search::{Item, Stored};

/// The columns.
const HEADER: &str = "id,url,time,mime,puid,format,jhove,size,sha1,archive,pwid,title";

pub(super) struct Csv;

impl Rows for Csv {
    fn head(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(HEADER.as_bytes());
        out.extend_from_slice(b"\r\n");
    }

    fn row(&mut self, out: &mut Vec<u8>, i: &Item, _: &Stored) {
        let size = i.size.to_string();
        let jhove = i.jhove.map(|j| j.as_str()).unwrap_or_default();
        let fields: [&str; 12] = [
            &i.id,
            &i.url,
            &i.time,
            &i.mime,
            i.puid.as_deref().unwrap_or_default(),
            i.format.as_deref().unwrap_or_default(),
            jhove,
            &size,
            &i.sha1,
            &i.archive,
            i.pwid.as_deref().unwrap_or_default(),
            &i.title,
        ];
        for (n, f) in fields.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            field(out, f);
        }
        out.extend_from_slice(b"\r\n");
    }

    fn tail(&mut self, out: &mut Vec<u8>, written: u64, ending: &Ending) {
        let line = match ending {
            Ending::Complete => format!("# complete: {written} captures\r\n"),
            Ending::Stopped(why) => format!("# incomplete: {written} captures; {why}\r\n"),
        };
        out.extend_from_slice(line.as_bytes());
    }
}

/// A field, quoted when it holds a comma, a quote, a line break or starts with `#` (so that no
/// row can be read as the completeness line); quotes doubled (RFC 4180 §2).
fn field(out: &mut Vec<u8>, f: &str) {
    let quote = f.starts_with('#') || f.contains([',', '"', '\r', '\n']);
    if !quote {
        out.extend_from_slice(f.as_bytes());
        return;
    }
    out.push(b'"');
    out.extend_from_slice(f.replace('"', "\"\"").as_bytes());
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_when_they_must_be() {
        let item = Item {
            id: "#1".into(),
            url: "http://a.org/?x=1,2".into(),
            title: "Say \"hi\"\nthere".into(),
            size: 5,
            ..Item::default()
        };
        let mut out = Vec::new();
        Csv.row(&mut out, &item, &stored());
        let row = String::from_utf8(out).unwrap();
        assert_eq!(
            row,
            "\"#1\",\"http://a.org/?x=1,2\",,,,,,5,,,,\"Say \"\"hi\"\"\nthere\"\r\n"
        );
    }

    #[test]
    fn the_last_line_says_whether_the_export_is_complete() {
        let mut out = Vec::new();
        Csv.tail(&mut out, 3, &Ending::Complete);
        Csv.tail(
            &mut out,
            1000,
            &Ending::Stopped("the quota is spent".into()),
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "# complete: 3 captures\r\n# incomplete: 1000 captures; the quota is spent\r\n"
        );
    }

    fn stored() -> Stored {
        Stored {
            record: crate::capture::RecordAt {
                file: String::new(),
                offset: 0,
                length: 0,
            },
            crate_at: None,
            problem: None,
            excerpt: String::new(),
            location: None,
            payload_at: None,
            tools: Vec::new(),
        }
    }
}
