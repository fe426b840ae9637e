//! Where a record is: its start marked before its head is read, and its location (a plain
//! range, its own gzip member, or a range inside a gzip stream) once its block is read.

use super::Records;
use crate::any::location::{Framing, Location};

impl Records {
    /// Where the record that started at `at` and ends at decoded position `end` is.
    pub(super) fn locate(&mut self, at: Mark, end: u64, whole: bool) -> Location {
        let source = self.source.clone();
        let Some(member) = self.stream.member_at(at.decoded) else {
            return Location {
                source,
                offset: at.decoded,
                length: end - at.decoded,
                framing: Framing::Plain,
            };
        };
        // Line ends after the record inside its member belong to it when they end the member.
        if whole && at.member_start && self.ends_member() {
            return Location {
                source,
                offset: member.raw,
                length: self.stream.raw_position() - member.raw,
                framing: Framing::Gzip,
            };
        }
        Location {
            source,
            offset: member.raw,
            length: end - at.decoded,
            framing: Framing::GzipStream {
                skip: at.decoded - member.decoded,
            },
        }
    }

    /// Skips line ends up to the end of the current gzip member; whether it ends there.
    fn ends_member(&mut self) -> bool {
        loop {
            match self.stream.peek(1, false) {
                Ok([b'\r' | b'\n', ..]) => self.stream.consume(1),
                Ok(_) => return self.stream.at_member_end().unwrap_or(false),
                Err(_) => return false,
            }
        }
    }

    /// Where a record starts.
    pub(super) fn mark(&mut self) -> Mark {
        let decoded = self.stream.position();
        self.stream.forget_before(decoded);
        let member_start = self
            .stream
            .member_at(decoded)
            .is_some_and(|m| m.decoded == decoded);
        Mark {
            decoded,
            member_start,
        }
    }
}

/// Where a record starts: in the decoded stream, and whether a gzip member starts there too.
#[derive(Clone, Copy)]
pub(super) struct Mark {
    pub(super) decoded: u64,
    pub(super) member_start: bool,
}
