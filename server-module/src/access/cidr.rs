//! [`Cidr`]: an address range such as `192.0.2.0/24` or `2001:db8::/32` (RFC 4632, RFC 4291 §2.3).
//!
//! The range itself and its matching are `ipnet`'s [`IpNet`]. The text is split here, the address
//! read by the standard library and the prefix length by us, so an error says which part is wrong
//! (`ipnet`'s parse error does not) and the syntax stays what it was: a bare address is a range of
//! one, and a length may have leading zeros.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use ipnet::IpNet;

/// An IPv4 or IPv6 address range. A bare address is a range of one (`/32` or `/128`).
///
/// IPv4-mapped IPv6 addresses (`::ffff:192.0.2.7`, what a dual-stack listener reports for IPv4
/// clients) are matched as the IPv4 addresses they are.
///
/// ```
/// use modoai::access::Cidr;
/// let lan: Cidr = "192.0.2.0/24".parse()?;
/// assert!(lan.contains("192.0.2.200".parse()?));
/// assert!(lan.contains("::ffff:192.0.2.9".parse()?));
/// assert!(!lan.contains("192.0.3.1".parse()?));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr(IpNet);

/// A range that does not parse; the message says why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("address range {value:?}: {why}")]
pub struct CidrError {
    value: String,
    why: &'static str,
}

impl Cidr {
    /// Whether `ip` lies in the range.
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.contains(&ip.to_canonical())
    }
}

impl FromStr for Cidr {
    type Err = CidrError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |why| CidrError {
            value: s.to_owned(),
            why,
        };
        let (addr, len) = match s.split_once('/') {
            Some((a, l)) => (a, Some(l)),
            None => (s, None),
        };
        let addr: IpAddr = addr
            .parse()
            .map_err(|_| bad("not an IPv4 or IPv6 address"))?;
        let net = match len {
            None => IpNet::from(addr),
            Some(l) if !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()) => l
                .parse()
                .ok()
                .and_then(|len| IpNet::new(addr, len).ok())
                .ok_or_else(|| bad("prefix length too long"))?,
            Some(_) => return Err(bad("prefix length is not a number")),
        };
        // "10.0.0.1/8" is most likely a typo for a host or for 10.0.0.0/8: refuse to guess.
        if net.trunc() != net {
            return Err(bad("address has bits set beyond the prefix length"));
        }
        Ok(Cidr(net))
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de> serde::Deserialize<'de> for Cidr {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Cidr {
        s.parse().unwrap()
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn ipv4_ranges() {
        assert!(c("10.0.0.0/8").contains(ip("10.255.1.2")));
        assert!(!c("10.0.0.0/8").contains(ip("11.0.0.1")));
        assert!(c("192.0.2.7").contains(ip("192.0.2.7")));
        assert!(!c("192.0.2.7").contains(ip("192.0.2.8")));
        assert!(c("0.0.0.0/0").contains(ip("203.0.113.1")));
        assert!(c("198.51.100.128/25").contains(ip("198.51.100.200")));
        assert!(!c("198.51.100.128/25").contains(ip("198.51.100.127")));
    }

    #[test]
    fn ipv6_ranges() {
        assert!(c("2001:db8::/32").contains(ip("2001:db8:ffff::1")));
        assert!(!c("2001:db8::/32").contains(ip("2001:db9::1")));
        assert!(c("::1").contains(ip("::1")));
        assert!(c("::/0").contains(ip("fe80::1")));
        assert!(c("2001:db8:0:1::/64").contains(ip("2001:db8:0:1:abcd::9")));
        assert!(!c("2001:db8:0:1::/64").contains(ip("2001:db8:0:2::9")));
    }

    #[test]
    fn families_do_not_mix_but_mapped_addresses_are_ipv4() {
        assert!(!c("::/0").contains(ip("192.0.2.1")));
        assert!(!c("0.0.0.0/0").contains(ip("2001:db8::1")));
        assert!(c("192.0.2.0/24").contains(ip("::ffff:192.0.2.1")));
    }

    #[test]
    fn bad_ranges_are_refused() {
        for bad in [
            "",
            "10.0.0.0/33",
            "2001:db8::/129",
            "10.0.0.0/",
            "10.0.0.0/x",
            "10.0.0.0/-1",
            "10.0.0.1/8",
            "2001:db8::1/32",
            "example.org",
            "10.0.0/8",
            "10.0.0.0/8/8",
        ] {
            assert!(bad.parse::<Cidr>().is_err(), "{bad}");
        }
        let err = "10.0.0.1/8".parse::<Cidr>().unwrap_err().to_string();
        assert!(
            err.contains("10.0.0.1/8") && err.contains("beyond"),
            "{err}"
        );
    }

    #[test]
    fn prefix_lengths_may_have_leading_zeros() {
        assert_eq!(c("10.0.0.0/008"), c("10.0.0.0/8"));
        assert_eq!(c("2001:db8::/0032"), c("2001:db8::/32"));
    }

    #[test]
    fn displays_canonically() {
        assert_eq!(c("192.0.2.7").to_string(), "192.0.2.7/32");
        assert_eq!(c("2001:DB8::/32").to_string(), "2001:db8::/32");
    }
}
