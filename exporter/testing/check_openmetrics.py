"""Checks an OpenMetrics exposition (stdin) with client_python's parser, the format's reference
implementation (strict: it raises on anything the specification does not allow), and prints what
it read as JSON: the families and every exemplar. Exit status 1 and the parser's complaint on
stderr for an invalid exposition. Run with Debian's /usr/bin/python3 (python3-prometheus-client).
"""
import json
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families

try:
    families = list(text_string_to_metric_families(sys.stdin.read()))
except Exception as err:  # the parser raises ValueError and others for invalid input
    print(f"invalid OpenMetrics: {err}", file=sys.stderr)
    sys.exit(1)

print(
    json.dumps(
        {
            "families": {f.name: f.type for f in families},
            "exemplars": [
                {
                    "sample": s.name,
                    "labels": s.labels,
                    "exemplar": s.exemplar.labels,
                    "value": s.exemplar.value,
                }
                for f in families
                for s in f.samples
                if s.exemplar is not None
            ],
        }
    )
)
