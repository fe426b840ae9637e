//! The sections of the benchmark, one file (or folder) each.

pub(crate) mod doors;
pub(crate) mod explorer;
pub(crate) mod foreign;
pub(crate) mod harvester;
pub(crate) mod memory;
pub(crate) mod plugins;
pub(crate) mod scale;
pub(crate) mod sets;
pub(crate) mod shards;
pub(crate) mod store;
pub(crate) mod throughput;
pub(crate) mod visitors;

use std::path::PathBuf;

use crate::procs::Bins;

/// What every section gets.
pub(crate) struct Ctx {
    pub(crate) bins: Bins,
    pub(crate) quick: bool,
    /// Measured runs per figure (after one warm-up run).
    pub(crate) runs: usize,
    /// A scratch folder for the section's data.
    pub(crate) work: PathBuf,
}

impl Ctx {
    /// `full` in a full run, `quick` in a quick one.
    pub(crate) fn size<T>(&self, full: T, quick: T) -> T {
        if self.quick {
            quick
        } else {
            full
        }
    }

    pub(crate) fn dir(&self, name: &str) -> anyhow::Result<PathBuf> {
        let d = self.work.join(name);
        std::fs::create_dir_all(&d)?;
        Ok(d)
    }
}

pub(crate) const MB: f64 = 1e6;
