"""Writes one WARC file per case the reader of any web archive must handle, with warcio (the
reference writer): python cases.py OUT_DIR. Damaged copies are made from warcio's output, so the
records around the damage are still warcio's. Run by archive/tests/any/written.rs."""

import gzip
import hashlib
import base64
import io
import os
import sys

import brotli
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

OUT = sys.argv[1]
HTML = b"<html><head><title>Hello</title></head><body>Hello archived world</body></html>\n" * 40


def sha1(data):
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def response(writer, uri, body, headers, warc_headers=None):
    http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
    record = writer.create_warc_record(
        uri, "response", payload=io.BytesIO(body), http_headers=http,
        warc_headers_dict=warc_headers or {})
    writer.write_record(record)
    return record


def chunked(body, size=100):
    out = b""
    for i in range(0, len(body), size):
        part = body[i:i + size]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def write(name, version="1.0", gz=True):
    path = os.path.join(OUT, name)
    f = open(path, "wb")
    return f, WARCWriter(f, gzip=gz, warc_version=version)


def cases():
    # Chunked transfer-coding: the payload digest over the chunked bytes (warcio's reading),
    # and, patched in after warcio wrote it, over the body without the coding (the reading of
    # other producers).
    f, w = write("chunked.warc", gz=False)
    coded = chunked(HTML)
    for uri in ("http://example.org/chunked", "http://example.org/dechunked"):
        response(w, uri, coded,
                 [("Content-Type", "text/html"), ("Transfer-Encoding", "chunked")])
    f.close()
    path = os.path.join(OUT, "chunked.warc")
    data = open(path, "rb").read()
    second = data.index(b"WARC-Payload-Digest: ", data.index(b"/dechunked") - 600)
    start = second + len(b"WARC-Payload-Digest: ")
    data = data[:start] + sha1(HTML).encode() + data[start + 37:]
    open(path, "wb").write(data)

    # Content-codings: gzip and br, the first also chunked.
    f, w = write("codings.warc.gz", "1.1")
    response(w, "http://example.org/gzip", gzip.compress(HTML),
             [("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", "gzip")])
    response(w, "http://example.org/gzip-chunked", chunked(gzip.compress(HTML)),
             [("Content-Type", "text/html"), ("Content-Encoding", "gzip"),
              ("Transfer-Encoding", "chunked")])
    response(w, "http://example.org/br", brotli.compress(HTML),
             [("Content-Type", "text/html"), ("Content-Encoding", "br")])
    f.close()

    # Revisits: WARC 1.0 and 1.1 profile URIs, URL-agnostic, server-not-modified.
    for version in ("1.0", "1.1"):
        f, w = write("revisits-%s.warc.gz" % version, version)
        orig = response(w, "http://example.org/page", HTML, [("Content-Type", "text/html")])
        digest = orig.rec_headers.get_header("WARC-Payload-Digest")
        date = orig.rec_headers.get_header("WARC-Date")
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        w.write_record(w.create_revisit_record(
            "http://example.org/page", digest, "http://example.org/page", date, http_headers=http))
        w.write_record(w.create_revisit_record(
            "http://example.org/other-url", digest, "http://example.org/page", date,
            http_headers=http))
        not_modified = w.create_revisit_record(
            "http://example.org/page", digest, "http://example.org/page", date,
            http_headers=StatusAndHeaders("304 Not Modified", [], protocol="HTTP/1.1"))
        profile = "http://netpreserve.org/warc/%s/revisit/server-not-modified" % version
        not_modified.rec_headers.replace_header("WARC-Profile", profile)
        w.write_record(not_modified)
        f.close()

    # A resource, a metadata record and a warcinfo, uncompressed and gzipped, WARC 1.0 and 1.1.
    for name, version, gz in [("plain-1.0.warc", "1.0", False), ("plain-1.1.warc", "1.1", False),
                              ("records.warc.gz", "1.1", True)]:
        f, w = write(name, version, gz)
        w.write_record(w.create_warcinfo_record(name, {
            "software": "warcio", "operator": "modoai tests", "isPartOf": "cases"}))
        for i in range(12):
            response(w, "http://example.org/p%d" % i, HTML + b"%d" % i,
                     [("Content-Type", "text/html")])
            w.write_record(w.create_warc_record(
                "http://example.org/r%d.txt" % i, "resource",
                payload=io.BytesIO(b"plain text %d\n" % i),
                warc_content_type="text/plain"))
        w.write_record(w.create_warc_record(
            "http://example.org/p0", "metadata", payload=io.BytesIO(b"via: http://example.org/\r\n"),
            warc_content_type="application/warc-fields"))
        f.close()

    # One gzip stream for the whole file.
    with open(os.path.join(OUT, "plain-1.1.warc"), "rb") as plain:
        with open(os.path.join(OUT, "whole.warc.gz"), "wb") as out:
            out.write(gzip.compress(plain.read()))

    # A record that says it is truncated.
    f, w = write("truncated.warc.gz", "1.1")
    response(w, "http://example.org/big", HTML[:100], [("Content-Type", "text/html")],
             {"WARC-Truncated": "length"})
    f.close()

    # Damage: a changed payload byte, garbage between records, a damaged gzip member.
    data = open(os.path.join(OUT, "plain-1.0.warc"), "rb").read()
    at = data.index(b"Hello archived world")
    open(os.path.join(OUT, "mismatch.warc"), "wb").write(data[:at] + b"J" + data[at + 1:])
    second = data.index(b"WARC/1.0\r\n", 10)
    garbage = b"garbage between records\r\nWARC/x no record\r\n" + bytes(range(256))
    open(os.path.join(OUT, "garbage.warc"), "wb").write(data[:second] + garbage + data[second:])
    gz = open(os.path.join(OUT, "records.warc.gz"), "rb").read()
    members = [i for i in range(len(gz)) if gz[i:i + 3] == b"\x1f\x8b\x08"]
    third, fourth = members[3], members[4]
    damaged = gz[:third + 30] + b"\xff" * 20 + gz[third + 50:]
    open(os.path.join(OUT, "bad-member.warc.gz"), "wb").write(damaged)
    open(os.path.join(OUT, "garbage.warc.gz"), "wb").write(
        gz[:fourth] + b"\x1f\x8b garbage \x00" * 3 + gz[fourth:])


cases()
