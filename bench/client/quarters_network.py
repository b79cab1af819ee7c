"""The network half of the what-ifs edge_quadrants.py and third_levels.py: a step's answers fetched in Chromium under
DevTools throttling, as the client fetches them (nearest the centre first, six on their way over HTTP/1.1 and sixteen
over HTTP/2: TileLoader's `downloadsAtOnce`), once with today's answers and once with the other plan's (the edge tiles
as quarters; the tiles of a level a third of an octave apart).

The answers are random bytes of each answer's size from a small loopback server (HTTP/1.1, kept alive), and the same
behind `Tests/browser/http2_front.py`'s nginx for HTTP/2: what is timed is the network's share alone, from the first
request to the last byte, with the connections already open (a zoom follows the page's load). Random bytes, so that
nothing compresses them on the way."""
import os
import statistics
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import sync_playwright

import throttle

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / 'Tests' / 'browser'))
import http2_front  # noqa: E402
from run import free_port  # noqa: E402

NOISE = os.urandom(1 << 20)

FETCH = """async ({ sizes, atOnce }) => {
  const started = performance.now();
  let next = 0;
  const one = async () => {
    while (next < sizes.length) {
      const index = next++;
      const answer = await fetch(`/bytes/${sizes[index]}?n=${index}&t=${started}`, { cache: 'no-store' });
      await answer.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: atOnce }, one));
  return performance.now() - started;
}"""


class Bytes(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def do_GET(self):
        path = self.path.split('?')[0]
        if path.startswith('/bytes/'):
            body = NOISE[:min(len(NOISE), int(path.rsplit('/', 1)[1]))]
            kind = 'application/octet-stream'
        else:
            body, kind = (b'ok' if path == '/healthz' else b'<!doctype html><title>quarters</title>'), 'text/html'
        self.send_response(200)
        self.send_header('Content-Type', kind)
        self.send_header('Content-Length', str(len(body)))
        self.send_header('Cache-Control', 'no-store')
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def time_plan(browser, base, network, sizes, at_once):
    context = browser.new_context(ignore_https_errors=True)
    page = context.new_page()
    throttle.apply(page, network)
    page.goto(base + '/')
    # The connections a zoom finds open: the page's load left them so.
    page.evaluate(FETCH, {'sizes': [16] * at_once, 'atOnce': at_once})
    seconds = page.evaluate(FETCH, {'sizes': sizes, 'atOnce': at_once}) / 1000
    context.close()
    return seconds


def report(plans, network, runs, chromium, other='with edge quarters', scale=1):
    server = ThreadingHTTPServer(('127.0.0.1', 0), Bytes)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    front = http2_front.Front(server.server_address[1], free_port())
    try:
        routes = [('HTTP/1.1, six at once', f'http://127.0.0.1:{server.server_address[1]}', 6),
                  ('HTTP/2, sixteen at once', front.base, 16)]
        print(f'\nThe answers alone under {throttle.describe(network, 1)}, '
              f'medians of {runs}, seconds from the first request to the last byte:\n')
        print(f'| step (DPR {scale}) | protocol | today | {other} | ratio |')
        print('|---|---|---:|---:|---:|')
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium,
                                        args=['--no-sandbox', *front.browser_args()])
            for name, _level, today, quartered in plans:
                for label, base, at_once in routes:
                    times = {key: [] for key in ('today', 'quarters')}
                    for _ in range(runs):  # alternating, so that a slow moment of the machine falls on both
                        times['today'].append(time_plan(browser, base, network, today, at_once))
                        times['quarters'].append(time_plan(browser, base, network, quartered, at_once))
                    a, b = statistics.median(times['today']), statistics.median(times['quarters'])
                    print(f'| {name} | {label} | {a:.2f} s | {b:.2f} s | {b / a:.2f}x |', flush=True)
            browser.close()
    finally:
        front.stop()
        server.shutdown()
