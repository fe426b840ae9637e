//! The text analysis of the index: words of any script ([`Scripts`]), then either English stems
//! (the title, text and path fields) or accent-folded words whatever the language (the `words`
//! field), so a word is found whether or not its language was told or is English.

use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, Stemmer, StopWordFilter, TextAnalyzer, Token,
    TokenFilter, TokenStream, Tokenizer,
};

use super::fold::Fold;
use super::segment::Scripts;

/// The name the stemmed text fields' analyzer is registered under.
pub const TEXT_ANALYZER: &str = "modoai_text";

/// The name the language-independent field's analyzer is registered under.
pub const WORDS_ANALYZER: &str = "modoai_words";

/// Bytes of a token at most (longer tokens are dropped, as tantivy's default analyzer does).
const MAX_TOKEN: usize = 40;

/// Words, lower case, English stems: what the title, text and path fields use.
pub fn text_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(Scripts::default())
        .filter(WordsOnly)
        .filter(RemoveLongFilter::limit(MAX_TOKEN))
        .filter(LowerCaser)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// Words, lower case, accents folded: what the `words` field uses.
pub fn words_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(Scripts::default())
        .filter(WordsOnly)
        .filter(RemoveLongFilter::limit(MAX_TOKEN))
        .filter(LowerCaser)
        .filter(Fold)
        .build()
}

/// Words, lower case, without English stop words: the words of the word cloud.
pub fn keyword_analyzer() -> TextAnalyzer {
    let stop = StopWordFilter::new(Language::English).expect("tantivy ships English stop words");
    TextAnalyzer::builder(Scripts::default())
        .filter(WordsOnly)
        .filter(RemoveLongFilter::limit(MAX_TOKEN))
        .filter(LowerCaser)
        .filter(stop)
        .build()
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
