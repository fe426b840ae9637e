//! One batch of captures analysed: their distinct payloads (by digest and extension) looked up
//! in the cache by name, the misses alone written to a temporary folder, identified and run
//! through the tools in one batch each, and the findings set on every capture of each payload.

use std::collections::HashMap;
use std::io::Write as _;

use modoai_archive::facts::{Facts, PluginFacts};
use sha1::{Digest as _, Sha1};

use super::{Identified, Identifier, MetadataTools, Payload};
use crate::capture::{Capture, Findings, Loader};

/// What analysis a capture wants.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Wants {
    /// A PRONOM format (identification).
    pub(super) format: bool,
    /// The findings of the `--tools` table.
    pub(super) tools: bool,
}

impl Wants {
    pub(super) fn any(self) -> bool {
        self.format || self.tools
    }
}

/// One distinct payload of a batch.
struct Entry {
    /// Its cache name.
    name: String,
    /// The capture it is read from.
    from: usize,
    /// What its captures want, together.
    wants: Wants,
    /// Its bytes, once written.
    payload: Option<Payload>,
    /// What identification found (`None`: not known yet).
    format: Option<Option<Identified>>,
    /// What the tools found (`None`: not known yet).
    tools: Option<Vec<PluginFacts>>,
}

impl Entry {
    fn lacks_format(&self) -> bool {
        self.wants.format && self.format.is_none()
    }

    fn lacks_tools(&self) -> bool {
        self.wants.tools && self.tools.is_none()
    }
}

/// Analyses `captures` (each wanting `wants`) with the identifier and the tools given. A
/// payload the cache knows by its digest is neither read nor written; a payload that cannot be
/// read stays without findings.
pub(super) fn analyse(
    (identifier, tools): (Option<&Identifier>, Option<&MetadataTools>),
    loader: &Loader<'_>,
    captures: &mut [&mut Capture],
    wants: &[Wants],
) {
    if captures.is_empty() {
        return;
    }
    let mut staged = Staged::default();
    let (mut entries, of_capture) = group(&mut staged, loader, captures, wants);
    for e in &mut entries {
        let c = &captures[e.from];
        let (mime, size) = match &e.payload {
            Some(p) => (p.mime.as_str(), p.size),
            None => (c.planned.mime.as_str(), c.size),
        };
        if let (true, Some(id)) = (e.wants.format, identifier) {
            e.format = id.known(&e.name, mime, size);
        }
        if let (true, Some(tools)) = (e.wants.tools, tools) {
            e.tools = tools.known(&e.name, mime, size);
        }
        if (e.lacks_format() || e.lacks_tools()) && e.payload.is_none() {
            match staged.write(loader, c) {
                Ok(p) => e.payload = Some(p),
                Err(err) => {
                    tracing::debug!(url = %c.planned.url, error = %err, "payload not analysed")
                }
            }
        }
    }
    if let Some(id) = identifier {
        let (at, payloads) = missing(&entries, Entry::lacks_format);
        for (i, found) in at.into_iter().zip(id.identify(&payloads)) {
            entries[i].format = Some(found);
        }
    }
    if let Some(tools) = tools {
        let (at, payloads) = missing(&entries, Entry::lacks_tools);
        for (i, found) in at.into_iter().zip(tools.run(&payloads)) {
            entries[i].tools = Some(found);
        }
    }
    let today = time::OffsetDateTime::now_utc().date();
    for ((c, w), i) in captures.iter_mut().zip(wants).zip(of_capture) {
        if let Some(i) = i {
            apply(c, *w, &entries[i], today);
        }
    }
}

/// The distinct payloads of `captures` (those without a digest written to learn it), and the
/// entry of each capture.
fn group(
    staged: &mut Staged,
    loader: &Loader<'_>,
    captures: &[&mut Capture],
    wants: &[Wants],
) -> (Vec<Entry>, Vec<Option<usize>>) {
    let mut entries: Vec<Entry> = Vec::new();
    let mut of_capture = Vec::with_capacity(captures.len());
    for (k, (c, w)) in captures.iter().zip(wants).enumerate() {
        let key = match name_of(c) {
            Some(name) => Ok((name, None)),
            None => staged.write(loader, c).map(|p| (p.name.clone(), Some(p))),
        };
        let (name, payload) = match key {
            Ok(key) => key,
            Err(e) => {
                tracing::debug!(url = %c.planned.url, error = %e, "payload not analysed");
                of_capture.push(None);
                continue;
            }
        };
        let i = *staged.by_name.entry(name.clone()).or_insert_with(|| {
            entries.push(Entry {
                name,
                from: k,
                wants: Wants::default(),
                payload: None,
                format: None,
                tools: None,
            });
            entries.len() - 1
        });
        let e = &mut entries[i];
        e.wants.format |= w.format;
        e.wants.tools |= w.tools;
        // Read from a capture that has the bytes (not a revisit whose original is elsewhere).
        if !has_payload(captures[e.from]) && has_payload(c) {
            e.from = k;
        }
        if e.payload.is_none() {
            e.payload = payload;
        }
        of_capture.push(Some(i));
    }
    (entries, of_capture)
}

/// The entries `lacking` a result that have their bytes written, and those payloads.
fn missing(entries: &[Entry], lacking: fn(&Entry) -> bool) -> (Vec<usize>, Vec<Payload>) {
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| lacking(e))
        .filter_map(|(i, e)| Some((i, e.payload.clone()?)))
        .unzip()
}

/// Sets on `c` what it wants of `e`'s findings, and says where they came from: `explorer,
/// indexed DATE, TOOL VERSION; …`.
fn apply(c: &mut Capture, w: Wants, e: &Entry, today: time::Date) {
    let mut used: Vec<String> = Vec::new();
    if let (true, Some(Some(id))) = (w.format, &e.format) {
        c.findings.puid = Some(id.puid.clone());
        c.findings.format = Some(id.format.clone());
        used.push(id.version.clone());
    }
    if let (true, Some(facts)) = (w.tools, e.tools.as_ref().filter(|f| !f.is_empty())) {
        let found = Findings::of(&Facts {
            plugins: facts.clone(),
            ..Facts::default()
        });
        let f = &mut c.findings;
        (f.jhove, f.exif_date, f.camera, f.gps) =
            (found.jhove, found.exif_date, found.camera, found.gps);
        if f.puid.is_none() {
            (f.puid, f.format) = (found.puid, found.format);
        }
        f.tools = facts.clone();
        for p in facts {
            let tool = named_version(p);
            if !used.contains(&tool) {
                used.push(tool);
            }
        }
    }
    if used.is_empty() {
        return;
    }
    let ours = format!("explorer, indexed {today}, {}", used.join("; "));
    c.findings.source = Some(match c.findings.source.take() {
        Some(crate_source) => format!("{crate_source}; PRONOM format: {ours}"),
        None => ours,
    });
}

/// `LABEL VERSION`, the label left out when the version starts with it (`Jhove (Rel. 1.28.0,
/// …)`, `siegfried 1.11.9, …`).
fn named_version(p: &PluginFacts) -> String {
    let starts = p
        .version
        .get(..p.label.len())
        .is_some_and(|v| v.eq_ignore_ascii_case(&p.label));
    match (starts, p.version.is_empty()) {
        (true, _) => p.version.clone(),
        (false, true) => p.label.clone(),
        (false, false) => format!("{} {}", p.label, p.version),
    }
}

/// Whether `c`'s bytes can be read: not a foreign revisit whose original is not in its
/// collection.
fn has_payload(c: &Capture) -> bool {
    c.planned
        .foreign
        .as_ref()
        .is_none_or(|f| f.payload.is_some())
}

/// The cache name of `c`'s payload when its digest is known without reading it.
fn name_of(c: &Capture) -> Option<String> {
    (!c.planned.sha1.is_empty()).then(|| name(&c.planned.sha1, &c.planned.path))
}

/// The payloads of a batch by cache name, and the temporary folders of those written: the
/// first [`IN_MEMORY`] bytes of them in the scratch folder (`modoai_tools::scratch`, memory
/// where the machine has it), the rest on disk.
#[derive(Default)]
struct Staged {
    scratch: Option<tempfile::TempDir>,
    disk: Option<tempfile::TempDir>,
    /// Bytes written to the scratch folder.
    in_scratch: u64,
    written: usize,
    by_name: HashMap<String, usize>,
}

/// The bytes of a batch's payloads written to the scratch folder at most: a batch's memory,
/// when that folder is memory.
const IN_MEMORY: u64 = 32 << 20;

impl Staged {
    /// Writes `c`'s payload to the temporary folder.
    fn write(&mut self, loader: &Loader<'_>, c: &Capture) -> std::io::Result<Payload> {
        if !has_payload(c) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "a revisit whose original is not in the collection",
            ));
        }
        let slot = format!("p{:06}", self.written);
        self.written += 1;
        let (file, size) = match self.in_scratch + c.size <= IN_MEMORY {
            true => match self.write_in(true, &slot, loader, c) {
                Ok((file, size)) => {
                    self.in_scratch += size;
                    (file, size)
                }
                // A small memory folder full (a container's /dev/shm): the disk, then.
                Err(_) => self.write_in(false, &slot, loader, c)?,
            },
            false => self.write_in(false, &slot, loader, c)?,
        };
        let digest = match c.planned.sha1.as_str() {
            "" => {
                let mut sha1 = Sha1::new();
                std::io::copy(&mut std::fs::File::open(&file)?, &mut sha1)?;
                hex::encode(sha1.finalize())
            }
            known => known.to_owned(),
        };
        Ok(Payload {
            file,
            name: name(&digest, &c.planned.path),
            mime: c.planned.mime.clone(),
            size,
        })
    }

    /// Writes `c`'s payload as `name` in the scratch folder or on disk: its path and size.
    fn write_in(
        &mut self,
        scratch: bool,
        name: &str,
        loader: &Loader<'_>,
        c: &Capture,
    ) -> std::io::Result<(std::path::PathBuf, u64)> {
        let dir = match (scratch, &self.scratch, &self.disk) {
            (true, Some(dir), _) | (false, _, Some(dir)) => dir,
            (true, None, _) => self
                .scratch
                .insert(modoai_tools::scratch::tempdir("modoai-payloads-")?),
            (false, _, None) => self.disk.insert(tempfile::tempdir()?),
        };
        let file = dir.path().join(name);
        let written = (|| {
            let mut out = std::fs::File::create(&file)?;
            let size = loader.copy_payload(&c.planned, &mut out)?;
            out.flush()?;
            Ok(size)
        })();
        match written {
            Ok(size) => Ok((file, size)),
            Err(e) => {
                let _ = std::fs::remove_file(&file);
                Err(e)
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_name_each_tool_once() {
        let p = |label: &str, version: &str| PluginFacts {
            label: label.into(),
            version: version.into(),
            ..PluginFacts::default()
        };
        assert_eq!(
            named_version(&p("jhove", "Jhove (Rel. 1.28.0, 2023-07-15)")),
            "Jhove (Rel. 1.28.0, 2023-07-15)"
        );
        assert_eq!(named_version(&p("md5", "modoai 0.1.0")), "md5 modoai 0.1.0");
        assert_eq!(named_version(&p("gone", "")), "gone");
        assert_eq!(name("ABC", "a/b.JPG"), "ABC.jpg");
        assert_eq!(name("ABC", "a/b.not-an-ext"), "ABC");
    }
}
