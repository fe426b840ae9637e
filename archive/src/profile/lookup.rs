//! Lookup in a sorted profile: the most specific key that covers a URI, by binary search.

use std::fs::File;
use std::io::{BufReader, Seek, SeekFrom};
use std::path::Path;

use crate::cdxj::{lower_bound, read_line};
use crate::surt::surt;

use super::{Frequency, ProfileError};

/// A lookup's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// The matched key, e.g. `com,cnn)/*`.
    pub key: String,
    /// Its frequency.
    pub frequency: Frequency,
    /// Index of the key in [`lookup_keys`]: 0 is an exact match, larger is more general.
    pub distance: usize,
}

/// The keys that cover `surt`, most specific first, as the reference generates
/// them: the query dropped, then the key itself, its path wildcards up to the host, then the host
/// wildcards up to the TLD. `*` alone is never generated.
///
/// ```
/// use modoai_archive::profile::lookup_keys;
/// assert_eq!(
///     lookup_keys("com,example)/"),
///     ["com,example)", "com,example)/*", "com,example,*", "com,*"]
/// );
/// ```
pub fn lookup_keys(surt: &str) -> Vec<String> {
    let mut key = surt.split('?').next().unwrap_or_default().trim_matches('/');
    let mut keys = vec![key.to_owned(), format!("{key}/*")];
    while key.contains(',') {
        if key.ends_with(')') {
            keys.push(format!("{},*", key.trim_matches(')')));
        }
        // `(.+)([,/]).+`: split at the last `,` or `/` that has something on both sides.
        let cut = key
            .char_indices()
            .rev()
            .find(|&(i, c)| (c == ',' || c == '/') && i > 0 && i + 1 < key.len());
        match cut {
            Some((i, c)) => {
                keys.push(format!("{}{c}*", &key[..i]));
                key = &key[..i];
            }
            None => key = key.trim_matches(['/', ',']),
        }
    }
    keys
}

/// Finds the most specific key of the profile at `path` that covers `uri` (a SURT, or a URL that
/// is turned into one). `None` when no key covers it.
///
/// Each candidate key is a binary search over byte offsets (`O(log n)` seeks); the file is never
/// read whole. Header lines (`!…`) sort before every key and never match. Unlike the reference
/// tool, the first line and the end of the file are handled (its binary search never re-checks
/// the first line, and its `readline()` at the end of the file raises a ValueError).
pub fn lookup(path: &Path, uri: &str) -> Result<Option<Hit>, ProfileError> {
    let key = if uri.contains(')') {
        uri.to_owned()
    } else {
        surt(uri).map_err(|_| ProfileError::Key(uri.to_owned()))?
    };
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    for (distance, candidate) in lookup_keys(&key).into_iter().enumerate() {
        let target = format!("{candidate} ").into_bytes();
        let at = lower_bound(&mut reader, len, &target)?;
        reader.seek(SeekFrom::Start(at))?;
        if !read_line(&mut reader, &mut line)? || !line.starts_with(&target) {
            continue;
        }
        let value = String::from_utf8_lossy(&line[target.len()..]);
        let value = value.split_whitespace().next().unwrap_or_default();
        let frequency = value.parse().map_err(|message| ProfileError::Line {
            line: 0,
            message: format!("key {candidate}: {message}"),
        })?;
        return Ok(Some(Hit {
            key: candidate,
            frequency,
            distance,
        }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_the_reference_example() {
        assert_eq!(
            lookup_keys("com,cnn)/news/a/b/c"),
            [
                "com,cnn)/news/a/b/c",
                "com,cnn)/news/a/b/c/*",
                "com,cnn)/news/a/b/*",
                "com,cnn)/news/a/*",
                "com,cnn)/news/*",
                "com,cnn)/*",
                "com,cnn,*",
                "com,*",
            ]
        );
        assert_eq!(lookup_keys("com,example)/?q=1")[0], "com,example)");
    }
}
