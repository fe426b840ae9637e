//! A corpus definition of a search's captures, in the schema `modoai-harvester corpus` writes
//! (`schemas/corpus.xsd`, one writer for both: `modoai_archive::corpus::CorpusWriter`): one PWID
//! per part with its digest, the query and the date of the export in the description.

use modoai_archive::corpus::{CorpusWriter, Head, PartFacts, Selection};
use modoai_archive::pwid::{Coverage, Pwid};
use modoai_archive::warc::base32;
use sha1::{Digest, Sha1};
use time::OffsetDateTime;

use super::{Ending, Rows};
use crate::search::{Item, Stored};

/// What a corpus definition of a search says besides its parts.
#[derive(Clone, Debug, Default)]
pub struct CorpusContext {
    /// The archive ids of the archives searched.
    pub archive_ids: Vec<String>,
    /// The search, as a query string.
    pub query: String,
    /// When the export started, whole seconds.
    pub created: Option<OffsetDateTime>,
    /// Parts it will list: the search's captures.
    pub count: u64,
    /// What names the same search of the same index state (the cursor's fingerprints): the
    /// corpus's PWID is made of it, so an export made again of an unchanged index gets the
    /// same name.
    pub fingerprint: String,
}

impl CorpusContext {
    /// The corpus's own PWID: `collection` coverage, its item `urn:sha1:` of the fingerprint
    /// and the count.
    fn pwid(&self, created: OffsetDateTime) -> Pwid {
        let mut h = Sha1::new();
        h.update(self.fingerprint.as_bytes());
        h.update(format!("\n{}", self.count).as_bytes());
        Pwid {
            archive_id: self.archive_ids.first().cloned().unwrap_or_default(),
            archived_at: created,
            coverage: Coverage::Collection,
            item: format!("urn:sha1:{}", base32(&h.finalize())),
        }
    }
}

pub(super) struct Corpus {
    context: CorpusContext,
    writer: Option<CorpusWriter<Vec<u8>>>,
}

impl Corpus {
    pub(super) fn new(context: CorpusContext) -> Corpus {
        Corpus {
            context,
            writer: None,
        }
    }

    /// Moves what the writer wrote into `out`.
    fn drain(&mut self, out: &mut Vec<u8>) {
        if let Some(w) = &mut self.writer {
            out.append(w.get_mut());
        }
    }
}

// Writing into a Vec<u8> cannot fail: the writer's io::Results are always Ok.
impl Rows for Corpus {
    fn head(&mut self, out: &mut Vec<u8>) {
        let c = &self.context;
        let created = c.created.unwrap_or_else(now);
        let pwid = c.pwid(created);
        let archive = c.archive_ids.join(" ");
        let description = format!(
            "The captures found by the search {:?} of modoai-explorer, exported on {}.",
            c.query,
            modoai_archive::warc::warc_date(created)
        );
        let head = Head {
            pwid: &pwid,
            archive: &archive,
            created,
            description: Some(&description),
            selection: &Selection::default(),
            count: c.count,
        };
        self.writer = Some(CorpusWriter::new(Vec::new(), &head).expect("writing to memory"));
        self.drain(out);
    }

    fn row(&mut self, out: &mut Vec<u8>, item: &Item, stored: &Stored) {
        let Some(pwid) = item.pwid.as_deref().and_then(|p| p.parse::<Pwid>().ok()) else {
            return;
        };
        let digest = format!("sha1:{}", item.sha1);
        if let Some(w) = &mut self.writer {
            w.part(&PartFacts {
                pwid: &pwid,
                url: &item.url,
                identifier: &item.identifier,
                datestamp: &item.datestamp,
                kind: item.kind.as_str(),
                content_type: &item.mime,
                digest: &digest,
                warc_file: &stored.record.file,
                offset: stored.record.offset,
                length: stored.record.length,
                deleted: None,
            })
            .expect("writing to memory");
        }
        self.drain(out);
    }

    fn tail(&mut self, out: &mut Vec<u8>, written: u64, ending: &Ending) {
        if let Ending::Stopped(why) = ending {
            // A comment, so that the file stays valid and says it is not the whole search.
            let why = why.replace("--", "- -");
            let note = format!("\n  <!-- incomplete: {written} captures; {why} -->");
            out.extend_from_slice(note.as_bytes());
        }
        if let Some(w) = self.writer.take() {
            out.append(&mut w.finish().expect("writing to memory"));
        }
        out.push(b'\n');
    }
}

fn now() -> OffsetDateTime {
    let t = OffsetDateTime::now_utc();
    t.replace_nanosecond(0).unwrap_or(t)
}
