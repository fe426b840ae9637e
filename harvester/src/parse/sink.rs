//! Where [`PageParser::next_event_with`](super::PageParser::next_event_with) sends a record's
//! metadata while it reads it.

use std::io;

/// Receives a record's `<metadata>` while it is parsed, so that no record is held whole in memory.
///
/// MPEG-21 DIDL records carry whole files inline as Base64 in `didl:Resource`; a file of several
/// GiB cannot go through a `String`. The parser sends the metadata's XML in pieces and decodes
/// those resources into bytes, so memory use does not grow with the size of a record.
///
/// The calls for one record all happen inside the
/// [`next_event_with`](super::PageParser::next_event_with) call that returns the record, in
/// document order: XML pieces, and for each inline Base64 resource `resource_start`, its bytes
/// and `resource_end` between the piece that ends with its start tag and the piece that begins
/// with its end tag. An error from any method stops the parser with [`ParseError::Sink`].
///
/// [`ParseError::Sink`]: super::ParseError::Sink
///
/// ```
/// use std::io;
/// use modoai_harvester::parse::{MetadataSink, ResourceInfo};
///
/// /// Keeps the XML, and only the sizes of the files.
/// #[derive(Default)]
/// struct Sizes {
///     xml: Vec<u8>,
///     files: Vec<(Option<String>, u64)>,
/// }
///
/// impl MetadataSink for Sizes {
///     fn xml(&mut self, piece: &[u8]) -> io::Result<()> {
///         self.xml.extend_from_slice(piece);
///         Ok(())
///     }
///     fn resource_start(&mut self, resource: &ResourceInfo) -> io::Result<()> {
///         self.files.push((resource.mime_type.clone(), 0));
///         Ok(())
///     }
///     fn resource_bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
///         self.files.last_mut().unwrap().1 += bytes.len() as u64;
///         Ok(())
///     }
///     fn resource_end(&mut self) -> io::Result<()> {
///         Ok(())
///     }
/// }
/// ```
pub trait MetadataSink {
    /// The next piece of the metadata's XML.
    ///
    /// The pieces add up to the text [`Record::metadata`](super::Record::metadata) would hold
    /// (standalone: the namespace bindings in scope are added to the top element), except that
    /// the content of every inline Base64 `didl:Resource` is left out: the element is kept with
    /// its attributes, as a start tag directly followed by its end tag. Pieces are at most about
    /// 64 KiB, unless a single tag or text node is larger.
    fn xml(&mut self, piece: &[u8]) -> io::Result<()>;

    /// A `didl:Resource` with `encoding="base64"` and content starts.
    ///
    /// The element is matched by namespace ([`ns::DIDL`](modoai_protocol::ns::DIDL)) and local
    /// name, whatever its prefix. A resource whose content decodes to no bytes (an empty element,
    /// only whitespace) gets no `resource_*` calls.
    fn resource_start(&mut self, resource: &ResourceInfo) -> io::Result<()>;

    /// The next decoded bytes of the resource, at most 64 KiB.
    fn resource_bytes(&mut self, bytes: &[u8]) -> io::Result<()>;

    /// The resource's end tag was read and its Base64 was complete and valid.
    fn resource_end(&mut self) -> io::Result<()>;
}

impl<S: MetadataSink + ?Sized> MetadataSink for &mut S {
    fn xml(&mut self, piece: &[u8]) -> io::Result<()> {
        (**self).xml(piece)
    }

    fn resource_start(&mut self, resource: &ResourceInfo) -> io::Result<()> {
        (**self).resource_start(resource)
    }

    fn resource_bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        (**self).resource_bytes(bytes)
    }

    fn resource_end(&mut self) -> io::Result<()> {
        (**self).resource_end()
    }
}

/// The attributes of a `didl:Resource` (unprefixed, unescaped), and where it is in the record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceInfo {
    /// `mimeType`, the media type of the file.
    pub mime_type: Option<String>,
    /// `ref`, the URI of the file; some providers send it along with the inline copy.
    pub reference: Option<String>,
    /// `encoding`, `base64` for the resources a sink receives.
    pub encoding: Option<String>,
    /// How many `didl:Resource` elements (Base64 or not) came before this one in the record's
    /// metadata: 0 for the first.
    pub index: usize,
}

impl ResourceInfo {
    /// True if `encoding` says Base64 (ignoring ASCII case and surrounding whitespace).
    pub(crate) fn is_base64(&self) -> bool {
        self.encoding
            .as_deref()
            .is_some_and(|e| e.trim().eq_ignore_ascii_case("base64"))
    }
}
