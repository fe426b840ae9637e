"""Parses OpenMetrics text (the file given) with the Prometheus project's own Python parser and
prints its samples as JSON: [{"name", "labels", "value"}]. The parser is strict: text it refuses
fails the test that scraped it."""
import json
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families

with open(sys.argv[1], encoding="utf-8") as f:
    text = f.read()
samples = [
    {"name": s.name, "labels": s.labels, "value": s.value}
    for family in text_string_to_metric_families(text)
    for s in family.samples
]
print(json.dumps(samples))
