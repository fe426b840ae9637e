//! HTML: the `<title>` and the text a reader sees (not scripts, styles or templates).

use scraper::{Html, Node};

/// Elements whose text nobody reads.
const HIDDEN: &[&str] = &["script", "style", "noscript", "template", "head"];

/// The title and the visible text of an HTML page, parsed as browsers do (html5ever).
pub(super) fn title_and_text(html: &str) -> (String, String) {
    let doc = Html::parse_document(html);
    let mut title = String::new();
    let mut text = String::new();
    for node in doc.tree.root().descendants() {
        let Node::Text(t) = node.value() else {
            continue;
        };
        let parent = node
            .parent()
            .and_then(|p| p.value().as_element().map(|e| e.name()));
        if parent == Some("title") && title.is_empty() {
            title = squeeze(t);
            continue;
        }
        let hidden = node.ancestors().any(|a| {
            a.value()
                .as_element()
                .is_some_and(|e| HIDDEN.contains(&e.name()))
        });
        if !hidden && !t.trim().is_empty() {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&squeeze(t));
        }
    }
    (title, text)
}

/// White space runs as one space, trimmed.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_and_visible_text() {
        let (title, text) = title_and_text(
            "<html><head><title> The  Page </title><style>p{}</style><script>var x;</script></head>\
             <body><h1>Hello</h1><p>sunset   over <b>the</b> sea</p><noscript>js</noscript></body></html>",
        );
        assert_eq!(title, "The Page");
        assert_eq!(text, "Hello sunset over the sea");
        let (title, text) = title_and_text("<p>broken <b>markup");
        assert_eq!((title.as_str(), text.as_str()), ("", "broken markup"));
    }
}
