"""Shared helpers for the Python test oracles in tests/python/.

Import this module before anything from ``oaipmh`` (pyoai): it installs a compatibility shim.
pyoai 2.5.x's server decodes resumption tokens with ``cgi.parse_qs``, which
Python 3.8 removed (every token request then fails with HTTP 500), and Python 3.13 removed the whole
``cgi`` module. ``urllib.parse.parse_qs`` has the same signature, and its strict mode still raises
ValueError, which pyoai maps to badResumptionToken.
"""

import json
import sys
import types
import urllib.parse

try:
    import cgi  # noqa: F401  (deprecated; gone in Python >= 3.13)
except ImportError:
    cgi = types.ModuleType("cgi")
    sys.modules["cgi"] = cgi
if not hasattr(cgi, "parse_qs"):  # gone since Python 3.8
    cgi.parse_qs = urllib.parse.parse_qs

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
OAI_XSD = "http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd"
OAI_DC_NS = "http://www.openarchives.org/OAI/2.0/oai_dc/"
OAI_DC_XSD = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd"
DC_NS = "http://purl.org/dc/elements/1.1/"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
DIDL_NS = "urn:mpeg:mpeg21:2002:02-DIDL-NS"


def oai(tag):
    """Clark name of an element in the OAI-PMH namespace, for lxml."""
    return "{%s}%s" % (OAI_NS, tag)


def harvest_args(prog, description):
    """Parse the common harvester CLI: BASEURL PREFIX [--set S]."""
    import argparse

    ap = argparse.ArgumentParser(prog=prog, description=description)
    ap.add_argument("baseurl", help="OAI-PMH base URL, e.g. http://127.0.0.1:8765/oai")
    ap.add_argument("prefix", help="metadataPrefix, e.g. oai_dc or oai_didl")
    ap.add_argument("--set", dest="set_spec", default=None, help="setSpec to harvest")
    return ap.parse_args()


def datestamp_text(value):
    """Render a datestamp as the server sent it (str) or, for a datetime, as UTC seconds."""
    if hasattr(value, "strftime"):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    return str(value)


def emit(result):
    """Print the harvest result as one JSON object on stdout (identifiers sorted)."""
    result["identifiers"] = sorted(result.get("identifiers", []))
    json.dump(result, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


def run_main(main):
    """Run main(); on any exception print it on stderr and exit 1."""
    try:
        main()
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - the oracle must never pass silently
        print("error: %s: %s" % (type(exc).__name__, exc), file=sys.stderr)
        sys.exit(1)
