//! [`FolderSets`]: which folders of the site are sets.

use std::num::NonZeroU16;

use serde::Deserialize;

/// Which folders of the site are sets: every folder that holds records, none, or the folders
/// down to a depth (a file deeper down belongs to its folder at that depth).
///
/// In the configuration file, `folder-sets` of `[oai]`: `true`, `false` or the depth.
///
/// ```
/// use modoai::sets::FolderSets;
/// assert_eq!(FolderSets::default(), FolderSets::All);
/// assert_eq!(FolderSets::Depth(2.try_into()?).depth_of("a/b/c/x.txt"), Some(2));
/// assert_eq!(FolderSets::All.depth_of("x.txt"), Some(0));
/// assert_eq!(FolderSets::Off.depth_of("a/x.txt"), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FolderSets {
    /// Every folder is a set (the default).
    #[default]
    All,
    /// No folder is a set.
    Off,
    /// The folders down to this depth (1: the folders of the root only).
    Depth(NonZeroU16),
}

impl FolderSets {
    /// How many folder levels of the file at URL path `path` are sets: the depth of the folder
    /// set it is in (0 for the root folder), or `None` without folder sets.
    pub fn depth_of(self, path: &str) -> Option<u16> {
        let folders = path.bytes().filter(|&b| b == b'/').count();
        let folders = u16::try_from(folders).unwrap_or(u16::MAX);
        match self {
            FolderSets::All => Some(folders),
            FolderSets::Off => None,
            FolderSets::Depth(d) => Some(folders.min(d.get())),
        }
    }

    /// Whether a folder at `depth` (1 for a folder of the root) is a set.
    pub(crate) fn reaches(self, depth: usize) -> bool {
        match self {
            FolderSets::All => true,
            FolderSets::Off => false,
            FolderSets::Depth(d) => depth <= usize::from(d.get()),
        }
    }
}

/// `folder-sets` as the file gives it: `true`, `false` or a depth.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(untagged)]
enum FolderSetsValue {
    On(bool),
    Depth(u64),
}

impl<'de> Deserialize<'de> for FolderSets {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bad = || {
            serde::de::Error::custom(
                "folder-sets must be true, false, or the deepest folder level that is a set (1 to 65535)",
            )
        };
        FolderSetsValue::deserialize(d)
            .map_err(|_| bad())?
            .resolve()
            .ok_or_else(bad)
    }
}

impl FolderSetsValue {
    /// The setting, or `None` for a depth of 0 or one too deep to be a path.
    fn resolve(self) -> Option<FolderSets> {
        match self {
            FolderSetsValue::On(true) => Some(FolderSets::All),
            FolderSetsValue::On(false) => Some(FolderSets::Off),
            FolderSetsValue::Depth(d) => u16::try_from(d)
                .ok()
                .and_then(NonZeroU16::new)
                .map(FolderSets::Depth),
        }
    }
}
