"""schemathesis hooks for Tests/contract/run.sh (loaded through SCHEMATHESIS_HOOKS).

libmicrohttpd, not Tilescope, reads a request head into its 16 KiB connection buffer, and one
header line into about half of it. A head or a line larger than that is refused by libmicrohttpd
itself (414 or 431 with a small HTML body), and one that ends within a few hundred bytes of the
limit gets no answer, only a closed connection: about 15.9 KB for a whole head, 7.9-8.1 KB for one
header line (docs/security.md, "What libmicrohttpd answers itself"; no hook can change either).
schemathesis now and then generates a head that long: one run repeated `maxZoomScale` a hundred
times (a 15 KB query), another sent a rating's `Cookie` and `X-CSRF-Token` headers long enough for
a 431. Cases whose path, query and headers together pass 7 KiB (so no one line comes near its
limit either) are left out here; long heads and lines have their own tests in Tests/hostile/,
which check that the server survives them.
"""
from urllib.parse import urlencode

import schemathesis

HEAD_BUDGET = 7 * 1024


def head_bytes(case):
    """What the case's path, query, headers and cookies add to the request head, as UTF-8 bytes."""
    size = len(case.formatted_path.encode("utf-8", "surrogatepass")) + len(urlencode(case.query or {}, doseq=True))
    for name, value in (case.headers or {}).items():
        size += len(f"{name}: {value}\r\n".encode("utf-8", "surrogatepass"))
    cookies = case.cookies or {}
    if cookies:
        size += len("Cookie: \r\n") + len("; ".join(f"{k}={v}" for k, v in cookies.items()).encode("utf-8", "surrogatepass"))
    return size


@schemathesis.hook
def filter_case(ctx, case):
    return head_bytes(case) <= HEAD_BUDGET
