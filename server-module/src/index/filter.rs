//! [`Filter`]: the selection of a list request.

use modoai_protocol::{Datestamp, SetSpec};

/// Which records a list request selects, by datestamp range and set.
#[derive(Clone, Debug, Default)]
pub(crate) struct Filter {
    pub(crate) from: Option<Datestamp>,
    pub(crate) until: Option<Datestamp>,
    pub(crate) set: Option<SetSpec>,
}
