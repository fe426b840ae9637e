"""Harvest a whole list with Sickle 0.7.0 (peer harvester used as a test oracle).

    .venv/bin/python tests/python/harvest_sickle.py BASEURL PREFIX [--set S]

Sends ListRecords (GET) and follows every resumptionToken, with
Sickle(url, max_retries=3, default_retry_after=1, timeout=60). Prints one JSON object on stdout:

    {"harvester": "sickle 0.7.0", "verb": "ListRecords", "prefix": ..., "set": ... | null,
     "records": N, "identifiers": [...sorted, unique...], "pages": P,
     "datestamps": {id: datestamp as sent}, "deleted": D, "duplicates": K, "noRecordsMatch": bool}

records counts every record received (duplicates included); pages counts HTTP page requests that
returned a page. noRecordsMatch from the server gives records 0 and exit 0. Any other failure (HTTP
error after retries, OAI error, broken XML) exits 1 with the message on stderr.

Sickle's lxml parser uses recover=True (silently drops broken XML) and no huge_tree (libxml2 then
refuses text nodes over 10 MB that it assembles from pieces, e.g. a large Base64 DIDL resource with an
entity or split across reads; with recover=True the rest of the page is lost). As an oracle it must be
loud and must parse large records, so this script swaps in recover=False and huge_tree=True.
"""

import sys

sys.dont_write_bytecode = True  # keep tests/python free of __pycache__

from importlib.metadata import version

from lxml import etree

import oai_common
import sickle.response
from sickle import Sickle
from sickle.oaiexceptions import NoRecordsMatch

sickle.response.XMLParser = etree.XMLParser(
    remove_blank_text=True, recover=False, resolve_entities=False, huge_tree=True)


class CountingSickle(Sickle):
    """Sickle that counts the pages it fetched."""

    pages = 0

    def harvest(self, **kwargs):
        response = super().harvest(**kwargs)
        self.pages += 1
        return response


def main():
    args = oai_common.harvest_args("harvest_sickle.py", "Harvest a list with Sickle.")
    client = CountingSickle(args.baseurl, max_retries=3, default_retry_after=1, timeout=60)
    params = {"metadataPrefix": args.prefix, "ignore_deleted": False}
    if args.set_spec is not None:
        params["set"] = args.set_spec
    result = {"harvester": "sickle " + version("sickle"), "verb": "ListRecords",
              "prefix": args.prefix, "set": args.set_spec, "records": 0, "identifiers": [],
              "datestamps": {}, "deleted": 0, "duplicates": 0, "noRecordsMatch": False}
    try:
        for record in client.ListRecords(**params):
            ident = record.header.identifier
            if ident in result["datestamps"]:
                result["duplicates"] += 1
            result["records"] += 1
            result["datestamps"][ident] = record.header.datestamp
            result["deleted"] += int(bool(record.header.deleted))
    except NoRecordsMatch:
        if result["records"]:
            raise  # noRecordsMatch in the middle of a list is a server bug
        result["noRecordsMatch"] = True
    result["identifiers"] = list(result["datestamps"])
    result["pages"] = client.pages
    oai_common.emit(result)


if __name__ == "__main__":
    oai_common.run_main(main)
