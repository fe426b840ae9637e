//! Words of any script: Unicode word boundaries (UAX #29) for scripts written with spaces, jieba's
//! dictionary for runs of Han characters (Chinese words, Japanese kanji), and overlapping pairs of
//! characters for runs of kana, as Lucene's CJK analyzer indexes them. jieba knows no Japanese
//! kana, and a Japanese segmenter with an embedded dictionary would weigh tens of megabytes (see
//! the root `Cargo.toml`); pairs find every word of two kana or more, at the cost of a few
//! matches across word boundaries.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use tantivy_jieba::JiebaTokenizer;
use unicode_segmentation::{UnicodeSegmentation, UnicodeWordIndices};

/// The tokenizer: see the module docs. Positions are token numbers.
#[derive(Clone)]
pub struct Scripts {
    jieba: JiebaTokenizer,
}

impl Default for Scripts {
    fn default() -> Self {
        Scripts {
            jieba: JiebaTokenizer::with_ordinal_position_mode(true),
        }
    }
}

impl std::fmt::Debug for Scripts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scripts")
    }
}

/// How a run of characters is cut into words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Run {
    /// Han ideographs: jieba.
    Han,
    /// Hiragana: pairs.
    Hiragana,
    /// Katakana: pairs.
    Katakana,
    /// Anything else: Unicode word boundaries.
    Other,
}

impl Run {
    fn of(c: char) -> Run {
        match c as u32 {
            0x3005 | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F => {
                Run::Han
            }
            0x3041..=0x309F => Run::Hiragana,
            0x30A1..=0x30FA | 0x30FC..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Run::Katakana,
            _ => Run::Other,
        }
    }
}

/// Whether `c` is written in Han, Hiragana or Katakana: a token of such characters is not
/// accent-folded.
pub(super) fn is_cjk(c: char) -> bool {
    Run::of(c) != Run::Other
}

impl Tokenizer for Scripts {
    type TokenStream<'a> = ScriptsStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> ScriptsStream<'a> {
        if text.chars().any(is_cjk) {
            ScriptsStream::Collected(collect(&mut self.jieba, text).into_iter(), Token::default())
        } else {
            ScriptsStream::Words(text.unicode_word_indices(), Token::default())
        }
    }
}

/// The token stream of [`Scripts`].
pub enum ScriptsStream<'a> {
    /// A text without Han or kana, cut as it is read.
    Words(UnicodeWordIndices<'a>, Token),
    /// The tokens of a text with Han or kana, cut run by run beforehand.
    Collected(std::vec::IntoIter<Token>, Token),
}

impl TokenStream for ScriptsStream<'_> {
    fn advance(&mut self) -> bool {
        match self {
            ScriptsStream::Words(words, token) => match words.next() {
                Some((at, word)) => {
                    token.text.clear();
                    token.text.push_str(word);
                    token.offset_from = at;
                    token.offset_to = at + word.len();
                    token.position = token.position.wrapping_add(1);
                    true
                }
                None => false,
            },
            ScriptsStream::Collected(tokens, token) => match tokens.next() {
                Some(t) => {
                    *token = t;
                    true
                }
                None => false,
            },
        }
    }

    fn token(&self) -> &Token {
        match self {
            ScriptsStream::Words(_, t) | ScriptsStream::Collected(_, t) => t,
        }
    }

    fn token_mut(&mut self) -> &mut Token {
        match self {
            ScriptsStream::Words(_, t) | ScriptsStream::Collected(_, t) => t,
        }
    }
}

/// The tokens of `text`, run by run, numbered in order.
fn collect(jieba: &mut JiebaTokenizer, text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut push = |from: usize, word: &str| {
        out.push(Token {
            offset_from: from,
            offset_to: from + word.len(),
            position: out.len(),
            text: word.to_owned(),
            position_length: 1,
        });
    };
    for (start, run, slice) in runs(text) {
        match run {
            Run::Other => {
                for (at, word) in slice.unicode_word_indices() {
                    push(start + at, word);
                }
            }
            Run::Han => {
                let mut s = jieba.token_stream(slice);
                while let Some(t) = s.next() {
                    push(start + t.offset_from, &t.text);
                }
            }
            Run::Hiragana | Run::Katakana => {
                for (at, pair) in pairs(slice) {
                    push(start + at, pair);
                }
            }
        }
    }
    out
}

/// `text` cut where the kind of run changes: start, kind and slice of each run.
fn runs(text: &str) -> Vec<(usize, Run, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut kind = None;
    for (i, c) in text.char_indices() {
        let run = Run::of(c);
        if kind.is_some_and(|k| k != run) {
            out.push((start, kind.unwrap_or(run), &text[start..i]));
            start = i;
        }
        kind = Some(run);
    }
    if let Some(k) = kind {
        out.push((start, k, &text[start..]));
    }
    out
}

/// Overlapping pairs of characters of `run` (the one character of a run of one).
fn pairs(run: &str) -> Vec<(usize, &str)> {
    let at: Vec<usize> = run
        .char_indices()
        .map(|(i, _)| i)
        .chain([run.len()])
        .collect();
    if at.len() <= 3 {
        return vec![(0, run)];
    }
    at.windows(3).map(|w| (w[0], &run[w[0]..w[2]])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut t = Scripts::default();
        let mut s = t.token_stream(text);
        let mut out = Vec::new();
        let mut position = 0;
        while let Some(tok) = s.next() {
            assert_eq!(tok.position, position, "{text}");
            assert_eq!(&text[tok.offset_from..tok.offset_to], tok.text, "{text}");
            position += 1;
            out.push(tok.text.clone());
        }
        out
    }

    #[test]
    fn latin_words_keep_their_accents_whole() {
        assert_eq!(words("café, Zürich"), ["café", "Zürich"]);
        // A decomposed accent (e + U+0301) stays inside its word.
        assert_eq!(words("cafe\u{301} au lait"), ["cafe\u{301}", "au", "lait"]);
        assert_eq!(words("café, Zürich, 東京"), ["café", "Zürich", "東京"]);
    }

    #[test]
    fn kana_are_cut_in_pairs_and_han_by_jieba() {
        assert_eq!(words("ひらがな"), ["ひら", "らが", "がな"]);
        assert_eq!(words("カタカナ"), ["カタ", "タカ", "カナ"]);
        assert_eq!(words("東京は日本"), ["東京", "は", "日本"]);
        assert_eq!(
            words("コーヒーを飲む"),
            ["コー", "ーヒ", "ヒー", "を", "飲", "む"]
        );
    }
}
