"""Oracle OAI-PMH provider: pyoai's Server behind a small WSGI wrapper.

    .venv/bin/python tests/python/mini_pyoai.py PORT N

Serves N oai_dc records (oai:example.org:0 .. N-1, datestamps 37 minutes apart from 2020-01-01,
seconds granularity, no sets) at http://127.0.0.1:PORT/oai, 100 records per page, over GET and POST.
The official validator rates it COMPLIANT. It never emits cursor, completeListSize or an empty final
resumptionToken, so it fails some of oai_validator.py's strict extras; see that script's header.
Runs until killed.
"""

import sys

sys.dont_write_bytecode = True  # keep tests/python free of __pycache__

import datetime as dt
import urllib.parse
from wsgiref.simple_server import WSGIRequestHandler, make_server

import oai_common  # noqa: F401  (the cgi shim; must come before oaipmh)
from oaipmh import common, error, metadata, server

PORT, N = int(sys.argv[1]), int(sys.argv[2])
BASE = f"http://127.0.0.1:{PORT}/oai"
T0 = dt.datetime(2020, 1, 1)
RECS = [(f"oai:example.org:{i}", T0 + dt.timedelta(minutes=37 * i)) for i in range(N)]


class Backend:
    def identify(self):
        return common.Identify("oracle", BASE, "2.0", ["oai@example.org"], T0, "no",
                               "YYYY-MM-DDThh:mm:ssZ", ["identity"], toolkit_description=False)

    def listMetadataFormats(self, identifier=None):
        if identifier is not None and identifier not in IDS:
            raise error.IdDoesNotExistError(identifier)
        return [("oai_dc", "http://www.openarchives.org/OAI/2.0/oai_dc.xsd",
                 "http://www.openarchives.org/OAI/2.0/oai_dc/")]

    def listSets(self):
        raise error.NoSetHierarchyError("no sets")

    def _recs(self, metadataPrefix, set=None, from_=None, until=None):
        if metadataPrefix != "oai_dc":
            raise error.CannotDisseminateFormatError(metadataPrefix)
        if set is not None:
            raise error.NoSetHierarchyError("no sets")
        out = [(common.Header(None, i, d, [], False),
                common.Metadata(None, {"title": [f"record {i}"], "identifier": [i]}), None)
               for i, d in RECS if (from_ is None or d >= from_) and (until is None or d <= until)]
        if not out:
            raise error.NoRecordsMatchError("empty")
        return out

    def listRecords(self, **kw):
        return self._recs(**kw)

    def listIdentifiers(self, **kw):
        return [h for h, _, _ in self._recs(**kw)]

    def getRecord(self, metadataPrefix, identifier):
        for rec in self._recs(metadataPrefix):
            if rec[0].identifier() == identifier:
                return rec
        raise error.IdDoesNotExistError(identifier)


IDS = {i for i, _ in RECS}
reg = metadata.MetadataRegistry()
reg.registerWriter("oai_dc", server.oai_dc_writer)
oai = server.Server(Backend(), reg, resumption_batch_size=100)


def app(environ, start_response):
    if environ.get("PATH_INFO", "") != "/oai":
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found\n"]
    qs = environ.get("QUERY_STRING", "")
    if environ["REQUEST_METHOD"] == "POST":
        qs = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)).decode()
    pairs = urllib.parse.parse_qsl(qs, keep_blank_values=True)
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):  # pyoai takes a dict, so repeats are caught here
        exc = error.BadVerbError if keys.count("verb") > 1 else error.BadArgumentError
        body = oai.handleException({}, (exc, exc("repeated argument"), None))
    else:
        body = oai.handleRequest(dict(pairs))
    start_response("200 OK", [("Content-Type", "text/xml; charset=utf-8")])
    return [body]


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):  # no access log on stderr
        pass


make_server("127.0.0.1", PORT, app, handler_class=QuietHandler).serve_forever()
