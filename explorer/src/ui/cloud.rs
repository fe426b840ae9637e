//! The word cloud of a result set (PrEV's): the most frequent words of the matching captures
//! (`/api/v1/terms` with the same query and filters, so at any level of the calendar), sized by
//! frequency and laid out here as SVG; every word is a link that searches it within the results.
//!
//! The layout is deterministic: the same words give the same picture. Sizes go with frequency,
//! scaled down together when the words would crowd the picture. Words are placed in order,
//! most frequent first, each at the first point of an Archimedean spiral from the centre where
//! its box (estimated from its characters: CJK characters one em wide, Latin ones narrower)
//! overlaps no word placed before and stays inside the picture; a word that finds no such point
//! is tried smaller, down to the smallest size, and left out only then.

use maud::{html, Markup};

use super::format::plural;
use super::query::Query;
use crate::search::{Terms, Word};

/// The picture's size, in SVG units.
pub(super) const WIDTH: f64 = 440.0;
/// See [`WIDTH`].
pub(super) const HEIGHT: f64 = 260.0;
/// Font sizes of the least and the most frequent word.
const SMALLEST: f64 = 12.0;
const LARGEST: f64 = 42.0;
/// The share of the picture the words' boxes cover at most.
const FILL: f64 = 0.4;
/// The factor a word that finds no room is shrunk by before it is tried again.
const SHRINK: f64 = 0.8;
/// Space kept around each word.
const PAD: f64 = 2.0;
/// Points of the spiral tried per word, and the angle between two.
const STEPS: usize = 4000;
const TURN: f64 = 0.1;
/// Colours by rank.
const PALETTE: [&str; 6] = [
    "#24364b", "#3b6ea8", "#c44e52", "#5a7d2a", "#8a5a9e", "#b26b1e",
];

/// A word placed in the cloud: its centre, box and font size.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Placed {
    /// The word.
    pub(super) term: String,
    /// Captures it is frequent in.
    pub(super) count: u64,
    /// Font size.
    pub(super) size: f64,
    /// Centre.
    pub(super) x: f64,
    /// Centre.
    pub(super) y: f64,
    /// Box width.
    pub(super) width: f64,
    /// Box height.
    pub(super) height: f64,
}

impl Placed {
    fn overlaps(&self, other: &Placed) -> bool {
        (self.x - other.x).abs() * 2.0 < self.width + other.width + 2.0 * PAD
            && (self.y - other.y).abs() * 2.0 < self.height + other.height + 2.0 * PAD
    }

    fn inside(&self, width: f64, height: f64) -> bool {
        self.x - self.width / 2.0 >= 0.0
            && self.x + self.width / 2.0 <= width
            && self.y - self.height / 2.0 >= 0.0
            && self.y + self.height / 2.0 <= height
    }
}

/// The width of `c` in ems, as a sans-serif font draws it, rounded up.
fn em(c: char) -> f64 {
    match c {
        '\u{1100}'..='\u{115F}'
        | '\u{2E80}'..='\u{A4CF}'
        | '\u{AC00}'..='\u{D7A3}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{FE30}'..='\u{FE4F}'
        | '\u{FF00}'..='\u{FF60}'
        | '\u{FFE0}'..='\u{FFE6}'
        | '\u{20000}'..='\u{3FFFD}' => 1.05,
        'i' | 'j' | 'l' | 'I' | '.' | ',' | '\'' => 0.32,
        'f' | 't' | 'r' => 0.42,
        'm' | 'w' | 'M' | 'W' => 0.92,
        c if c.is_uppercase() => 0.72,
        _ => 0.6,
    }
}

/// Lays `words` (most frequent first) out in a `width` × `height` picture.
pub(super) fn layout(words: &[Word], width: f64, height: f64) -> Vec<Placed> {
    let sized = sizes(words, width, height);
    let mut placed: Vec<Placed> = Vec::new();
    for (w, ems, mut size) in sized {
        // A word that finds no room is tried smaller, down to the smallest size.
        let smallest = SMALLEST.min(size);
        loop {
            if let Some(p) = place(w, ems * size, size, (width, height), &placed) {
                placed.push(p);
                break;
            }
            if size <= smallest {
                break;
            }
            size = (size * SHRINK).max(smallest);
        }
    }
    placed
}

/// Each word with its width in ems and its font size: by frequency from [`SMALLEST`] to
/// [`LARGEST`], all scaled down together when their boxes would cover more than [`FILL`] of the
/// picture, and a word too long for the picture's width drawn smaller.
fn sizes(words: &[Word], width: f64, height: f64) -> Vec<(&Word, f64, f64)> {
    let most = words.iter().map(|w| w.count).max().unwrap_or(1) as f64;
    let least = words.iter().map(|w| w.count).min().unwrap_or(1) as f64;
    let nominal: Vec<(&Word, f64, f64)> = words
        .iter()
        .map(|w| {
            let weight = if most > least {
                ((w.count as f64 - least) / (most - least)).sqrt()
            } else {
                0.5
            };
            let ems: f64 = w.term.chars().map(em).sum();
            (w, ems, SMALLEST + (LARGEST - SMALLEST) * weight)
        })
        .collect();
    let area: f64 = nominal.iter().map(|(_, ems, s)| ems * s * s * 1.2).sum();
    let scale = (FILL * width * height / area.max(1.0)).sqrt().min(1.0);
    nominal
        .into_iter()
        .map(|(w, ems, s)| {
            let size = (s * scale).min((width - 2.0 * PAD) / ems.max(1.0));
            (w, ems, size.max(1.0))
        })
        .collect()
}

/// `w` drawn at `size` (`wide` units wide) at the first point of the spiral where it stays
/// inside the picture and overlaps none of `placed`.
fn place(
    w: &Word,
    wide: f64,
    size: f64,
    (width, height): (f64, f64),
    placed: &[Placed],
) -> Option<Placed> {
    let mut word = Placed {
        term: w.term.clone(),
        count: w.count,
        size,
        x: width / 2.0,
        y: height / 2.0,
        width: wide,
        height: size * 1.2,
    };
    for step in 0..STEPS {
        let t = step as f64 * TURN;
        // The spiral is stretched to the picture's shape.
        word.x = width / 2.0 + t * t.cos() * (width / height);
        word.y = height / 2.0 + t * t.sin();
        if word.inside(width, height) && !placed.iter().any(|p| p.overlaps(&word)) {
            return Some(word);
        }
    }
    None
}

/// The words' search: the page's query with the word added (and its filters kept).
fn search(query: &Query, term: &str) -> String {
    let word = if term.chars().all(char::is_alphanumeric) {
        term.to_owned()
    } else {
        format!("\"{}\"", term.replace('"', ""))
    };
    let q = query.q().trim();
    let already = q.split_whitespace().any(|w| w == word);
    let words = match (q.is_empty(), already) {
        (true, _) => word,
        (false, true) => q.to_owned(),
        (false, false) => format!("{q} {word}"),
    };
    query.set("q", &words).href()
}

/// The cloud of a result set.
pub(super) fn cloud(query: &Query, terms: &Terms) -> Markup {
    let placed = layout(&terms.terms, WIDTH, HEIGHT);
    html! {
        section.cloud {
            h2 { "Words" }
            @if placed.is_empty() {
                p.none { "No words to show." }
            } @else {
                svg.cloud viewBox={ "0 0 " (WIDTH) " " (HEIGHT) } role="img"
                    aria-label="The most frequent words of the results" {
                    @for (rank, p) in placed.iter().enumerate() {
                        a href=(search(query, &p.term)) {
                            title { (p.term) ": frequent in " (plural(p.count, "capture", "captures")) }
                            text x=(format!("{:.1}", p.x)) y=(format!("{:.1}", p.y)) font-size=(format!("{:.1}", p.size))
                                fill=(PALETTE[rank % PALETTE.len()]) text-anchor="middle" dominant-baseline="central" {
                                (p.term)
                            }
                        }
                    }
                }
                p.note { "From the " (plural(terms.sampled, "best match", "best matches")) "; a word searches within these results." }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: u64) -> Vec<Word> {
        let mut w: Vec<Word> = (0..n)
            .map(|i| Word {
                term: format!("word{i}"),
                count: 100 - i,
            })
            .collect();
        w.push(Word {
            term: "首都".into(),
            count: 1,
        });
        w
    }

    #[test]
    fn the_layout_is_the_same_every_time_inside_the_picture_and_without_overlaps() {
        let a = layout(&words(40), WIDTH, HEIGHT);
        assert_eq!(a, layout(&words(40), WIDTH, HEIGHT), "deterministic");
        assert!(a.len() >= 30, "most words fit: {}", a.len());
        for (i, p) in a.iter().enumerate() {
            assert!(p.inside(WIDTH, HEIGHT), "{p:?}");
            for q in &a[i + 1..] {
                assert!(!p.overlaps(q), "{p:?} and {q:?}");
            }
        }
        assert_eq!(a[0].term, "word0");
        assert_eq!(
            (a[0].x, a[0].y),
            (WIDTH / 2.0, HEIGHT / 2.0),
            "the first in the middle"
        );
        assert!(a[0].size > a[a.len() - 1].size, "frequent words are larger");
    }

    #[test]
    fn a_word_searches_within_the_results() {
        let q = Query::parse(Some("q=maps&year=2024".into())).unwrap();
        assert_eq!(search(&q, "old"), "/search?year=2024&q=maps+old");
        assert_eq!(search(&q, "maps"), "/search?year=2024&q=maps");
        assert_eq!(
            search(&Query::default(), "北京"),
            "/search?q=%E5%8C%97%E4%BA%AC"
        );
    }
}
