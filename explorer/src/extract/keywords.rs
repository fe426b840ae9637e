//! The most frequent words of a text: the material of the word cloud (`/api/v1/terms`), kept per
//! capture at index time because the index has no term vectors to ask later.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::HashMap;

use tantivy::tokenizer::TextAnalyzer;

use crate::index::keyword_analyzer;

/// Words kept per capture.
pub const KEYWORDS: usize = 16;

thread_local! {
    /// Each indexing thread's analyzer, made once (its stop word set is built when it is made).
    static ANALYZER: RefCell<TextAnalyzer> = RefCell::new(keyword_analyzer());
}

/// The [`KEYWORDS`] most frequent words of `text` (lower case, English stop words and numbers
/// left out, Chinese and Japanese words segmented), most frequent first, ties alphabetically.
pub fn keywords(text: &str) -> Vec<String> {
    let mut counts: HashMap<String, u32> = HashMap::new();
    ANALYZER.with_borrow_mut(|analyzer| {
        let mut stream = analyzer.token_stream(text);
        while let Some(token) = stream.next() {
            let word = token.text.as_str();
            if !is_keyword(word) {
                continue;
            }
            // A word seen before is counted without a copy of it.
            match counts.get_mut(word) {
                Some(n) => *n += 1,
                None => {
                    counts.insert(word.to_owned(), 1);
                }
            }
        }
    });
    most_frequent(counts.into_iter().collect())
}

/// Whether a word of the analyzer counts: three characters or more (two in Chinese and
/// Japanese), not a number.
fn is_keyword(word: &str) -> bool {
    let chars = word.chars().count();
    let cjk = !word.is_ascii();
    (chars >= 3 || (cjk && chars >= 2)) && !word.chars().all(|c| c.is_ascii_digit())
}

/// The [`KEYWORDS`] first of `words` by count, then alphabetically; only those are sorted.
fn most_frequent(mut words: Vec<(String, u32)>) -> Vec<String> {
    let order = |a: &(String, u32), b: &(String, u32)| -> Ordering {
        b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0))
    };
    if words.len() > KEYWORDS {
        words.select_nth_unstable_by(KEYWORDS - 1, order);
        words.truncate(KEYWORDS);
    }
    words.sort_unstable_by(order);
    words.into_iter().map(|(w, _)| w).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequent_words_first() {
        let k = keywords("The sunset, the sunset over the sea. Sunset and sea and sky 2024.");
        assert_eq!(k[..2], ["sunset", "sea"]);
        assert!(k.contains(&"sky".to_owned()), "{k:?}");
        assert!(
            !k.iter().any(|w| w == "the" || w == "and" || w == "2024"),
            "{k:?}"
        );
        let k = keywords("北京是中华人民共和国的首都。北京很大。");
        assert_eq!(k[0], "北京");
    }

    #[test]
    fn only_the_most_frequent_are_kept_in_order() {
        let text: String = (0..40)
            .map(|i| format!("w{i:02}x ").repeat(1 + i % 5))
            .collect();
        let k = keywords(&text);
        assert_eq!(k.len(), KEYWORDS);
        assert_eq!(k[..3], ["w04x", "w09x", "w14x"]);
        assert!(
            k.iter().all(|w| ["4", "9", "3", "8"].contains(&&w[2..3])),
            "{k:?}"
        );
    }
}
