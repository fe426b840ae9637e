//! JSON Lines: one object per capture (the fields of the search API's captures), and a last
//! line that states whether the export is complete (`{"complete":true,"captures":N}`, or
//! `"complete":false` with the reason).

use serde_json::json;

use super::{Ending, Rows};
use crate::search::{Item, Stored};

pub(super) struct Jsonl;

impl Rows for Jsonl {
    fn head(&mut self, _: &mut Vec<u8>) {}

    fn row(&mut self, out: &mut Vec<u8>, item: &Item, _: &Stored) {
        // An Item always serialises (its fields are strings, numbers and options of them).
        serde_json::to_writer(&mut *out, item).expect("an item serialises");
        out.push(b'\n');
    }

    fn tail(&mut self, out: &mut Vec<u8>, written: u64, ending: &Ending) {
        let line = match ending {
            Ending::Complete => json!({"complete": true, "captures": written}),
            Ending::Stopped(why) => {
                json!({"complete": false, "captures": written, "reason": why})
            }
        };
        serde_json::to_writer(&mut *out, &line).expect("a line serialises");
        out.push(b'\n');
    }
}
