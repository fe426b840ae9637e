//! The title of a text that has none of its own (plain text, PDF): the first line among its
//! first lines that reads as a title.
//!
//! The rule: of the first [`LOOKED_AT`] non-empty lines, a line underlined with `===` or `---`
//! (a Setext heading) or starting with `#` (a Markdown heading) comes first; else the first line
//! that has at least [`MIN_LETTERS`] letters, is no longer than [`MAX_CHARS`], and is not a
//! `Field: value` header (`Format: https://…`), a URL, or a rule of punctuation. A text without
//! such a line has no title (its page shows the URL).

/// Non-empty lines looked at.
const LOOKED_AT: usize = 12;
/// Letters a title has at least ("M" is no title).
const MIN_LETTERS: usize = 3;
/// Characters a title has at most (a paragraph is no title).
const MAX_CHARS: usize = 120;

/// The title of `text` by the rule of the module docs; empty when no line fits.
pub fn title_of(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(LOOKED_AT)
        .collect();
    let heading = lines.iter().enumerate().find_map(|(i, l)| {
        let underlined = lines.get(i + 1).is_some_and(|u| is_underline(u));
        let marked = l
            .strip_prefix('#')
            .map(|h| h.trim_start_matches('#').trim());
        match marked {
            Some(h) => Some(h),
            None => underlined.then_some(*l),
        }
    });
    heading
        .filter(|l| reads_as_title(l))
        .or_else(|| lines.into_iter().find(|l| reads_as_title(l)))
        .unwrap_or_default()
        .to_owned()
}

fn reads_as_title(line: &str) -> bool {
    let letters = line.chars().filter(|c| c.is_alphabetic()).count();
    letters >= MIN_LETTERS
        && line.chars().count() <= MAX_CHARS
        && !is_header(line)
        && !line.contains("://")
}

/// `Key: value` with a key of one word, as in RFC 822 headers and Debian's control files.
fn is_header(line: &str) -> bool {
    line.split_once(':').is_some_and(|(key, _)| {
        !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    })
}

fn is_underline(line: &str) -> bool {
    line.len() >= 3 && (line.bytes().all(|b| b == b'=') || line.bytes().all(|b| b == b'-'))
}

#[cfg(test)]
mod tests {
    use super::title_of;

    #[test]
    fn a_title_is_a_line_that_reads_as_one() {
        assert_eq!(title_of("\n  \n Title here \nrest"), "Title here");
        assert_eq!(title_of("M\n\nThe modoai notes\nmore"), "The modoai notes");
        assert_eq!(
            title_of("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: ucf\n\nFiles: *\nCopyright: 2002 Manoj\nLicense: GPL-2\n\n This program is free software."),
            "This program is free software."
        );
        assert_eq!(
            title_of("Intro text first\n\nModoai Guide\n============\n"),
            "Modoai Guide"
        );
        assert_eq!(title_of("# Release notes\ntext"), "Release notes");
        assert_eq!(title_of("============\nhttps://example.org/\n42\n"), "");
        assert_eq!(
            title_of("modoai (1.2) unstable; urgency=medium\n\n  * Fixes."),
            "modoai (1.2) unstable; urgency=medium"
        );
        assert_eq!(title_of(&"word ".repeat(40)), "", "a paragraph is no title");
    }
}
