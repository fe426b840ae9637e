//! [`Batcher`]: the loaded captures of an index build, held in ledger order until enough of
//! them lack a format to make a batch, then identified together and given back in order.

use std::collections::HashMap;
use std::io::Write as _;

use sha1::{Digest as _, Sha1};

use super::{Identifier, Payload};
use crate::capture::{Capture, Loader};

/// Captures without a format gathered before Siegfried runs on them: the batch its runner takes
/// at once.
const BATCH: usize = 128;

/// Holds loaded captures, each group with its `T` (what the build does after adding them), until
/// 128 of them lack a PUID; then identifies them and gives the groups back in the order
/// they came.
#[derive(Debug)]
pub struct Batcher<'a, T> {
    identifier: Option<Identifier>,
    loader: Loader<'a>,
    queue: Vec<(Vec<Capture>, T)>,
    /// Captures in the queue without a PUID.
    waiting: usize,
}

impl<'a, T> Batcher<'a, T> {
    /// Identifies with `identifier` (none: groups pass straight through), reading payloads with
    /// `loader`.
    pub fn new(identifier: Option<Identifier>, loader: Loader<'a>) -> Self {
        Batcher {
            identifier,
            loader,
            queue: Vec::new(),
            waiting: 0,
        }
    }

    /// Takes one group; gives back the groups ready to add, in order (none while a batch fills).
    pub fn push(&mut self, captures: Vec<Capture>, then: T) -> Vec<(Vec<Capture>, T)> {
        let needing = captures.iter().filter(|c| needs(c)).count();
        if self.identifier.is_none() || (self.queue.is_empty() && needing == 0) {
            return vec![(captures, then)];
        }
        self.queue.push((captures, then));
        self.waiting += needing;
        if self.waiting >= BATCH {
            return self.finish();
        }
        Vec::new()
    }

    /// Identifies what is held and gives every group back, in order.
    pub fn finish(&mut self) -> Vec<(Vec<Capture>, T)> {
        let mut groups = std::mem::take(&mut self.queue);
        self.waiting = 0;
        if let Some(identifier) = &self.identifier {
            let mut captures: Vec<&mut Capture> = groups
                .iter_mut()
                .flat_map(|(c, _)| c.iter_mut())
                .filter(|c| needs(c))
                .collect();
            identify(identifier, &self.loader, &mut captures);
        }
        groups
    }
}

/// Whether a capture has no format yet.
fn needs(c: &Capture) -> bool {
    c.findings.puid.is_none()
}

/// Writes the distinct payloads of `captures` to a temporary folder, identifies them in one
/// batch and sets each capture's format. A payload that cannot be read stays unidentified.
fn identify(identifier: &Identifier, loader: &Loader<'_>, captures: &mut [&mut Capture]) {
    if captures.is_empty() {
        return;
    }
    let dir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            tracing::warn!(error = %e, "no temporary folder: formats are not identified");
            return;
        }
    };
    let mut payloads: Vec<Payload> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut of_capture: Vec<Option<usize>> = Vec::with_capacity(captures.len());
    for c in captures.iter() {
        let file = dir.path().join(format!("p{:06}", payloads.len()));
        let known = (!c.planned.sha1.is_empty())
            .then(|| name(&c.planned.sha1, &c.planned.path))
            .and_then(|n| by_name.get(&n).copied());
        if known.is_some() {
            of_capture.push(known);
            continue;
        }
        let written = std::fs::File::create(&file)
            .and_then(|mut f| {
                let n = loader.copy_payload(&c.planned, &mut f)?;
                f.flush()?;
                Ok(n)
            })
            .and_then(|size| {
                let digest = match c.planned.sha1.as_str() {
                    "" => hex::encode(Sha1::digest(std::fs::read(&file)?)),
                    known => known.to_owned(),
                };
                Ok((size, name(&digest, &c.planned.path)))
            });
        match written {
            Ok((size, name)) => {
                let i = *by_name.entry(name.clone()).or_insert_with(|| {
                    payloads.push(Payload {
                        file,
                        name,
                        mime: c.planned.mime.clone(),
                        size,
                    });
                    payloads.len() - 1
                });
                of_capture.push(Some(i));
            }
            Err(e) => {
                tracing::debug!(url = %c.planned.url, error = %e, "payload not identified");
                of_capture.push(None);
            }
        }
    }
    let found = identifier.identify(&payloads);
    let today = time::OffsetDateTime::now_utc().date();
    for (c, i) in captures.iter_mut().zip(of_capture) {
        if let Some(Some(id)) = i.map(|i| &found[i]) {
            c.findings.puid = Some(id.puid.clone());
            c.findings.format = Some(id.format.clone());
            let ours = id.source(today);
            c.findings.source = Some(match c.findings.source.take() {
                Some(crate_source) => format!("{crate_source}; PRONOM format: {ours}"),
                None => ours,
            });
        }
    }
}

/// The cache name of a payload: its digest, and its path's extension when short ASCII.
fn name(digest: &str, path: &str) -> String {
    let ext = std::path::Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .filter(|e| e.len() <= 8 && e.bytes().all(|b| b.is_ascii_alphanumeric()));
    match ext {
        Some(ext) => format!("{digest}.{}", ext.to_ascii_lowercase()),
        None => digest.to_owned(),
    }
}
