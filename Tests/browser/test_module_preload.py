"""How a page asks for its modules and its first record (issue 44, goal 2): the record first, then every module of
the import graph at once (`modulepreload` links the page's inline script adds), instead of level by level as each
module's imports are read, and compressed (`Content-Encoding: deflate`). The list in the page is held to the real
import graph, read from the files and seen in the browser; counted in requests and bytes, never timed."""
import re
import urllib.error
import urllib.request
import zlib
from pathlib import Path

from conftest import REPO, page_session

PUBLIC = REPO / 'Public'
# `import ... from '...'`, `export ... from '...'` and `import '...'`, over several lines too.
IMPORT = re.compile(r'''^\s*(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]''',
                    re.M | re.S)
# A page's `await import('./...')` of a module it needs as surely as its static ones, once its first request is out.
DYNAMIC = re.compile(r"\bimport\('(\./[^']+)'\)")
# The modulepreload list of a page's inline script: the quoted paths of its `for (const href of [...])`.
PRELOAD_LIST = re.compile(r'for \(const href of \[(.*?)\]\)', re.S)


def import_graph(entries, root):
    """Every module reachable from `entries` (site paths such as /js/main.js) through static imports."""
    seen, todo = set(), list(entries)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for match in IMPORT.finditer((root / path.lstrip('/')).read_text()):
            spec = match.group(1) or match.group(2)
            assert spec.startswith(('/', '.')), f'{path} imports {spec!r}: only paths are served'
            todo.append(str((Path(path).parent / spec).resolve()) if spec.startswith('.') else spec)
    return seen


def preload_list(html, base='/'):
    found = PRELOAD_LIST.search(html)
    assert found, 'the page has no modulepreload list'
    return [str(Path(base) / href) if not href.startswith('/') else href
            for href in re.findall(r"'([^']+)'", found.group(1))]


def test_the_gallery_page_preloads_exactly_its_import_graph():
    listed = preload_list((PUBLIC / 'index.html').read_text())
    assert len(listed) == len(set(listed)), 'a module is listed twice'
    # js/main.js and what it imports once the ring is asked for (`await import(...)`): the viewer.
    entries = ['/js/main.js'] + [f'/js/{spec[2:]}' for spec in DYNAMIC.findall((PUBLIC / 'js' / 'main.js').read_text())]
    assert len(entries) > 1, 'js/main.js imports no viewer'
    graph = import_graph(entries, PUBLIC)
    assert set(listed) == graph, (f'not listed: {sorted(graph - set(listed))}; '
                                  f'listed, never imported: {sorted(set(listed) - graph)}')


def test_the_benchmark_page_preloads_exactly_its_import_graph():
    """bench/client/tilescope.html loads as the gallery page does, so that its times are the client's."""
    html = (REPO / 'bench' / 'client' / 'tilescope.html').read_text()
    inline = html.split('<script type="module">', 1)[1]
    # Its static imports, and the modules it imports once the record is in (`await import(...)`).
    entries = [spec for spec in re.findall(r"^\s*import .* from '([^']+)';", inline, re.M)
               + re.findall(r"\bimport\('([^']+)'\)", inline) if spec.startswith('/js/')]
    assert entries, 'the benchmark page imports nothing from /js/'
    listed = set(preload_list(html)) - {'/bench/harness.js'}
    assert listed == import_graph(entries, PUBLIC)


def test_the_browser_fetches_the_ring_first_and_each_module_once_through_its_preload(browser, server, request):
    """In Chromium: the gallery's ring goes out before the modules the page preloads, every module the page runs is one it
    preloaded, and neither the ring nor any module is asked for twice (the module's own fetch of the ring is
    answered by the preload)."""
    with page_session(browser, server.base, request.node) as session:
        page = session.page
        requests = []
        page.on('request', lambda r: requests.append((r.resource_type, r.url.removeprefix(server.base))))
        session.open()
        listed = page.evaluate("() => [...document.querySelectorAll('link[rel=modulepreload]')]"
                               ".map((link) => new URL(link.href).pathname)")
    paths = [url for _, url in requests]
    modules = [url for url in paths if url.startswith('/js/')]
    rings = [url for url in paths if url.startswith('/api/gallery')]
    assert len(listed) > 20, f'only {len(listed)} modules preloaded'
    assert sorted(modules) == sorted(listed), (f'modules not preloaded: {sorted(set(modules) - set(listed))}; '
                                               f'asked for twice: {sorted({m for m in modules if modules.count(m) > 1})}')
    assert rings == ['/api/gallery?page=0'], rings
    # The stylesheet and the entry module are named in the HTML: the preload scanner may ask for them first.
    ahead = paths[:paths.index(rings[0])]
    assert set(ahead) <= {'/', '/css/tilescope.css', '/js/main.js'}, f'the ring went out after {ahead}'


def test_the_client_files_come_compressed_to_a_browser_that_takes_deflate(browser, server, request):
    """Chromium asks with `Accept-Encoding: gzip, deflate, ...`: every module, the stylesheet and the page come as
    deflate (and run: the gallery opens); a client that does not say it takes deflate gets the file as it is."""
    with page_session(browser, server.base, request.node) as session:
        codings = {}
        session.page.on('response', lambda r: codings.__setitem__(r.url.removeprefix(server.base),
                                                                    r.headers.get('content-encoding')))
        session.open()
    texts = {path: coding for path, coding in codings.items()
             if path == '/' or path.startswith('/js/') or path.endswith('.css')}
    assert len(texts) > 20 and set(texts.values()) == {'deflate'}, texts
    for path, file in (('/js/dom/ScrollView.js', 'js/dom/ScrollView.js'), ('/', 'index.html')):
        plain = (PUBLIC / file).read_bytes()
        with urllib.request.urlopen(server.base + path) as r:
            assert r.headers.get('Content-Encoding') is None and r.read() == plain
            plain_tag = r.headers['ETag']
        asked = urllib.request.Request(server.base + path, headers={'Accept-Encoding': 'gzip, deflate'})
        with urllib.request.urlopen(asked) as r:
            assert r.headers['Content-Encoding'] == 'deflate' and 'Accept-Encoding' in r.headers['Vary']
            body, tag = r.read(), r.headers['ETag']
        assert zlib.decompress(body) == plain and len(body) < len(plain) / 2
        assert tag != plain_tag, 'the compressed bytes share the plain ones\' ETag'
        again = urllib.request.Request(server.base + path, headers={'Accept-Encoding': 'deflate', 'If-None-Match': tag})
        try:
            urllib.request.urlopen(again)
            raise AssertionError('no 304 for the current compressed copy')
        except urllib.error.HTTPError as e:
            assert e.code == 304


def load_with_latency(browser, server, node, fragment, scale=1, latency=150):
    """The gallery page at `fragment`, every answer `latency` ms late (DevTools), until idle: the browser's requests
    and finished requests in the order they happened, as ('sent' | 'done', path)."""
    events = []
    with page_session(browser, server.base, node, scale=scale) as session:
        page = session.page
        cdp = page.context.new_cdp_session(page)
        cdp.send('Network.enable')
        cdp.send('Network.emulateNetworkConditions', {'offline': False, 'latency': latency, 'downloadThroughput': -1,
                                                      'uploadThroughput': -1})
        page.on('request', lambda r: events.append(('sent', r.url.removeprefix(server.base))))
        page.on('requestfinished', lambda r: events.append(('done', r.url.removeprefix(server.base))))
        session.open(fragment)
    return events


def test_the_gallery_asks_for_its_preview_while_the_viewer_modules_still_load(browser, server, request):
    """Issue 44, goal 2: the gallery's ring is handed from js/main.js's early call to the viewer (asked for once), and
    the preview of the image it opens on (a portrait whose fit at 800 x 600 shows the preview level) is asked for as
    soon as the ring is in, before the viewer's last module has arrived, and once: the viewer's layer takes those
    bytes (TileLoader.js, `prefetch`). Each answer 150 ms late, so that the modules come in waves."""
    events = load_with_latency(browser, server, request.node, '#image=b-tall')
    sent = [path for kind, path in events if kind == 'sent']
    previews = [path for path in sent if path.startswith('/images/b-tall/preview.')]
    assert len(previews) == 1, f'preview requests: {previews}'
    assert len([path for path in sent if path.startswith('/api/gallery')]) == 1, sent
    asked = events.index(('sent', previews[0]))
    modules_done = [i for i, (kind, path) in enumerate(events) if kind == 'done' and path.startswith('/js/')]
    assert asked < modules_done[-1], (f'the preview was asked for after every module was in: '
                                      f'{[e for e in events if e[1].startswith(("/js/", "/images/"))]}')


def test_no_preview_is_asked_for_early_where_the_view_opens_on_finer_tiles(browser, server, request):
    """At a device scale of 2 the same portrait's fit needs a finer level than the preview's: neither the early call
    nor the layer asks for the preview (its bytes would be wasted)."""
    events = load_with_latency(browser, server, request.node, '#image=b-tall', scale=2, latency=50)
    sent = [path for kind, path in events if kind == 'sent']
    assert not [path for path in sent if '/preview.' in path and 'b-tall' in path], sent
    assert [path for path in sent if '/dzi/b-tall_files/' in path], 'no tiles of the portrait were asked for'
