//! Single-pass MementoMap compaction (`docs/archivists.md`, "Formats"): roll sub-trees with many
//! children up into wildcard keys, as the reference `mementomap compact` does.
//!
//! Per layer (host keys split at `,`, path keys at `/`) a stack of open nodes remembers each
//! node's key, child count, summed frequency and where its first line was written. When a node is
//! closed with more children than the power-law cut-off of its depth, the output is rewound to
//! that position and the node's lines are replaced by one `key,* F` (host) or `key/* F` (path)
//! line. Memory is the two stacks: bounded by the depths, whatever the input size.

mod options;

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

use super::{Frequency, ProfileError};

pub use options::CompactOptions;

/// What a compaction read and wrote (the reference prints the first five).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Lines read.
    pub in_lines: u64,
    /// Lines written.
    pub out_lines: u64,
    /// Bytes read.
    pub in_bytes: u64,
    /// Bytes written.
    pub out_bytes: u64,
    /// Sub-trees rolled up into a wildcard key.
    pub rollups: u64,
    /// Data lines dropped: no frequency, or a key without `,` (not a host SURT).
    pub skipped: u64,
}

/// Compacts the UKVS file `input` into `output` (created or truncated; it must be a regular file,
/// since roll-ups rewind it). Header lines (`!…`) are copied; the reference tool drops them (it
/// compares a byte with a bytes object, which never matches in Python 3).
pub fn compact(
    input: &Path,
    output: &Path,
    options: &CompactOptions,
) -> Result<Stats, ProfileError> {
    let reader = BufReader::with_capacity(256 * 1024, File::open(input)?);
    compact_lines(reader, File::create(output)?, options)
}

/// [`compact`] from any sorted reader into a file.
pub fn compact_lines(
    input: impl BufRead,
    output: File,
    options: &CompactOptions,
) -> Result<Stats, ProfileError> {
    let o = options;
    let mut c = Compactor {
        host: Layer::new(
            b',',
            CompactOptions::cutoffs(o.host_alpha, o.host_k, o.host_factor, o.host_depth),
        ),
        path: Layer::new(
            b'/',
            CompactOptions::cutoffs(o.path_alpha, o.path_k, o.path_factor, o.path_depth),
        ),
        out: Output {
            writer: BufWriter::with_capacity(256 * 1024, output),
            pos: 0,
        },
        stats: Stats::default(),
    };
    for line in input.split(b'\n') {
        let line = line?;
        c.stats.in_lines += 1;
        c.stats.in_bytes += line.len() as u64 + 1;
        c.line(&line)?;
    }
    c.close_subtree(Which::Host, 0)?;
    c.close_subtree(Which::Path, 0)?;
    let Output { writer, pos } = c.out;
    let file = writer
        .into_inner()
        .map_err(io::IntoInnerError::into_error)?;
    file.set_len(pos)?;
    c.stats.out_bytes = pos;
    Ok(c.stats)
}

/// One open node of a layer's stack.
#[derive(Debug)]
struct Node {
    key: Vec<u8>,
    children: u64,
    frequency: Frequency,
    /// Output offset and line count when the node's first line was written.
    offset: u64,
    out_lines: u64,
}

#[derive(Debug)]
struct Layer {
    sep: u8,
    cutoff: Vec<f64>,
    trail: Vec<Option<Node>>,
}

impl Layer {
    fn new(sep: u8, cutoff: Vec<f64>) -> Self {
        let trail = cutoff.iter().map(|_| None).collect();
        Layer { sep, cutoff, trail }
    }

    /// The cumulative keys of `s`: `s.strip(sep).split(sep, depth - 1)`, joined prefix by prefix.
    fn keys(&self, s: &[u8]) -> Vec<Vec<u8>> {
        let s = trim(s, self.sep);
        let mut keys = Vec::new();
        let mut end = 0;
        let depth = self.trail.len();
        for (i, part) in s.splitn(depth.max(1), |&b| b == self.sep).enumerate() {
            end = if i == 0 {
                part.len()
            } else {
                end + 1 + part.len()
            };
            keys.push(s[..end].to_vec());
        }
        keys
    }

    fn reset(&mut self, from: usize) {
        for node in &mut self.trail[from..] {
            *node = None;
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Which {
    Host,
    Path,
}

struct Output {
    writer: BufWriter<File>,
    pos: u64,
}

impl Output {
    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.writer.write_all(bytes)?;
        self.pos += bytes.len() as u64;
        Ok(())
    }

    fn rewind(&mut self, to: u64) -> io::Result<()> {
        self.writer.seek(SeekFrom::Start(to))?;
        self.pos = to;
        Ok(())
    }
}

struct Compactor {
    host: Layer,
    path: Layer,
    out: Output,
    stats: Stats,
}

impl Compactor {
    fn layer(&mut self, which: Which) -> &mut Layer {
        match which {
            Which::Host => &mut self.host,
            Which::Path => &mut self.path,
        }
    }

    fn line(&mut self, line: &[u8]) -> Result<(), ProfileError> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.first() == Some(&b'!') {
            self.out.write(line)?;
            self.out.write(b"\n")?;
            self.stats.out_lines += 1;
            return Ok(());
        }
        let mut fields = line
            .split(|b| b.is_ascii_whitespace())
            .filter(|f| !f.is_empty());
        let (Some(raw_key), Some(raw_freq)) = (fields.next(), fields.next()) else {
            self.stats.skipped += u64::from(!line.is_empty());
            return Ok(());
        };
        let key = raw_key.split(|&b| b == b'?').next().unwrap_or_default();
        let key = trim(trim(key, b'/'), b',');
        let frequency = std::str::from_utf8(raw_freq)
            .ok()
            .and_then(|f| f.parse::<Frequency>().ok());
        let Some(frequency) = frequency.filter(|_| key.contains(&b',')) else {
            self.stats.skipped += 1;
            return Ok(());
        };
        let host = key.split(|&b| b == b')').next().unwrap_or_default();
        let host_keys = self.host.keys(host);
        let path_keys = self.path.keys(key);
        for (which, keys) in [(Which::Host, host_keys), (Which::Path, path_keys)] {
            for (i, k) in keys.into_iter().enumerate() {
                let same = match &mut self.layer(which).trail[i] {
                    Some(node) if node.key == k => {
                        node.frequency += frequency;
                        true
                    }
                    Some(_) => {
                        self.close_subtree(which, i)?;
                        false
                    }
                    None => false,
                };
                if !same {
                    self.open(which, i, k, frequency);
                }
            }
        }
        self.out.write(key)?;
        self.out.write(format!(" {frequency}\n").as_bytes())?;
        self.stats.out_lines += 1;
        Ok(())
    }

    fn open(&mut self, which: Which, i: usize, key: Vec<u8>, frequency: Frequency) {
        let (offset, out_lines) = (self.out.pos, self.stats.out_lines);
        let layer = self.layer(which);
        layer.trail[i] = Some(Node {
            key,
            children: 0,
            frequency,
            offset,
            out_lines,
        });
        if i > 0 {
            if let Some(parent) = &mut layer.trail[i - 1] {
                parent.children += 1;
            }
        }
    }

    /// Closes the sub-tree from depth `from` down: the shallowest node over its cut-off (never
    /// a host TLD) is rolled up. A host roll-up also discards the open path nodes, which lie
    /// inside the rewritten output; otherwise the path layer is closed too.
    fn close_subtree(&mut self, which: Which, from: usize) -> Result<(), ProfileError> {
        let layer = self.layer(which);
        let mut rollup = None;
        for i in from..layer.trail.len() {
            let Some(node) = &layer.trail[i] else { break };
            if i == 0 && which == Which::Host {
                continue;
            }
            if node.children as f64 > layer.cutoff[i] {
                let mut line = node.key.clone();
                line.push(layer.sep);
                line.extend_from_slice(format!("* {}\n", node.frequency).as_bytes());
                rollup = Some((node.offset, node.out_lines, line));
                break;
            }
        }
        layer.reset(from);
        let rolled = rollup.is_some();
        if let Some((offset, out_lines, line)) = rollup {
            self.out.rewind(offset)?;
            self.out.write(&line)?;
            self.stats.out_lines = out_lines + 1;
            self.stats.rollups += 1;
        }
        if which == Which::Host {
            if rolled {
                self.path.reset(0);
            } else {
                self.close_subtree(Which::Path, 0)?;
            }
        }
        Ok(())
    }
}

/// `bytes.strip(c)`: `c` removed from both ends.
fn trim(mut s: &[u8], c: u8) -> &[u8] {
    while let [first, rest @ ..] = s {
        if *first != c {
            break;
        }
        s = rest;
    }
    while let [rest @ .., last] = s {
        if *last != c {
            break;
        }
        s = rest;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str, options: &CompactOptions) -> (String, Stats) {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let stats = compact_lines(input.as_bytes(), File::create(&out).unwrap(), options).unwrap();
        (std::fs::read_to_string(out).unwrap(), stats)
    }

    /// A sample like the reference's `sample-01`, compacted with factors 0.05; the expected output
    /// is what `mementomap compact --hcf 0.05 --pcf 0.05` writes for it.
    #[test]
    fn sample_with_aggressive_factors() {
        let input = "com,cnn)/ 100\ncom,cnn)/world 200\ncom,cnn)/world/europe 14\n\
                     com,news) 150\ncom,news)/foo 20\nedu,odu)/ 500\nedu,odu,cs)/ 400\n\
                     edu,odu,cs)/~mln 10\nedu,psu) 10\n";
        let options = CompactOptions::default()
            .host_factor(0.05)
            .path_factor(0.05);
        let (out, stats) = run(input, &options);
        assert_eq!(
            out,
            "com,cnn) 100\ncom,cnn)/world/* 214\ncom,news) 150\ncom,news)/foo 20\n\
             edu,odu,* 910\nedu,psu) 10\n"
        );
        assert_eq!(stats.rollups, 2);
        assert_eq!(stats.out_lines, 6);
    }

    #[test]
    fn default_factors_only_normalise_and_headers_pass() {
        let input = "!context [\"x\"]\ncom,a)/ 1/1\ncom,a)/b/?q=1 2/2\nlocalhost 3\nnot a number\n";
        let (out, stats) = run(input, &CompactOptions::default());
        assert_eq!(out, "!context [\"x\"]\ncom,a) 1/1\ncom,a)/b 2/2\n");
        assert_eq!((stats.rollups, stats.skipped), (0, 2));
    }

    #[test]
    fn keys_split_at_depth() {
        let layer = Layer::new(b'/', vec![0.0; 3]);
        let keys: Vec<String> = layer
            .keys(b"com,a)/b/c/d/")
            .into_iter()
            .map(|k| String::from_utf8(k).unwrap())
            .collect();
        assert_eq!(keys, ["com,a)", "com,a)/b", "com,a)/b/c/d"]);
    }
}
