//! Splitting a harvest list between machines: [`Shard`] `I/N` takes the endpoints whose host
//! hashes to `I` modulo `N`, so N machines harvest disjoint parts of one list with no coordinator.
//!
//! The split is by host, because politeness is per host: every endpoint of one host lands on one
//! machine, which keeps its one-request-at-a-time promise. The host is the URL's authority as the
//! client's politeness uses it: the host name in lower case (IDNA-encoded by the URL parser), a
//! colon, and the port (the scheme's default when the URL gives none). Its shard is the first 8
//! bytes of its SHA-1, read as a big-endian number, modulo `N`: the same on every machine and in
//! every version, and independent of the list's order.
//!
//! ```
//! use modoai_harvester::shard::Shard;
//!
//! let shard: Shard = "1/4".parse()?;
//! let all: Vec<Shard> = (0..4).map(|i| Shard::new(i, 4).unwrap()).collect();
//! let url = "https://example.org/modoai";
//! // Exactly one of the four shards takes the endpoint, whichever machine asks.
//! assert_eq!(all.iter().filter(|s| s.takes(url).unwrap()).count(), 1);
//! assert_eq!(shard.to_string(), "1/4");
//! assert!(Shard::new(4, 4).is_err());
//! # Ok::<(), modoai_harvester::shard::ShardError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use sha1::{Digest, Sha1};

/// Part `index` of `count` (`0 ≤ index < count`) of a harvest list split by host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: u32,
    count: u32,
}

/// Why a shard or an endpoint's host could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShardError {
    /// Not of the form `I/N` with whole numbers.
    #[error("{0:?} is not a shard I/N (two whole numbers, e.g. 0/4)")]
    Form(String),
    /// `N` is zero, or `I` is not below `N`.
    #[error("shard {index}/{count} does not exist: N must be at least 1 and I one of 0 to N-1")]
    Range {
        /// `I`.
        index: u32,
        /// `N`.
        count: u32,
    },
    /// The endpoint URL has no host to split by.
    #[error("{0:?} has no host to choose a shard by")]
    NoHost(String),
}

impl Shard {
    /// Shard `index` of `count`.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if count == 0 || index >= count {
            return Err(ShardError::Range { index, count });
        }
        Ok(Shard { index, count })
    }

    /// The shard of a Kubernetes Indexed Job's pod, from its `JOB_COMPLETION_INDEX` and
    /// `JOB_COMPLETIONS` values: `None` unless both are given.
    pub fn from_job(
        index: Option<&str>,
        completions: Option<&str>,
    ) -> Option<Result<Shard, ShardError>> {
        let (index, completions) = (index?, completions?);
        Some(format!("{}/{}", index.trim(), completions.trim()).parse())
    }

    /// `I`.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// `N`.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Whether the endpoint at `url` belongs to this shard.
    pub fn takes(&self, url: &str) -> Result<bool, ShardError> {
        Ok(shard_of(&host_key(url)?, self.count) == self.index)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let form = || ShardError::Form(s.to_owned());
        let (i, n) = s.split_once('/').ok_or_else(form)?;
        let number = |v: &str| match v.bytes().all(|b| b.is_ascii_digit()) {
            true => v.parse::<u32>().map_err(|_| form()),
            false => Err(form()),
        };
        Shard::new(number(i)?, number(n)?)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The host an endpoint is split by: the client's politeness key
/// ([`host_key`](crate::client::host_key)), as in the module docs.
pub fn host_key(url: &str) -> Result<String, ShardError> {
    let no_host = || ShardError::NoHost(url.to_owned());
    let parsed = url::Url::parse(url).map_err(|_| no_host())?;
    crate::client::host_key(&parsed).ok_or_else(no_host)
}

/// The shard of `host` among `count`.
fn shard_of(host: &str, count: u32) -> u32 {
    let digest = Sha1::digest(host.as_bytes());
    let first: [u8; 8] = digest[..8].try_into().expect("SHA-1 has 20 bytes");
    (u64::from_be_bytes(first) % u64::from(count)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_read_strictly() {
        assert_eq!("0/1".parse(), Shard::new(0, 1));
        assert_eq!("3/4".parse::<Shard>().unwrap().to_string(), "3/4");
        for bad in [
            "", "1", "1/", "/4", "a/4", "-1/4", "1/4/5", " 1/4", "1.0/4", "+1/4",
        ] {
            assert_eq!(
                bad.parse::<Shard>(),
                Err(ShardError::Form(bad.into())),
                "{bad}"
            );
        }
        for (bad, index, count) in [("4/4", 4, 4), ("0/0", 0, 0), ("9/2", 9, 2)] {
            assert_eq!(
                bad.parse::<Shard>(),
                Err(ShardError::Range { index, count })
            );
        }
    }

    #[test]
    fn a_job_index_counts_only_with_both_variables() {
        assert_eq!(Shard::from_job(Some("2"), None), None);
        assert_eq!(Shard::from_job(None, Some("4")), None);
        assert_eq!(
            Shard::from_job(Some("2"), Some("4")),
            Some(Shard::new(2, 4))
        );
        assert!(matches!(
            Shard::from_job(Some("x"), Some("4")),
            Some(Err(ShardError::Form(_)))
        ));
    }

    #[test]
    fn the_host_is_the_authority_with_its_port_in_lower_case() {
        assert_eq!(
            host_key("https://Example.ORG/modoai").unwrap(),
            "example.org:443"
        );
        assert_eq!(
            host_key("http://example.org:8080/a?b").unwrap(),
            "example.org:8080"
        );
        assert_eq!(host_key("http://[::1]:81/oai").unwrap(), "[::1]:81");
        assert!(matches!(host_key("not a url"), Err(ShardError::NoHost(_))));
        // Two paths of one host go to one shard; the value is fixed forever (documented hash).
        let s = Shard::new(0, 7).unwrap();
        assert_eq!(
            s.takes("http://a.example/x").unwrap(),
            s.takes("http://a.example/y").unwrap()
        );
        assert_eq!(
            shard_of("example.org:443", 1000),
            shard_of("example.org:443", 1000)
        );
        let digest = Sha1::digest(b"example.org:443");
        let expected = u64::from_be_bytes(digest[..8].try_into().unwrap()) % 4;
        assert_eq!(u64::from(shard_of("example.org:443", 4)), expected);
    }

    #[test]
    fn shards_split_many_hosts_into_disjoint_covering_parts() {
        let urls: Vec<String> = (0..400)
            .map(|i| format!("http://h{i}.example/oai"))
            .collect();
        let shards: Vec<Shard> = (0..4).map(|i| Shard::new(i, 4).unwrap()).collect();
        let mut sizes = [0usize; 4];
        for url in &urls {
            let taken: Vec<usize> = (0..4).filter(|&i| shards[i].takes(url).unwrap()).collect();
            assert_eq!(taken.len(), 1, "{url}");
            sizes[taken[0]] += 1;
        }
        // Roughly even: each of 4 shards has between 60 and 140 of 400 hosts.
        assert!(sizes.iter().all(|&n| (60..=140).contains(&n)), "{sizes:?}");
    }
}
