//! A scripted OAI-PMH provider's pages, for tests that serve them from `FaultServer`.

pub(crate) const IDENTIFY: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-01T00:00:00Z</responseDate>
<request verb="Identify">http://127.0.0.1/oai</request><Identify><repositoryName>scripted</repositoryName>
<baseURL>http://127.0.0.1/oai</baseURL><protocolVersion>2.0</protocolVersion><adminEmail>a@example.org</adminEmail>
<earliestDatestamp>2020-01-01T00:00:00Z</earliestDatestamp><deletedRecord>no</deletedRecord>
<granularity>YYYY-MM-DDThh:mm:ssZ</granularity></Identify></OAI-PMH>"#;

/// A ListRecords page of oai_dc records `first..first+n`, then `token` (None: none at all).
pub(crate) fn page(first: usize, n: usize, token: Option<&str>) -> String {
    let mut s = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-01T00:00:00Z</responseDate><request verb="ListRecords">http://127.0.0.1/oai</request><ListRecords>"#,
    );
    for i in first..first + n {
        s.push_str(&format!(
            r#"<record><header><identifier>oai:scripted:{i}</identifier><datestamp>2020-01-01T00:00:{:02}Z</datestamp></header><metadata><oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>record {i}</dc:title></oai_dc:dc></metadata></record>"#,
            i % 60
        ));
    }
    if let Some(t) = token {
        s.push_str(&format!(
            "<resumptionToken completeListSize=\"9\">{t}</resumptionToken>"
        ));
    }
    s.push_str("</ListRecords></OAI-PMH>");
    s
}

pub(crate) fn error(code: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-01T00:00:00Z</responseDate><request>http://127.0.0.1/oai</request><error code="{code}">test</error></OAI-PMH>"#
    )
}

/// A one-record ListRecords page whose CRATE says the md5 of `file` is `md5`, with `file`
/// inline in Base64.
pub(crate) fn crate_page(file: &[u8], md5: &str) -> String {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(file);
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-01T00:00:00Z</responseDate><request verb="ListRecords">http://127.0.0.1/oai</request><ListRecords><record><header><identifier>http://127.0.0.1/f.txt</identifier><datestamp>2020-01-01T00:00:00Z</datestamp></header><metadata><didl:DIDL xmlns:didl="urn:mpeg:mpeg21:2002:02-DIDL-NS"><didl:Item><didl:Descriptor><didl:Statement mimeType="application/xml"><crate:plugin xmlns:crate="urn:modoai:crate:2026" label="md5" version="1" status="ok"><crate:output encoding="text">{md5}</crate:output></crate:plugin></didl:Statement></didl:Descriptor><didl:Component><didl:Resource mimeType="text/plain" encoding="base64">{b64}</didl:Resource></didl:Component></didl:Item></didl:DIDL></metadata></record></ListRecords></OAI-PMH>"#
    )
}
