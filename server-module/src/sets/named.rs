//! [`NamedSet`]: a selection of files named in the configuration: a setSpec, a name, an optional
//! description, and the files it holds by glob patterns over their paths and, optionally, by MIME
//! type.

use std::path::Path;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use modoai_protocol::setspec::{is_reserved, MIME_ROOT, PATH_ROOT};
use modoai_protocol::SetSpec;

/// Why a set definition cannot work.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetError {
    /// Not a setSpec (OAI-PMH §2.7.2 allows `A-Z a-z 0-9 - _ . ! ~ * ' ( )`, parts joined by `:`).
    #[error("{0:?} is not a setSpec: use only A-Z a-z 0-9 - _ . ! ~ * ' ( ), with ':' between the levels of a hierarchy")]
    Spec(String),
    /// The spec lies in the folder or MIME hierarchy modoai makes itself.
    #[error("{0:?} lies in the sets modoai makes itself (`{PATH_ROOT}…` for folders, `{MIME_ROOT}…` for MIME types); choose a spec that starts otherwise")]
    Reserved(String),
    /// Two sets with one spec.
    #[error("{0:?} is defined twice; give each set its own spec")]
    Duplicate(String),
    /// A set below another (`a:b`) whose parent (`a`) is not defined.
    #[error("{spec:?} lies below {parent:?}, which is not defined; add a [[sets]] entry for {parent:?} too")]
    Parent {
        /// The set.
        spec: String,
        /// Its parent's spec.
        parent: String,
    },
    /// A set without a name.
    #[error("the set {0:?} has an empty name; give it the name harvesters will show")]
    Name(String),
    /// A set without an include pattern.
    #[error("the set {0:?} includes nothing; give it include patterns (\"**\" for every file)")]
    NoInclude(String),
    /// A glob pattern that does not parse.
    #[error("the pattern {pattern:?} does not parse: {message}")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// globset's reason.
        message: String,
    },
    /// A MIME pattern that is not `type/subtype` or `type/*`.
    #[error("{0:?} is not a MIME type pattern: write type/subtype or type/* (e.g. \"application/pdf\", \"image/*\")")]
    Mime(String),
}

/// A set of files named in the configuration.
#[derive(Clone, Debug)]
pub struct NamedSet {
    spec: SetSpec,
    name: String,
    description: Option<String>,
    include: Patterns,
    exclude: Patterns,
    mime: Vec<String>,
}

/// Glob patterns, as written and compiled into one matcher.
#[derive(Clone, Debug, Default)]
struct Patterns {
    text: Vec<String>,
    globs: Vec<Glob>,
    set: GlobSet,
}

impl Patterns {
    fn add(&mut self, pattern: &str) -> Result<(), SetError> {
        // `*` stays within a folder and `**` crosses them, as in .gitignore files.
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| SetError::Pattern {
                pattern: pattern.to_owned(),
                message: e.kind().to_string(),
            })?;
        self.globs.push(glob);
        self.text.push(pattern.to_owned());
        let mut b = GlobSetBuilder::new();
        for g in &self.globs {
            b.add(g.clone());
        }
        self.set = b.build().map_err(|e| SetError::Pattern {
            pattern: pattern.to_owned(),
            message: e.kind().to_string(),
        })?;
        Ok(())
    }
}

impl NamedSet {
    /// A set with setSpec `spec` and setName `name`, holding no file until patterns are included.
    pub fn new(spec: &str, name: &str) -> Result<Self, SetError> {
        let parsed = SetSpec::parse(spec).ok_or_else(|| SetError::Spec(spec.to_owned()))?;
        if is_reserved(spec) {
            return Err(SetError::Reserved(spec.to_owned()));
        }
        if name.trim().is_empty() {
            return Err(SetError::Name(spec.to_owned()));
        }
        Ok(NamedSet {
            spec: parsed,
            name: name.to_owned(),
            description: None,
            include: Patterns::default(),
            exclude: Patterns::default(),
            mime: Vec::new(),
        })
    }

    /// The `setDescription` (as `dc:description` in `oai_dc`). Defaults to none.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// Adds files whose path relative to the site root matches `pattern` (a glob: `*` within a
    /// folder, `**` across folders, `?`, `[abc]`, `{a,b}`).
    pub fn include(mut self, pattern: &str) -> Result<Self, SetError> {
        self.include.add(pattern)?;
        Ok(self)
    }

    /// Leaves out files whose path matches `pattern`, even when an include pattern matches.
    pub fn exclude(mut self, pattern: &str) -> Result<Self, SetError> {
        self.exclude.add(pattern)?;
        Ok(self)
    }

    /// Keeps only files of these MIME types: `type/subtype` or `type/*`; several calls add
    /// types. Defaults to every type.
    pub fn mime(mut self, pattern: &str) -> Result<Self, SetError> {
        let lower = pattern.trim().to_ascii_lowercase();
        let valid = lower.split_once('/').is_some_and(|(t, s)| {
            let token =
                |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_graphic() && b != b'/');
            token(t) && t != "*" && (s == "*" || token(s))
        });
        if !valid {
            return Err(SetError::Mime(pattern.to_owned()));
        }
        self.mime.push(lower);
        Ok(self)
    }

    /// The setSpec.
    pub fn spec(&self) -> &str {
        self.spec.as_str()
    }

    /// The setName.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The setDescription, if any.
    pub fn description_text(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// Whether the file at `rel` (relative to the root) of MIME type `mime` is in this set
    /// itself (not counting the sets below it).
    pub fn contains(&self, rel: &Path, mime: &str) -> bool {
        self.include.set.is_match(rel)
            && !self.exclude.set.is_match(rel)
            && (self.mime.is_empty() || self.mime.iter().any(|m| mime_matches(m, mime)))
    }

    /// Why a file of `rel` and `mime` is in the set: the include pattern that matched.
    #[cfg(feature = "cli")]
    pub(crate) fn reason(&self, rel: &Path) -> Option<&str> {
        let first = self.include.set.matches(rel).into_iter().next()?;
        Some(&self.include.text[first])
    }

    /// What decides membership, for the fingerprint of a set of definitions.
    pub(crate) fn criteria(&self) -> String {
        format!(
            "{}\u{0}{}\u{0}{}\u{0}{}",
            self.spec,
            self.include.text.join("\u{1}"),
            self.exclude.text.join("\u{1}"),
            self.mime.join("\u{1}")
        )
    }

    pub(crate) fn has_include(&self) -> bool {
        !self.include.text.is_empty()
    }
}

/// `pattern` (`type/subtype` or `type/*`, lower case) against a MIME essence.
fn mime_matches(pattern: &str, mime: &str) -> bool {
    let mime = mime.split(';').next().unwrap_or("").trim();
    match pattern.strip_suffix("/*") {
        Some(ty) => mime
            .split_once('/')
            .is_some_and(|(t, _)| t.eq_ignore_ascii_case(ty)),
        None => mime.eq_ignore_ascii_case(pattern),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_select_by_path_and_type() {
        let s = NamedSet::new("conf:2019", "The 2019 conference")
            .unwrap()
            .include("conf/2019/**")
            .unwrap()
            .include("*.ics")
            .unwrap()
            .exclude("**/*.tmp")
            .unwrap();
        assert!(s.contains(Path::new("conf/2019/talks/a.pdf"), "application/pdf"));
        assert!(s.contains(Path::new("agenda.ics"), "text/calendar"));
        assert!(
            !s.contains(Path::new("sub/agenda.ics"), "text/calendar"),
            "* stays in its folder"
        );
        assert!(!s.contains(Path::new("conf/2019/x.tmp"), "text/plain"));
        assert!(!s.contains(Path::new("conf/2020/a.pdf"), "application/pdf"));
        #[cfg(feature = "cli")]
        assert_eq!(s.reason(Path::new("agenda.ics")), Some("*.ics"));
        let images = NamedSet::new("pictures", "Pictures")
            .unwrap()
            .include("**")
            .unwrap()
            .mime("image/*")
            .unwrap();
        assert!(images.contains(Path::new("a/b.png"), "image/png"));
        assert!(!images.contains(Path::new("a/b.txt"), "text/plain"));
    }

    #[test]
    fn bad_definitions_say_what_to_do() {
        let err = |r: Result<NamedSet, SetError>| r.unwrap_err().to_string();
        assert!(err(NamedSet::new("a b", "x")).contains("not a setSpec"));
        assert!(err(NamedSet::new("path:docs", "x")).contains("modoai makes itself"));
        assert!(err(NamedSet::new("mime", "x")).contains("modoai makes itself"));
        assert!(err(NamedSet::new("ok", " ")).contains("empty name"));
        let ok = || NamedSet::new("ok", "Ok").unwrap();
        assert!(err(ok().include("[abc")).contains("does not parse"));
        assert!(err(ok().mime("pdf")).contains("not a MIME type pattern"));
        assert!(err(ok().mime("*/*")).contains("not a MIME type pattern"));
    }
}
