//! The parameters of a compaction: [`CompactOptions`].

/// The parameters of [`compact`](super::compact), with the reference tool's defaults.
///
/// The cut-off at depth `i` (0-based) is `alpha · (i+1)^(−k) · factor`; a node with more children
/// than that is rolled up. A factor of `f64::INFINITY` never rolls up (what `generate` uses).
#[derive(Clone, Debug, PartialEq)]
pub struct CompactOptions {
    /// Host compaction factor (`--hcf`). Defaults to 1.0.
    pub host_factor: f64,
    /// Path compaction factor (`--pcf`). Defaults to 1.0.
    pub path_factor: f64,
    /// Host power-law alpha (`--ha`). Defaults to 16.329.
    pub host_alpha: f64,
    /// Host power-law k (`--hk`). Defaults to 0.714.
    pub host_k: f64,
    /// Path power-law alpha (`--pa`). Defaults to 24.546.
    pub path_alpha: f64,
    /// Path power-law k (`--pk`). Defaults to 1.429.
    pub path_k: f64,
    /// Host levels considered (`--hdepth`). Defaults to 8.
    pub host_depth: usize,
    /// Path levels considered (`--pdepth`). Defaults to 9.
    pub path_depth: usize,
}

impl Default for CompactOptions {
    fn default() -> Self {
        CompactOptions {
            host_factor: 1.0,
            path_factor: 1.0,
            host_alpha: 16.329,
            host_k: 0.714,
            path_alpha: 24.546,
            path_k: 1.429,
            host_depth: 8,
            path_depth: 9,
        }
    }
}

impl CompactOptions {
    /// Sets the host compaction factor. Defaults to 1.0.
    pub fn host_factor(mut self, w: f64) -> Self {
        self.host_factor = w;
        self
    }

    /// Sets the path compaction factor. Defaults to 1.0.
    pub fn path_factor(mut self, w: f64) -> Self {
        self.path_factor = w;
        self
    }

    /// No roll-ups at all: only key normalisation (what `generate` does).
    pub fn never() -> Self {
        Self::default()
            .host_factor(f64::INFINITY)
            .path_factor(f64::INFINITY)
    }

    pub(super) fn cutoffs(alpha: f64, k: f64, factor: f64, depth: usize) -> Vec<f64> {
        (0..depth)
            .map(|i| alpha * ((i + 1) as f64).powf(-k) * factor)
            .collect()
    }
}
