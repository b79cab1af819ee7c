"""schemathesis hooks for Tests/contract/run.sh (loaded through SCHEMATHESIS_HOOKS).

libmicrohttpd, not Tilescope, reads a request head into its 16 KiB connection buffer, and a head
that ends within a few hundred bytes of that buffer's end gets no answer, only a closed connection
(docs/security.md, "What libmicrohttpd answers itself"; no hook can change it). schemathesis now
and then generates a query that long (one run repeated `maxZoomScale` a hundred times, 15 KB) and
reports the close as a network error. Cases whose query alone passes 8 KiB are left out here;
long heads have their own tests in Tests/hostile/, which check that the server survives them.
"""
from urllib.parse import urlencode

import schemathesis

QUERY_BUDGET = 8 * 1024


@schemathesis.hook
def filter_case(ctx, case):
    query = case.query or {}
    return len(urlencode(query, doseq=True)) <= QUERY_BUDGET
