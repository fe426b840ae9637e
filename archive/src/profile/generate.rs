//! A full profile from a CDXJ index: `key M/R` per SURT key without query.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use crate::surt::mementomap_key;

use super::{Frequency, ProfileError, Stats};

/// Lines sorted in memory before they go to a run file: bounds memory at a few tens of MB.
const RUN_LINES: usize = 1 << 19;

/// The header lines of a generated profile (UKVS `!id` and `!meta`).
#[derive(Clone, Debug, Default)]
pub struct Header {
    /// The archive described (`!id {uri: …}`), e.g. its replay URL.
    pub id: String,
    /// A human name (`!meta {… name: …}`).
    pub name: String,
    /// When the profile was made (RFC 3339), in `!meta`.
    pub generated: String,
    /// Deletions the archive recorded (`!meta {… deletions: N}`): counted apart, since a deleted
    /// record is no memento of any URI.
    pub deletions: Option<u64>,
}

/// Writes the MementoMap of the sorted CDXJ (or CDX, or SURT list) `cdxj` to `out`.
///
/// Every index line is a memento, as the reference `mementomap generate` counts them (a line
/// repeated is one memento: an index has no two equal lines, but an index followed by the lines
/// not merged into it yet may): the profile describes what the archive can replay, which for this crate's archives is the harvested
/// files at their URLs (resource and revisit records) and the harvested XML at the endpoints'
/// GetRecord URLs. Keys are [`mementomap_key`]s; lines whose SURT has no `)` (not a URL) or whose
/// key has no `,` are skipped, as the reference does. The frequency is `M/R`: index lines, and
/// distinct SURTs (query included) among them.
///
/// Unlike the reference, which counts runs of consecutive lines, the output is sorted and each key
/// appears once: CDXJ order (`…/a `, `…/a/b `, `…/a?x `) does not keep lines of one key together.
/// Keys are sorted in runs of bounded size spilled to temporary files and merged, so memory does
/// not grow with the index.
pub fn generate(cdxj: &Path, out: &Path, header: &Header) -> Result<Stats, ProfileError> {
    let input = BufReader::with_capacity(256 * 1024, File::open(cdxj)?);
    generate_from(input, out, header)
}

/// [`generate`] from index lines in any order, e.g. [`Reader::cdxj`](crate::archive::Reader::cdxj):
/// the index and the records not merged into it yet.
pub fn generate_from(
    input: impl BufRead,
    out: &Path,
    header: &Header,
) -> Result<Stats, ProfileError> {
    let mut stats = Stats::default();
    let mut sorter = Sorter::default();
    for line in input.split(b'\n') {
        let line = line?;
        stats.in_lines += 1;
        stats.in_bytes += line.len() as u64 + 1;
        let surt = line
            .split(|b| b.is_ascii_whitespace())
            .next()
            .and_then(|s| std::str::from_utf8(s).ok())
            .unwrap_or_default();
        let key = mementomap_key(surt);
        if !surt.contains(')') || !key.contains(',') {
            stats.skipped += u64::from(!line.is_empty());
            continue;
        }
        // The line's hash tells a repeated line (the same capture twice) from another capture.
        sorter.push(format!("{key} {surt} {:016x}", line_hash(&line)).into_bytes())?;
    }
    let mut writer = BufWriter::with_capacity(256 * 1024, File::create(out)?);
    for line in header_lines(header) {
        writer.write_all(line.as_bytes())?;
        stats.out_lines += 1;
    }
    count(sorter.finish()?, &mut writer, &mut stats)?;
    let file = writer
        .into_inner()
        .map_err(io::IntoInnerError::into_error)?;
    stats.out_bytes = file.metadata()?.len();
    file.sync_all()?;
    Ok(stats)
}

/// Writes `key M/R` per key of the sorted `key surt hash` lines, a repeated line counted once.
fn count(
    pairs: impl Iterator<Item = io::Result<Vec<u8>>>,
    writer: &mut BufWriter<File>,
    stats: &mut Stats,
) -> io::Result<()> {
    let mut current: Option<(Vec<u8>, Vec<u8>, Frequency)> = None;
    let emit = |w: &mut BufWriter<File>, key: &[u8], f: Frequency| -> io::Result<()> {
        w.write_all(key)?;
        w.write_all(format!(" {f}\n").as_bytes())
    };
    let mut last = Vec::new();
    for pair in pairs {
        let pair = pair?;
        if pair == last {
            continue;
        }
        let split = pair.iter().position(|&b| b == b' ').unwrap_or(pair.len());
        let end = pair.iter().rposition(|&b| b == b' ').unwrap_or(pair.len());
        let (key, surt) = (&pair[..split], &pair[split..end.max(split)]);
        match &mut current {
            Some((k, last_surt, f)) if k.as_slice() == key => {
                f.mementos += 1;
                if last_surt.as_slice() != surt {
                    f.uris = f.uris.map(|r| r + 1);
                    *last_surt = surt.to_vec();
                }
            }
            _ => {
                if let Some((k, _, f)) = current.take() {
                    emit(writer, &k, f)?;
                    stats.out_lines += 1;
                }
                current = Some((
                    key.to_vec(),
                    surt.to_vec(),
                    Frequency {
                        mementos: 1,
                        uris: Some(1),
                    },
                ));
            }
        }
        last = pair;
    }
    if let Some((k, _, f)) = current {
        emit(writer, &k, f)?;
        stats.out_lines += 1;
    }
    Ok(())
}

/// 64 bits of a line's hash: equal lines, and in practice only they, hash equal.
fn line_hash(line: &[u8]) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(line)
}

/// `!context`, `!id`, `!fields` and `!meta`, each ending in a newline. `!` sorts before every
/// key character, so the file stays sorted.
fn header_lines(h: &Header) -> Vec<String> {
    let json = |s: &str| serde_json::Value::String(s.to_owned()).to_string();
    let deletions = h
        .deletions
        .map(|n| format!(", deletions: {n}"))
        .unwrap_or_default();
    vec![
        "!context [\"http://oduwsdl.github.io/contexts/ukvs\"]\n".to_owned(),
        format!("!id {{uri: {}}}\n", json(&h.id)),
        "!fields {keys: [\"surt\"], values: [\"frequency\"]}\n".to_owned(),
        format!(
            "!meta {{type: \"MementoMap\", name: {}, generated: {}, generator: {}{deletions}}}\n",
            json(&h.name),
            json(&h.generated),
            json(concat!("modoai-harvester ", env!("CARGO_PKG_VERSION")))
        ),
    ]
}

/// An external sort of byte lines: sorted runs of [`RUN_LINES`] in temporary files, merged.
#[derive(Default)]
struct Sorter {
    batch: Vec<Vec<u8>>,
    runs: Vec<File>,
}

impl Sorter {
    fn push(&mut self, line: Vec<u8>) -> io::Result<()> {
        self.batch.push(line);
        if self.batch.len() >= RUN_LINES {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> io::Result<()> {
        self.batch.sort_unstable();
        let mut file = BufWriter::new(tempfile::tempfile()?);
        for line in self.batch.drain(..) {
            file.write_all(&line)?;
            file.write_all(b"\n")?;
        }
        let mut file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
        io::Seek::rewind(&mut file)?;
        self.runs.push(file);
        Ok(())
    }

    /// The lines in order.
    fn finish(mut self) -> io::Result<Box<dyn Iterator<Item = io::Result<Vec<u8>>>>> {
        if self.runs.is_empty() {
            self.batch.sort_unstable();
            return Ok(Box::new(self.batch.into_iter().map(Ok)));
        }
        if !self.batch.is_empty() {
            self.spill()?;
        }
        let mut merge = Merge {
            readers: Vec::new(),
            heap: BinaryHeap::new(),
        };
        for file in self.runs {
            let mut reader = BufReader::with_capacity(64 * 1024, file);
            let i = merge.readers.len();
            if let Some(line) = next_line(&mut reader)? {
                merge.heap.push(Reverse((line, i)));
            }
            merge.readers.push(reader);
        }
        Ok(Box::new(merge))
    }
}

struct Merge {
    readers: Vec<BufReader<File>>,
    heap: BinaryHeap<Reverse<(Vec<u8>, usize)>>,
}

impl Iterator for Merge {
    type Item = io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        let Reverse((line, i)) = self.heap.pop()?;
        match next_line(&mut self.readers[i]) {
            Ok(Some(next)) => self.heap.push(Reverse((next, i))),
            Ok(None) => {}
            Err(e) => return Some(Err(e)),
        }
        Some(Ok(line))
    }
}

fn next_line(reader: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    Ok(crate::cdxj::read_line(reader, &mut line)?.then_some(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_mementos_and_distinct_uris_across_runs() {
        let dir = tempfile::tempdir().unwrap();
        let cdxj = dir.path().join("index.cdxj");
        // CDXJ order separates `…/a` from `…/a?x`; a key may still get one line only.
        std::fs::write(
            &cdxj,
            "com,example)/ 20240101000000 {}\ncom,example)/ 20240102000000 {}\n\
             com,example)/a 20240101000000 {}\ncom,example)/a/b 20240101000000 {}\n\
             com,example)/a?x=1 20240101000000 {}\ncom,example)/a?x=2 20240101000000 {}\n\
             localhost)/x 20240101000000 {}\n",
        )
        .unwrap();
        let out = dir.path().join("map");
        let stats = generate(&cdxj, &out, &Header::default()).unwrap();
        let text = std::fs::read_to_string(out).unwrap();
        let data: Vec<&str> = text.lines().filter(|l| !l.starts_with('!')).collect();
        assert_eq!(
            data,
            [
                "com,example) 2/1",
                "com,example)/a 3/3",
                "com,example)/a/b 1/1"
            ]
        );
        assert_eq!(text.lines().filter(|l| l.starts_with('!')).count(), 4);
        assert_eq!(stats.skipped, 1);
    }

    #[test]
    fn a_repeated_line_is_one_memento() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("map");
        // The index, then a line not merged into it yet when the reader looked, and a new one.
        let input = "com,example)/a 20240101000000 {\"offset\": \"0\"}\n\
                     com,example)/a 20240101000000 {\"offset\": \"0\"}\n\
                     com,example)/a 20240102000000 {\"offset\": \"9\"}\n";
        generate_from(input.as_bytes(), &out, &Header::default()).unwrap();
        let text = std::fs::read_to_string(out).unwrap();
        let data: Vec<&str> = text.lines().filter(|l| !l.starts_with('!')).collect();
        assert_eq!(data, ["com,example)/a 2/1"]);
    }

    #[test]
    fn external_merge_keeps_order() {
        let mut sorter = Sorter::default();
        for i in (0..(RUN_LINES * 2 + 10)).rev() {
            sorter.push(format!("{i:08}").into_bytes()).unwrap();
        }
        assert_eq!(sorter.runs.len(), 2);
        let mut last = Vec::new();
        let mut n = 0;
        for line in sorter.finish().unwrap() {
            let line = line.unwrap();
            assert!(line > last);
            last = line;
            n += 1;
        }
        assert_eq!(n, RUN_LINES * 2 + 10);
    }
}
