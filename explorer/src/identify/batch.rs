//! [`Batcher`]: the loaded captures of an index build, held in ledger order until enough of
//! them want a format or the tools' findings to make a batch, then analysed together and given
//! back in order.

use super::analyse::{analyse, Wants};
use super::{Identifier, MetadataTools};
use crate::capture::{Capture, Loader};

/// Captures wanting analysis gathered before the tools run on them: the batch their runners take
/// at once.
const BATCH: usize = 128;

/// Holds loaded captures, each group with its `T` (what the build does after adding them), until
/// 128 of them want analysis (no PUID yet; with tools, no CRATE); then analyses them and gives
/// the groups back in the order they came.
#[derive(Debug)]
pub struct Batcher<'a, T> {
    identifier: Option<Identifier>,
    tools: Option<MetadataTools>,
    loader: Loader<'a>,
    queue: Vec<(Vec<Capture>, T)>,
    /// Captures in the queue wanting analysis.
    waiting: usize,
}

impl<'a, T> Batcher<'a, T> {
    /// Identifies with `identifier` and runs `tools` (neither: groups pass straight through),
    /// reading payloads with `loader`.
    pub fn new(
        identifier: Option<Identifier>,
        tools: Option<MetadataTools>,
        loader: Loader<'a>,
    ) -> Self {
        Batcher {
            identifier,
            tools,
            loader,
            queue: Vec::new(),
            waiting: 0,
        }
    }

    /// Takes one group; gives back the groups ready to add, in order (none while a batch fills).
    pub fn push(&mut self, captures: Vec<Capture>, then: T) -> Vec<(Vec<Capture>, T)> {
        let needing = captures.iter().filter(|c| self.wants(c).any()).count();
        let idle = self.identifier.is_none() && self.tools.is_none();
        if idle || (self.queue.is_empty() && needing == 0) {
            return vec![(captures, then)];
        }
        self.queue.push((captures, then));
        self.waiting += needing;
        if self.waiting >= BATCH {
            return self.finish();
        }
        Vec::new()
    }

    /// Analyses what is held and gives every group back, in order.
    pub fn finish(&mut self) -> Vec<(Vec<Capture>, T)> {
        let mut groups = std::mem::take(&mut self.queue);
        self.waiting = 0;
        let (mut captures, mut wants) = (Vec::new(), Vec::new());
        for c in groups.iter_mut().flat_map(|(c, _)| c.iter_mut()) {
            let w = self.wants(c);
            if w.any() {
                wants.push(w);
                captures.push(c);
            }
        }
        let analysers = (self.identifier.as_ref(), self.tools.as_ref());
        analyse(analysers, &self.loader, &mut captures, &wants);
        groups
    }

    /// What analysis `c` wants: a format when it has none, the tools' findings when it has no
    /// CRATE's.
    fn wants(&self, c: &Capture) -> Wants {
        Wants {
            format: self.identifier.is_some() && c.findings.puid.is_none(),
            tools: self.tools.is_some()
                && c.findings.source.is_none()
                && c.findings.tools.is_empty(),
        }
    }
}
