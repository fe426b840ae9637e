//! The text analysis of the index: words of any script, English stemming, and Chinese and
//! Japanese segmented into words by jieba's dictionary (the built-in tokenizers keep a run of
//! Han characters as one token, and drop runs longer than 13 characters, so Chinese words would
//! not be searchable).

use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenStream, SimpleTokenizer, Stemmer,
    StopWordFilter, TextAnalyzer, Token, TokenFilter, TokenStream, Tokenizer,
};
use tantivy_jieba::{JiebaTokenStream, JiebaTokenizer};

/// The name the text fields' analyzer is registered under.
pub const TEXT_ANALYZER: &str = "modoai_text";

/// Bytes of a token at most (longer tokens are dropped, as tantivy's default analyzer does).
const MAX_TOKEN: usize = 40;

/// Words (jieba's segmentation for text with Chinese or Japanese, tantivy's simple tokenizer
/// otherwise), lower case, English stems: what the title, text and path fields use.
pub fn text_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(Mixed::default())
        .filter(WordsOnly)
        .filter(RemoveLongFilter::limit(MAX_TOKEN))
        .filter(LowerCaser)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// The same without stemming and without English stop words: the words of the word cloud.
pub fn keyword_analyzer() -> TextAnalyzer {
    let stop = StopWordFilter::new(Language::English).expect("tantivy ships English stop words");
    TextAnalyzer::builder(Mixed::default())
        .filter(WordsOnly)
        .filter(RemoveLongFilter::limit(MAX_TOKEN))
        .filter(LowerCaser)
        .filter(stop)
        .build()
}

/// jieba for a text with Chinese or Japanese characters (it segments them into words, by its
/// dictionary); tantivy's simple tokenizer (runs of letters and digits) for any other text,
/// several times faster on English. Positions are token numbers in both.
#[derive(Clone)]
pub struct Mixed {
    simple: SimpleTokenizer,
    jieba: JiebaTokenizer,
}

impl Default for Mixed {
    fn default() -> Self {
        Mixed {
            simple: SimpleTokenizer::default(),
            jieba: JiebaTokenizer::with_ordinal_position_mode(true),
        }
    }
}

impl std::fmt::Debug for Mixed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Mixed")
    }
}

/// Whether `c` is written in Han, Hiragana, Katakana or Hangul.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0xAC00..=0xD7AF | 0x20000..=0x2FA1F | 0x31F0..=0x31FF | 0xFF66..=0xFF9F)
}

/// The token stream of [`Mixed`].
pub enum MixedStream<'a> {
    /// tantivy's simple tokenizer.
    Simple(SimpleTokenStream<'a>),
    /// jieba.
    Jieba(JiebaTokenStream<'a>),
}

impl Tokenizer for Mixed {
    type TokenStream<'a> = MixedStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> MixedStream<'a> {
        if text.chars().any(is_cjk) {
            MixedStream::Jieba(self.jieba.token_stream(text))
        } else {
            MixedStream::Simple(self.simple.token_stream(text))
        }
    }
}

impl TokenStream for MixedStream<'_> {
    fn advance(&mut self) -> bool {
        match self {
            MixedStream::Simple(s) => s.advance(),
            MixedStream::Jieba(s) => s.advance(),
        }
    }

    fn token(&self) -> &Token {
        match self {
            MixedStream::Simple(s) => s.token(),
            MixedStream::Jieba(s) => s.token(),
        }
    }

    fn token_mut(&mut self) -> &mut Token {
        match self {
            MixedStream::Simple(s) => s.token_mut(),
            MixedStream::Jieba(s) => s.token_mut(),
        }
    }
}

/// Drops tokens without a letter or digit of any script: jieba emits white space and
/// punctuation as tokens. (tantivy's `AlphaNumOnlyFilter` keeps ASCII only, which would drop
/// every Chinese and Japanese word.)
#[derive(Clone, Copy, Debug)]
pub struct WordsOnly;

impl TokenFilter for WordsOnly {
    type Tokenizer<T: Tokenizer> = WordsOnlyTokenizer<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> WordsOnlyTokenizer<T> {
        WordsOnlyTokenizer(tokenizer)
    }
}

/// A tokenizer whose tokens pass [`WordsOnly`].
#[derive(Clone, Debug)]
pub struct WordsOnlyTokenizer<T>(T);

impl<T: Tokenizer> Tokenizer for WordsOnlyTokenizer<T> {
    type TokenStream<'a> = WordsOnlyStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        WordsOnlyStream(self.0.token_stream(text))
    }
}

/// The token stream of [`WordsOnlyTokenizer`].
#[derive(Debug)]
pub struct WordsOnlyStream<S>(S);

impl<S: TokenStream> TokenStream for WordsOnlyStream<S> {
    fn advance(&mut self) -> bool {
        while self.0.advance() {
            if self.0.token().text.chars().any(char::is_alphanumeric) {
                return true;
            }
        }
        false
    }

    fn token(&self) -> &Token {
        self.0.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.0.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(mut a: TextAnalyzer, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut s = a.token_stream(text);
        while let Some(t) = s.next() {
            out.push(t.text.clone());
        }
        out
    }

    #[test]
    fn english_is_stemmed_and_chinese_segmented() {
        assert_eq!(
            tokens(text_analyzer(), "The running foxes!"),
            ["the", "run", "fox"]
        );
        let zh = tokens(text_analyzer(), "北京是中华人民共和国的首都。");
        assert!(
            zh.contains(&"北京".to_owned()) && zh.contains(&"首都".to_owned()),
            "{zh:?}"
        );
        assert!(!zh.iter().any(|t| t == "。"), "{zh:?}");
        let ja = tokens(text_analyzer(), "東京は日本の首都です");
        assert!(ja.contains(&"首都".to_owned()), "{ja:?}");
        assert_eq!(
            tokens(keyword_analyzer(), "The running foxes"),
            ["running", "foxes"]
        );
    }
}
