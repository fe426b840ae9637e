"""Harvest a whole list with the pyoai 2.5.0 client (peer harvester used as a test oracle).

    .venv/bin/python tests/python/harvest_pyoai.py BASEURL PREFIX [--set S] [--get]

Uses oaipmh.client.Client with a MetadataRegistry: oai_dc gets pyoai's own oai_dc_reader; any other
prefix (e.g. oai_didl) gets a reader that returns the raw <metadata> element, so every prefix is
harvested with ListRecords. pyoai follows every resumptionToken. It sends POST by default (as pyoai
does); --get forces GET. Prints one JSON object on stdout:

    {"harvester": "pyoai 2.5.0", "verb": "ListRecords", "method": "POST"|"GET", "prefix": ...,
     "set": ... | null, "reader": "oai_dc_reader"|"raw-element", "records": N,
     "identifiers": [...sorted, unique...], "pages": P, "datestamps": {id: datestamp as sent},
     "deleted": D, "duplicates": K, "noRecordsMatch": bool}

Datestamps are the text of <datestamp> as sent (pyoai itself turns them into datetimes).
noRecordsMatch gives records 0 and exit 0; any other failure exits 1 with the message on stderr.
pyoai parses with plain etree.XML, whose libxml2 limits may refuse text nodes over 10 MB; this script
parses with huge_tree=True so that large DIDL records (Base64 file content) work.
pyoai's client needs lxml < 5 (infrae/pyoai#59): scripts/setup pins lxml 4.9.4.
"""

import sys

sys.dont_write_bytecode = True  # keep tests/python free of __pycache__

import argparse
from importlib.metadata import version

from lxml import etree

import oai_common  # noqa: F401  (the cgi shim; must come before oaipmh)
from oaipmh import error, metadata
from oaipmh.client import Client

PARSER = etree.XMLParser(huge_tree=True, resolve_entities=False)


class CountingClient(Client):
    """pyoai Client that counts pages and parses large documents."""

    pages = 0

    def makeRequest(self, **kw):
        text = super().makeRequest(**kw)
        self.pages += 1
        return text

    def parse(self, xml):
        if hasattr(xml, "encode"):
            xml = xml.encode("utf-8")
        return etree.XML(xml, parser=PARSER)


def raw_element_reader(element):
    """Reader for formats pyoai has no reader for: the <metadata> element itself."""
    return element


def main():
    ap = argparse.ArgumentParser(prog="harvest_pyoai.py", description="Harvest with pyoai.")
    ap.add_argument("baseurl")
    ap.add_argument("prefix")
    ap.add_argument("--set", dest="set_spec", default=None)
    ap.add_argument("--get", action="store_true", help="send GET instead of pyoai's default POST")
    args = ap.parse_args()

    registry = metadata.MetadataRegistry()
    if args.prefix == "oai_dc":
        registry.registerReader("oai_dc", metadata.oai_dc_reader)
        reader = "oai_dc_reader"
    else:
        registry.registerReader(args.prefix, raw_element_reader)
        reader = "raw-element"
    client = CountingClient(args.baseurl, registry, force_http_get=args.get)
    kw = {"metadataPrefix": args.prefix}
    if args.set_spec is not None:
        kw["set"] = args.set_spec
    result = {"harvester": "pyoai " + version("pyoai"), "verb": "ListRecords",
              "method": "GET" if args.get else "POST", "prefix": args.prefix,
              "set": args.set_spec, "reader": reader, "records": 0, "datestamps": {},
              "deleted": 0, "duplicates": 0, "noRecordsMatch": False}
    try:
        for header, _metadata, _about in client.listRecords(**kw):
            ident = header.identifier()
            if ident in result["datestamps"]:
                result["duplicates"] += 1
            result["records"] += 1
            result["datestamps"][ident] = raw_datestamp(header)
            result["deleted"] += int(bool(header.isDeleted()))
    except error.NoRecordsMatchError:
        if result["records"]:
            raise
        result["noRecordsMatch"] = True
    result["identifiers"] = list(result["datestamps"])
    result["pages"] = client.pages
    oai_common.emit(result)


def raw_datestamp(header):
    node = header.element()
    if node is not None:
        found = node.find(oai_common.oai("datestamp"))
        if found is not None and found.text is not None:
            return found.text.strip()
    return oai_common.datestamp_text(header.datestamp())


if __name__ == "__main__":
    oai_common.run_main(main)
