"""FAIR Signposting oracle: reads the signposts of a file with the `signposting` package (0.9.9) and
prints them as JSON: {"citeAs", "types", "describedBy": [{"target", "type", "profiles"}],
"linksets": [{"target", "type"}], "describes": what each describedBy target links back to}.

    signposting_check.py http FILE_URL              the Link headers of a HEAD of FILE_URL
    signposting_check.py linkset LINKSET_URL FILE_URL  a Linkset, filtered to FILE_URL's context

Two traps of signposting 0.9.9 this script steps around (docs/testing.md): a JSON Linkset with
RFC 9264's `"profile": [...]` arrays crashes it, so only the text Linkset is read here (the JSON
one is checked by the Rust test itself); and a Linkset's signposts must be filtered by anchor,
since the Linkset's own URL is the default context."""
import json
import sys

from signposting import find_signposting_http, find_signposting_linkset


def target(sp):
    return str(sp.target)


def dump(s, context):
    found = s.for_context(context) if context else s
    return {
        "citeAs": target(found.citeAs) if found.citeAs else None,
        "types": sorted(target(t) for t in found.types),
        "describedBy": sorted(
            ({"target": target(d), "type": d.type, "profiles": sorted(str(p) for p in d.profiles)}
             for d in found.describedBy),
            key=lambda d: d["target"]),
        "linksets": sorted(
            ({"target": target(l), "type": l.type} for l in found.linksets),
            key=lambda d: (d["target"], d["type"] or "")),
        # What each metadata target says it describes: its own context in a Linkset.
        "describes": sorted(
            target(back) for d in found.describedBy for back in s.for_context(d.target).describes),
    }


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "http":
        print(json.dumps(dump(find_signposting_http(sys.argv[2]), None)))
    elif mode == "linkset":
        print(json.dumps(dump(find_signposting_linkset(sys.argv[2]), sys.argv[3])))
    else:
        sys.exit(f"unknown mode {mode}")
