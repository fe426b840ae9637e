//! The body of the `token` fuzz target (`fuzz/fuzz_targets/token.rs`), public so that the fuzz
//! crate and this crate's regression test run the same code. Not part of the API.
//!
//! The first byte of an input picks one of three modes (its value modulo 3, so the seeds can be
//! text: `0…`, `1…`, `2…`):
//!
//! - `0`: the rest is a `resumptionToken` as a client sends it, decoded for every verb with the
//!   key [`KEY`]. A token is never accepted for two verbs, one that decodes encodes back to the
//!   same text (one text per state), and refusals other than the verb's and expiry's do not
//!   depend on the verb. Random bytes cannot forge the MAC; the seeds are real tokens.
//! - `1`: the rest is a payload, signed with [`KEY`] and decoded, which reaches the payload parser
//!   behind the MAC. A signed payload is never `Forged`, and one that parses encodes back to the
//!   same token.
//! - `2`: the rest describes a token's fields; encoded, the token uses only `[A-Za-z0-9._-]`,
//!   decodes to itself for its verb until it expires and not after, is `WrongVerb` for every other
//!   verb, `Forged` under another key, and refused after any change of one character.

use modoai_protocol::{Datestamp, Verb};

use crate::oai::token::{Token, TokenCodec, TokenError};

/// The secret of the seed tokens in `fuzz/corpus/token/`: the server issued them with
/// `token-secret = "modoai fuzzing key"`.
pub const KEY: &[u8] = b"modoai fuzzing key";

/// The time the `0` and `1` modes decode at, 2027-01-15T08:00:00Z.
pub const NOW: i64 = 1_800_000_000;

/// The lifetime of tokens in the `0` and `1` modes, 20 years, so the seeds stay valid at [`NOW`].
pub const TTL: i64 = 20 * 365 * 86_400;

/// Inputs longer than this are ignored: tokens are short, and decoding is linear.
pub const MAX_INPUT: usize = 16 * 1024;

/// Runs the `token` target on one input; panics when an invariant does not hold.
pub fn token(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first().filter(|_| data.len() <= MAX_INPUT) else {
        return;
    };
    match mode % 3 {
        0 => as_sent(rest),
        1 => signed(rest),
        _ => structured(rest),
    }
}

fn codec() -> TokenCodec {
    TokenCodec::new(KEY.to_vec(), TTL)
}

/// Mode `0`: a token as a client sends it.
fn as_sent(rest: &[u8]) {
    // Arguments reach the decoder as UTF-8 (modoai_protocol::form refuses anything else).
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    check_decodes(&codec(), text, false);
}

/// Mode `1`: a payload signed with the key, so the parser behind the MAC sees arbitrary bytes.
fn signed(payload: &[u8]) {
    let codec = codec();
    check_decodes(&codec, &codec.seal(payload), true);
}

/// Decodes `text` for every verb; `signed` says that it carries a valid MAC.
fn check_decodes(codec: &TokenCodec, text: &str, signed: bool) {
    let now = Datestamp::from_unix(NOW);
    let results: Vec<_> = Verb::ALL
        .iter()
        .map(|&verb| (verb, codec.decode(text, verb, now)))
        .collect();
    let accepted: Vec<&Token> = results
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok())
        .collect();
    assert!(accepted.len() <= 1, "one token, several verbs: {text}");
    for (verb, result) in &results {
        match result {
            Ok(token) => {
                assert_eq!(token.verb, *verb);
                assert_eq!(codec.encode(token), text, "one text per token state");
            }
            Err(TokenError::Forged) => assert!(!signed, "a signed payload was called forged"),
            Err(TokenError::Malformed) => {
                let others = results.iter().map(|(_, r)| r);
                assert!(others.clone().all(|r| r == &Err(TokenError::Malformed)));
            }
            Err(TokenError::WrongVerb | TokenError::Expired) => {}
        }
    }
    if accepted.is_empty() {
        return;
    }
    let other = TokenCodec::new(b"another key".to_vec(), TTL);
    assert!(Verb::ALL
        .iter()
        .all(|&v| other.decode(text, v, now).is_err()));
}

/// Mode `2`: a token built from the input's bytes, round-tripped.
fn structured(rest: &[u8]) {
    let mut input = Fields(rest);
    let ttl = (input.u64() % (1 << 40)) as i64;
    let token = input.token();
    let codec = TokenCodec::new(KEY.to_vec(), ttl);
    let text = codec.encode(&token);
    assert!(
        text.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)),
        "{text}"
    );
    let expires = codec.expires(token.issued);
    for now in [token.issued, expires] {
        assert_eq!(codec.decode(&text, token.verb, now).as_ref(), Ok(&token));
    }
    if expires.unix() < i64::MAX {
        let late = expires.plus(1);
        assert_eq!(
            codec.decode(&text, token.verb, late),
            Err(TokenError::Expired)
        );
    }
    for verb in Verb::ALL.into_iter().filter(|v| *v != token.verb) {
        let result = codec.decode(&text, verb, token.issued);
        assert_eq!(result, Err(TokenError::WrongVerb));
    }
    let other = TokenCodec::new(b"another key".to_vec(), ttl);
    let result = other.decode(&text, token.verb, token.issued);
    assert_eq!(result, Err(TokenError::Forged));
    let tampered = tamper(&text, input.u64());
    assert!(
        codec.decode(&tampered, token.verb, token.issued).is_err(),
        "{tampered}"
    );
}

/// `text` with the character at `at` (modulo its length) replaced by another of the alphabet.
fn tamper(text: &str, at: u64) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let i = (at % bytes.len() as u64) as usize;
    bytes[i] = match bytes[i] {
        b'A' => b'B',
        b'.' => b'-',
        _ => b'A',
    };
    String::from_utf8(bytes).expect("ASCII stays ASCII")
}

/// Reads token fields from fuzz input; past its end every field is zero or empty.
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    fn u8(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        *first
    }

    fn u64(&mut self) -> u64 {
        (0..8).fold(0, |n, _| n << 8 | u64::from(self.u8()))
    }

    fn i64(&mut self) -> i64 {
        self.u64() as i64
    }

    fn string(&mut self) -> String {
        let len = usize::from(self.u8()).min(self.0.len());
        let (s, rest) = self.0.split_at(len);
        self.0 = rest;
        String::from_utf8_lossy(s).into_owned()
    }

    fn datestamp(&mut self) -> Option<Datestamp> {
        let present = self.u8() % 2 == 1;
        let secs = self.i64();
        present.then_some(Datestamp::from_unix(secs))
    }

    fn token(&mut self) -> Token {
        Token {
            verb: Verb::ALL[usize::from(self.u8()) % Verb::ALL.len()],
            prefix: self.string(),
            from: self.datestamp(),
            until: self.datestamp(),
            // The server never issues `Some("")`: a `set` argument is never empty.
            set: Some(self.string()).filter(|s| !s.is_empty()),
            last: (Datestamp::from_unix(self.i64()), self.string()),
            cursor: self.u64(),
            size: self.u64(),
            issued: Datestamp::from_unix(self.i64()),
        }
    }
}

#[cfg(test)]
mod tests {
    use modoai_protocol::fuzzing::inputs;
    use modoai_protocol::Datestamp;

    use super::{codec, NOW};

    /// Every seed and every input that once failed (`fuzz/regressions/token/`) goes through the
    /// target, so a fixed crash stays fixed in the ordinary test run.
    #[test]
    fn corpus_and_regressions() {
        let all = [inputs("corpus/token"), inputs("regressions/token")].concat();
        assert!(!all.is_empty(), "no token seeds");
        all.iter().for_each(|(_, input)| super::token(input));
    }

    /// The `issued_*` seeds are tokens the server issued with the fuzzing key (mode `0`), still
    /// valid at `NOW`, each for exactly one verb.
    #[test]
    fn issued_seeds_are_accepted() {
        let now = Datestamp::from_unix(NOW);
        let tokens: Vec<String> = inputs("corpus/token")
            .into_iter()
            .filter(|(name, _)| name.starts_with("issued_"))
            .map(|(_, seed)| String::from_utf8(seed[1..].to_vec()).unwrap())
            .collect();
        assert!(tokens.len() >= 3, "{} issued tokens", tokens.len());
        for token in tokens {
            let accepted = modoai_protocol::Verb::ALL
                .iter()
                .filter(|&&verb| codec().decode(&token, verb, now).is_ok())
                .count();
            assert_eq!(accepted, 1, "{token}");
        }
    }
}
