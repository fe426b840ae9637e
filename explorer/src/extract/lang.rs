//! The language of a text (whatlang: trigram models built in, 70 languages).

/// Characters looked at: whatlang's cost grows with the sample (about 120 µs for 2,000
/// characters), and 600 tell a language as well.
const SAMPLE: usize = 600;

/// The ISO 639-3 code of the language of `text` (`eng`, `cmn`, `jpn`, …) when whatlang is
/// confident enough of it; `None` for a text too short or too mixed to tell.
pub fn language(text: &str) -> Option<String> {
    let end = text
        .char_indices()
        .nth(SAMPLE)
        .map_or(text.len(), |(i, _)| i);
    let info = whatlang::detect(&text[..end])?;
    let letters = text[..end].chars().filter(|c| c.is_alphabetic()).count();
    // whatlang's own "reliable" rejects a clear English sentence of 60 letters (confidence
    // 0.31); a quarter of its confidence scale on 20 letters or more tells the language of
    // such sentences and still leaves out words and names.
    let sure = info.is_reliable() || (info.confidence() >= 0.25 && letters >= 20);
    sure.then(|| info.lang().code().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages() {
        assert_eq!(
            language("The quick brown fox jumps over the lazy dog near the river bank today.")
                .as_deref(),
            Some("eng")
        );
        assert_eq!(
            language("北京是中华人民共和国的首都，也是政治和文化中心。").as_deref(),
            Some("cmn")
        );
        assert_eq!(
            language("東京は日本の首都です。多くの人が住んでいます。").as_deref(),
            Some("jpn")
        );
        assert_eq!(language(""), None);
        assert_eq!(language("IMG 2024"), None);
    }
}
