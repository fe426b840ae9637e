"""Strict, independent OAI-PMH 2.0 conformance check for a data provider.

    .venv/bin/python tests/python/oai_validator.py BASEURL [--json OUT] [--official-only]
        [--schemas DIR] [--timeout SECONDS] [--max-list-pages N] [--save-responses DIR]

Exit 0 only when the provider is COMPLIANT (no FAIL line). The output imitates the official
validator's: "### section" titles, then REQUEST:/PASS:/FAIL:/WARN:/NOTE: lines, and as last line
"## Validation status of data provider BASEURL is COMPLIANT" (or FAILED).
--json OUT also writes every log entry, the counts and both statuses as JSON.
Standard library plus lxml only; HTTP with urllib; XSD checks with xmllint (libxml2-utils).

OFFICIAL CHECKS (a re-implementation of HTTP::OAIPMH::Validator 1.07, zimeon/oaipmh-validator, as
run by examples/oaipmh-validator.pl), in its order:
  1. Identify: HTTP success (301 FAILs), root OAI-PMH, an Identify element, adminEmail (mailto: WARNs;
     @localhost or not matching ^\\w[\\w\\-\\.]+@[a-zA-Z0-9\\-\\.]+\\.[a-z]{2,}$ FAILs and aborts),
     protocolVersion 2.0 (else abort), baseURL equal character for character, exactly one granularity
     of the two legal values, earliestDatestamp at that granularity, at most one oai-identifier
     description with a valid repositoryIdentifier.
  2. ListSets: setSpecs or a noSetHierarchy error; the first set becomes the example set.
  3. ListIdentifiers metadataPrefix=oai_dc (&set=example): one non-deleted identifier = example id.
  4. ListMetadataFormats identifier=example: at least one format; oai_dc among them.
  5. GetRecord example/oai_dc: a datestamp at the Identify granularity; the example set or a
     descendant (set:...) in the header.
  6. ListRecords from=until=<that datestamp> (following tokens) must include the example record.
  7. The thirteen error requests with their expected codes (badVerb, badArgument, idDoesNotExist,
     badResumptionToken), each response well-formed (identifier=invalid"id).
  8. The two v2 errors: mixed from/until granularity -> badArgument; until = earliestDatestamp minus
     one year -> noRecordsMatch.
  9. POST Identify and POST GetRecord give the verb's element.
 10. Resumption: unfiltered ListRecords oai_dc; at most one resumptionToken element, not empty on the
     first page, cursor 0 if present; re-sending the token gives no error.
 11. On every response: HTTP 200 after 503/302 handling (503 needs a numeric Retry-After <= 3600,
     slept +1 s; at most 5 tries in a row; 301 FAILs), size <= 100,000,000 bytes, well-formed XML,
     root OAI-PMH in the OAI namespace, xsi:schemaLocation pairing the OAI namespace with
     OAI-PMH.xsd, responseDate YYYY-MM-DDThh:mm:ssZ (no fractions), plus Content-Type text/xml.
  Deviation: the official set fallback in step 3 never runs (its loop does not advance); this one
  tries the other sets, then no set, and WARNs that the official run would abort there.

STRICT EXTRAS (skipped with --official-only; the official validator does none of these):
  S1 every response validates with xmllint --noout --nonet --schema DIR/modoai-all.xsd when DIR has
     it (the official schemas plus those of modoai's own elements, which Identify's description
     holds under the OAI schema's strict wildcard), else DIR/oai-pmh-all.xsd;
  S2 <request>: content is the base URL; no attributes for badVerb/badArgument; on success the
     attributes equal the sent arguments exactly; for other errors any echo matches what was sent;
     a successful response's element is named after the verb; Content-Type charset and XML
     declaration are UTF-8; the schemaLocation attribute is exactly the one pair;
  S3 every list followed to the end: ListSets, and ListIdentifiers + ListRecords for every format of
     ListMetadataFormats: at most one token per page, no empty token on a page that was not asked for
     with a token; the last page of a multi-page list carries an empty resumptionToken, a one-page
     list none; cursor = items sent before the page; completeListSize constant and equal to the
     total; no token loop, no duplicate identifier; datestamps at the repository granularity and not
     before earliestDatestamp; no deleted status when deletedRecord is "no"; deleted records carry no
     metadata; metadata in the format's namespace; ListRecords and ListIdentifiers list the same ids;
     re-sending a token returns the same page (§3.5.1); oai_dc records pair the oai_dc namespace with
     oai_dc.xsd in xsi:schemaLocation; ListIdentifiers with the example set gives only that set or
     its descendants;
  S4 error matrix: from > until, bad date forms, repository-finer granularity, repeated verb ->
     badVerb, other repeated argument -> badArgument, a wrongly cased verb, unknown argument, empty
     value, Identify&test=test, ListIdentifiers resumptionToken+metadataPrefix -> badArgument, illegal
     set/prefix syntax -> badArgument, unknown legal set -> noRecordsMatch, unknown prefix ->
     cannotDisseminateFormat, unknown identifier -> idDoesNotExist, ListSets junk token ->
     badResumptionToken (a repository without sets may answer noSetHierarchy to the set and ListSets
     cases);
  S5 project policy (a day-granularity until covers the whole day): from=until=<day of the example datestamp> includes the
     example record; advertised compressions are honoured and none is sent unasked.
The mini pyoai oracle (mini_pyoai.py) passes every official check (38 PASS, 25 requests, as the real
validator) and FAILs 9 strict extras: no empty final token (S3, twice); oai_dc:dc pairs the DC namespace
with oai_dc.xsd (S3); from > until gives noRecordsMatch, an empty or illegal metadataPrefix gives
cannotDisseminateFormat, from=2002-2-5 is accepted (S4); it echoes dates normalised, e.g.
from="2002-02-05T00:00:00Z" for from=2002-2-5 (S2). A strict mock provider passes all of them.
"""

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib

from lxml import etree

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
OAI_XSD = "http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd"
OAI_DC_NS = "http://www.openarchives.org/OAI/2.0/oai_dc/"
OAI_DC_XSD = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd"
XSI_LOC = "{http://www.w3.org/2001/XMLSchema-instance}schemaLocation"
OAI_ID_NS2 = "http://www.openarchives.org/OAI/2.0/oai-identifier"
OAI_ID_NS1 = "http://www.openarchives.org/OAI/1.1/oai-identifier"
MAX_SIZE = 100_000_000
MAX_TRIES = 5
DATE_RE = re.compile(r"\d{4}-\d\d-\d\d")
SECONDS_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
EMAIL_RE = re.compile(r"^\w[\w\-\.]+@[a-zA-Z0-9\-\.]+\.[a-z]{2,}$")
REPO_ID_RE = re.compile(r"^[a-z][a-z0-9\-]*(\.[a-z][a-z0-9\-]+)+$", re.I)
SETSPEC_RE = re.compile(r"([A-Za-z0-9\-_\.!~\*'\(\)])+(:[A-Za-z0-9\-_\.!~\*'\(\)]+)*")
ERROR_CODES = {"badArgument", "badResumptionToken", "badVerb", "cannotDisseminateFormat",
               "idDoesNotExist", "noMetadataFormats", "noRecordsMatch", "noSetHierarchy"}
PARSER = etree.XMLParser(huge_tree=True, resolve_entities=False, no_network=True)


def q(name):
    return "{%s}%s" % (OAI_NS, name)


class Abort(Exception):
    """The run cannot continue (as the official validator's abort())."""


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are handled by hand, as the official validator does (requests_redirectable [])."""

    def redirect_request(self, *args, **kwargs):
        return None


class Resp:
    """One HTTP exchange and what was parsed out of it."""

    def __init__(self, label, method, pairs, raw_query):
        self.label, self.method, self.pairs, self.raw_query = label, method, pairs, raw_query
        self.status, self.headers, self.body, self.root, self.parse_error = 0, {}, b"", None, None
        self.file = None

    @property
    def ok(self):
        return self.status == 200 and self.root is not None

    def find(self, path):
        return self.root.find(path) if self.root is not None else None

    def findall(self, path):
        return self.root.findall(path) if self.root is not None else []

    def error_codes(self):
        return [e.get("code") or "no-code-attribute" for e in self.findall(q("error"))]

    def list_element(self):
        """The verb element (second child after responseDate and request), if any."""
        if self.root is None:
            return None
        for child in self.root:
            if isinstance(child.tag, str) and child.tag not in (q("responseDate"), q("request")):
                return child
        return None


class Log:
    """PASS/FAIL/WARN/NOTE log printed as the official HTTP::OAIPMH::Log does (markdown)."""

    def __init__(self, out=sys.stdout):
        self.entries, self.out, self.section = [], out, "official"
        self.counts = {"official": {"PASS": 0, "FAIL": 0, "WARN": 0},
                       "strict": {"PASS": 0, "FAIL": 0, "WARN": 0}}

    def _add(self, kind, msg):
        self.entries.append({"type": kind, "section": self.section, "msg": msg})
        if kind in ("PASS", "FAIL", "WARN"):
            self.counts[self.section][kind] += 1
        if kind == "TITLE":
            self.out.write("\n### %s\n\n" % msg)
        else:
            self.out.write("%-8s %s\n" % (kind + ":", msg))
        self.out.flush()

    def start(self, title):
        self._add("TITLE", title)

    def request(self, method, url, content=""):
        self._add("REQUEST", "%s %s%s" % (method, url, (" " + content) if content else ""))

    def note(self, msg):
        self._add("NOTE", msg)

    def passed(self, msg):
        self._add("PASS", msg)

    def fail(self, msg):
        self._add("FAIL", msg)

    def warn(self, msg):
        self._add("WARN", msg)

    def num_fail(self, section=None):
        if section:
            return self.counts[section]["FAIL"]
        return sum(c["FAIL"] for c in self.counts.values())


def enc(value):
    return urllib.parse.quote(value, safe="")


def query_of(pairs):
    return "&".join(enc(k) + "=" + enc(v) for k, v in pairs)


def granularity_of(datestamp):
    """'days' / 'seconds' for a valid datestamp (fractions allowed, as officially), else None."""
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)", datestamp)
    if m:
        return "days" if 1 <= int(m[2]) <= 12 and 1 <= int(m[3]) <= 31 else None
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z", datestamp)
    if m and 1 <= int(m[2]) <= 12 and 1 <= int(m[3]) <= 31 and int(m[4]) < 24 and int(m[5]) < 60:
        return "seconds"
    return None


def one_year_before(date):
    year = date[:4]
    return "%04d" % (int(year) - 1) + date[4:] if year.isdigit() else date


def text_of(el):
    return "" if el is None or el.text is None else el.text


class Validator:
    def __init__(self, base_url, schemas, official_only=False, timeout=60.0, max_pages=0):
        self.base_url, self.schemas, self.official_only = base_url, schemas, official_only
        self.timeout, self.max_pages = timeout, max_pages
        self.log = Log()
        self.opener = urllib.request.build_opener(NoRedirect)
        self.responses = []
        self.tmpdir = tempfile.mkdtemp(prefix="oai_validator.")
        self.granularity = "days"
        self.earliest = None
        self.deleted_record = None
        self.compression = []
        self.set_names = []
        self.example_set = ""
        self.example_id = None
        self.example_prefix = "oai_dc"
        self.example_datestamp = None
        self.status = "unknown"
        self.uses_503 = False
        self.strict_ran = False

    # ------------------------------------------------------------------ HTTP

    def request(self, pairs=None, raw=None, post=False, label="", headers=None, envelope=True,
                verbose=False):
        """GET (or POST) base_url with the arguments; handles 503/302 as the official validator."""
        pairs = list(pairs or [])
        query = raw if raw is not None else query_of(pairs)
        if raw is not None:
            pairs = urllib.parse.parse_qsl(raw, keep_blank_values=True)
        resp = Resp(label or (("POST " if post else "") + query), "POST" if post else "GET",
                    pairs, query)
        url = self.base_url if post else self.base_url + "?" + query
        data = query.encode("ascii") if post else None
        self.log.request(resp.method, url, query if post else "")
        for tries in range(1, MAX_TRIES + 2):
            if tries > MAX_TRIES:
                raise Abort("Too many 503 Retry-After or 302 Redirect responses received in a row")
            status, hdrs, body = self._fetch(url, data, headers or {})
            if status == 503:
                self.uses_503 = True
                self._sleep_503(hdrs)
            elif status == 302:
                url = self._redirect_target(hdrs)
                if data is not None and "?" in url:
                    data = None
            else:
                break
        resp.status, resp.headers, resp.body = status, hdrs, body
        resp.asked_encoding = (headers or {}).get("Accept-Encoding")
        self._decode(resp)
        self._parse(resp)
        self._remember(resp)
        if envelope:
            self.check_envelope(resp, verbose)
        return resp

    def _fetch(self, url, data, headers):
        req = urllib.request.Request(url, data=data, headers={"User-Agent": "modoai-oai-validator",
                                                              **headers})
        if data is not None:
            req.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            with self.opener.open(req, timeout=self.timeout) as r:
                return r.status, {k.lower(): v for k, v in r.headers.items()}, self._read(r, url)
        except urllib.error.HTTPError as e:
            hdrs = {k.lower(): v for k, v in (e.headers or {}).items()}
            return e.code, hdrs, self._read(e, url)
        except (urllib.error.URLError, OSError) as e:
            raise Abort("HTTP request to %s failed: %s" % (url, e))

    def _read(self, r, url):
        body = r.read(MAX_SIZE + 1)
        if len(body) > MAX_SIZE:
            self.log.fail("Response to <%s> exceeds maximum size limit (%d bytes), discarded. "
                          "Split responses with resumptionToken." % (url, MAX_SIZE))
            return b""
        return body

    def _sleep_503(self, hdrs):
        value = hdrs.get("retry-after")
        if value is None:
            self.log.warn("503 response without Retry-After time, will wait 10s")
            time.sleep(10)
        elif not re.fullmatch(r"\d+", value):
            self.log.fail("503 response with bad (non-numeric) Retry-After time '%s', will wait 10s"
                          % value)
            time.sleep(10)
        elif int(value) > 3600:
            raise Abort("503 response with Retry-After > 1hour (3600s), aborting")
        else:
            self.log.note("Status: 503 -- going to sleep for %d seconds." % (int(value) + 1))
            time.sleep(int(value) + 1)

    def _redirect_target(self, hdrs):
        loc = hdrs.get("location", "")
        if loc.startswith("https:"):
            return loc
        if not re.match(r"^http://([^\?&]+)", loc):
            raise Abort("Bad redirect URI specified in 302 response")
        return loc

    def _parse(self, resp):
        if not resp.body:
            resp.parse_error = "empty response body"
            return
        try:
            resp.root = etree.fromstring(resp.body, PARSER)
        except etree.XMLSyntaxError as e:
            resp.parse_error = str(e)

    def _decode(self, resp):
        """Undo a Content-Encoding (only ever asked for by the compression check)."""
        coding = resp.headers.get("content-encoding", "identity").strip().lower()
        resp.encoding = coding
        try:
            if coding == "gzip":
                resp.body = gzip.decompress(resp.body)
            elif coding == "deflate":
                try:
                    resp.body = zlib.decompress(resp.body)
                except zlib.error:
                    resp.body = zlib.decompress(resp.body, -zlib.MAX_WBITS)
        except (OSError, zlib.error, EOFError) as e:
            self.log.fail("Body of %s could not be decoded from Content-Encoding %s: %s"
                          % (resp.label, coding, e))

    def _remember(self, resp):
        """Keep what the end-of-run checks need; save the body for xmllint."""
        resp.summary = None
        if resp.root is not None and resp.root.tag == q("OAI-PMH"):
            req = resp.root.find(q("request"))
            verb_el = resp.list_element()
            resp.summary = {
                "request": None if req is None else (text_of(req), dict(req.attrib)),
                "codes": resp.error_codes(),
                "element": None if verb_el is None else etree.QName(verb_el).localname,
                "schemaLocation": resp.root.get(XSI_LOC),
            }
        if resp.body:
            resp.file = os.path.join(self.tmpdir, "%05d.xml" % (len(self.responses) + 1))
            with open(resp.file, "wb") as f:
                f.write(resp.body)
        resp.body_head = resp.body[:200]
        resp.body = None
        self.responses.append(resp)

    # ------------------------------------------------------- every response

    def check_envelope(self, resp, verbose=False):
        """Checks applied to every response (official §11, plus Content-Type)."""
        log = self.log
        if resp.status == 301:
            log.fail("HTTP 301 'Moved Permanently' for %s: not widely supported by harvesters; "
                     "serve the base URL directly (302 may be used)" % resp.label)
        elif resp.status != 200:
            log.fail("HTTP status %d (expected 200) for %s" % (resp.status, resp.label))
        ctype = resp.headers.get("content-type", "")
        if resp.status == 200 and ctype.split(";")[0].strip().lower() != "text/xml":
            log.fail("Content-Type '%s' for %s, expected text/xml" % (ctype, resp.label))
        if resp.root is None:
            if resp.status == 200:
                log.fail("Malformed response to %s: %s. The most common reason is illegal bytes "
                         "in UTF-8 streams." % (resp.label, resp.parse_error))
            return
        if resp.root.tag != q("OAI-PMH"):
            log.fail("Response to %s does not have an OAI-PMH root element in namespace %s "
                     "(found %s)" % (resp.label, OAI_NS, resp.root.tag))
            return
        self._check_schema_location(resp)
        self._check_response_date(resp, verbose)

    def _check_schema_location(self, resp):
        loc = resp.root.get(XSI_LOC)
        if loc is None:
            self.log.fail("No xsi:schemaLocation attribute on the OAI-PMH element of the response "
                          "to %s, expected \"%s %s\"" % (resp.label, OAI_NS, OAI_XSD))
        elif not re.match(r"^\s?" + re.escape(OAI_NS) + r"\s*" + re.escape(OAI_XSD), loc):
            self.log.fail("Error in pairing OAI namespace with schema location in the response to "
                          "%s: expected \"%s %s\" but got \"%s\"" % (resp.label, OAI_NS, OAI_XSD, loc))

    def _check_response_date(self, resp, verbose):
        date = text_of(resp.find(q("responseDate"))).strip()
        if not date:
            self.log.fail("Failed to extract responseDate from the response to %s" % resp.label)
        elif not SECONDS_RE.fullmatch(date):
            self.log.fail("Bad responseDate of %s in the response to %s, this is not in UTC "
                          "DateTime (YYYY-MM-DDThh:mm:ssZ) format" % (date, resp.label))
        elif verbose:
            self.log.passed("responseDate has correct format: %s" % date)

    def validated(self, verb, pairs):
        """make_request_and_validate: the response, or None after a FAIL if HTTP failed."""
        resp = self.request(pairs, verbose=True)
        if resp.status != 200:
            self.log.fail("Server failed to respond to the %s request (HTTP status %d)"
                          % (verb, resp.status))
            return None
        if resp.root is None:
            self.log.fail("Failed to parse response")
            return None
        return resp

    def is_error(self, resp, details=None):
        details = {} if details is None else details
        for e in resp.findall(q("error")):
            code = e.get("code") or "no-code-attribute"
            if not (e.text or "").strip() and code != "noSetHierarchy":
                self.log.warn("No human readable message included in error element for %s "
                              "error, this is discouraged" % code)
            details[code] = (e.text or "").strip() or "[NO MESSAGE RETURNED]"
        return bool(details)

    # ------------------------------------------------------ official checks

    def run_official(self):
        self.test_identify()
        self.test_list_sets()
        self.test_list_identifiers()
        formats_ok, got_dc, formats = self.test_list_metadata_formats()
        if got_dc:
            self.log.passed("Data provider supports oai_dc metadataPrefix")
        elif formats:
            self.example_prefix = formats[0]
            self.log.fail("Data provider does not support the simple Dublin Core metadata format "
                          "with metadataPrefix oai_dc. Tests that require a metadataPrefix will "
                          "use '%s'" % self.example_prefix)
        else:
            self.log.fail("There are no metadata formats available to use with the GetRecord "
                          "request. The metadataPrefix oai_dc will be used for later tests.")
        self.example_datestamp = self.test_get_record()
        self.test_list_records()
        self.test_expected_errors()
        self.test_expected_v2_errors()
        self.test_post_requests()
        self.test_resumption_tokens()

    def test_identify(self):
        log = self.log
        log.start("Checking Identify response")
        resp = self.request([("verb", "Identify")], envelope=False)
        if resp.status != 200:
            if resp.status == 301:
                log.fail("Identify answered HTTP 301 'Moved Permanently', which is not widely "
                         "supported by harvesters; a 302 may be used for redirection")
            else:
                log.fail("Server at base URL '%s' failed to respond to Identify: HTTP %d"
                         % (self.base_url, resp.status))
            raise Abort("Failed to get Identify response from server at base URL '%s'."
                        % self.base_url)
        self.check_envelope(resp)
        if resp.root is None:
            log.fail("Failed to parse Identify response")
            raise Abort("Failed to parse Identify response")
        if etree.QName(resp.root).localname != "OAI-PMH":
            log.fail("Identify response does not have OAI-PMH as root element!")
            raise Abort("Identify response does not have OAI-PMH as root element!")
        ident = resp.find(q("Identify"))
        if ident is None:
            log.fail("Error response to Identify request!" if resp.error_codes() else
                     "Identify response does not contain <Identify> block.")
            raise Abort("No Identify block in the Identify response")
        self.identify_resp = resp
        self._identify_email(ident)
        self._identify_version(ident)
        self._identify_base_url(ident)
        self._identify_granularity(ident)
        self._identify_earliest(ident)
        self._identify_oai_identifier(ident)
        self.deleted_record = text_of(ident.find(q("deletedRecord"))).strip()
        self.compression = [text_of(c).strip() for c in ident.findall(q("compression"))]

    def _identify_email(self, ident):
        emails = ident.findall(q("adminEmail"))
        if not emails:
            self.log.fail("No adminEmail element!")
            raise Abort("Failed to extract adminEmail, aborting.")
        if not text_of(emails[0]):
            self.log.fail("adminEmail element is empty!")
            raise Abort("Failed to extract adminEmail, aborting.")
        found = []
        for el in emails:
            e = text_of(el)
            if "mailto:" in e:
                e = e.replace("mailto:", "")
                self.log.warn("Stripped mailto: prefix from adminEmail address, this should not "
                              "be included.")
            if e.endswith("@localhost"):
                self.log.fail("adminEmail '%s' is local. This must be corrected to a valid "
                              "globally resolvable email address before tests can continue" % e)
                raise Abort("local adminEmail, aborting.")
            if not EMAIL_RE.search(e):
                self.log.fail("adminEmail '%s' looks bogus. This must be corrected to a valid "
                              "email address before tests can continue" % e)
                raise Abort("looks like bogus adminEmail, aborting.")
            found.append(e)
        self.log.passed("Administrator email address is '%s'" % ",".join(found))

    def _identify_version(self, ident):
        version = text_of(ident.find(q("protocolVersion")))
        if version not in ("2.0", "1.1", "1.0"):
            raise Abort("Invalid protocol version (%s)" % version)
        if version != "2.0":
            raise Abort("Repository reports OAI-PMH protocol version %s and will not be "
                        "validated." % version)
        self.log.passed("Correctly reports OAI-PMH protocol version 2.0")

    def _identify_base_url(self, ident):
        el = ident.find(q("baseURL"))
        if el is None:
            return
        if text_of(el) == self.base_url:
            self.log.passed("baseURL supplied matches the Identify response")
        else:
            self.log.fail("baseURL supplied '%s' does not match the baseURL in the Identify "
                          "response '%s'. They must match EXACTLY (case, trailing slashes etc.)"
                          % (self.base_url, text_of(el)))

    def _identify_granularity(self, ident):
        grans = ident.findall(q("granularity"))
        if not grans:
            self.log.fail("Missing granularity element")
        elif len(grans) > 1:
            self.log.fail("Multiple granularity elements")
        elif text_of(grans[0]) in ("YYYY-MM-DD", "YYYY-MM-DDThh:mm:ssZ"):
            self.granularity = "days" if text_of(grans[0]) == "YYYY-MM-DD" else "seconds"
            self.log.passed("Datestamp granularity is '%s'" % self.granularity)
        else:
            self.log.fail("Bad value for the granularity element '%s', must be either "
                          "YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ" % text_of(grans[0]))

    def _identify_earliest(self, ident):
        el = ident.find(q("earliestDatestamp"))
        value = text_of(el)
        m = re.match(r"^([0-9]{4})-([0-9][0-9])-([0-9][0-9])(.*)$", value, re.S)
        err = None
        if el is None:
            err = "Can't get earliestDatestamp element from Identify response."
        elif not value:
            err = "earliestDatestamp element is empty in Identify response."
        elif not m:
            err = "is not in ISO8601 format"
        elif m[4] == "" and self.granularity == "seconds":
            err = "must have seconds granularity (YYYY-MM-DDThh:mm:ssZ) to match the repository"
        elif m[4] != "" and self.granularity == "days":
            err = "must have days granularity (YYYY-MM-DD) to match the repository"
        elif self.granularity == "seconds" and not re.fullmatch(r"T\d\d:\d\d:\d\d(\.\d+)?Z", m[4]):
            err = "does not have the correct format for the time part (YYYY-MM-DDThh:mm:ssZ)"
        if err:
            self.log.fail("Bad earliestDatestamp: (%s) %s" % (value[:80], err))
        else:
            self.earliest = value
            self.log.passed("Extracted earliestDatestamp %s" % value)

    def _identify_oai_identifier(self, ident):
        found = [el for el in ident.iter() if isinstance(el.tag, str)
                 and etree.QName(el).localname == "oai-identifier"]
        if not found:
            return
        if len(found) > 1:
            self.log.fail("Found more than one oai-identifier element. The intention is that this "
                          "declaration only be used by repositories declaring a single namespace.")
            return
        ns = etree.QName(found[0]).namespace
        version = "1.1" if ns == OAI_ID_NS1 else "2.0"
        if ns in (OAI_ID_NS2, OAI_ID_NS1):
            self.log.passed("oai-identifier description for version %s is being used" % version)
        else:
            self.log.fail("Unrecognized namespace '%s' for oai-identifier, expected %s"
                          % (ns, OAI_ID_NS2))
        repo = [el for el in found[0].iter() if isinstance(el.tag, str)
                and etree.QName(el).localname == "repositoryIdentifier"]
        if not repo or not text_of(repo[0]):
            self.log.fail("No or empty namespace-identifier (repositoryIdentifier element) in the "
                          "oai-identifier block of the Identify description")
            return
        rid = text_of(repo[0])
        ok = REPO_ID_RE.match(rid) if version == "2.0" else re.fullmatch(r"[a-z0-9]+", rid, re.I)
        if ok:
            self.log.passed("namespace-identifier (repositoryIdentifier element) in oai-identifier "
                            "declaration is %s" % rid)
        else:
            self.log.fail("Bad namespace-identifier (repositoryIdentifier element) '%s' in "
                          "oai-identifier declaration" % rid)

    def test_list_sets(self):
        self.log.start("Checking ListSets response")
        resp = self.validated("ListSets", [("verb", "ListSets")])
        if resp is None:
            self.log.fail("Can't check set names")
            return
        specs = [text_of(s) for s in resp.root.iter(q("setSpec"))]
        if not specs:
            details = {}
            if self.is_error(resp, details):
                if "noSetHierarchy" in details:
                    self.log.passed("Repository does not support sets and this is correctly "
                                    "reported with a noSetHierarchy exception in the ListSets "
                                    "response")
                else:
                    self.log.fail("Failed to extract any setSpec elements from ListSets but did "
                                  "not find a noSetHierarchy exception. Found instead '%s'"
                                  % ", ".join(details))
            else:
                self.log.fail("Failed to extract any setSpec elements from ListSets but did not "
                              "find an exception message (noSetHierarchy is required)")
            return
        self.set_names = specs
        self.example_set = specs[0]
        shown = " ".join(specs[:3]) + (" ..." if len(specs) > 3 else "")
        self.log.passed("Extracted %d set names: { %s }, will use setSpec &set=%s in tests"
                        % (len(specs), shown, self.example_set))

    def test_list_identifiers(self):
        log = self.log
        log.start("Checking ListIdentifiers response")
        base = [("verb", "ListIdentifiers"), ("metadataPrefix", "oai_dc")]
        tried = [self.example_set] if self.example_set else []
        resp = self.validated("ListIdentifiers", base + ([("set", tried[0])] if tried else []))
        if tried and (resp is None or not self._headers(resp)):
            log.note("Empty set made ListIdentifiers fail - trying other sets...")
            log.warn("The first set '%s' of ListSets has no identifiers: the official validator "
                     "1.07 aborts here (its set fallback loop never advances). List a non-empty "
                     "set first." % tried[0])
            for spec in self.set_names[1:]:
                log.note("Trying set &set=%s" % spec)
                resp = self.validated("ListIdentifiers", base + [("set", spec)])
                if resp is not None and self._headers(resp):
                    self.example_set = spec
                    break
            else:
                log.note("Last attempt is without any sets...")
                resp = self.validated("ListIdentifiers", base)
        if resp is None:
            log.fail("No ListIdentifiers response with content")
            raise Abort("The base URL did not respond to the ListIdentifiers verb.")
        for n, header in enumerate(self._headers(resp), 1):
            ident = header.find(q("identifier"))
            if ident is None:
                continue
            if header.get("status") == "deleted":
                log.warn("Identifier %d, '%s', is for a deleted record, skipping"
                         % (n, text_of(ident)))
                continue
            self.example_id = text_of(ident)
            log.passed("Good ListIdentifiers response, extracted id '%s' for use in future tests."
                       % self.example_id)
            return
        log.fail("The response to the ListIdentifiers verb with metadataPrefix oai_dc contained "
                 "no identifiers. Without at least one identifier, we cannot proceed.")
        raise Abort("No identifiers in response to ListIdentifiers.")

    @staticmethod
    def _headers(resp):
        return [h for h in resp.root.iter(q("header"))] if resp and resp.root is not None else []

    def test_list_metadata_formats(self):
        log = self.log
        log.start("Checking ListMetadataFormats response")
        resp = self.validated("ListMetadataFormats", [("verb", "ListMetadataFormats"),
                                                      ("identifier", self.example_id)])
        if resp is None:
            log.fail("Can't check metadataFormats available for item %s, no response to "
                     "ListMetadataFormats request." % self.example_id)
            return False, False, []
        formats = [text_of(p) for p in resp.root.iter(q("metadataPrefix"))]
        if not formats:
            log.fail("No metadata formats are listed in the response to a ListMetadataFormats "
                     "request for item %s." % self.example_id)
            return False, False, []
        got_dc = any(re.fullmatch(r"\s*oai_dc\s*", f) for f in formats)
        log.passed("Good ListMetadataFormats response, includes oai_dc" if got_dc else
                   "Good ListMetadataFormats response, BUT DID NOT FIND oai_dc")
        return True, got_dc, formats

    def test_get_record(self):
        log = self.log
        log.start("Checking GetRecord response")
        resp = self.validated("GetRecord", [("verb", "GetRecord"), ("identifier", self.example_id),
                                            ("metadataPrefix", self.example_prefix)])
        if resp is None:
            log.fail("Can't complete datestamp check for GetRecord")
            raise Abort("Can't complete datestamp check for GetRecord")
        details = {}
        if self.is_error(resp, details):
            log.fail("The response to the GetRecord verb was the OAI exception %s. It is thus not "
                     "possible to extract a valid datestamp for remaining tests" % list(details))
            raise Abort("Unexpected OAI exception response")
        stamps = list(resp.root.iter(q("datestamp")))
        if not stamps:
            log.fail("The response to the GetRecord verb did not have a datestamp, which is "
                     "needed to continue checking verbs.")
            raise Abort("No datestamp in the response for GetRecord")
        datestamp = text_of(stamps[0])
        gran = granularity_of(datestamp)
        errors = 0
        if gran is None:
            log.fail("Datestamp in GetRecord response (%s) is not valid." % datestamp)
            errors += 1
        else:
            log.passed("Datestamp in GetRecord response (%s) has the correct form for %s "
                       "granularity." % (datestamp, gran))
            if gran == self.granularity:
                log.passed("Datestamp in GetRecord response (%s) matched the %s granularity "
                           "specified in the Identify response." % (datestamp, gran))
            else:
                log.fail("Datestamp in GetRecord response (%s) is not consistent with the %s "
                         "granularity specified in the Identify response"
                         % (datestamp, self.granularity))
                errors += 1
        if not self.example_set:
            if not errors:
                log.passed("Valid GetRecord response")
            return datestamp
        specs = [text_of(s) for s in resp.root.iter(q("setSpec"))]
        if self.example_set in specs:
            log.passed("Expected setSpec was returned in the response")
        elif any(s.startswith(self.example_set + ":") for s in specs):
            log.passed("Expected setSpec was returned in the response (implied by a descendant "
                       "setSpec)")
        else:
            log.fail("Expected setSpec was missing from the response. The GetRecord response for "
                     "identifier %s did not contain a set specification for %s"
                     % (self.example_id, self.example_set))
        return datestamp

    def test_list_records(self):
        log = self.log
        log.start("Checking ListRecords response")
        pairs = [("verb", "ListRecords")]
        if self.example_datestamp:
            pairs += [("from", self.example_datestamp), ("until", self.example_datestamp)]
        else:
            log.warn("Omitting datestamp parameter as none was obtained from earlier test")
        pairs.append(("metadataPrefix", self.example_prefix))
        seen_tokens = set()
        while True:
            resp = self.validated("ListRecords", pairs)
            if resp is None:
                return
            log.passed("Response is well formed")
            details = {}
            if self.is_error(resp, details):
                if "noRecordsMatch" in details:
                    log.fail("ListRecords response gave a noRecordsMatch error when it should have "
                             "included at least the record with identifier %s. from and until "
                             "were both the datestamp of this record (%s) and are inclusive "
                             "(spec §2.7.1)." % (self.example_id, self.example_datestamp))
                else:
                    log.fail("ListRecords gave an unexpected error response to a request using "
                             "from and until datestamps taken from the GetRecord response: %s"
                             % ", ".join("%s (%s)" % kv for kv in details.items()))
                return
            ids = [text_of(i) for i in resp.root.iter(q("identifier"))]
            if self.example_id in ids:
                log.passed("ListRecords response correctly included record with identifier %s"
                           % self.example_id)
                return
            token = text_of(resp.find("%s/%s" % (q("ListRecords"), q("resumptionToken"))))
            if token and token not in seen_tokens:
                seen_tokens.add(token)
                log.passed("ListRecords response includes resumptionToken. Haven't found record "
                           "with identifier %s yet, will continue with resumptionToken..."
                           % self.example_id)
                pairs = [("verb", "ListRecords"), ("resumptionToken", token)]
                continue
            log.fail("ListRecords response did not include the identifier %s which should have "
                     "been included because both from and until were set to the datestamp of this "
                     "record (%s). from and until are inclusive (spec §2.7.1)."
                     % (self.example_id, self.example_datestamp))
            return

    ERROR_REQUESTS = [
        ("junk", ["badVerb"]),
        ("verb=junk", ["badVerb"]),
        ("verb=GetRecord&metadataPrefix=oai_dc", ["badArgument"]),
        ("verb=GetRecord&identifier={id}", ["badArgument"]),
        ("verb=GetRecord&identifier=invalid%22id&metadataPrefix=oai_dc",
         ["badArgument", "idDoesNotExist"]),
        ("verb=ListIdentifiers&until=junk", ["badArgument"]),
        ("verb=ListIdentifiers&from=junk", ["badArgument"]),
        ("verb=ListIdentifiers&resumptionToken=junk&until=2000-02-05",
         ["badArgument", "badResumptionToken"]),
        ("verb=ListRecords&metadataPrefix=oai_dc&from=junk", ["badArgument"]),
        ("verb=ListRecords&resumptionToken=junk", ["badResumptionToken"]),
        ("verb=ListRecords&metadataPrefix=oai_dc&resumptionToken=junk&until=1990-01-10",
         ["badArgument", "badResumptionToken"]),
        ("verb=ListRecords&metadataPrefix=oai_dc&until=junk", ["badArgument"]),
        ("verb=ListRecords", ["badArgument"]),
    ]

    def test_expected_errors(self):
        log = self.log
        log.start("Checking exception handling (errors)")
        bad = 0
        for raw, codes in self.ERROR_REQUESTS:
            raw = raw.replace("{id}", enc(self.example_id or ""))
            resp = self.request(raw=raw)
            if resp.root is None:
                extra = (" An XML parsing error may be due to echoing the invalid identifier "
                         "unescaped in the <request> element." if "invalid" in raw else "")
                log.fail("Can't parse malformed response to %s.%s" % (raw, extra))
                bad += 1
                continue
            match = next((c for c in resp.error_codes() if c in codes), None)
            if match:
                log.passed("Error response correctly includes error code '%s'" % match)
            else:
                log.fail("Exception/error response to %s did not contain error code '%s' (got %s)"
                         % (raw, " or ".join(codes), resp.error_codes() or "no error"))
                bad += 1
        total = len(self.ERROR_REQUESTS)
        if bad == 0:
            log.passed("All %d error requests properly handled" % total)
        else:
            log.warn("Only %d out of %d error requests properly handled" % (total - bad, total))

    def test_expected_v2_errors(self):
        log = self.log
        log.start("Checking for version 2.0 specific exceptions")
        prefix = self.example_prefix
        cases = [
            ([("verb", "ListRecords"), ("metadataPrefix", prefix), ("from", "2002-02-05"),
              ("until", "2002-02-06T05:35:00Z")], "badArgument",
             "The request has different granularities for the from and until parameters."),
            ([("verb", "ListRecords"), ("metadataPrefix", prefix),
              ("until", one_year_before(self.earliest or "2000-01-01"))], "noRecordsMatch",
             "The request specified a date one year before the earliestDatestamp given in the "
             "Identify response; noRecordsMatch is expected."),
        ]
        for pairs, code, reason in cases:
            resp = self.request(pairs)
            if resp.root is None:
                log.fail("Error in parsing XML response to exception request: %s"
                         % query_of(pairs))
                continue
            codes = resp.error_codes()
            if not codes:
                log.fail("Failed to extract error code from the response to request: %s %s"
                         % (query_of(pairs), reason))
            elif code in codes:
                log.passed("Error response correctly includes error code '%s'" % code)
            else:
                log.fail("Error code %s not found in response (got %s) but should be given to "
                         "the request: %s %s" % (code, codes, query_of(pairs), reason))

    def test_post_requests(self):
        self.log.start("Checking that HTTP POST requests are handled correctly")
        self._post_test(1, [("verb", "Identify")])
        if self.example_id:
            self._post_test(2, [("verb", "GetRecord"), ("identifier", self.example_id),
                                ("metadataPrefix", self.example_prefix)])
        else:
            self.log.fail("Cannot test GetRecord via POST without an example record identifier")

    def _post_test(self, num, pairs):
        resp = self.request(pairs, post=True)
        verb = pairs[0][1]
        if resp.status != 200:
            self.log.fail("POST test %d was unsuccessful. Server returned HTTP Status: '%d'"
                          % (num, resp.status))
        elif resp.root is not None and len(list(resp.root.iter(q(verb)))) == 1:
            self.log.passed("POST test %d for %s was successful" % (num, verb))
        elif resp.error_codes():
            self.log.fail("POST test %d for %s was unsuccessful, an OAI error response was "
                          "received" % (num, verb))
        else:
            self.log.fail("POST test %d for %s was unsuccessful, got neither a valid response nor "
                          "an error" % (num, verb))

    def test_resumption_tokens(self):
        log = self.log
        log.start("Checking for correct use of resumptionToken (if used)")
        resp = self.request([("verb", "ListRecords"), ("metadataPrefix", "oai_dc")])
        if resp.root is None:
            log.fail("Can't parse malformed XML in response to ListRecords request. Cannot "
                     "complete test for correct use of resumptionToken (if used)")
            return
        tokens = list(resp.root.iter(q("resumptionToken")))
        if not tokens:
            log.passed("resumptionToken not used")
            return
        if len(tokens) > 1:
            log.fail("More than one resumptionToken in response!")
            return
        token = text_of(tokens[0])
        if not token:
            log.fail("Empty resumption token in response to %s. There should never be an empty "
                     "resumptionToken in response to a request without a resumptionToken "
                     "argument" % resp.raw_query)
            return
        cursor = tokens[0].get("cursor")
        if cursor is not None:
            if cursor.strip() == "0":
                log.passed("A cursor value was supplied with the resumptionToken and it correctly "
                           "had the value zero in the first response")
            else:
                log.fail("A cursor value was supplied with the resumptionToken but it did not "
                         "have the correct value zero for the first response. The value was "
                         "'%s'." % cursor)
        log.note("Got resumptionToken %s" % token)
        again = self.request([("verb", "ListRecords"), ("resumptionToken", token)])
        if again.root is None:
            log.fail("Response to request using resumptionToken is not valid XML: %s"
                     % again.raw_query)
        elif again.error_codes():
            log.fail("Response to request using resumptionToken was an error code (%s): %s"
                     % (", ".join(again.error_codes()), again.raw_query))
        else:
            log.passed("Resumption tokens appear to work")

    # -------------------------------------------------------- strict extras

    def run_strict(self):
        self.strict_ran = True
        self.log.section = "strict"
        self.log.start("Strict extras: every list followed to the end")
        formats = self.strict_formats()
        if self.set_names:
            self.strict_list_sets()
        id_lists = {}
        for prefix, namespace in formats:
            id_lists[prefix] = self.strict_list_identifiers(prefix)
            self.strict_list_records(prefix, namespace, id_lists[prefix])
        if self.example_set:
            self.strict_set_filter()
        self.log.start("Strict extras: error matrix")
        self.strict_errors()
        self.log.start("Strict extras: project policy")
        self.strict_day_granularity()
        self.strict_compression()
        self.log.start("Strict extras: request echo and envelope of every response")
        self.strict_envelopes()
        self.log.start("Strict extras: XSD validation of every response (xmllint)")
        self.strict_xsd()

    def strict_formats(self):
        """ListMetadataFormats without identifier: the formats to walk."""
        resp = self.request([("verb", "ListMetadataFormats")])
        formats = []
        for fmt in resp.findall("%s/%s" % (q("ListMetadataFormats"), q("metadataFormat"))):
            formats.append((text_of(fmt.find(q("metadataPrefix"))).strip(),
                            text_of(fmt.find(q("metadataNamespace"))).strip()))
        prefixes = [p for p, _ in formats]
        if "oai_dc" in prefixes:
            self.log.passed("ListMetadataFormats (no identifier) lists %s" % ", ".join(prefixes))
        else:
            self.log.fail("ListMetadataFormats without identifier does not list oai_dc (got %s)"
                          % (prefixes or resp.error_codes()))
        item = self.request([("verb", "ListMetadataFormats"), ("identifier", self.example_id)])
        extra = [text_of(p) for p in item.root.iter(q("metadataPrefix"))
                 if text_of(p) not in prefixes] if item.root is not None else []
        if extra:
            self.log.fail("ListMetadataFormats for item %s lists %s, which the repository-wide "
                          "list lacks" % (self.example_id, extra))
        return formats

    def walk(self, verb, pairs, item_tag, what):
        """Follow one list to its end, checking paging (S3). Returns (items, page_tokens)."""
        issues, items, tokens, sizes = {}, [], [], set()

        def issue(key, msg):
            issues.setdefault(key, msg)

        page = 0
        while True:
            page += 1
            resp = self.request(pairs)
            if resp.root is None or resp.root.tag != q("OAI-PMH"):
                issue("parse", "page %d is not an OAI-PMH document" % page)
                break
            codes = resp.error_codes()
            if codes:
                if page == 1 and codes == ["noRecordsMatch"]:
                    self.log.note("%s: noRecordsMatch (empty list)" % what)
                else:
                    issue("error", "page %d is an error response %s" % (page, codes))
                break
            list_el = resp.find(q(verb))
            if list_el is None:
                issue("noelement", "page %d has no %s element" % (page, verb))
                break
            found = list_el.findall(q(item_tag))
            all_tokens = list(resp.root.iter(q("resumptionToken")))
            if len(all_tokens) > 1:
                issue("many", "page %d has %d resumptionToken elements" % (page, len(all_tokens)))
            tok = all_tokens[0] if all_tokens else None
            if not found:
                issue("emptypage", "page %d has no %s element" % (page, item_tag))
            if tok is not None:
                self._check_token_attrs(tok, page, len(items), sizes, issue)
            items.extend(self._item_info(el, item_tag) for el in found)
            resp.root = None  # release memory; the summary was kept
            text = text_of(tok).strip() if tok is not None else ""
            if tok is None:
                if page > 1:
                    issue("nofinal", "the last page (%d) of a %d-page list carries no "
                          "resumptionToken element; the response completing a list must carry an "
                          "empty one (spec §3.5)" % (page, page))
                break
            if not text:
                if page == 1:
                    issue("emptyfirst", "a one-page list carries an empty resumptionToken; it "
                          "must carry none (spec §3.5)")
                break
            if text in tokens:
                issue("loop", "page %d repeats an earlier resumptionToken (loop)" % page)
                break
            tokens.append(text)
            if self.max_pages and page >= self.max_pages:
                self.log.note("%s: stopped after --max-list-pages %d pages" % (what, page))
                return items, tokens
            pairs = [("verb", verb), ("resumptionToken", text)]
        self._finish_walk(what, items, sizes, page, issues)
        return items, tokens

    def _check_token_attrs(self, tok, page, before, sizes, issue):
        cursor = tok.get("cursor")
        if cursor is not None and cursor.strip() != str(before):
            issue("cursor", "page %d has cursor=%s, but %d items were sent before it"
                  % (page, cursor, before))
        size = tok.get("completeListSize")
        if size is not None:
            sizes.add(size.strip())
        exp = tok.get("expirationDate")
        if exp is not None and not SECONDS_RE.fullmatch(exp.strip()):
            issue("expiry", "page %d has expirationDate '%s', not YYYY-MM-DDThh:mm:ssZ"
                  % (page, exp))

    def _finish_walk(self, what, items, sizes, pages, issues):
        if len(sizes) > 1:
            issues["sizes"] = "completeListSize changes between pages: %s" % sorted(sizes)
        elif sizes and not self.max_pages and sizes != {str(len(items))}:
            issues["sizes"] = ("completeListSize=%s but the list had %d items"
                               % (sizes.pop(), len(items)))
        ids = [i["id"] for i in items if i.get("id") is not None]
        if len(ids) != len(set(ids)):
            issues["dups"] = "%d duplicate identifiers" % (len(ids) - len(set(ids)))
        for msg in issues.values():
            self.log.fail("%s: %s" % (what, msg))
        if not issues:
            self.log.passed("%s: %d items over %d pages, paging correct" % (what, len(items), pages))

    def _item_info(self, el, item_tag):
        if item_tag == "set":
            return {"id": text_of(el.find(q("setSpec"))), "name": el.find(q("setName"))}
        header = el if item_tag == "header" else el.find(q("header"))
        info = {"id": None, "datestamp": None, "sets": [], "deleted": False}
        if header is not None:
            info["id"] = text_of(header.find(q("identifier")))
            info["datestamp"] = text_of(header.find(q("datestamp")))
            info["sets"] = [text_of(s) for s in header.findall(q("setSpec"))]
            info["deleted"] = header.get("status") == "deleted"
        if item_tag == "record":
            md = el.find(q("metadata"))
            kids = [] if md is None else [k for k in md if isinstance(k.tag, str)]
            info["metadata"] = None if md is None else [etree.QName(k).namespace for k in kids]
            info["dc_loc"] = [k.get("{http://www.w3.org/2001/XMLSchema-instance}schemaLocation")
                              for k in kids if k.tag == "{%s}dc" % OAI_DC_NS]
        return info

    def strict_list_sets(self):
        sets, _ = self.walk("ListSets", [("verb", "ListSets")], "set", "ListSets")
        specs = {s["id"] for s in sets}
        missing = sorted({":".join(s.split(":")[:i]) for s in specs
                          for i in range(1, s.count(":") + 1)} - specs)
        if missing:
            self.log.warn("ListSets omits ancestor sets of listed sets: %s" % missing[:10])
        bad = [s for s in specs if not SETSPEC_RE.fullmatch(s)]
        if bad:
            self.log.fail("setSpecs outside the XSD pattern: %s" % bad[:10])

    def strict_list_identifiers(self, prefix):
        what = "ListIdentifiers %s" % prefix
        pairs = [("verb", "ListIdentifiers"), ("metadataPrefix", prefix)]
        items, tokens = self.walk("ListIdentifiers", pairs, "header", what)
        self._check_headers(what, items)
        if prefix == "oai_dc":
            if not items:
                self.log.fail("%s is empty, but oai_dc is mandatory for every item" % what)
            self._check_idempotent(tokens)
            self._check_token_plus_prefix(tokens)
        return items

    def _check_headers(self, what, items):
        pattern = SECONDS_RE if self.granularity == "seconds" else DATE_RE
        bad = [i for i in items if not pattern.fullmatch(i["datestamp"] or "")]
        if bad:
            self.log.fail("%s: %d datestamps not at the repository granularity %s, e.g. '%s'"
                          % (what, len(bad), self.granularity, bad[0]["datestamp"]))
        if self.earliest and not bad:
            early = [i for i in items if len(i["datestamp"]) == len(self.earliest)
                     and i["datestamp"] < self.earliest]
            if early:
                self.log.fail("%s: %d datestamps before earliestDatestamp %s, e.g. %s"
                              % (what, len(early), self.earliest, early[0]["datestamp"]))
        deleted = [i for i in items if i["deleted"]]
        if deleted and self.deleted_record == "no":
            self.log.fail("%s: %d records have status=\"deleted\", but Identify says "
                          "deletedRecord no" % (what, len(deleted)))

    def _check_idempotent(self, tokens):
        if not tokens:
            return
        pairs = [("verb", "ListIdentifiers"), ("resumptionToken", tokens[0])]
        first, second = self.request(pairs), self.request(pairs)
        ids = [[text_of(i) for i in r.root.iter(q("identifier"))] if r.root is not None else None
               for r in (first, second)]
        if ids[0] and ids[0] == ids[1] and not first.error_codes():
            self.log.passed("Re-sending a resumptionToken returns the same page (spec §3.5.1)")
        else:
            self.log.fail("Re-sending the same resumptionToken twice gave different pages or an "
                          "error (%s / %s)" % (first.error_codes(), second.error_codes()))

    def _check_token_plus_prefix(self, tokens):
        token = tokens[0] if tokens else "junk"
        self.expect("ListIdentifiers with resumptionToken and metadataPrefix",
                    [("verb", "ListIdentifiers"), ("metadataPrefix", "oai_dc"),
                     ("resumptionToken", token)], ["badArgument"])

    def strict_list_records(self, prefix, namespace, headers):
        what = "ListRecords %s" % prefix
        pairs = [("verb", "ListRecords"), ("metadataPrefix", prefix)]
        items, _ = self.walk("ListRecords", pairs, "record", what)
        self._check_headers(what, items)
        if sorted(i["id"] for i in items) != sorted(h["id"] for h in headers):
            self.log.fail("%s lists %d records, ListIdentifiers %s %d headers, or other ids"
                          % (what, len(items), prefix, len(headers)))
        with_md = [i for i in items if i["deleted"] and i["metadata"] is not None]
        if with_md:
            self.log.fail("%s: %d deleted records carry <metadata> (spec §2.5.1)"
                          % (what, len(with_md)))
        wrong = [i for i in items if not i["deleted"] and i["metadata"] != [namespace]]
        if wrong:
            self.log.fail("%s: %d records whose <metadata> is not one element in namespace %s, "
                          "e.g. %s: %s" % (what, len(wrong), namespace, wrong[0]["id"],
                                           wrong[0]["metadata"]))
        if prefix == "oai_dc":
            self._check_dc_locations(what, items)

    def _check_dc_locations(self, what, items):
        bad = []
        for i in items:
            for loc in i.get("dc_loc", []):
                toks = (loc or "").split()
                pairs = dict(zip(toks[0::2], toks[1::2]))
                if loc is not None and pairs.get(OAI_DC_NS) != OAI_DC_XSD:
                    bad.append(loc)
        if bad:
            self.log.fail("%s: %d oai_dc:dc elements do not pair the oai_dc namespace with "
                          "oai_dc.xsd in xsi:schemaLocation, e.g. \"%s\"" % (what, len(bad), bad[0]))

    def strict_set_filter(self):
        s = self.example_set
        what = "ListIdentifiers oai_dc set=%s" % s
        items, _ = self.walk("ListIdentifiers", [("verb", "ListIdentifiers"),
                                                 ("metadataPrefix", "oai_dc"), ("set", s)],
                             "header", what)
        outside = [i["id"] for i in items
                   if not any(x == s or x.startswith(s + ":") for x in i["sets"])]
        if outside:
            self.log.fail("%s: %d headers carry neither the set nor a descendant, e.g. %s"
                          % (what, len(outside), outside[0]))
        elif items:
            self.log.passed("%s: all %d headers carry the set or a descendant" % (what, len(items)))

    def expect(self, what, pairs_or_raw, codes):
        """Send one request and check that its error codes include one of codes."""
        if isinstance(pairs_or_raw, str):
            resp = self.request(raw=pairs_or_raw)
        else:
            resp = self.request(pairs_or_raw)
        got = resp.error_codes() if resp.root is not None else ["(not parseable)"]
        match = next((c for c in got if c in codes), None)
        if match:
            self.log.passed("%s: %s" % (what, match))
        else:
            self.log.fail("%s: expected %s, got %s" % (what, " or ".join(codes),
                                                      got or "no error"))
        return resp

    def strict_errors(self):
        ident = enc(self.example_id or "")
        no_sets = not self.set_names
        nsh = ["noSetHierarchy"] if no_sets else []
        li = "verb=ListIdentifiers&metadataPrefix=oai_dc"
        cases = [
            ("from > until", "verb=ListRecords&metadataPrefix=oai_dc&from=2002-02-06"
             "&until=2002-02-05", ["badArgument"]),
            ("repeated verb", "verb=Identify&verb=Identify", ["badVerb"]),
            ("repeated verb, two values", "verb=Identify&verb=ListSets", ["badVerb"]),
            ("repeated verb with arguments", "verb=ListIdentifiers&verb=ListIdentifiers"
             "&metadataPrefix=oai_dc", ["badVerb"]),
            ("repeated metadataPrefix", "verb=ListRecords&metadataPrefix=oai_dc"
             "&metadataPrefix=oai_dc", ["badArgument"]),
            ("repeated identifier", "verb=GetRecord&identifier=%s&identifier=%s"
             "&metadataPrefix=oai_dc" % (ident, ident), ["badArgument"]),
            ("repeated from", li + "&from=2002-02-05&from=2002-02-05", ["badArgument"]),
            ("Identify with test=test", "verb=Identify&test=test", ["badArgument"]),
            ("unknown argument", "verb=ListMetadataFormats&x=1", ["badArgument"]),
            ("empty metadataPrefix", "verb=ListRecords&metadataPrefix=", ["badArgument"]),
            ("wrongly cased verb", "verb=identify", ["badVerb"]),
            ("arguments without verb", "metadataPrefix=oai_dc", ["badVerb"]),
            ("illegal set syntax a/b", li + "&set=a%2Fb", ["badArgument"] + nsh),
            ("illegal set syntax image/svg+xml", li + "&set=image%2Fsvg%2Bxml",
             ["badArgument"] + nsh),
            ("unknown legal set", li + "&set=modoai-validator-no-such-set",
             ["noRecordsMatch"] + nsh),
            ("illegal metadataPrefix syntax", "verb=ListRecords&metadataPrefix=oai%2Fdc",
             ["badArgument"]),
            ("unknown metadataPrefix (ListRecords)",
             "verb=ListRecords&metadataPrefix=modoai_no_such_format", ["cannotDisseminateFormat"]),
            ("unknown metadataPrefix (ListIdentifiers)",
             "verb=ListIdentifiers&metadataPrefix=modoai_no_such_format",
             ["cannotDisseminateFormat"]),
            ("unknown metadataPrefix (GetRecord)", "verb=GetRecord&identifier=%s"
             "&metadataPrefix=modoai_no_such_format" % ident, ["cannotDisseminateFormat"]),
            ("unknown identifier (GetRecord)", "verb=GetRecord&identifier=oai%3Amodoai-validator"
             "%3Ano-such-item&metadataPrefix=oai_dc", ["idDoesNotExist"]),
            ("unknown identifier (ListMetadataFormats)", "verb=ListMetadataFormats&identifier="
             "oai%3Amodoai-validator%3Ano-such-item", ["idDoesNotExist"]),
            ("from without Z", li + "&from=2002-02-05T00:00:00", ["badArgument"]),
            ("from with +00:00", li + "&from=2002-02-05T00:00:00%2B00:00", ["badArgument"]),
            ("from with fractional seconds", li + "&from=2002-02-05T00:00:00.5Z",
             ["badArgument"]),
            ("from not zero-padded", li + "&from=2002-2-5", ["badArgument"]),
            ("until not a calendar date", li + "&until=2002-02-30", ["badArgument"]),
            ("ListSets with a junk resumptionToken", "verb=ListSets&resumptionToken=junk",
             ["badResumptionToken"] + nsh),
        ]
        if self.granularity == "days":
            cases.append(("until finer than the repository granularity",
                          li + "&until=2002-02-05T00:00:00Z", ["badArgument"]))
        for what, raw, codes in cases:
            self.expect(what, raw, codes)

    def strict_day_granularity(self):
        stamp = self.example_datestamp or ""
        if self.granularity != "seconds" or not DATE_RE.match(stamp):
            return
        day = stamp[:10]
        what = "ListIdentifiers oai_dc from=until=%s" % day
        items, _ = self.walk("ListIdentifiers", [("verb", "ListIdentifiers"),
                                                 ("metadataPrefix", "oai_dc"),
                                                 ("from", day), ("until", day)], "header", what)
        if any(i["id"] == self.example_id for i in items):
            self.log.passed("%s includes %s (datestamp %s)" % (what, self.example_id, stamp))
        else:
            self.log.fail("%s does not include %s (datestamp %s): a day-granularity until must "
                          "cover the whole day (project policy)"
                          % (what, self.example_id, stamp))

    def strict_compression(self):
        for coding in [c for c in self.compression if c not in ("identity", "")]:
            resp = self.request([("verb", "Identify")], headers={"Accept-Encoding": coding})
            if resp.encoding == coding and resp.find(q("Identify")) is not None:
                self.log.passed("Identify advertises compression %s and honours it" % coding)
            else:
                self.log.fail("Identify advertises compression %s, but a request with "
                              "Accept-Encoding: %s got Content-Encoding '%s'"
                              % (coding, coding, resp.encoding))

    def strict_envelopes(self):
        problems = {}
        for resp in self.responses:
            for key, msg in self._envelope_problems(resp):
                problems.setdefault(key, []).append(msg)
        for key, msgs in problems.items():
            emit = self.log.warn if key.startswith("warn") else self.log.fail
            for msg in msgs[:3]:
                emit(msg)
            if len(msgs) > 3:
                emit("... and %d more like the above" % (len(msgs) - 3))
        if not any(not k.startswith("warn") for k in problems):
            self.log.passed("request element, Content-Type, encoding and schemaLocation correct "
                            "in all %d responses" % len(self.responses))

    def _envelope_problems(self, resp):
        if resp.encoding not in ("identity", "") and resp.asked_encoding != resp.encoding:
            yield "coding", ("Content-Encoding %s sent for %s, which did not ask for it"
                             % (resp.encoding, resp.label))
        ctype = resp.headers.get("content-type", "")
        charset = re.search(r"charset\s*=\s*\"?([\w\-]+)", ctype, re.I)
        if charset and charset.group(1).lower() not in ("utf-8", "utf8"):
            yield "charset", "Content-Type '%s' for %s is not UTF-8" % (ctype, resp.label)
        elif not charset and resp.status == 200:
            yield "warn-charset", "Content-Type '%s' has no charset=UTF-8 (policy)" % ctype
        decl = re.match(rb"<\?xml[^>]*encoding\s*=\s*[\"']([\w\-]+)", resp.body_head or b"")
        if decl and decl.group(1).lower() not in (b"utf-8", b"utf8"):
            yield "xmlenc", ("XML declaration of %s says encoding %s; OAI-PMH requires UTF-8"
                             % (resp.label, decl.group(1).decode()))
        s = resp.summary
        if s is None:
            return
        if (s["schemaLocation"] or "").split() != [OAI_NS, OAI_XSD]:
            yield "loc", ("xsi:schemaLocation of %s is \"%s\", expected exactly \"%s %s\""
                          % (resp.label, s["schemaLocation"], OAI_NS, OAI_XSD))
        yield from self._echo_problems(resp, s)

    def _echo_problems(self, resp, s):
        if s["request"] is None:
            yield "norequest", "response to %s has no request element" % resp.label
            return
        text, attrs = s["request"]
        if text.strip() != self.base_url:
            yield "reqtext", ("request element of %s holds '%s', not the base URL"
                              % (resp.label, text))
        sent, codes = resp.pairs, s["codes"]
        if set(codes) & {"badVerb", "badArgument"}:
            if attrs:
                yield "echo-bad", ("%s error for %s echoes attributes %s; badVerb/badArgument "
                                   "responses carry none (spec §3.2)" % (codes, resp.label, attrs))
        elif not codes:
            if attrs != dict(sent):
                yield "echo-ok", ("request element of %s has attributes %s, expected exactly "
                                  "the arguments %s" % (resp.label, attrs, dict(sent)))
            if s["element"] != dict(sent).get("verb"):
                yield "verb-el", ("response to %s holds element %s, not the verb's"
                                  % (resp.label, s["element"]))
        else:
            wrong = {k: v for k, v in attrs.items() if dict(sent).get(k) != v}
            if wrong:
                yield "echo-err", ("%s error for %s echoes %s, which were not sent like that"
                                   % (codes, resp.label, wrong))

    def strict_xsd(self):
        schema = os.path.join(self.schemas, "modoai-all.xsd")
        if not os.path.isfile(schema):
            schema = os.path.join(self.schemas, "oai-pmh-all.xsd")
        if not os.path.isfile(schema):
            self.log.fail("XSD driver %s not found (give --schemas DIR)" % schema)
            return
        if shutil.which("xmllint") is None:
            self.log.fail("xmllint not found: install libxml2-utils (scripts/setup)")
            return
        files = {r.file: r for r in self.responses if r.file and r.summary is not None}
        errors = {}
        names = sorted(files)
        for start in range(0, len(names), 100):
            chunk = names[start:start + 100]
            run = subprocess.run(["xmllint", "--noout", "--nonet", "--huge", "--schema", schema]
                                 + chunk, capture_output=True, text=True, errors="replace")
            for line in run.stderr.splitlines():
                for name in chunk:
                    if line.startswith(name + ":") or line == name + " fails to validate":
                        errors.setdefault(name, []).append(line[len(name):].lstrip(": "))
        for name, lines in sorted(errors.items()):
            detail = [l for l in lines if l != "fails to validate"][:2] or lines[:1]
            self.log.fail("XSD: response to %s is invalid: %s"
                          % (files[name].label, " | ".join(detail)))
        if not errors:
            self.log.passed("All %d responses are valid against %s"
                            % (len(names), os.path.basename(schema)))


def summary_lines(v, aborted):
    lines = ["", "## Summary", ""]
    for section, title in (("official", "Official checks (HTTP::OAIPMH::Validator 1.07)"),
                           ("strict", "Strict extras")):
        c = v.log.counts[section]
        if section == "strict" and not v.strict_ran:
            lines.append("  * %s: %s" % (title, "skipped (--official-only)" if v.official_only
                                            else "not run (the official checks aborted)"))
            continue
        state = "COMPLIANT" if c["FAIL"] == 0 else "FAILED"
        lines.append("  * %s: %d passed, %d failed, %d warnings -> %s"
                     % (title, c["PASS"], c["FAIL"], c["WARN"], state))
    if v.uses_503:
        lines.append("  * Uses 503 for flow control")
    lines.append("  * Requests sent: %d" % len(v.responses))
    if aborted:
        lines.append("  * Validation did not run to completion: %s" % aborted)
    return lines


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(prog="oai_validator.py",
                                 description="Strict OAI-PMH 2.0 conformance check (see header).")
    ap.add_argument("baseurl")
    ap.add_argument("--json", metavar="OUT", help="write the log and statuses as JSON to OUT")
    ap.add_argument("--official-only", action="store_true",
                    help="run only the checks of the official validator")
    ap.add_argument("--schemas", default=os.path.join(here, "..", "..", "schemas"),
                    help="folder with modoai-all.xsd or oai-pmh-all.xsd (default: <repo>/schemas)")
    ap.add_argument("--timeout", type=float, default=60.0, help="HTTP timeout in seconds")
    ap.add_argument("--max-list-pages", type=int, default=0,
                    help="stop following a list after N pages (default 0: follow to the end)")
    ap.add_argument("--save-responses", metavar="DIR", help="keep every response body in DIR")
    args = ap.parse_args()

    v = Validator(args.baseurl, os.path.abspath(args.schemas), args.official_only, args.timeout,
                  args.max_list_pages)
    print("\n# RUNNING VALIDATION FOR %s" % args.baseurl)
    aborted = None
    try:
        v.run_official()
        if not args.official_only:
            v.run_strict()
    except Abort as e:
        aborted = "ABORT: %s" % e
        v.log.fail(aborted)
    finally:
        if args.save_responses:
            os.makedirs(args.save_responses, exist_ok=True)
            for name in os.listdir(v.tmpdir):
                shutil.copy(os.path.join(v.tmpdir, name), args.save_responses)
        shutil.rmtree(v.tmpdir, ignore_errors=True)
    official = "COMPLIANT" if v.log.num_fail("official") == 0 else "FAILED"
    strict = None if not v.strict_ran else (
        "COMPLIANT" if v.log.num_fail("strict") == 0 else "FAILED")
    v.status = "COMPLIANT" if v.log.num_fail() == 0 else "FAILED"
    print("\n".join(summary_lines(v, aborted)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"base_url": args.baseurl, "status": v.status, "official_status": official,
                       "strict_status": strict, "aborted": aborted, "counts": v.log.counts,
                       "requests": len(v.responses), "entries": v.log.entries}, f, indent=1)
    print("\n## Validation status of data provider %s is %s" % (args.baseurl, v.status))
    return 0 if v.status == "COMPLIANT" else 1


if __name__ == "__main__":
    sys.exit(main())
