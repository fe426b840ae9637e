//! [`Batcher`]: the loaded captures of an index build, held in ledger order until enough of
//! them lack a format to make a batch, then identified together and given back in order.

use std::collections::HashMap;
use std::io::Write as _;

use sha1::{Digest as _, Sha1};

use super::{Identified, Identifier, Payload};
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

/// Identifies the distinct payloads of `captures` and sets each capture's format. A payload
/// the cache knows by its digest is neither read nor written; the others are written to a
/// temporary folder and identified in one batch. A payload that cannot be read stays
/// unidentified.
fn identify(identifier: &Identifier, loader: &Loader<'_>, captures: &mut [&mut Capture]) {
    if captures.is_empty() {
        return;
    }
    let mut staged = Staged::default();
    // Per distinct payload, what identification found (`None` until it runs).
    let mut found: Vec<Option<Identified>> = Vec::new();
    let mut to_run: Vec<(usize, Payload)> = Vec::new();
    let mut of_capture: Vec<Option<usize>> = Vec::with_capacity(captures.len());
    for c in captures.iter() {
        let known = staged.known_name(c);
        if let Some(i) = known.as_ref().and_then(|n| staged.by_name.get(n)) {
            of_capture.push(Some(*i));
            continue;
        }
        let cached = known
            .as_ref()
            .and_then(|n| Some((n, identifier.known(n, &c.planned.mime, c.size)?)));
        if let Some((name, id)) = cached {
            of_capture.push(Some(staged.add(name.clone(), &mut found, id)));
            continue;
        }
        match staged.write(loader, c) {
            Ok(payload) => match staged.by_name.get(&payload.name) {
                Some(&i) => of_capture.push(Some(i)),
                None => {
                    let i = staged.add(payload.name.clone(), &mut found, None);
                    to_run.push((i, payload));
                    of_capture.push(Some(i));
                }
            },
            Err(e) => {
                tracing::debug!(url = %c.planned.url, error = %e, "payload not identified");
                of_capture.push(None);
            }
        }
    }
    let payloads: Vec<Payload> = to_run.iter().map(|(_, p)| p.clone()).collect();
    for ((i, _), id) in to_run.iter().zip(identifier.identify(&payloads)) {
        found[*i] = id;
    }
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

/// The distinct payloads of a batch by cache name, and the temporary folder of those written.
#[derive(Default)]
struct Staged {
    dir: Option<tempfile::TempDir>,
    written: usize,
    by_name: HashMap<String, usize>,
}

impl Staged {
    /// The cache name of `c`'s payload when its digest is known without reading it.
    fn known_name(&self, c: &Capture) -> Option<String> {
        (!c.planned.sha1.is_empty()).then(|| name(&c.planned.sha1, &c.planned.path))
    }

    /// Numbers the payload `name` with its entry in `found`.
    fn add<V>(&mut self, name: String, found: &mut Vec<V>, value: V) -> usize {
        found.push(value);
        self.by_name.insert(name, found.len() - 1);
        found.len() - 1
    }

    /// Writes `c`'s payload to the temporary folder: a revisit whose original is not in its
    /// collection has none.
    fn write(&mut self, loader: &Loader<'_>, c: &Capture) -> std::io::Result<Payload> {
        if c.planned
            .foreign
            .as_ref()
            .is_some_and(|f| f.payload.is_none())
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "a revisit whose original is not in the collection",
            ));
        }
        let dir = match &self.dir {
            Some(dir) => dir,
            None => self.dir.insert(tempfile::tempdir()?),
        };
        let file = dir.path().join(format!("p{:06}", self.written));
        self.written += 1;
        let mut out = std::fs::File::create(&file)?;
        let size = loader.copy_payload(&c.planned, &mut out)?;
        out.flush()?;
        let digest = match c.planned.sha1.as_str() {
            "" => hex::encode(Sha1::digest(std::fs::read(&file)?)),
            known => known.to_owned(),
        };
        Ok(Payload {
            file,
            name: name(&digest, &c.planned.path),
            mime: c.planned.mime.clone(),
            size,
        })
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
