//! What a page contains, one item at a time.

use modoai_protocol::{Datestamp, Granularity, OaiError};

/// One item of an OAI-PMH response, in document order.
///
/// A list page yields `ResponseDate`, then one `Header`, `Record`, `Set` or `Format` per item,
/// then at most one `Token`. An error page yields `ResponseDate` and one `Error` per `<error>`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PageEvent {
    /// `<responseDate>` (§3.2), the server's clock: use the first page's as the next harvest's
    /// `from`. Omitted when the value cannot be read even leniently.
    ResponseDate(Datestamp),
    /// One `<error>` (§3.6). `noRecordsMatch` means an empty list, not a failure.
    Error(OaiError),
    /// A `<header>` of ListIdentifiers (§4.3).
    Header(Header),
    /// A `<record>` of ListRecords (§4.5) or GetRecord (§4.1).
    Record(Record),
    /// A `<set>` of ListSets (§4.6).
    Set {
        /// `<setSpec>`.
        spec: String,
        /// `<setName>`.
        name: String,
        /// The text of `<setDescription>` (such as its `dc:description`), if any.
        description: Option<String>,
    },
    /// A `<metadataFormat>` of ListMetadataFormats (§4.4).
    Format {
        /// `<metadataPrefix>`.
        prefix: String,
        /// `<schema>`.
        schema: String,
        /// `<metadataNamespace>`.
        namespace: String,
    },
    /// The `<Identify>` answer (§4.2).
    Identify(Identify),
    /// The `<resumptionToken>` (§3.5), always the last item of a list page.
    Token(ResumptionToken),
}

/// A record header (§2.5): the identity and datestamp of one item.
///
/// Values are trimmed. Missing children are left empty rather than failing the page; the harvester
/// decides what to do with an unusable header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// `<identifier>`, a URI (§2.4). Empty if the provider sent none.
    pub identifier: String,
    /// `<datestamp>` parsed with [`Datestamp::parse_lenient`]; `None` if that failed.
    pub datestamp: Option<Datestamp>,
    /// `<datestamp>` as sent, for logs and for providers whose format is too odd to parse.
    pub datestamp_raw: String,
    /// Every `<setSpec>`, in document order, duplicates kept.
    pub set_specs: Vec<String>,
    /// `status="deleted"` (§2.5.1): the record has no metadata.
    pub deleted: bool,
}

/// A record (§2.5): a header plus, unless deleted, its metadata.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// The header.
    pub header: Header,
    /// The single child of `<metadata>` as XML text, or `None` when there is no `<metadata>`
    /// (deleted records, §2.5.1).
    ///
    /// The text is re-serialised from the parser's events: markup and escapes are kept as sent,
    /// and the namespace bindings in scope at `<metadata>` that the child does not declare itself
    /// are added to it, so the fragment parses on its own. The whole element is held in memory;
    /// [`PageParser::next_event_with`](super::PageParser::next_event_with) streams it instead,
    /// and leaves this `None`.
    pub metadata: Option<String>,
    /// True if the metadata went to a [`MetadataSink`](super::MetadataSink) instead of
    /// [`metadata`](Self::metadata): exactly when `metadata` would otherwise be `Some`.
    pub streamed: bool,
}

/// The `<resumptionToken>` of a list page (§3.5).
///
/// Every attribute is optional (XSD) and is read leniently: a value that does not parse is `None`,
/// never an error, so a token is never lost to a malformed attribute.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResumptionToken {
    /// The token, trimmed. Empty on the page that completes the list.
    pub token: String,
    /// `cursor`: how many items were sent before this page.
    pub cursor: Option<u64>,
    /// `completeListSize`: the size of the whole list, if the provider knows it.
    pub complete_list_size: Option<u64>,
    /// `expirationDate`: when the token stops working.
    pub expiration: Option<Datestamp>,
}

impl ResumptionToken {
    /// True if this is the empty token that completes a list (§3.5). A page with no token
    /// element at all also completes the list.
    pub fn is_final(&self) -> bool {
        self.token.is_empty()
    }
}

/// The `<Identify>` answer (§4.2), values trimmed. `description` elements are skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identify {
    /// `<repositoryName>`.
    pub repository_name: String,
    /// `<baseURL>`.
    pub base_url: String,
    /// `<protocolVersion>`, `2.0` for every provider this crate can talk to.
    pub protocol_version: String,
    /// Every `<adminEmail>`.
    pub admin_emails: Vec<String>,
    /// `<earliestDatestamp>` parsed leniently; `None` if missing or unparseable.
    pub earliest_datestamp: Option<Datestamp>,
    /// `<deletedRecord>`: `no`, `transient` or `persistent` (§2.5.1), as sent.
    pub deleted_record: String,
    /// `<granularity>`; `None` if it is not one of the two legal values (§3.3.1).
    pub granularity: Option<Granularity>,
    /// Every `<compression>` (§3.1.3), e.g. `gzip`.
    pub compression: Vec<String>,
}
