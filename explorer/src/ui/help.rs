//! The search page's short help: the forms a query may take (`docs/explorer.md`, "Queries").

use maud::{html, Markup};

/// The forms of a query, each with an example and what it finds.
const FORMS: [(&str, &str); 9] = [
    ("report", "captures with the word, in any form (reports, reporting) and with or without accents (zurich finds Zürich)"),
    ("annual report", "both words (AND is implied)"),
    ("\"annual report\"", "the phrase, words in this order"),
    ("report OR summary", "either word"),
    ("report -draft", "report, without draft (also report AND NOT draft, report NOT draft)"),
    ("+report draft", "report required, draft optional (ranks higher)"),
    ("lic*", "words that start with lic (two letters at least)"),
    ("title:report", "the word in one field: title, text or path (lang:eng, puid:fmt/43 and the other facets by exact value)"),
    ("(report OR summary) -draft", "parentheses group"),
];

/// A `<details>` listing [`FORMS`], closed until opened.
pub(super) fn help() -> Markup {
    html! {
        details.help {
            summary { "How to search" }
            dl {
                @for (example, finds) in FORMS {
                    dt { code { (example) } }
                    dd { (finds) }
                }
            }
            p { "Put other punctuation inside quotes. A query that cannot be read is answered with what to change." }
        }
    }
}
