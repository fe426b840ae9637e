use super::*;
use crate::form;

fn parse(q: &str) -> Result<Request, Vec<OaiError>> {
    Request::parse(&form::parse(q).unwrap(), Granularity::Seconds)
}

fn code(q: &str) -> ErrorCode {
    let errors = parse(q).expect_err(q);
    let first = errors[0].code;
    assert!(errors.iter().all(|e| e.code == first), "{q}: mixed codes");
    first
}

#[test]
fn bad_verbs() {
    for q in [
        "",
        "junk",
        "verb=junk",
        "verb=identify",
        "verb=Identify&verb=Identify",
        "verb=Identify&verb=ListSets",
        "verb=",
    ] {
        assert_eq!(code(q), ErrorCode::BadVerb, "{q}");
    }
}

#[test]
fn bad_arguments() {
    for q in [
        "verb=Identify&test=test",
        "verb=GetRecord&metadataPrefix=oai_dc",
        "verb=GetRecord&identifier=http://a/b",
        "verb=GetRecord&identifier=invalid\"id&metadataPrefix=oai_dc",
        "verb=GetRecord&identifier=http://a/b&metadataPrefix=oai_dc&metadataPrefix=oai_dc",
        "verb=ListRecords",
        "verb=ListRecords&metadataPrefix=oai_dc&from=junk",
        "verb=ListIdentifiers&metadataPrefix=oai_dc&until=junk",
        "verb=ListRecords&resumptionToken=junk&until=2000-01-01",
        "verb=ListIdentifiers&resumptionToken=x&metadataPrefix=oai_dc",
        "verb=ListRecords&metadataPrefix=oai_dc&from=2002-02-05&until=2002-02-06T05:35:00Z",
        "verb=ListRecords&metadataPrefix=oai_dc&from=2002-02-06&until=2002-02-05",
        "verb=ListRecords&metadataPrefix=oai_dc&from=2002-02-05T00:00:01Z&until=2002-02-05T00:00:00Z",
        "verb=ListRecords&metadataPrefix=oai_dc&set=image/jpeg",
        "verb=ListRecords&metadataPrefix=oai%2Fdc",
        "verb=ListRecords&metadataPrefix=",
        "verb=ListSets&resumptionToken=a&resumptionToken=a",
        "verb=ListMetadataFormats&identifier=",
    ] {
        assert_eq!(code(q), ErrorCode::BadArgument, "{q}");
    }
}

#[test]
fn day_granularity_repository_rejects_seconds() {
    let pairs =
        form::parse("verb=ListRecords&metadataPrefix=oai_dc&from=2002-02-05T00:00:00Z").unwrap();
    let e = Request::parse(&pairs, Granularity::Day).unwrap_err();
    assert_eq!(e[0].code, ErrorCode::BadArgument);
}

#[test]
fn valid_requests() {
    assert_eq!(parse("verb=Identify").unwrap(), Request::Identify);
    let r = parse(
        "verb=ListRecords&metadataPrefix=oai_dc&from=2002-02-05&until=2002-02-05&set=mime:image",
    )
    .unwrap();
    let Request::ListRecords(ListArgs::Select(s)) = r else {
        panic!("{r:?}")
    };
    assert_eq!(s.from.unwrap().to_string(), "2002-02-05T00:00:00Z");
    assert_eq!(s.until.unwrap().to_string(), "2002-02-05T23:59:59Z");
    assert!(s.admits(Datestamp::parse_request("2002-02-05T12:00:00Z").unwrap().0));
    assert_eq!(s.set.unwrap().as_str(), "mime:image");
    let r = parse("verb=ListIdentifiers&resumptionToken=abc").unwrap();
    assert_eq!(r, Request::ListIdentifiers(ListArgs::Resume("abc".into())));
    assert_eq!(parse("verb=ListSets").unwrap().verb(), Verb::ListSets);
}
