//! `M/R` frequencies of UKVS values.

use std::fmt;
use std::ops::AddAssign;
use std::str::FromStr;

/// A MementoMap frequency: `mementos` URI-Ms of `uris` distinct URI-Rs (`400/100`), or URI-Ms
/// only (`400`), as the reference tool writes them.
///
/// Sums keep the URI-R count only while every term has one: a roll-up of lines with and without
/// URI-R counts has an unknown URI-R count.
///
/// ```
/// use modoai_archive::profile::Frequency;
/// let mut f: Frequency = "400/100".parse()?;
/// f += "20/3".parse()?;
/// assert_eq!(f.to_string(), "420/103");
/// f += "5".parse()?;
/// assert_eq!(f.to_string(), "425");
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frequency {
    /// URI-Ms: captures.
    pub mementos: u64,
    /// Distinct URI-Rs, when known.
    pub uris: Option<u64>,
}

impl FromStr for Frequency {
    type Err = String;

    /// Parses `M` or `M/R` (decimal digits). The spec's other forms (`/R`, `/`, suffixes `+ - ~`)
    /// are refused: neither this crate nor the reference tool writes them.
    fn from_str(s: &str) -> Result<Self, String> {
        let number = |t: &str| {
            if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                t.parse::<u64>().map_err(|e| format!("{t:?}: {e}"))
            } else {
                Err(format!("{s:?} is not a frequency (M or M/R)"))
            }
        };
        match s.split_once('/') {
            Some((m, r)) => Ok(Frequency {
                mementos: number(m)?,
                uris: Some(number(r)?),
            }),
            None => Ok(Frequency {
                mementos: number(s)?,
                uris: None,
            }),
        }
    }
}

impl fmt::Display for Frequency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.uris {
            Some(r) => write!(f, "{}/{}", self.mementos, r),
            None => write!(f, "{}", self.mementos),
        }
    }
}

impl AddAssign for Frequency {
    fn add_assign(&mut self, other: Frequency) {
        self.mementos += other.mementos;
        self.uris = self.uris.zip(other.uris).map(|(a, b)| a + b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_refuses() {
        assert_eq!(
            "7".parse(),
            Ok(Frequency {
                mementos: 7,
                uris: None
            })
        );
        assert_eq!(
            "7/2".parse(),
            Ok(Frequency {
                mementos: 7,
                uris: Some(2)
            })
        );
        for bad in ["", "/", "/5", "5/", "4+", "a", "-1", "1/2/3", "200-/150~"] {
            assert!(bad.parse::<Frequency>().is_err(), "{bad}");
        }
    }
}
