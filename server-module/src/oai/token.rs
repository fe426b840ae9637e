//! Stateless resumption tokens (§3.5): a signed position in the stable `(datestamp, path)` order.
//!
//! A token carries the whole selection (verb, prefix, from, until, set), the key of the last item
//! sent, the cursor, the list size seen on the first page and its issue time. It is signed with
//! HMAC-SHA256, so a forged or garbled token is detected; it needs no server-side state, so it
//! survives restarts (with a configured secret) and paging deep into a list costs what the first
//! page costs. Tokens use only `[A-Za-z0-9._-]`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use hmac::{Hmac, Mac};
use modoai_protocol::{Datestamp, Verb};
use sha2::Sha256;

const VERSION: u8 = 1;
const MAC_LEN: usize = 16;

/// The state a resumption token carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) verb: Verb,
    pub(crate) prefix: String,
    pub(crate) from: Option<Datestamp>,
    pub(crate) until: Option<Datestamp>,
    pub(crate) set: Option<String>,
    /// The key of the last item sent: a datestamp and a path (for ListSets, the last setSpec).
    pub(crate) last: (Datestamp, String),
    /// How many items were sent before the page this token asks for.
    pub(crate) cursor: u64,
    /// completeListSize, as counted for the first page.
    pub(crate) size: u64,
    pub(crate) issued: Datestamp,
}

/// Why a token was refused; all of them are `badResumptionToken` to the client.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TokenError {
    #[error("the resumption token is malformed")]
    Malformed,
    #[error("the resumption token was not issued by this repository")]
    Forged,
    #[error("the resumption token has expired")]
    Expired,
    #[error("the resumption token belongs to another verb")]
    WrongVerb,
}

/// Signs and checks tokens with one secret.
#[derive(Clone)]
pub(crate) struct TokenCodec {
    key: Vec<u8>,
    ttl_secs: i64,
}

impl std::fmt::Debug for TokenCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCodec")
            .field("ttl_secs", &self.ttl_secs)
            .finish_non_exhaustive()
    }
}

impl TokenCodec {
    pub(crate) fn new(key: Vec<u8>, ttl_secs: i64) -> Self {
        TokenCodec { key, ttl_secs }
    }

    /// When a token issued at `issued` expires.
    pub(crate) fn expires(&self, issued: Datestamp) -> Datestamp {
        issued.plus(self.ttl_secs)
    }

    pub(crate) fn encode(&self, t: &Token) -> String {
        let mut p = Vec::with_capacity(64 + t.prefix.len() + t.last.1.len());
        p.push(VERSION);
        p.push(verb_code(t.verb));
        put_str(&mut p, &t.prefix);
        put_opt_i64(&mut p, t.from.map(Datestamp::unix));
        put_opt_i64(&mut p, t.until.map(Datestamp::unix));
        put_str(&mut p, t.set.as_deref().unwrap_or(""));
        p.extend_from_slice(&t.last.0.unix().to_be_bytes());
        put_str(&mut p, &t.last.1);
        p.extend_from_slice(&t.cursor.to_be_bytes());
        p.extend_from_slice(&t.size.to_be_bytes());
        p.extend_from_slice(&t.issued.unix().to_be_bytes());
        self.seal(&p)
    }

    /// The text of a token: the payload and its MAC, each in unpadded URL-safe Base64.
    pub(crate) fn seal(&self, payload: &[u8]) -> String {
        format!("{}.{}", B64.encode(payload), B64.encode(self.mac(payload)))
    }

    /// Checks and decodes a token sent with `verb` at time `now`.
    pub(crate) fn decode(&self, s: &str, verb: Verb, now: Datestamp) -> Result<Token, TokenError> {
        let (payload, mac) = s.split_once('.').ok_or(TokenError::Malformed)?;
        let payload = B64.decode(payload).map_err(|_| TokenError::Malformed)?;
        let mac = B64.decode(mac).map_err(|_| TokenError::Malformed)?;
        let mut check =
            Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes keys of any length");
        check.update(&payload);
        check
            .verify_truncated_left(&mac)
            .map_err(|_| TokenError::Forged)?;
        if mac.len() != MAC_LEN {
            return Err(TokenError::Forged);
        }
        let token = parse(&payload).ok_or(TokenError::Malformed)?;
        if token.verb != verb {
            return Err(TokenError::WrongVerb);
        }
        if self.expires(token.issued) < now {
            return Err(TokenError::Expired);
        }
        Ok(token)
    }

    fn mac(&self, payload: &[u8]) -> Vec<u8> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes keys of any length");
        mac.update(payload);
        mac.finalize().into_bytes()[..MAC_LEN].to_vec()
    }
}

fn verb_code(v: Verb) -> u8 {
    Verb::ALL.iter().position(|x| *x == v).unwrap_or(0) as u8
}

fn put_str(p: &mut Vec<u8>, s: &str) {
    p.extend_from_slice(&(s.len() as u32).to_be_bytes());
    p.extend_from_slice(s.as_bytes());
}

fn put_opt_i64(p: &mut Vec<u8>, v: Option<i64>) {
    match v {
        Some(v) => {
            p.push(1);
            p.extend_from_slice(&v.to_be_bytes());
        }
        None => p.push(0),
    }
}

/// A cursor over the payload bytes.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_at_checked(N)?;
        self.0 = rest;
        head.try_into().ok()
    }
    fn i64(&mut self) -> Option<i64> {
        self.take::<8>().map(i64::from_be_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take::<8>().map(u64::from_be_bytes)
    }
    fn string(&mut self) -> Option<String> {
        let len = u32::from_be_bytes(self.take::<4>()?) as usize;
        let (s, rest) = self.0.split_at_checked(len)?;
        self.0 = rest;
        String::from_utf8(s.to_vec()).ok()
    }
    fn opt_i64(&mut self) -> Option<Option<i64>> {
        match self.take::<1>()?[0] {
            0 => Some(None),
            1 => self.i64().map(Some),
            _ => None,
        }
    }
}

fn parse(payload: &[u8]) -> Option<Token> {
    let mut r = Reader(payload);
    let [version, verb] = r.take::<2>()?;
    if version != VERSION {
        return None;
    }
    let verb = *Verb::ALL.get(verb as usize)?;
    let prefix = r.string()?;
    let from = r.opt_i64()?.map(Datestamp::from_unix);
    let until = r.opt_i64()?.map(Datestamp::from_unix);
    let set = Some(r.string()?).filter(|s| !s.is_empty());
    let last = (Datestamp::from_unix(r.i64()?), r.string()?);
    let (cursor, size, issued) = (r.u64()?, r.u64()?, Datestamp::from_unix(r.i64()?));
    r.0.is_empty().then_some(Token {
        verb,
        prefix,
        from,
        until,
        set,
        last,
        cursor,
        size,
        issued,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Token {
        Token {
            verb: Verb::ListRecords,
            prefix: "oai_didl".into(),
            from: Some(Datestamp::from_unix(10)),
            until: None,
            set: Some("mime:image".into()),
            last: (Datestamp::from_unix(1_700_000_000), "a%20b/c.jpg".into()),
            cursor: 200,
            size: 733,
            issued: Datestamp::from_unix(1_700_000_100),
        }
    }

    #[test]
    fn round_trip_and_alphabet() {
        let codec = TokenCodec::new(b"secret".to_vec(), 3600);
        let s = codec.encode(&sample());
        assert!(
            s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)),
            "{s}"
        );
        let now = Datestamp::from_unix(1_700_000_200);
        assert_eq!(codec.decode(&s, Verb::ListRecords, now), Ok(sample()));
    }

    #[test]
    fn refusals() {
        let codec = TokenCodec::new(b"secret".to_vec(), 3600);
        let s = codec.encode(&sample());
        let now = Datestamp::from_unix(1_700_000_200);
        assert_eq!(
            codec.decode("junk", Verb::ListRecords, now),
            Err(TokenError::Malformed)
        );
        assert_eq!(
            codec.decode(&s, Verb::ListIdentifiers, now),
            Err(TokenError::WrongVerb)
        );
        let late = Datestamp::from_unix(1_700_000_100 + 3601);
        assert_eq!(
            codec.decode(&s, Verb::ListRecords, late),
            Err(TokenError::Expired)
        );
        let other = TokenCodec::new(b"other".to_vec(), 3600);
        assert_eq!(
            other.decode(&s, Verb::ListRecords, now),
            Err(TokenError::Forged)
        );
        let mut tampered = s.clone().into_bytes();
        tampered[3] = if tampered[3] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert!(codec.decode(&tampered, Verb::ListRecords, now).is_err());
        let (payload, _) = s.split_once('.').unwrap();
        assert_eq!(
            codec.decode(&format!("{payload}.AAAA"), Verb::ListRecords, now),
            Err(TokenError::Forged)
        );
    }
}
