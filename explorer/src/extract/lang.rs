//! The language of a text (whatlang: trigram models built in, 70 languages), told from its prose
//! only: names, addresses, numbers and `Field:` labels (a licence's header, a changelog's
//! signatures) are what made short English texts look Catalan or French.

/// Characters of prose looked at: whatlang's cost grows with the sample (about 120 µs for 2,000
/// characters), and 2,000 tell a language well.
const SAMPLE: usize = 2000;

/// Letters of prose a text needs for its language to be told: fewer are words or names.
const MIN_LETTERS: usize = 40;

/// Words of prose a text needs: a list of names or file extensions is no language.
const MIN_WORDS: usize = 8;

/// whatlang's confidence (0 to 1) a language needs, unless whatlang calls it reliable. Its own
/// "reliable" rejects a clear English sentence of 60 letters (confidence 0.31); below 0.25 the
/// guesses between related languages (Catalan and Spanish, Danish and Norwegian) are coin tosses.
const MIN_CONFIDENCE: f64 = 0.25;

/// The ISO 639-3 code of the language of `text` (`eng`, `cmn`, `jpn`, …) when whatlang is
/// confident enough of it; `None` for a text too short or too mixed to tell.
pub fn language(text: &str) -> Option<String> {
    let sample = prose(text);
    let letters: usize = sample.chars().map(letter_weight).sum();
    // Chinese and Japanese are written without spaces: a sentence is one "word".
    let cjk = sample.chars().any(|c| letter_weight(c) == 2);
    if letters < MIN_LETTERS || sample.split_whitespace().count() < MIN_WORDS && !cjk {
        return None;
    }
    let info = whatlang::detect(&sample)?;
    let sure = info.is_reliable() || info.confidence() >= MIN_CONFIDENCE;
    sure.then(|| info.lang().code().to_owned())
}

/// What a character counts towards [`MIN_LETTERS`]: 2 for a Han or kana character, which says
/// about as much as two letters of an alphabet; 1 for another letter; 0 for anything else.
fn letter_weight(c: char) -> usize {
    match c as u32 {
        0x3041..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => 2,
        _ => usize::from(c.is_alphabetic()),
    }
}

/// The words of `text` that are prose, up to [`SAMPLE`] characters: not capitalised (names,
/// labels, the first word of a sentence), without digits, and not part of an address, a path, a
/// URL, a file name or markup.
fn prose(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        let word = word.trim_matches(|c: char| c.is_ascii_punctuation());
        let is_prose = !word.is_empty()
            && !word.starts_with(char::is_uppercase)
            && !word
                .chars()
                .any(|c| c.is_ascii_digit() || "@/:.<>=_\\|*#{}[]".contains(c));
        if is_prose {
            out.push_str(word);
            out.push(' ');
            if out.len() >= SAMPLE {
                break;
            }
        }
    }
    out
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

    /// The first 1,500 bytes of ten Debian `copyright` files (see `SOURCES.md` beside them):
    /// English licence texts whose headers of names, addresses and `Field:` labels whatlang
    /// read as Catalan or French.
    const COPYRIGHTS: [&str; 10] = [
        "libexpat1",
        "libmms0",
        "libplexus-component-annotations-java",
        "libseccomp2",
        "libthai0",
        "libzen0v5",
        "net-tools",
        "python3-lazr.restfulclient",
        "sensible-utils",
        "ucf",
    ];

    #[test]
    fn short_english_licences_are_english_or_untold_never_catalan_or_french() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/copyright");
        let mut english = 0;
        for name in COPYRIGHTS {
            let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
            let lang = language(&text);
            assert!(
                matches!(lang.as_deref(), None | Some("eng")),
                "{name}: {lang:?}"
            );
            english += usize::from(lang.is_some());
        }
        assert!(english >= 8, "most are told English: {english}");
    }

    #[test]
    fn a_text_in_another_language_is_still_told() {
        assert_eq!(
            language(
                "Le renard brun saute par-dessus le chien paresseux, puis il rentre chez lui."
            )
            .as_deref(),
            Some("fra")
        );
        assert_eq!(
            language("Быстрая коричневая лиса прыгает через ленивую собаку и убегает в лес.")
                .as_deref(),
            Some("rus")
        );
    }
}
