//! The plugins as the server uses them: each resolved plugin with its version, the fingerprint of
//! its cached results and, for ExifTool, FIDO and Siegfried, its persistent workers.

use std::ops::Index;
use std::sync::Arc;

use super::cache::{Key, Keyer};
use super::exiftool::ExifTool;
use super::fido::Fido;
use super::isolate::Isolation;
use super::probe;
use super::registry::{Kind, OutputKind, Plugin};
use super::resident::Kept;
use super::siegfried::Siegfried;
use super::status::Cached;

/// A plugin's place in `plugins.toml` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct PluginId(usize);

/// One plugin's output for one file, labelled as the CRATE records it.
#[derive(Debug)]
#[non_exhaustive]
pub struct PluginResult {
    /// The plugin's `label` in `plugins.toml`.
    pub label: String,
    /// The tool's version, or why it is unknown.
    pub version: String,
    /// The command line the plugin runs.
    pub command: String,
    /// Whether the result came from the cache rather than a run for this request.
    pub cached: bool,
    /// What the run said.
    pub run: Cached,
    /// For `xml` output: where in stdout the one root element lies, if the output can be
    /// embedded as XML (checked once, when the result is made).
    pub xml_root: Option<std::ops::Range<usize>>,
    /// The bytes a writer made of this result once, kept with it so that a warm page copies them
    /// (the server's `crate:plugin` element).
    pub element: std::sync::OnceLock<bytes::Bytes>,
}

/// One plugin, ready to run.
#[derive(Debug)]
pub(crate) struct Loaded {
    pub(crate) plugin: Plugin,
    /// The tool's version, or why it is unknown (see [`probe::is_unknown`]).
    pub(crate) version: String,
    /// Keys this plugin's entries in the cache (its fingerprint hashed in).
    keyer: Keyer,
    /// The persistent worker of an ExifTool plugin whose program was found.
    pub(crate) exiftool: Option<ExifTool>,
    /// The persistent workers of a FIDO plugin whose program was found.
    pub(crate) fido: Option<Fido>,
    /// The persistent workers of a Siegfried plugin whose program was found.
    pub(crate) siegfried: Option<Siegfried>,
}

impl Loaded {
    /// `plugin` at `version`; ExifTool, FIDO and Siegfried workers start under `isolation`,
    /// FIDO's and Siegfried's one per permit of `max_processes`.
    pub(crate) fn new(
        plugin: Plugin,
        version: String,
        isolation: &Isolation,
        max_processes: usize,
    ) -> Self {
        let exiftool = match (&plugin.kind, &plugin.program) {
            (Kind::ExifTool(_), Some(prog)) => Some(ExifTool::new(
                prog.clone().into_os_string(),
                plugin.timeout,
                plugin.max_output,
                isolation.clone(),
            )),
            _ => None,
        };
        let fido = match (&plugin.kind, &plugin.program) {
            (Kind::FidoBatch(argv), Some(prog)) => {
                Some(Fido::new(prog, argv, isolation.clone(), max_processes))
            }
            _ => None,
        };
        let siegfried = match (&plugin.kind, &plugin.program) {
            (Kind::Siegfried(argv), Some(prog)) => {
                Some(Siegfried::new(prog, argv, isolation.clone(), max_processes))
            }
            _ => None,
        };
        Loaded {
            keyer: Keyer::new(&probe::fingerprint(&plugin, &version)),
            plugin,
            version,
            exiftool,
            fido,
            siegfried,
        }
    }

    /// How many workers a page's files can be split over: FIDO's or Siegfried's, if this is
    /// such a plugin and its program was found.
    pub(crate) fn identifier_workers(&self) -> Option<usize> {
        let fido = self.fido.as_ref().map(Fido::workers);
        fido.or(self.siegfried.as_ref().map(Siegfried::workers))
    }

    /// The cache key of this plugin's result for the file version `identity`.
    pub(crate) fn key(&self, identity: &[u8]) -> Key {
        self.keyer.key(identity)
    }

    /// `run` labelled as this plugin's; `cached` if it came from the cache.
    pub(crate) fn result(&self, run: Cached, cached: bool) -> Arc<PluginResult> {
        let p = &self.plugin;
        let xml_root = (p.output == OutputKind::Xml)
            .then(|| crate::embed::embeddable(&run.stdout))
            .flatten()
            .map(|root| {
                let start = root.as_ptr() as usize - run.stdout.as_ptr() as usize;
                start..start + root.len()
            });
        Arc::new(PluginResult {
            label: p.label.clone(),
            version: self.version.clone(),
            command: p.command_line(),
            cached,
            run,
            xml_root,
            element: std::sync::OnceLock::new(),
        })
    }
}

/// Every plugin of the file, in `plugins.toml` order.
#[derive(Debug)]
pub(crate) struct LoadedPlugins(Vec<Loaded>);

impl LoadedPlugins {
    /// `plugins` with their `versions`, in the same order; their workers run under
    /// `isolation`, FIDO's and Siegfried's one per permit of `max_processes`.
    pub(crate) fn new(
        plugins: Vec<Plugin>,
        versions: Vec<String>,
        isolation: &Isolation,
        max_processes: usize,
    ) -> Self {
        let loaded = plugins
            .into_iter()
            .zip(versions)
            .map(|(p, v)| Loaded::new(p, v, isolation, max_processes))
            .collect();
        LoadedPlugins(loaded)
    }

    /// Every plugin, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Loaded> {
        self.0.iter()
    }

    /// The plugins that apply to a file of type `mime`, in order.
    pub(crate) fn applicable<'a>(
        &'a self,
        mime: &'a str,
    ) -> impl Iterator<Item = (PluginId, &'a Loaded)> + 'a {
        self.0
            .iter()
            .enumerate()
            .filter(move |(_, l)| l.plugin.applies(mime).is_some())
            .map(|(i, l)| (PluginId(i), l))
    }

    /// The kept-running tools (ExifTool's, FIDO's and Siegfried's workers).
    pub(crate) fn kept(&self) -> impl Iterator<Item = &dyn Kept> {
        self.0.iter().flat_map(|l| {
            let exiftool = l.exiftool.as_ref().map(|w| w as &dyn Kept);
            let fido = l.fido.as_ref().map(|w| w as &dyn Kept);
            let siegfried = l.siegfried.as_ref().map(|w| w as &dyn Kept);
            exiftool.into_iter().chain(fido).chain(siegfried)
        })
    }
}

impl Index<PluginId> for LoadedPlugins {
    type Output = Loaded;

    fn index(&self, id: PluginId) -> &Loaded {
        &self.0[id.0]
    }
}
