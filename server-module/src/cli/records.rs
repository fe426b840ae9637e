//! `modoai records`: the dry run before publishing. Which files of the root are records (with the
//! type and sets the server gives them and, with plugins, the tools that analyse them) and which
//! paths are not, and why: the same walk and rules as the server's index.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use crate::cli::{CliError, RecordsArgs};
use crate::index::url_path;
use crate::index::{survey, Candidate, Skip};
use crate::protocol::setspec::mime_set_specs;
use crate::sets::Definitions;
use crate::{Config, FileConfig, OwnFiles, Plugins};

/// One line of `modoai records --json` (JSON Lines, one object per path).
#[derive(Debug, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct RecordLine {
    /// The path relative to the root; a folder ends with `/`.
    pub path: String,
    /// Whether it is a record.
    pub record: bool,
    /// A record's MIME type, as the server sends it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime: Option<String>,
    /// A record's MIME sets.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sets: Vec<String>,
    /// A record's folder set and named sets, each with why it is in it: `folder`, or `include`
    /// and the pattern that matched.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub site_sets: std::collections::BTreeMap<String, String>,
    /// A record's size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// With plugins: the ids of the plugins that analyse the record for `oai_crate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugins: Option<Vec<String>>,
    /// Why a path is not a record: `hidden`, `not-regular`, `link-outside`, `own`,
    /// `unreadable`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// What the reason means for this path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Lists every path of the root, sorted by name: as text (default) or JSON Lines (`--json`),
/// then a count on standard error.
pub async fn records(args: RecordsArgs) -> Result<(), CliError> {
    let file = match &args.config {
        Some(path) => FileConfig::load(path)?,
        None => FileConfig::default(),
    };
    let root = super::serve::root_of(args.root.as_ref(), &file)?;
    let mut config =
        Config::new(&root, "http://localhost/")?.named_sets(file.named_sets().to_vec())?;
    if let Some(folders) = file.oai.folder_sets {
        config = config.folder_sets(folders);
    }
    if let Some(path) = &args.config {
        config = config.config_file(path);
    }
    if let Some(path) = &file.log.access_file {
        config = config.access_log_file(path);
    }
    if let Some(path) = args.plugins.as_ref().or(file.server.plugins.as_ref()) {
        config = config.plugins(Plugins::load(path).await?);
    }
    let own = config.own_files();
    let plugins = config.plugins.clone();
    let sets = config.sets.current();
    let json = args.json;
    let counts =
        tokio::task::spawn_blocking(move || list(&root, &own, plugins.as_ref(), &sets, json))
            .await
            .map_err(|e| CliError::runtime("listing the root")(std::io::Error::other(e)))?
            .map_err(CliError::runtime("writing the list"))?;
    eprintln!("{}", counts.summary());
    Ok(())
}

/// Walks `root` and prints a line per path.
fn list(
    root: &Path,
    own: &OwnFiles,
    plugins: Option<&Plugins>,
    sets: &Definitions,
    json: bool,
) -> std::io::Result<Counts> {
    let canonical = std::fs::canonicalize(root)?;
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let mut counts = Counts::default();
    let mut result = Ok(());
    survey(&canonical, &canonical, own, Path::new(""), |rel, found| {
        let mut line = describe(&canonical, rel, found, plugins);
        add_sets(&mut line, sets);
        counts.add(&line);
        result = if json {
            serde_json::to_writer(&mut out, &line)
                .map_err(std::io::Error::other)
                .and_then(|()| out.write_all(b"\n"))
        } else {
            writeln!(out, "{}", text(&line))
        };
        result.is_ok()
    });
    result?;
    out.flush()?;
    Ok(counts)
}

/// The line of one path.
fn describe(
    root: &Path,
    rel: &Path,
    found: Result<Candidate, Skip>,
    plugins: Option<&Plugins>,
) -> RecordLine {
    let mut path = rel.to_string_lossy().into_owned();
    let is_dir = std::fs::symlink_metadata(root.join(rel)).is_ok_and(|m| m.is_dir());
    if is_dir {
        path.push('/');
    }
    let mut line = RecordLine {
        path,
        record: false,
        mime: None,
        sets: Vec::new(),
        site_sets: Default::default(),
        size: None,
        plugins: None,
        reason: None,
        detail: None,
    };
    match found {
        Ok(c) => {
            let mime = crate::mime::detect(&root.join(&c.rel));
            line.record = true;
            line.sets = mime_set_specs(&mime).to_vec();
            line.plugins = plugins.map(|p| p.running_for(&mime, c.stamp.size));
            line.size = Some(c.stamp.size);
            line.mime = Some(mime);
        }
        Err(skip) => {
            let (reason, detail) = reason(&skip, root, rel);
            line.reason = Some(reason);
            line.detail = Some(detail);
        }
    }
    line
}

/// A record's folder and named sets, and why it is in each.
fn add_sets(line: &mut RecordLine, sets: &Definitions) {
    let Some(mime) = line.mime.as_deref().filter(|_| line.record) else {
        return;
    };
    let rel = Path::new(&line.path);
    let path = url_path::encode(rel);
    let m = sets.membership(&path, mime);
    for (i, spec) in m.specs(&path).into_iter().enumerate() {
        let why = match sets.find(&spec) {
            Some(set) if i > 0 || m.folder.is_none() => match set.reason(rel) {
                Some(p) => format!("include {p:?}"),
                None => "include".to_owned(),
            },
            _ => "folder".to_owned(),
        };
        line.site_sets.insert(spec, why);
    }
}

/// The reason's key and its explanation.
fn reason(skip: &Skip, root: &Path, rel: &Path) -> (&'static str, String) {
    match skip {
        Skip::Hidden => (
            "hidden",
            "its name or a folder's above it starts with a dot".to_owned(),
        ),
        Skip::NotRegular => (
            "not-regular",
            "not a regular file (a FIFO, device or socket)".to_owned(),
        ),
        Skip::LinkOutside => {
            let target = std::fs::read_link(root.join(rel)).unwrap_or_default();
            let target = target.display();
            (
                "link-outside",
                format!("a symlink to {target}, which is missing, hidden or outside the root"),
            )
        }
        Skip::Own(kind) => ("own", format!("the server's {kind}: never published")),
        Skip::Unreadable(error) => ("unreadable", error.clone()),
    }
}

/// The text form: `record  TYPE  PATH  [plugins: …]` or `skip  REASON  PATH  (detail)`.
fn text(line: &RecordLine) -> String {
    if line.record {
        let mime = line.mime.as_deref().unwrap_or_default();
        let mut s = format!("record  {mime:<28} {}", line.path);
        let drawn: Vec<String> = line
            .site_sets
            .iter()
            .map(|(spec, why)| format!("{spec} ({why})"))
            .collect();
        if !drawn.is_empty() {
            s.push_str(&format!("  [sets: {}]", drawn.join(", ")));
        }
        if let Some(p) = &line.plugins {
            let tools = if p.is_empty() {
                "none".to_owned()
            } else {
                p.join(", ")
            };
            s.push_str(&format!("  [plugins: {tools}]"));
        }
        s
    } else {
        let reason = line.reason.unwrap_or_default();
        let detail = line.detail.as_deref().unwrap_or_default();
        format!("skip    {reason:<28} {}  ({detail})", line.path)
    }
}

/// How many paths were records, and how many were skipped for each reason.
#[derive(Default)]
struct Counts {
    records: u64,
    skipped: std::collections::BTreeMap<&'static str, u64>,
}

impl Counts {
    fn add(&mut self, line: &RecordLine) {
        match line.reason {
            None => self.records += 1,
            Some(r) => *self.skipped.entry(r).or_default() += 1,
        }
    }

    fn summary(&self) -> String {
        let skipped: u64 = self.skipped.values().sum();
        let mut s = format!("{} records, {skipped} paths not published", self.records);
        if skipped > 0 {
            let parts: Vec<String> = self
                .skipped
                .iter()
                .map(|(r, n)| format!("{n} {r}"))
                .collect();
            s.push_str(&format!(" ({})", parts.join(", ")));
        }
        s
    }
}
