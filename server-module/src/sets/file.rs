//! `[[sets]]` of the configuration file ([`SetEntry`]), resolved into named sets with errors that
//! name the file, line and key.

use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::{NamedSet, SetError};
use crate::ConfigError;

/// One `[[sets]]` entry of the configuration file.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SetEntry {
    /// The setSpec.
    pub spec: Spanned<String>,
    /// The setName.
    pub name: Spanned<String>,
    /// The setDescription.
    pub description: Option<Spanned<String>>,
    /// Glob patterns of the paths it holds.
    #[serde(default)]
    pub include: Vec<Spanned<String>>,
    /// Glob patterns of paths it leaves out.
    #[serde(default)]
    pub exclude: Vec<Spanned<String>>,
    /// MIME types it keeps (`type/subtype`, `type/*`); absent: every type.
    #[serde(default)]
    pub mime: Vec<Spanned<String>>,
}

/// The named sets of `entries`, read from `text`, the file at `path`; the first error names the
/// file, the line and the key.
pub(crate) fn resolve_entries(
    entries: &[Spanned<SetEntry>],
    path: &Path,
    text: &str,
) -> Result<Vec<NamedSet>, ConfigError> {
    let at = |span: std::ops::Range<usize>, key: &'static str| {
        let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
        move |error: SetError| ConfigError::Set {
            path: path.to_owned(),
            line,
            key,
            error,
        }
    };
    let mut sets = Vec::with_capacity(entries.len());
    for entry in entries {
        let e = entry.get_ref();
        let mut s = NamedSet::new(e.spec.get_ref(), e.name.get_ref()).map_err(|err| match err {
            SetError::Name(_) => at(e.name.span(), "name")(err),
            _ => at(e.spec.span(), "spec")(err),
        })?;
        if let Some(d) = &e.description {
            s = s.description(d.get_ref().clone());
        }
        if e.include.is_empty() {
            return Err(at(entry.span(), "include")(SetError::NoInclude(
                e.spec.get_ref().clone(),
            )));
        }
        for p in &e.include {
            s = s.include(p.get_ref()).map_err(at(p.span(), "include"))?;
        }
        for p in &e.exclude {
            s = s.exclude(p.get_ref()).map_err(at(p.span(), "exclude"))?;
        }
        for m in &e.mime {
            s = s.mime(m.get_ref()).map_err(at(m.span(), "mime"))?;
        }
        sets.push(s);
    }
    // Checks across entries (a spec twice, a missing parent) point at the entry concerned.
    let whole = super::Definitions::new(super::FolderSets::All, sets.clone());
    if let Err(err) = whole {
        let spec = match &err {
            SetError::Duplicate(s) | SetError::Parent { spec: s, .. } => s.clone(),
            _ => String::new(),
        };
        let span = entries
            .iter()
            .rev()
            .find(|e| *e.get_ref().spec.get_ref() == spec)
            .map_or(0..0, |e| e.get_ref().spec.span());
        return Err(at(span, "spec")(err));
    }
    Ok(sets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct File {
        sets: Vec<Spanned<SetEntry>>,
    }

    fn resolve(text: &str) -> Result<Vec<NamedSet>, ConfigError> {
        let f: File = toml::from_str(text).unwrap();
        resolve_entries(&f.sets, Path::new("/etc/modoai.toml"), text)
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let ok = "[[sets]]\nspec = \"reports\"\nname = \"Reports\"\ninclude = [\"reports/**\"]\n";
        assert_eq!(resolve(ok).unwrap()[0].spec(), "reports");
        let cases = [
            (
                "[[sets]]\nspec = \"reports\"\nname = \"R\"\ninclude = [\"ok\", \"[x\"]\n",
                "/etc/modoai.toml:4: include of [[sets]]: the pattern \"[x\" does not parse",
            ),
            (
                "[[sets]]\nspec = \"mime:x\"\nname = \"R\"\ninclude = [\"**\"]\n",
                "/etc/modoai.toml:2: spec of [[sets]]: \"mime:x\" lies in the sets modoai makes itself",
            ),
            (
                "[[sets]]\nspec = \"r\"\nname = \"R\"\ninclude = [\"**\"]\nmime = [\"pdf\"]\n",
                "/etc/modoai.toml:5: mime of [[sets]]: \"pdf\" is not a MIME type pattern",
            ),
            (
                &format!("{ok}{ok}"),
                "/etc/modoai.toml:6: spec of [[sets]]: \"reports\" is defined twice",
            ),
            (
                "[[sets]]\nspec = \"a:b\"\nname = \"R\"\ninclude = [\"**\"]\n",
                "/etc/modoai.toml:2: spec of [[sets]]: \"a:b\" lies below \"a\"",
            ),
            (
                "[[sets]]\nspec = \"a\"\nname = \"R\"\n",
                "/etc/modoai.toml:1: include of [[sets]]: the set \"a\" includes nothing",
            ),
        ];
        for (text, expected) in cases {
            let err = resolve(text).unwrap_err().to_string();
            assert!(err.starts_with(expected), "{err}\nexpected {expected}");
        }
    }
}
