//! Who the client is: the TCP peer ([`ClientAddr`]), or, behind trusted reverse proxies, the
//! address they report in `X-Forwarded-For` or `Forwarded` (RFC 7239).

use std::net::{IpAddr, SocketAddr};

use http::HeaderMap;
use serde::Deserialize;

use super::Cidr;

/// The TCP peer of a request, as a request extension. The standalone server inserts it; behind
/// another server, insert it before the layer, for example from axum's `ConnectInfo`:
///
/// ```no_run
/// use std::net::SocketAddr;
/// use axum::extract::{ConnectInfo, Request};
/// use axum::Router;
/// use modoai::{ClientAddr, Config, OaiPmhLayer};
/// use tower::ServiceBuilder;
/// use tower_http::services::ServeDir;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let config = Config::new("public", "http://www.example.org/")?;
/// let app = Router::new().fallback_service(ServeDir::new("public")).layer(
///     ServiceBuilder::new()
///         .map_request(|mut req: Request| {
///             if let Some(ConnectInfo(peer)) = req.extensions().get::<ConnectInfo<SocketAddr>>().copied() {
///                 req.extensions_mut().insert(ClientAddr(peer));
///             }
///             req
///         })
///         .layer(OaiPmhLayer::new(config)),
/// );
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>()).await?;
/// # Ok(()) }
/// ```
///
/// A request without it has no address: address ranges never admit it, and its rate limit is
/// shared with every other such request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddr(pub SocketAddr);

/// Tags a request with its TCP peer (the standalone server's accept loop).
pub(crate) fn with_peer<B>(mut req: http::Request<B>, peer: SocketAddr) -> http::Request<B> {
    req.extensions_mut().insert(ClientAddr(peer));
    req
}

/// Which header trusted proxies report the client in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ForwardedHeader {
    /// `X-Forwarded-For: client, proxy1, proxy2` (nginx's `$proxy_add_x_forwarded_for`).
    #[default]
    XForwardedFor,
    /// `Forwarded: for=client, for=proxy1` (RFC 7239).
    Forwarded,
}

/// The client's address: the peer, unless the peer is a trusted proxy; then the rightmost address
/// of the forwarding chain that is not a trusted proxy (anything left of it could be forged by
/// the client). A chain of trusted proxies only gives its leftmost; an entry that is no address
/// (`unknown`, an obfuscated name, garbage) ends the walk at the hop that reported it.
pub(crate) fn client_ip(
    peer: Option<IpAddr>,
    headers: &HeaderMap,
    trusted: &[Cidr],
    header: ForwardedHeader,
) -> Option<IpAddr> {
    let peer = peer?.to_canonical();
    let is_trusted = |ip: IpAddr| trusted.iter().any(|c| c.contains(ip));
    if !is_trusted(peer) {
        return Some(peer);
    }
    let name = match header {
        ForwardedHeader::XForwardedFor => "x-forwarded-for",
        ForwardedHeader::Forwarded => "forwarded",
    };
    let mut hops: Vec<Option<IpAddr>> = Vec::new();
    for value in headers.get_all(name) {
        let Ok(value) = value.to_str() else {
            return Some(peer);
        };
        for element in value.split(',') {
            hops.push(match header {
                ForwardedHeader::XForwardedFor => parse_node(element.trim()),
                ForwardedHeader::Forwarded => forwarded_for(element),
            });
        }
    }
    let mut client = peer;
    for hop in hops.into_iter().rev() {
        match hop {
            Some(ip) if is_trusted(ip) => client = ip,
            Some(ip) => return Some(ip),
            None => return Some(client),
        }
    }
    Some(client)
}

/// The `for=` parameter of one `Forwarded` element.
fn forwarded_for(element: &str) -> Option<IpAddr> {
    element.split(';').find_map(|pair| {
        let (k, v) = pair.trim().split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("for")
            .then(|| parse_node(v.trim().trim_matches('"')))
            .flatten()
    })
}

/// A node: `192.0.2.1`, `192.0.2.1:8080`, `2001:db8::1`, `[2001:db8::1]` or `[2001:db8::1]:80`.
fn parse_node(s: &str) -> Option<IpAddr> {
    if let Ok(ip) = s.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    if let Ok(sa) = s.parse::<SocketAddr>() {
        return Some(sa.ip().to_canonical());
    }
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    inner.parse::<IpAddr>().ok().map(|ip| ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn headers(name: &str, values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(
                http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    fn proxies() -> Vec<Cidr> {
        vec!["10.0.0.0/8".parse().unwrap(), "fd00::/8".parse().unwrap()]
    }

    fn xff(peer: &str, values: &[&str]) -> Option<IpAddr> {
        client_ip(
            Some(ip(peer)),
            &headers("x-forwarded-for", values),
            &proxies(),
            ForwardedHeader::XForwardedFor,
        )
    }

    #[test]
    fn untrusted_peers_are_the_client_whatever_they_claim() {
        assert_eq!(
            xff("198.51.100.7", &["192.0.2.1"]),
            Some(ip("198.51.100.7"))
        );
        assert_eq!(xff("198.51.100.7", &[]), Some(ip("198.51.100.7")));
        let none = client_ip(
            Some(ip("10.1.1.1")),
            &headers("x-forwarded-for", &["192.0.2.1"]),
            &[],
            ForwardedHeader::XForwardedFor,
        );
        assert_eq!(none, Some(ip("10.1.1.1")));
        assert_eq!(
            client_ip(
                None,
                &HeaderMap::new(),
                &proxies(),
                ForwardedHeader::XForwardedFor
            ),
            None
        );
    }

    #[test]
    fn rightmost_untrusted_address_behind_trusted_proxies() {
        assert_eq!(xff("10.0.0.1", &["192.0.2.1"]), Some(ip("192.0.2.1")));
        // The client prepended a forged address; the proxy appended the real one.
        assert_eq!(
            xff("10.0.0.1", &["203.0.113.9, 192.0.2.1"]),
            Some(ip("192.0.2.1"))
        );
        assert_eq!(
            xff("10.0.0.1", &["203.0.113.9", "192.0.2.1, 10.0.0.2"]),
            Some(ip("192.0.2.1"))
        );
        assert_eq!(xff("10.0.0.1", &["192.0.2.1:4711"]), Some(ip("192.0.2.1")));
        assert_eq!(
            xff("10.0.0.1", &["[2001:db8::5]:80"]),
            Some(ip("2001:db8::5"))
        );
        assert_eq!(xff("10.0.0.1", &["2001:db8::5"]), Some(ip("2001:db8::5")));
        assert_eq!(
            xff("::ffff:10.0.0.1", &["192.0.2.1"]),
            Some(ip("192.0.2.1"))
        );
    }

    #[test]
    fn chains_of_proxies_and_garbage() {
        assert_eq!(
            xff("10.0.0.1", &["10.0.0.3, 10.0.0.2"]),
            Some(ip("10.0.0.3"))
        );
        assert_eq!(xff("10.0.0.1", &[]), Some(ip("10.0.0.1")));
        assert_eq!(
            xff("10.0.0.1", &["192.0.2.1, unknown, 10.0.0.2"]),
            Some(ip("10.0.0.2"))
        );
        assert_eq!(
            xff("10.0.0.1", &["192.0.2.1, garbage"]),
            Some(ip("10.0.0.1"))
        );
    }

    #[test]
    fn forwarded_header() {
        let f = |values: &[&str]| {
            client_ip(
                Some(ip("fd00::1")),
                &headers("forwarded", values),
                &proxies(),
                ForwardedHeader::Forwarded,
            )
        };
        assert_eq!(
            f(&["for=192.0.2.60;proto=http;by=203.0.113.43"]),
            Some(ip("192.0.2.60"))
        );
        assert_eq!(
            f(&["for=198.51.100.1, For=\"[2001:db8:cafe::17]:4711\""]),
            Some(ip("2001:db8:cafe::17"))
        );
        assert_eq!(
            f(&["proto=https;for=10.2.2.2, for=10.0.0.9"]),
            Some(ip("10.2.2.2"))
        );
        assert_eq!(f(&["for=_hidden"]), Some(ip("fd00::1")));
        // The X-Forwarded-For header is ignored when Forwarded is the configured one.
        let mut h = headers("forwarded", &["for=192.0.2.60"]);
        h.append("x-forwarded-for", "203.0.113.1".parse().unwrap());
        assert_eq!(
            client_ip(
                Some(ip("fd00::1")),
                &h,
                &proxies(),
                ForwardedHeader::Forwarded
            ),
            Some(ip("192.0.2.60"))
        );
    }
}
