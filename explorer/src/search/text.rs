//! The query text people type in `q=`: words, `"phrases"`, `AND`, `OR`, `NOT`, `-word`, `+word`,
//! `field:word`, `prefix*` and parentheses (tantivy's query grammar), made to mean what they
//! read as, and a mistake answered with what to change (`docs/explorer.md`, "Queries").

use tantivy::query::{Query, QueryParser, QueryParserError};
use tantivy::query_grammar::{
    self, Delimiter, Occur, UserInputAst, UserInputLeaf, UserInputLiteral,
};
use tantivy::schema::{Field, Schema};
use tantivy::Index;

use crate::index::fold;

/// Letters a prefix needs before its `*`: one letter would expand to a large part of the
/// vocabulary.
const MIN_PREFIX: usize = 2;

/// A query text that cannot be searched; the message says what to change.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum QueryError {
    /// The text does not follow the grammar.
    #[error("q={q:?} cannot be read: {hint}")]
    Syntax {
        /// The query text.
        q: String,
        /// What to change.
        hint: String,
    },
    /// `name:` names no searchable field.
    #[error("q={q:?}: there is no field {name:?}; search one of {known} (as in title:report), or quote the colon")]
    UnknownField {
        /// The query text.
        q: String,
        /// The field named.
        name: String,
        /// The fields that can be named, comma-separated.
        known: String,
    },
    /// A prefix with too few letters before its `*`.
    #[error("q={q:?}: a prefix needs at least {MIN_PREFIX} letters before the * (as in lic*)")]
    ShortPrefix {
        /// The query text.
        q: String,
    },
    /// A regular expression or another form the explorer does not search.
    #[error("q={q:?}: {what} are not searched; use words, \"phrases\", prefix* or field:word")]
    Unsupported {
        /// The query text.
        q: String,
        /// What was asked for, plural ("regular expressions").
        what: &'static str,
    },
}

/// The words of a query: the fields searched when the text names none, with the title weighed
/// twice, and the fields a prefix expands in.
pub struct QueryText {
    parser: QueryParser,
    schema: Schema,
    defaults: Vec<Field>,
}

impl QueryText {
    /// A query text over `defaults` of `index` (the first is weighed twice).
    pub fn new(index: &Index, defaults: Vec<Field>) -> QueryText {
        let schema = index.schema();
        let mut parser = QueryParser::for_index(index, defaults.clone());
        parser.set_conjunction_by_default();
        parser.set_field_boost(defaults[0], 2.0);
        parser.allow_regexes();
        QueryText {
            parser,
            schema,
            defaults,
        }
    }

    /// The query of `q`.
    pub fn parse(&self, q: &str) -> Result<Box<dyn Query>, QueryError> {
        let ast = query_grammar::parse_query(q).map_err(|_| QueryError::Syntax {
            q: q.to_owned(),
            hint: hint(q),
        })?;
        let ast = self.rewrite(q, ast, true)?;
        self.parser
            .build_query_from_user_input_ast(ast)
            .map_err(|e| self.explain(q, e))
    }

    /// `ast` as people mean it: a clause of only exclusions (`NOT gpl`) inside an `AND` excludes
    /// from its parent, and elsewhere excludes from every capture (tantivy would match nothing);
    /// `word*` expands in the fields searched.
    fn rewrite(&self, q: &str, ast: UserInputAst, top: bool) -> Result<UserInputAst, QueryError> {
        match ast {
            UserInputAst::Clause(clauses) => {
                let mut out = Vec::new();
                for (occur, sub) in clauses {
                    let sub = self.rewrite(q, sub, false)?;
                    let is_must = matches!(occur, None | Some(Occur::Must));
                    match sub {
                        UserInputAst::Clause(inner) if only_exclusions(&inner) && is_must => {
                            out.extend(inner)
                        }
                        UserInputAst::Clause(mut inner) if only_exclusions(&inner) => {
                            inner.push(every_capture());
                            out.push((occur, UserInputAst::Clause(inner)));
                        }
                        sub => out.push((occur, sub)),
                    }
                }
                if top && only_exclusions(&out) {
                    out.push(every_capture());
                }
                Ok(UserInputAst::Clause(out))
            }
            UserInputAst::Boost(sub, by) => Ok(UserInputAst::Boost(
                Box::new(self.rewrite(q, *sub, false)?),
                by,
            )),
            UserInputAst::Leaf(leaf) => self.leaf(q, *leaf),
        }
    }

    fn leaf(&self, q: &str, leaf: UserInputLeaf) -> Result<UserInputAst, QueryError> {
        match leaf {
            UserInputLeaf::Regex { .. } => Err(QueryError::Unsupported {
                q: q.to_owned(),
                what: "regular expressions",
            }),
            UserInputLeaf::Literal(l) if prefix_of(&l).is_some() => {
                let word = fold(&prefix_of(&l).unwrap_or_default().to_lowercase());
                if word.chars().count() < MIN_PREFIX {
                    return Err(QueryError::ShortPrefix { q: q.to_owned() });
                }
                let pattern = format!("{}.*", regex_escape(&word));
                let fields = match l.field_name {
                    Some(name) => vec![name],
                    None => self.default_names(),
                };
                let any = fields
                    .into_iter()
                    .map(|field| {
                        let leaf = UserInputLeaf::Regex {
                            field: Some(field),
                            pattern: pattern.clone(),
                        };
                        (Some(Occur::Should), UserInputAst::Leaf(Box::new(leaf)))
                    })
                    .collect();
                Ok(UserInputAst::Clause(any))
            }
            leaf => Ok(UserInputAst::Leaf(Box::new(leaf))),
        }
    }

    fn default_names(&self) -> Vec<String> {
        let names = self.defaults.iter();
        names
            .map(|f| self.schema.get_field_name(*f).to_owned())
            .collect()
    }

    /// What to change, for an error of tantivy's query parser (its own text is not shown: it
    /// names tokenizers and Rust types).
    fn explain(&self, q: &str, e: QueryParserError) -> QueryError {
        match e {
            QueryParserError::FieldDoesNotExist(name) | QueryParserError::FieldNotIndexed(name) => {
                QueryError::UnknownField {
                    q: q.to_owned(),
                    name,
                    known: self.searchable().join(", "),
                }
            }
            QueryParserError::PhrasePrefixRequiresAtLeastTwoTerms { .. } => {
                QueryError::ShortPrefix { q: q.to_owned() }
            }
            QueryParserError::SyntaxError(_) => QueryError::Syntax {
                q: q.to_owned(),
                hint: hint(q),
            },
            _ => QueryError::Unsupported {
                q: q.to_owned(),
                what: "ranges, numbers and this form of field:value",
            },
        }
    }

    /// The fields a query may name.
    fn searchable(&self) -> Vec<&str> {
        let fields = self.schema.fields();
        let indexed = fields.filter(|(_, e)| e.is_indexed() && e.name() != "id");
        indexed.map(|(_, e)| e.name()).collect()
    }
}

/// The word before the `*` of `word*` (the grammar keeps the star in the word) or of `"word"*`.
fn prefix_of(l: &UserInputLiteral) -> Option<&str> {
    let one_word = |w: &str| !w.is_empty() && !w.contains([' ', '*']);
    let word = match l.delimiter {
        Delimiter::None => l.phrase.strip_suffix('*')?,
        _ if l.prefix => l.phrase.as_str(),
        _ => return None,
    };
    one_word(word).then_some(word)
}

fn every_capture() -> (Option<Occur>, UserInputAst) {
    let all = UserInputAst::Leaf(Box::new(UserInputLeaf::All));
    (Some(Occur::Must), all)
}

fn only_exclusions(clauses: &[(Option<Occur>, UserInputAst)]) -> bool {
    !clauses.is_empty() && clauses.iter().all(|(o, _)| *o == Some(Occur::MustNot))
}

/// What to change in a text the grammar cannot read.
fn hint(q: &str) -> String {
    let quotes = q.matches('"').count();
    let opened = q.matches('(').count();
    let closed = q.matches(')').count();
    let last = q.split_whitespace().last().unwrap_or_default();
    if quotes % 2 == 1 {
        "a quotation mark is not closed: end the phrase with \" or remove the \"".into()
    } else if opened > closed {
        "a parenthesis is not closed: add ) or remove the (".into()
    } else if closed > opened {
        "a parenthesis is closed that was not opened: remove the ) or add a (".into()
    } else if last.ends_with(':') {
        format!("{last} needs a word after it (as in {last}report), or quote the colon")
    } else if ["AND", "OR", "NOT"].contains(&last) {
        format!("{last} needs a word after it (as in license {last} gpl); search the word itself in quotes: \"{last}\"")
    } else {
        "use words, \"phrases\", AND, OR, NOT, -word, +word, field:word and prefix*; put other punctuation inside quotes".into()
    }
}

/// `s` with the characters tantivy's regular expressions give a meaning escaped.
pub(super) fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~\"<>@".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use tantivy::collector::Count;
    use tantivy::{Index, TantivyDocument};

    use super::*;
    use crate::index::{text_analyzer, words_analyzer, Fields, TEXT_ANALYZER, WORDS_ANALYZER};

    /// An index of one document per text (title, then text), searched as the explorer does.
    struct Texts {
        index: Index,
        fields: Fields,
    }

    impl Texts {
        fn new(texts: &[(&str, &str)]) -> Texts {
            let (schema, fields) = Fields::schema();
            let index = Index::create_in_ram(schema);
            index.tokenizers().register(TEXT_ANALYZER, text_analyzer());
            index
                .tokenizers()
                .register(WORDS_ANALYZER, words_analyzer());
            let mut w = index.writer_with_num_threads(1, 15_000_000).unwrap();
            for (i, (title, text)) in texts.iter().enumerate() {
                let mut d = TantivyDocument::new();
                let path = format!("/doc{i}.txt");
                d.add_text(fields.title, title);
                d.add_text(fields.text, text);
                d.add_text(fields.path, &path);
                for words in [*title, *text, &path] {
                    d.add_text(fields.words, words);
                }
                w.add_document(d).unwrap();
            }
            w.commit().unwrap();
            Texts { index, fields }
        }

        fn parse(&self, q: &str) -> Result<Box<dyn Query>, QueryError> {
            let f = &self.fields;
            QueryText::new(&self.index, vec![f.title, f.text, f.path, f.words]).parse(q)
        }

        fn count(&self, q: &str) -> usize {
            let query = self.parse(q).unwrap_or_else(|e| panic!("{q}: {e}"));
            let searcher = self.index.reader().unwrap().searcher();
            searcher.search(&*query, &Count).unwrap()
        }
    }

    #[test]
    fn words_are_found_in_any_script_with_or_without_accents() {
        let t = Texts::new(&[
            ("readme", "café, Zürich, 東京"),
            ("Москва", "Ёлка стоит на Красной площади."),
            ("Αθήνα", "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας."),
            ("القاهرة", "القَاهِرَة هي عاصمة مِصر."),
            ("北京", "北京是中华人民共和国的首都。"),
            (
                "東京",
                "東京は日本の首都です。ひらがなとカタカナ、コーヒーを飲みます。",
            ),
        ]);
        for (q, n) in [
            ("café", 1),
            ("cafe", 1),
            ("CAFÉ", 1),
            ("Zürich", 1),
            ("zurich", 1),
            ("東京", 2),
            ("елка", 1),
            ("ёлка", 1),
            ("площади", 1),
            ("αθηνα", 1),
            ("Αθήνα", 1),
            ("πρωτευουσα", 1),
            ("القاهرة", 1),
            ("مصر", 1),
            ("北京", 1),
            ("首都", 2),
            ("ひらがな", 1),
            ("カタカナ", 1),
            ("コーヒー", 1),
            ("飲みます", 1),
            ("がな", 1),
            ("ロンドン", 0),
        ] {
            assert_eq!(t.count(q), n, "q={q}");
        }
    }

    #[test]
    fn boolean_forms_mean_what_they_read_as() {
        let t = Texts::new(&[
            ("gpl", "license gnu general public license"),
            ("mit", "license permission is hereby granted"),
            ("notes", "licensing notes and a changelog"),
            ("other", "nothing of the kind"),
        ]);
        for (q, n) in [
            // "licensing" has the stem of "license".
            ("license", 3),
            ("license AND NOT gnu", 2),
            ("license -gnu", 2),
            ("license NOT gnu", 2),
            ("NOT gnu", 3),
            ("-gnu", 3),
            ("+license +gnu", 1),
            ("license AND gnu", 1),
            ("gnu OR granted", 2),
            ("gnu OR NOT license", 2),
            ("\"general public\"", 1),
            ("\"public general\"", 0),
            ("title:mit", 1),
            ("text:changelog", 1),
            ("lic*", 3),
            ("LIC*", 3),
            ("text:lic*", 3),
            ("title:lic*", 0),
            ("\"gnu gen\"*", 1),
            ("(gnu OR granted) AND NOT mit", 1),
        ] {
            assert_eq!(t.count(q), n, "q={q}");
        }
    }

    #[test]
    fn a_malformed_query_says_what_to_change() {
        let t = Texts::new(&[("a", "b")]);
        for (q, says) in [
            ("\"gnu general", "quotation mark is not closed"),
            ("(unclosed", "parenthesis is not closed"),
            ("closed)", "not opened"),
            ("title:", "title: needs a word after it"),
            ("license AND", "AND needs a word after it"),
            ("colour:red", "there is no field \"colour\""),
            ("l*", "at least 2 letters"),
            ("title:/lic.*/", "regular expressions are not searched"),
        ] {
            let e = t.parse(q).err().unwrap_or_else(|| panic!("{q} parsed"));
            let msg = e.to_string();
            assert!(msg.contains(says), "{q}: {msg}");
            assert!(msg.starts_with("q="), "{q}: {msg}");
            assert!(!msg.contains("Syntax Error"), "{q}: {msg}");
        }
    }
}
