//! What to harvest: [`HarvestOptions`].

/// What to harvest.
#[derive(Clone, Debug)]
pub struct HarvestOptions {
    /// The OAI-PMH base URL.
    pub endpoint: String,
    /// The format; `None` = `oai_crate` if offered, else `oai_dc`.
    pub prefix: Option<String>,
    /// A set to harvest selectively.
    pub set: Option<String>,
    /// `from`, as given (`YYYY-MM-DD` or `YYYY-MM-DDThh:mm:ssZ`). Overrides the incremental date.
    pub from: Option<String>,
    /// `until`, as given.
    pub until: Option<String>,
    /// Ask `from` the start of the last complete harvest of the same list. Default true.
    pub incremental: bool,
    /// Fetch `didl:Resource/@ref` URLs of records that carry no inline resource. Default true.
    pub fetch_refs: bool,
    /// The warcinfo `isPartOf`: the name of the harvest. Default `modoai-harvest`.
    pub name: String,
}

impl HarvestOptions {
    /// A full harvest of `endpoint` with the defaults.
    pub fn new(endpoint: &str) -> Self {
        HarvestOptions {
            endpoint: endpoint.to_owned(),
            prefix: None,
            set: None,
            from: None,
            until: None,
            incremental: true,
            fetch_refs: true,
            name: "modoai-harvest".into(),
        }
    }
}
