//! Accent folding: what the language-independent field indexes, so that `zurich`, `Zürich` and
//! `ZÜRICH` find one another in any script (`ё` → `е`, `ά` → `α`, Arabic short vowels dropped).

use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use super::segment::is_cjk;

/// Folds each token: compatibility decomposition (NFKD) without its combining marks. Tokens of
/// Han or kana are only brought to their compatibility form (NFKC: half-width katakana become
/// full width), since dropping marks there would turn が into か.
#[derive(Clone, Copy, Debug)]
pub struct Fold;

impl TokenFilter for Fold {
    type Tokenizer<T: Tokenizer> = FoldTokenizer<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> FoldTokenizer<T> {
        FoldTokenizer(tokenizer)
    }
}

/// A tokenizer whose tokens are [`Fold`]ed.
#[derive(Clone, Debug)]
pub struct FoldTokenizer<T>(T);

impl<T: Tokenizer> Tokenizer for FoldTokenizer<T> {
    type TokenStream<'a> = FoldStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        FoldStream(self.0.token_stream(text))
    }
}

/// The token stream of [`FoldTokenizer`].
#[derive(Debug)]
pub struct FoldStream<S>(S);

impl<S: TokenStream> TokenStream for FoldStream<S> {
    fn advance(&mut self) -> bool {
        if !self.0.advance() {
            return false;
        }
        let token = self.0.token_mut();
        if !token.text.is_ascii() {
            token.text = fold(&token.text);
        }
        true
    }

    fn token(&self) -> &Token {
        self.0.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.0.token_mut()
    }
}

/// `word` folded (see [`Fold`]).
pub fn fold(word: &str) -> String {
    if word.chars().any(is_cjk) {
        word.nfkc().collect()
    } else {
        word.nfkd().filter(|c| !is_combining_mark(*c)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::fold;

    #[test]
    fn accents_go_in_every_script() {
        assert_eq!(fold("zürich"), "zurich");
        assert_eq!(fold("cafe\u{301}"), "cafe");
        assert_eq!(fold("ﬁlm"), "film");
        assert_eq!(fold("ёлка"), "елка");
        assert_eq!(fold("αθήνα"), "αθηνα");
        assert_eq!(fold("كِتَاب"), "كتاب");
        assert_eq!(fold("が"), "が");
        assert_eq!(fold("ｶﾀｶﾅ"), "カタカナ");
    }
}
