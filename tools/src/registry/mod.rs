//! The resolved plugin set: every `[[plugin]]` checked once at start-up, with its MIME patterns
//! parsed, its program found on `PATH` and its placeholders verified. Request handling only ever
//! sees this.

use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::Spanned;

use super::config::{Entry, PluginsError, Source};
use super::isolate::Isolation;
use super::program::find_program;

/// Defaults of `[settings]`.
const DEFAULT_MAX_PROCESSES: usize = 2;
const DEFAULT_TIMEOUT_SECS: u64 = 30;
const DEFAULT_MAX_OUTPUT: usize = 1 << 20;

/// A MIME glob: `*/*`, `TYPE/*` or `TYPE/SUBTYPE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MimePattern {
    Any,
    Type(String),
    Exact(String),
}

impl MimePattern {
    pub(crate) fn parse(s: &str) -> Option<MimePattern> {
        let token = |t: &str| {
            !t.is_empty()
                && t.bytes().all(|b| {
                    b.is_ascii_lowercase() || b.is_ascii_digit() || b"!#$&-^_.+".contains(&b)
                })
        };
        match s.split_once('/')? {
            ("*", "*") => Some(MimePattern::Any),
            (ty, "*") if token(ty) => Some(MimePattern::Type(ty.to_owned())),
            (ty, sub) if token(ty) && token(sub) => Some(MimePattern::Exact(s.to_owned())),
            _ => None,
        }
    }

    pub(crate) fn matches(&self, mime: &str) -> bool {
        match self {
            MimePattern::Any => true,
            MimePattern::Type(t) => mime.split_once('/').is_some_and(|(ty, _)| ty == t),
            MimePattern::Exact(m) => m == mime,
        }
    }
}

impl std::fmt::Display for MimePattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MimePattern::Any => f.write_str("*/*"),
            MimePattern::Type(t) => write!(f, "{t}/*"),
            MimePattern::Exact(m) => f.write_str(m),
        }
    }
}

/// A digest computed in-process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Digest {
    Md5,
    Sha1,
    Sha256,
}

/// How a plugin's tool is run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Builtin(Digest),
    /// One process per file; the argv holds `{path}`.
    Process(Vec<String>),
    /// Sent to the persistent ExifTool worker; `argv[0]` is the program, the rest go per file.
    ExifTool(Vec<String>),
    /// Many files per process, one `<repInfo>` each; the argv holds `{paths}`.
    JhoveBatch(Vec<String>),
    /// Many files per process, CSV lines naming each path; the argv holds `{paths}`.
    FidoBatch(Vec<String>),
    /// Many files per process, one JSON answer line per file in argument order, each Siegfried's
    /// document for that file (`modoai-siegfried`); the argv holds `{paths}`.
    Siegfried(Vec<String>),
    /// Many files per process, one line of output per file in argument order (`file -b`); a
    /// line starting with `ERROR:` is that file's error. The argv holds `{paths}`.
    LinesBatch(Vec<String>),
}

impl Kind {
    pub(crate) fn argv(&self) -> Option<&[String]> {
        match self {
            Kind::Builtin(_) => None,
            Kind::Process(a)
            | Kind::ExifTool(a)
            | Kind::JhoveBatch(a)
            | Kind::FidoBatch(a)
            | Kind::Siegfried(a)
            | Kind::LinesBatch(a) => Some(a),
        }
    }

    /// When this runner's work on a page asks for the process limit, lowest first. The
    /// identifiers' batches go first: they are split over one worker per permit, so they keep
    /// every core busy from the start (FIDO carries the most work per file, on one thread each;
    /// Siegfried's parts end within milliseconds and free the permits). JHOVE's batch comes
    /// next: its Java runs on several threads and fills the cores as FIDO's parts end. The short
    /// runs fit in around them.
    pub(crate) fn turn(&self) -> u8 {
        match self {
            Kind::FidoBatch(_) | Kind::Siegfried(_) => 0,
            Kind::JhoveBatch(_) => 1,
            _ => 2,
        }
    }

    pub(crate) fn runner(&self) -> &'static str {
        match self {
            Kind::Builtin(_) => "builtin",
            Kind::Process(_) => "process",
            Kind::ExifTool(_) => "exiftool",
            Kind::JhoveBatch(_) => "jhove-batch",
            Kind::FidoBatch(_) => "fido-batch",
            Kind::Siegfried(_) => "siegfried",
            Kind::LinesBatch(_) => "lines-batch",
        }
    }
}

/// How output is embedded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OutputKind {
    Xml,
    Text,
}

/// One resolved `[[plugin]]`.
#[derive(Debug)]
pub(crate) struct Plugin {
    pub(crate) label: String,
    pub(crate) patterns: Vec<MimePattern>,
    pub(crate) kind: Kind,
    pub(crate) output: OutputKind,
    pub(crate) timeout: Duration,
    pub(crate) max_input: Option<u64>,
    pub(crate) max_output: usize,
    pub(crate) ok_exit: Vec<i32>,
    pub(crate) version_command: Vec<String>,
    /// The program, found on PATH; `None` if it is missing (reported as status `missing`).
    pub(crate) program: Option<PathBuf>,
    /// Line of the `[[plugin]]` in the file, for messages.
    pub(crate) line: usize,
}

impl Plugin {
    /// The pattern that makes this plugin apply to a file of type `mime`, if any (size limits are
    /// checked by the caller, against `max_input`).
    pub(crate) fn applies(&self, mime: &str) -> Option<&MimePattern> {
        self.patterns.iter().find(|p| p.matches(mime))
    }

    /// True if running this plugin opens files through their staged, neutral names: a tool
    /// whose program was found (built-in digests read the file itself; a missing program runs
    /// nothing).
    pub(crate) fn opens_staged_files(&self) -> bool {
        self.kind.argv().is_some() && self.program.is_some()
    }

    /// The command as people read it.
    pub(crate) fn command_line(&self) -> String {
        match &self.kind {
            Kind::Builtin(d) => format!("builtin {}", digest_name(*d)),
            k => k.argv().unwrap_or_default().join(" "),
        }
    }
}

pub(crate) fn digest_name(d: Digest) -> &'static str {
    match d {
        Digest::Md5 => "md5",
        Digest::Sha1 => "sha1",
        Digest::Sha256 => "sha256",
    }
}

/// Every plugin of a file, plus the settings.
#[derive(Debug)]
pub(crate) struct Registry {
    pub(crate) plugins: Vec<Plugin>,
    pub(crate) max_processes: usize,
    pub(crate) cache_dir: PathBuf,
    pub(crate) path: PathBuf,
    /// Priority and limits of every tool process.
    pub(crate) isolation: Isolation,
    /// `[settings]` `timeout-secs`: a run's wall-clock limit unless a plugin sets its own.
    pub(crate) timeout: Duration,
    /// `[settings]` `max-output-bytes`: stdout kept per run unless a plugin sets its own.
    pub(crate) max_output: usize,
}

impl Registry {
    /// Reads and checks `path`.
    pub(crate) fn load(path: &Path) -> Result<Registry, PluginsError> {
        let text = std::fs::read_to_string(path).map_err(|error| PluginsError::Read {
            path: path.to_owned(),
            error,
        })?;
        Self::from_text(path, &text)
    }

    pub(crate) fn from_text(path: &Path, text: &str) -> Result<Registry, PluginsError> {
        let src = Source { path, text };
        let file = src.parse()?;
        let s = &file.settings;
        let max_processes =
            nonzero(&src, &s.max_processes, "max-processes")?.unwrap_or(DEFAULT_MAX_PROCESSES);
        let timeout =
            nonzero(&src, &s.timeout_secs, "timeout-secs")?.unwrap_or(DEFAULT_TIMEOUT_SECS);
        let defaults = (
            Duration::from_secs(timeout),
            nonzero(&src, &s.max_output_bytes, "max-output-bytes")?.unwrap_or(DEFAULT_MAX_OUTPUT),
        );
        let folder = path.parent().unwrap_or(Path::new("."));
        let cache_dir = folder.join(
            s.cache_dir
                .clone()
                .unwrap_or_else(|| PathBuf::from("modoai-cache")),
        );
        let isolation = Isolation::from_settings(&src, s)?;
        let plugins = file
            .plugins
            .iter()
            .map(|e| resolve(&src, e.get_ref(), e.span(), defaults))
            .collect::<Result<_, _>>()?;
        Ok(Registry {
            plugins,
            max_processes,
            cache_dir,
            path: path.to_owned(),
            isolation,
            timeout: defaults.0,
            max_output: defaults.1,
        })
    }
}

fn resolve(
    src: &Source<'_>,
    e: &Entry,
    span: std::ops::Range<usize>,
    (timeout, max_output): (Duration, usize),
) -> Result<Plugin, PluginsError> {
    let label = e.label.get_ref();
    if label.is_empty()
        || !label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    {
        return Err(src.invalid(
            e.label.span(),
            "label",
            "use letters, digits, '.', '_' and '-'",
        ));
    }
    let mut patterns = Vec::new();
    for p in e.mime.get_ref().items() {
        patterns.push(MimePattern::parse(p).ok_or_else(|| {
            src.invalid(
                e.mime.span(),
                "mime",
                format!("{p:?} is not */*, TYPE/* or TYPE/SUBTYPE (lower case)"),
            )
        })?);
    }
    if patterns.is_empty() {
        return Err(src.invalid(e.mime.span(), "mime", "give at least one MIME pattern"));
    }
    let kind = kind(src, e)?;
    let output = match e.output.as_ref().map(|o| (o.get_ref().as_str(), o.span())) {
        None | Some(("text", _)) => OutputKind::Text,
        Some(("xml", _)) => OutputKind::Xml,
        Some((_, span)) => return Err(src.invalid(span, "output", "must be \"xml\" or \"text\"")),
    };
    let timeout =
        nonzero(src, &e.timeout_secs, "timeout-secs")?.map_or(timeout, Duration::from_secs);
    let version_command = match (&kind, &e.version_command) {
        (Kind::Builtin(_), Some(v)) => {
            return Err(src.invalid(
                v.span(),
                "version-command",
                "a builtin has no version command",
            ))
        }
        (Kind::Builtin(_), None) => Vec::new(),
        (_, Some(v)) if !v.get_ref().is_empty() => v.get_ref().clone(),
        (_, Some(v)) => return Err(src.invalid(v.span(), "version-command", "must not be empty")),
        (_, None) => {
            return Err(src.invalid(
                e.label.span(),
                "version-command",
                "a command needs a version-command",
            ))
        }
    };
    let program = kind.argv().and_then(|a| find_program(&a[0]));
    let line = src.text[..span.start].matches('\n').count() + 1;
    Ok(Plugin {
        label: label.clone(),
        patterns,
        kind,
        output,
        timeout,
        max_input: nonzero(src, &e.max_input_bytes, "max-input-bytes")?,
        max_output: nonzero(src, &e.max_output_bytes, "max-output-bytes")?.unwrap_or(max_output),
        ok_exit: e.ok_exit_codes.clone().unwrap_or_else(|| vec![0]),
        version_command,
        program,
        line,
    })
}

/// The value of `key`, if given: a count or size, for which 0 makes no sense.
fn nonzero<T: Copy + Default + PartialEq>(
    src: &Source<'_>,
    value: &Option<Spanned<T>>,
    key: &str,
) -> Result<Option<T>, PluginsError> {
    match value {
        Some(v) if *v.get_ref() == T::default() => {
            Err(src.invalid(v.span(), key, "must be at least 1"))
        }
        Some(v) => Ok(Some(*v.get_ref())),
        None => Ok(None),
    }
}

fn kind(src: &Source<'_>, e: &Entry) -> Result<Kind, PluginsError> {
    let runner = e.runner.as_ref().map(|r| (r.get_ref().as_str(), r.span()));
    match (&e.builtin, &e.command) {
        (Some(b), None) => {
            if let Some((_, span)) = runner {
                return Err(src.invalid(span, "runner", "a builtin has no runner"));
            }
            let d = match b.get_ref().as_str() {
                "md5" => Digest::Md5,
                "sha1" => Digest::Sha1,
                "sha256" => Digest::Sha256,
                _ => return Err(src.invalid(b.span(), "builtin", "must be md5, sha1 or sha256")),
            };
            Ok(Kind::Builtin(d))
        }
        (None, Some(c)) => {
            let argv = c.get_ref().clone();
            let has = |p: &str| argv.iter().any(|a| a.contains(p));
            let (placeholder, kind): (&str, fn(Vec<String>) -> Kind) = match runner {
                None | Some(("process", _)) => ("{path}", Kind::Process),
                Some(("exiftool", _)) => ("{path}", Kind::ExifTool),
                Some(("jhove-batch", _)) => ("{paths}", Kind::JhoveBatch),
                Some(("fido-batch", _)) => ("{paths}", Kind::FidoBatch),
                Some(("siegfried", _)) => ("{paths}", Kind::Siegfried),
                Some(("lines-batch", _)) => ("{paths}", Kind::LinesBatch),
                Some((_, span)) => return Err(src.invalid(
                    span,
                    "runner",
                    "must be process, exiftool, jhove-batch, fido-batch, siegfried or lines-batch",
                )),
            };
            if argv.is_empty() || argv[0].is_empty() {
                return Err(src.invalid(c.span(), "command", "must name a program"));
            }
            let wrong = if placeholder == "{path}" {
                "{paths}"
            } else {
                "{path}"
            };
            if !argv.iter().any(|a| a == placeholder) || has(wrong) {
                return Err(src.invalid(c.span(), "command", format!("needs the placeholder {placeholder} as an argument of its own (and not {wrong})")));
            }
            Ok(kind(argv))
        }
        (Some(b), Some(_)) => Err(src.invalid(
            b.span(),
            "builtin",
            "give either builtin or command, not both",
        )),
        (None, None) => {
            Err(src.invalid(e.label.span(), "command", "give either builtin or command"))
        }
    }
}

#[cfg(test)]
mod tests;
