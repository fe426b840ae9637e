//! The `Authorization` request header (RFC 9110 §11.6.2) with the Basic (RFC 7617) and Bearer
//! (RFC 6750 §2.1) schemes, and the `WWW-Authenticate` challenges (RFC 9110 §11.6.1).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderValue};

/// What a request presents. Secrets are never printed (no `Debug` of the password or key).
///
/// ```
/// use http::{header::AUTHORIZATION, HeaderMap, HeaderValue};
/// use modoai_gate::Credentials;
/// let mut headers = HeaderMap::new();
/// headers.insert(AUTHORIZATION, HeaderValue::from_static("BEARER abc.DEF-123"));
/// assert!(matches!(Credentials::from_headers(&headers), Credentials::Bearer(k) if k == "abc.DEF-123"));
/// ```
pub enum Credentials {
    /// No `Authorization` header.
    None,
    /// Basic: a user name and password.
    Basic {
        /// The user name (never empty).
        user: String,
        /// The password (possibly empty).
        password: String,
    },
    /// Bearer: an API key.
    Bearer(String),
    /// An `Authorization` header that is not a well-formed Basic or Bearer one (several headers,
    /// another scheme, bad Base64, no colon, non-UTF-8, an empty token).
    Malformed,
}

impl Credentials {
    /// The credentials of a request's `Authorization` header: the scheme's name in any case
    /// (RFC 9110 §11.1), one or more spaces before its token.
    pub fn from_headers(headers: &HeaderMap) -> Self {
        let mut values = headers.get_all(AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return if headers.contains_key(AUTHORIZATION) {
                Credentials::Malformed
            } else {
                Credentials::None
            };
        };
        value
            .to_str()
            .ok()
            .and_then(parse)
            .unwrap_or(Credentials::Malformed)
    }

    /// A name for logs and rate-limit keys: the user name, never the secret.
    pub fn kind(&self) -> &'static str {
        match self {
            Credentials::None => "none",
            Credentials::Basic { .. } => "basic",
            Credentials::Bearer(_) => "bearer",
            Credentials::Malformed => "malformed",
        }
    }
}

fn parse(value: &str) -> Option<Credentials> {
    let (scheme, rest) = value.trim().split_once(' ')?;
    let rest = rest.trim_start_matches(' ');
    if scheme.eq_ignore_ascii_case("basic") {
        let decoded = STANDARD.decode(rest).ok()?;
        let text = String::from_utf8(decoded).ok()?;
        let (user, password) = text.split_once(':')?;
        (!user.is_empty()).then(|| Credentials::Basic {
            user: user.to_owned(),
            password: password.to_owned(),
        })
    } else if scheme.eq_ignore_ascii_case("bearer") {
        is_token68(rest).then(|| Credentials::Bearer(rest.to_owned()))
    } else {
        None
    }
}

/// RFC 9110 §11.2 `token68`: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn is_token68(s: &str) -> bool {
    let body = s.trim_end_matches('=');
    !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

/// Adds one `WWW-Authenticate` header per scheme the rule accepts.
pub fn challenge(headers: &mut HeaderMap, realm: &str, basic: bool, bearer: bool) {
    let realm = quoted(realm);
    if basic {
        let v = format!("Basic realm={realm}, charset=\"UTF-8\"");
        headers.append(
            WWW_AUTHENTICATE,
            HeaderValue::try_from(v).expect("quoted realm"),
        );
    }
    if bearer {
        let v = format!("Bearer realm={realm}");
        headers.append(
            WWW_AUTHENTICATE,
            HeaderValue::try_from(v).expect("quoted realm"),
        );
    }
}

/// A `quoted-string` (RFC 9110 §5.6.4) of visible ASCII; other characters are dropped, since a
/// header value cannot carry them and a realm is a configured label.
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars().filter(|c| c.is_ascii_graphic() || *c == ' ') {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds(values: &[&[u8]]) -> Credentials {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(AUTHORIZATION, HeaderValue::from_bytes(v).unwrap());
        }
        Credentials::from_headers(&h)
    }

    fn basic(user_pass: &str) -> Vec<u8> {
        format!("Basic {}", STANDARD.encode(user_pass)).into_bytes()
    }

    #[test]
    fn basic_credentials() {
        match creds(&[&basic("alice:pa:ss word")]) {
            Credentials::Basic { user, password } => {
                assert_eq!(user, "alice");
                assert_eq!(password, "pa:ss word");
            }
            other => panic!("{}", other.kind()),
        }
        // Scheme names are case-insensitive (RFC 9110 §11.1); an empty password is a password.
        let lower = format!("basic {}", STANDARD.encode("bob:"));
        assert!(
            matches!(creds(&[lower.as_bytes()]), Credentials::Basic { password, .. } if password.is_empty())
        );
    }

    #[test]
    fn bearer_credentials() {
        assert!(
            matches!(creds(&[b"Bearer abc.DEF-123_~+/=="]), Credentials::Bearer(k) if k == "abc.DEF-123_~+/==")
        );
        assert!(matches!(creds(&[b"bEaReR  key"]), Credentials::Bearer(k) if k == "key"));
        assert!(matches!(creds(&[]), Credentials::None));
    }

    #[test]
    fn malformed_headers() {
        let no_colon = format!("Basic {}", STANDARD.encode("alice"));
        let no_user = format!("Basic {}", STANDARD.encode(":pw"));
        let latin1 = format!("Basic {}", STANDARD.encode([0x61, 0xe9, b':', b'x']));
        let cases: [&[u8]; 10] = [
            b"Basic",
            b"Basic !!!not-base64",
            no_colon.as_bytes(),
            no_user.as_bytes(),
            latin1.as_bytes(),
            b"Bearer",
            b"Bearer a b",
            b"Bearer =",
            b"Digest username=\"a\"",
            b"\xff\xfe",
        ];
        for case in cases {
            assert!(
                matches!(creds(&[case]), Credentials::Malformed),
                "{}",
                String::from_utf8_lossy(case)
            );
        }
        let twice = creds(&[b"Bearer a", b"Bearer b"]);
        assert!(matches!(twice, Credentials::Malformed));
    }

    #[test]
    fn challenges() {
        let mut h = HeaderMap::new();
        challenge(&mut h, "modoai \"x\"\n", true, true);
        let got: Vec<&str> = h
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert_eq!(
            got,
            [
                "Basic realm=\"modoai \\\"x\\\"\", charset=\"UTF-8\"",
                "Bearer realm=\"modoai \\\"x\\\"\""
            ]
        );
        let mut h = HeaderMap::new();
        challenge(&mut h, "r", false, true);
        assert_eq!(h.get_all(WWW_AUTHENTICATE).iter().count(), 1);
    }
}
