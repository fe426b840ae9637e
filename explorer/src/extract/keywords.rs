//! The most frequent words of a text: the material of the word cloud (`/api/v1/terms`), kept per
//! capture at index time because the index has no term vectors to ask later.

use std::collections::HashMap;

use crate::index::keyword_analyzer;

/// Words kept per capture.
pub const KEYWORDS: usize = 16;

/// The [`KEYWORDS`] most frequent words of `text` (lower case, English stop words and numbers
/// left out, Chinese and Japanese words segmented), most frequent first, ties alphabetically.
pub fn keywords(text: &str) -> Vec<String> {
    let mut analyzer = keyword_analyzer();
    let mut counts: HashMap<String, u32> = HashMap::new();
    let mut stream = analyzer.token_stream(text);
    while let Some(token) = stream.next() {
        let word = &token.text;
        let chars = word.chars().count();
        let cjk = !word.is_ascii();
        if (chars >= 3 || (cjk && chars >= 2)) && !word.chars().all(|c| c.is_ascii_digit()) {
            *counts.entry(word.clone()).or_default() += 1;
        }
    }
    let mut words: Vec<(String, u32)> = counts.into_iter().collect();
    words.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    words.into_iter().take(KEYWORDS).map(|(w, _)| w).collect()
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
}
