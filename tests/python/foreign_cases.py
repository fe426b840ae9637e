"""Writes a small crawl of WARC and ARC files with warcio (the reference writer) for the
explorer's foreign-collection tests: python foreign_cases.py OUT_DIR [PART].

PART `first` (the default) writes crawl-a.warc.gz (warcinfo, request, a chunked page, a
gzip-coded page, a redirect, a 404, a resource, a metadata record), whole.warc.gz (one gzip
stream), old.arc (ARC v1: warcio reads ARC but does not write it, so its two records are written
here in the format's own words) and mismatch.warc (a payload digest that does not match). PART
`second` writes crawl-b.warc.gz: revisits of both profiles (identical payload with
WARC-Refers-To-*, URL-agnostic, server-not-modified, a day apart in 2031) and one whose
original is nowhere. PART
`many` writes many.warc.gz: 400 small pages. PART `metadata` writes meta.warc.gz: a page with
the CRATE modoai's harvester would store for it in a metadata record after it (WARC-Refers-To),
another with its CRATE before it (WARC-Concurrent-To), and a page with Heritrix's request and
metadata records (via, hopsFromSeed, outlink) after it. PART `replay` writes replay.warc.gz: a page, a
chunked page, a gzip-coded page, a 404, a resource and a revisit of the page, each at its own
time (what a memento and pywb's id_ replay are compared on). PART `agnostic` writes
agnostic.warc.gz: a page at example.org and a URL-agnostic revisit of it at mirror.example.net
(what an export scoped to one host may not carry of the other)."""

import gzip
import hashlib
import base64
import io
import os
import sys

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

OUT = sys.argv[1]
PART = sys.argv[2] if len(sys.argv) > 2 else "first"
PAGE = (b"<html><head><title>Harbour page</title></head><body><p>The harbour of "
        b"quillwort and marram grass, where the tide comes in twice a day.</p></body></html>\n")
CODED = (b"<html><head><title>Coded page</title></head><body><p>Zephyrgzip words only the "
         b"gzip-coded page has.</p></body></html>\n")
CHUNKED = (b"<html><head><title>Chunked page</title></head><body><p>Chunkedword appears "
           b"here.</p></body></html>\n")


def sha1(data):
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def chunked(body, size=40):
    out = b""
    for i in range(0, len(body), size):
        part = body[i:i + size]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def response(writer, uri, body, headers, status="200 OK", warc_headers=None):
    http = StatusAndHeaders(status, headers, protocol="HTTP/1.1")
    record = writer.create_warc_record(
        uri, "response", payload=io.BytesIO(body), http_headers=http,
        warc_headers_dict=warc_headers or {})
    writer.write_record(record)
    return record


def first():
    with open(os.path.join(OUT, "crawl-a.warc.gz"), "wb") as f:
        w = WARCWriter(f, gzip=True, warc_version="1.1")
        w.write_record(w.create_warcinfo_record("crawl-a.warc.gz", {
            "software": "warcio", "operator": "modoai tests", "isPartOf": "harbour-crawl"}))
        request = StatusAndHeaders("GET /page HTTP/1.1", [("Host", "example.org")],
                                   is_http_request=True)
        w.write_record(w.create_warc_record("http://example.org/page", "request",
                                            payload=io.BytesIO(b""), http_headers=request))
        page = response(w, "http://example.org/page", PAGE, [("Content-Type", "text/html")])
        response(w, "http://example.org/chunked", chunked(CHUNKED),
                 [("Content-Type", "text/html"), ("Transfer-Encoding", "chunked")])
        response(w, "http://example.org/coded", gzip.compress(CODED),
                 [("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", "gzip")])
        response(w, "http://example.org/old", b"", [("Location", "http://example.org/page"),
                                                   ("Content-Length", "0")],
                 status="301 Moved Permanently")
        response(w, "http://example.org/missing", b"not here\n",
                 [("Content-Type", "text/plain")], status="404 Not Found")
        w.write_record(w.create_warc_record(
            "http://example.org/notes.txt", "resource",
            payload=io.BytesIO(b"resource notes about samphire\n"),
            warc_content_type="text/plain"))
        w.write_record(w.create_warc_record(
            "http://example.org/page", "metadata",
            payload=io.BytesIO(b"outlink: http://example.org/chunked\r\n"),
            warc_content_type="application/warc-fields",
            warc_headers_dict={"WARC-Concurrent-To":
                               page.rec_headers.get_header("WARC-Record-ID")}))

    plain = io.BytesIO()
    w = WARCWriter(plain, gzip=False, warc_version="1.0")
    response(w, "http://example.org/whole", b"<html><title>Whole</title>Wholestream text</html>",
             [("Content-Type", "text/html")])
    with open(os.path.join(OUT, "whole.warc.gz"), "wb") as f:
        f.write(gzip.compress(plain.getvalue()))

    # warcio writes the digest of what it writes: the other one is put in its place after.
    changed = io.BytesIO()
    w = WARCWriter(changed, gzip=False, warc_version="1.0")
    body = b"<html>Mismatchword body</html>"
    response(w, "http://example.org/changed", body, [("Content-Type", "text/html")])
    data = changed.getvalue().replace(sha1(body).encode(), sha1(b"something else").encode())
    with open(os.path.join(OUT, "mismatch.warc"), "wb") as f:
        f.write(data)

    body = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html>Arcword page</html>"
    header = b"filedesc://old.arc 0.0.0.0 20100101000000 text/plain "
    version = b"1 0 modoai tests\nURL IP-address Archive-date Content-type Archive-length\n"
    with open(os.path.join(OUT, "old.arc"), "wb") as f:
        f.write(header + b"%d\n" % len(version) + version + b"\n")
        f.write(b"http://example.org/arc.html 127.0.0.1 20100102030405 text/html %d\n"
                % len(body) + body + b"\n")


def second():
    with open(os.path.join(OUT, "crawl-b.warc.gz"), "wb") as f:
        w = WARCWriter(f, gzip=True, warc_version="1.1")
        digest = sha1(PAGE)
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        # Refers-To-Date is not known here: the original is found by its digest.
        w.write_record(revisit(w, "http://example.org/page", digest, http,
                               "http://example.org/page", date="2031-01-01T00:00:00Z"))
        w.write_record(revisit(w, "http://example.org/mirror/page", digest, http,
                               date="2031-01-02T00:00:00Z"))
        not_modified = revisit(
            w, "http://example.org/page", digest,
            StatusAndHeaders("304 Not Modified", [], protocol="HTTP/1.1"),
            date="2031-01-03T00:00:00Z")
        not_modified.rec_headers.replace_header(
            "WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/server-not-modified")
        not_modified.rec_headers.remove_header("WARC-Payload-Digest")
        w.write_record(not_modified)
        w.write_record(revisit(w, "http://example.org/gone", sha1(b"never archived"), http))


def revisit(w, uri, digest, http, target=None, date=None):
    """A revisit of `digest`, naming its original's URL when `target` is given (and its date
    never), made at `date` when given (else now)."""
    record = w.create_revisit_record(uri, digest, target or "x", "2000-01-01T00:00:00Z",
                                     http_headers=http)
    if date:
        record.rec_headers.replace_header("WARC-Date", date)
    record.rec_headers.remove_header("WARC-Refers-To-Date")
    if target is None:
        record.rec_headers.remove_header("WARC-Refers-To-Target-URI")
    return record


def many():
    with open(os.path.join(OUT, "many.warc.gz"), "wb") as f:
        w = WARCWriter(f, gzip=True, warc_version="1.1")
        for i in range(400):
            response(w, "http://example.org/many/%d" % i,
                     b"<html><title>Note %d</title>harbour note %d</html>" % (i, i * 7),
                     [("Content-Type", "text/html")])


def replay():
    with open(os.path.join(OUT, "replay.warc.gz"), "wb") as f:
        w = WARCWriter(f, gzip=True, warc_version="1.1")
        page = response(w, "http://example.org/page", PAGE,
                        [("Content-Type", "text/html"), ("X-Archived", "yes")],
                        warc_headers={"WARC-Date": "2020-01-01T00:00:00Z"})
        response(w, "http://example.org/chunked", chunked(CHUNKED),
                 [("Content-Type", "text/html"), ("Transfer-Encoding", "chunked")],
                 warc_headers={"WARC-Date": "2020-01-02T00:00:00Z"})
        response(w, "http://example.org/coded", gzip.compress(CODED),
                 [("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", "gzip")],
                 warc_headers={"WARC-Date": "2020-01-03T00:00:00Z"})
        response(w, "http://example.org/missing", b"not here\n",
                 [("Content-Type", "text/plain")], status="404 Not Found",
                 warc_headers={"WARC-Date": "2020-01-04T00:00:00Z"})
        w.write_record(w.create_warc_record(
            "http://example.org/notes.txt", "resource",
            payload=io.BytesIO(b"resource notes about samphire\n"),
            warc_content_type="text/plain; charset=utf-8",
            warc_headers_dict={"WARC-Date": "2020-01-05T00:00:00Z"}))
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        again = w.create_revisit_record(
            "http://example.org/page", page.rec_headers.get_header("WARC-Payload-Digest"),
            "http://example.org/page", "2020-01-01T00:00:00Z", http_headers=http)
        again.rec_headers.replace_header("WARC-Date", "2021-01-01T00:00:00Z")
        w.write_record(again)


def crate_xml(status):
    """A CRATE as the oai_crate DIDL holds it: JHOVE with its verdict, and md5."""
    return ('<didl:DIDL xmlns:didl="urn:mpeg:mpeg21:2002:02-DIDL-NS" '
            'xmlns:crate="urn:modoai:crate:2026"><didl:Item><didl:Descriptor><didl:Statement>'
            '<crate:plugin label="jhove" version="Jhove (Rel. 1.28.0, 2023-07-15)" status="ok">'
            '<crate:output encoding="xml"><jhove><repInfo><status>%s</status></repInfo></jhove>'
            '</crate:output></crate:plugin></didl:Statement></didl:Descriptor>'
            '<didl:Descriptor><didl:Statement><crate:plugin label="md5" version="modoai 0.1.0" '
            'status="ok"><crate:output encoding="text">0cc175b9c0f1b6a831c399e269772661'
            '</crate:output></crate:plugin></didl:Statement></didl:Descriptor>'
            '</didl:Item></didl:DIDL>' % status).encode()


def metadata_record(w, uri, body, content_type, headers):
    return w.create_warc_record(uri, "metadata", payload=io.BytesIO(body),
                                warc_content_type=content_type, warc_headers_dict=headers)


def metadata():
    with open(os.path.join(OUT, "meta.warc.gz"), "wb") as f:
        w = WARCWriter(f, gzip=True, warc_version="1.1")
        after = response(w, "http://example.org/crate-after", PAGE, [("Content-Type", "text/html")])
        w.write_record(metadata_record(
            w, "http://example.org/crate-after", crate_xml("Well-Formed and valid"),
            "application/xml",
            {"WARC-Refers-To": after.rec_headers.get_header("WARC-Record-ID")}))
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        before = w.create_warc_record("http://example.org/crate-before", "response",
                                      payload=io.BytesIO(CODED), http_headers=http)
        w.write_record(metadata_record(
            w, "http://example.org/crate-before", crate_xml("Not well-formed"),
            "application/xml",
            {"WARC-Concurrent-To": before.rec_headers.get_header("WARC-Record-ID")}))
        w.write_record(before)
        crawled = response(w, "http://example.org/crawled", CHUNKED,
                           [("Content-Type", "text/html")])
        request = StatusAndHeaders("GET /crawled HTTP/1.1", [("Host", "example.org")],
                                   is_http_request=True)
        w.write_record(w.create_warc_record(
            "http://example.org/crawled", "request", payload=io.BytesIO(b""),
            http_headers=request,
            warc_headers_dict={"WARC-Concurrent-To":
                               crawled.rec_headers.get_header("WARC-Record-ID")}))
        w.write_record(metadata_record(
            w, "http://example.org/crawled",
            b"via: http://example.org/\r\nhopsFromSeed: L\r\n"
            b"outlink: http://example.org/page L a/@href\r\n",
            "application/warc-fields",
            {"WARC-Concurrent-To": crawled.rec_headers.get_header("WARC-Record-ID")}))


def agnostic():
    with open(os.path.join(OUT, "agnostic.warc.gz"), "wb") as f:
        w = WARCWriter(f, gzip=True, warc_version="1.1")
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        response(w, "http://example.org/page", PAGE, [("Content-Type", "text/html")])
        w.write_record(revisit(w, "http://mirror.example.net/page", sha1(PAGE), http))


{"first": first, "second": second, "many": many, "replay": replay,
 "metadata": metadata, "agnostic": agnostic}[PART]()
