"""How a page gets its modules and its first record (issue 44, goal 2): the record first, then every module of the
client in one answer (`GET /js/modules.json`, ModulePack.swift), each made a module of its own from a blob by the
page's loader (Public/index.html), instead of forty requests in waves of six on HTTP/1.1's connections; compressed
(`Content-Encoding: deflate`). The pack is held to the files, every import of every module to what the loader can
rewrite, the benchmark page's loader to the gallery page's; counted in requests and bytes, never timed."""
import json
import re
import sys
import textwrap
import urllib.error
import urllib.request
import zlib

from conftest import REPO, page_session

PUBLIC = REPO / 'Public'
# Every `import ... from '...'`, `export ... from '...'`, `import '...'` and `import('...')`, over several lines too,
# with either quote: what a module can import by.
ANY_IMPORT = re.compile(r'''^\s*(?:import|export)\s[^;'"]*?\bfrom\s*(['"])([^'"]+)\1|^\s*import\s*(['"])([^'"]+)\3'''
                        r'''|\bimport\s*\(\s*(['"`])([^'"`]+)\5''', re.M | re.S)
# What the loader rewrites (its regular expression, in Python's words): `from '<relative>'` and `import('<relative>')`.
REWRITTEN = re.compile(r"""(\bfrom\s*|\bimport\s*\(\s*)'(\.\.?/[^'\n]*)'""")
LOADER = re.compile(r'^ *// module pack loader: begin\n(.*?)^ *// module pack loader: end\n', re.M | re.S)


def client_modules():
    return {str(path.relative_to(PUBLIC)): path.read_text() for path in sorted((PUBLIC / 'js').rglob('*.js'))}


def resolved(path, specifier):
    parts = path.split('/')[:-1]
    for part in specifier.split('/'):
        if part == '..':
            parts.pop()
        elif part != '.':
            parts.append(part)
    return '/'.join(parts)


def get(url, headers=None):
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as r:
        return r.read(), r.headers


def test_the_pack_is_every_module_of_the_client_as_its_file_without_its_comment_lines(server):
    body, headers = get(server.base + '/js/modules.json')
    assert headers['Content-Type'] == 'application/json'
    pack = json.loads(body)
    modules = client_modules()
    assert len(modules) > 30
    assert sorted(pack) == sorted(modules), (f'missing: {sorted(set(modules) - set(pack))}; '
                                             f'extra: {sorted(set(pack) - set(modules))}')
    # Each module is its file with its comment lines left blank: every other line as it is, at its number.
    for path, text in modules.items():
        packed, lines = pack[path].split('\n'), text.split('\n')
        assert len(packed) == len(lines), path
        changed = [(n, line) for n, (line, got) in enumerate(zip(lines, packed), 1) if got != line]
        assert all(packed[n - 1] == '' and line.strip().startswith(('//', '/*', '*')) for n, line in changed), \
            (path, changed[:3])
    blank = sum(pack[path].count('\n\n') for path in pack)
    assert blank > sum(text.count('\n\n') for text in modules.values()), 'no comment line was left out'
    # Compressed for a client that takes deflate, under its own ETag; a 304 for the copy a client holds.
    compressed, zipped = get(server.base + '/js/modules.json', {'Accept-Encoding': 'gzip, deflate'})
    assert zipped['Content-Encoding'] == 'deflate' and 'Accept-Encoding' in zipped['Vary']
    assert zlib.decompress(compressed) == body and len(compressed) < len(body) / 2
    assert zipped['ETag'] != headers['ETag']
    for tag, coding in ((headers['ETag'], 'identity'), (zipped['ETag'], 'deflate')):
        try:
            get(server.base + '/js/modules.json', {'If-None-Match': tag, 'Accept-Encoding': coding})
            raise AssertionError(f'no 304 for the current copy ({coding})')
        except urllib.error.HTTPError as e:
            assert e.code == 304


def static_graph(entries, modules):
    """`entries` and the modules they import statically (`from '...'`, `import '...'`), at any depth."""
    seen, todo = set(), list(entries)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for match in ANY_IMPORT.finditer(modules[path]):
            if match.group(2) or match.group(4):
                todo.append(resolved(path, match.group(2) or match.group(4)))
    return seen


def test_a_pack_of_entries_is_their_static_import_graph(server):
    """`?entries=` gives the modules named and what they import statically, at any depth: the gallery page's first
    step (js/main.js: its record, the base tile and the preview asked for) without its viewer, imported on demand."""
    modules = client_modules()
    body, _ = get(server.base + '/js/modules.json?entries=js/main.js')
    first = json.loads(body)
    assert sorted(first) == sorted(static_graph(['js/main.js'], modules))
    assert 'js/tiles/EarlyPreview.js' in first and 'js/tilescope.js' not in first and len(first) < 10, sorted(first)
    body, _ = get(server.base + '/js/modules.json?entries=js/tiles/EarlyPreview.js,js/gallery/Api.js')
    assert sorted(json.loads(body)) == sorted(static_graph(['js/tiles/EarlyPreview.js', 'js/gallery/Api.js'], modules))
    for query in ('js/nothing.js', '', 'js/main.js,', ','.join(['js/main.js'] * 3 + [f'js/x{i}.js' for i in range(17)]),
                  '../index.html'):
        try:
            get(server.base + '/js/modules.json?entries=' + query)
            raise AssertionError(f'no 404 for entries={query!r}')
        except urllib.error.HTTPError as e:
            assert e.code == 404 and 'entries' in json.loads(e.read())['message'], query


def test_every_import_of_every_module_is_one_the_loader_rewrites_to_a_module_of_the_pack():
    """A blob module cannot resolve a relative path itself: every import must be a quoted relative path the loader's
    expression finds (single quotes), naming a file of the pack. A module written otherwise would fail from the pack
    (and the page fall back to files only where the pack cannot be read), so it fails here first."""
    modules = client_modules()
    for path, text in modules.items():
        found = [m.group(2) or m.group(4) or m.group(6) for m in ANY_IMPORT.finditer(text)]
        rewritten = [specifier for _, specifier in REWRITTEN.findall(text)]
        assert sorted(found) == sorted(rewritten), f'{path}: imports the loader would not rewrite: {found} / {rewritten}'
        for specifier in rewritten:
            assert resolved(path, specifier) in modules, f'{path} imports {specifier}, which is not a module of js/'


def test_the_benchmark_page_loads_its_modules_with_the_gallery_pages_loader():
    """bench/client/tilescope.html loads as the gallery page does, so that its times are the client's: run.py puts the
    gallery page's loader (its lines between `begin` and `end`) where the benchmark page says, once, as it is."""
    sys.path.insert(0, str(REPO / 'bench' / 'client'))
    from module_loader import with_module_loader
    index = (PUBLIC / 'index.html').read_text()
    found = LOADER.search(index)
    assert found, 'no module pack loader in index.html'
    page = with_module_loader((REPO / 'bench' / 'client' / 'tilescope.html').read_text())
    assert page.count('// module pack loader: begin') == 1
    assert textwrap.dedent(LOADER.search(page).group(1)) == textwrap.dedent(found.group(1))


def test_the_browser_asks_for_the_ring_first_then_the_packs_and_no_module_file(browser, server, request):
    """In Chromium: the gallery's ring goes out before the packs (js/main.js's graph, and the whole pack), each once
    (the module's own fetch of the ring is answered by the preload), no module is asked for as a file, and the
    gallery opens from the packs' modules."""
    with page_session(browser, server.base, request.node) as session:
        page = session.page
        requests = []
        page.on('request', lambda r: requests.append(r.url.removeprefix(server.base)))
        session.open()
        # Each module ran from a blob, named as its file for DevTools (`sourceURL`).
        scripts = page.evaluate("() => performance.getEntriesByType('resource').map((e) => e.name)"
                                ".filter((name) => name.startsWith('blob:')).length")
    rings = [url for url in requests if url.startswith('/api/gallery')]
    assert rings == ['/api/gallery?page=0'], rings
    assert sorted(url for url in requests if url.startswith('/js/')) == [
        '/js/modules.json', '/js/modules.json?entries=js/main.js'], requests
    ahead = requests[:requests.index(rings[0])]
    assert set(ahead) <= {'/', '/css/tilescope.css'}, f'the ring went out after {ahead}'
    assert scripts == 0, 'Resource Timing lists blob modules: the page asked for them some other way'


def test_without_the_pack_the_gallery_page_loads_its_modules_as_files(browser, server, request):
    """A front that serves only files (no `/js/modules.json`): the page loads js/main.js and its graph as plain
    modules, and opens all the same."""
    with page_session(browser, server.base, request.node) as session:
        page = session.page
        session.allowed_failures = re.compile(r'/js/modules\.json')
        page.route(re.compile(r'/js/modules\.json'), lambda route: route.fulfill(
            status=404, body='{"error": "no pack"}', content_type='application/json'))
        requests = []
        page.on('request', lambda r: requests.append(r.url.removeprefix(server.base)))
        session.open()
        assert page.evaluate('() => document.documentElement.dataset.ready') == 'true'
    modules = [url for url in requests if url.startswith('/js/') and not url.startswith('/js/modules.json')]
    assert '/js/main.js' in modules and '/js/dom/ScrollView.js' in modules, requests
    assert len(modules) == len(set(modules)), 'a module asked for twice'


def test_the_client_files_come_compressed_to_a_browser_that_takes_deflate(browser, server, request):
    """Chromium asks with `Accept-Encoding: gzip, deflate, ...`: the pack, the stylesheet and the page come as deflate
    (and run: the gallery opens); a client that does not say it takes deflate gets a file as it is."""
    with page_session(browser, server.base, request.node) as session:
        codings = {}
        session.page.on('response', lambda r: codings.__setitem__(r.url.removeprefix(server.base),
                                                                    r.headers.get('content-encoding')))
        session.open()
    texts = {path: coding for path, coding in codings.items()
             if path == '/' or path.startswith('/js/') or path.endswith('.css')}
    assert set(texts) == {'/', '/js/modules.json', '/js/modules.json?entries=js/main.js', '/css/tilescope.css'} \
        and set(texts.values()) == {'deflate'}, texts
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


# When the viewer first put something into the gallery's element, by the page's clock.
VIEWER_BUILT = """(() => {
  const observer = new MutationObserver(() => {
    const gallery = document.getElementById('gallery');
    if (gallery && gallery.childElementCount > 0) {
      window.__viewerBuiltAt = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true });
})();"""


def load_with_latency(browser, server, node, fragment, scale=1, latency=150):
    """The gallery page at `fragment`, every answer `latency` ms late (DevTools), until idle: the paths the browser
    asked for, in order, Resource Timing's start of each, by path, and when the viewer was built."""
    sent = []
    with page_session(browser, server.base, node, scale=scale) as session:
        page = session.page
        page.add_init_script(VIEWER_BUILT)
        cdp = page.context.new_cdp_session(page)
        cdp.send('Network.enable')
        cdp.send('Network.emulateNetworkConditions', {'offline': False, 'latency': latency, 'downloadThroughput': -1,
                                                      'uploadThroughput': -1})
        page.on('request', lambda r: sent.append(r.url.removeprefix(server.base)))
        session.open(fragment)
        starts = page.evaluate("() => Object.fromEntries(performance.getEntriesByType('resource')"
                               ".map((e) => [e.name.replace(location.origin, ''), e.startTime]))")
        built = page.evaluate('() => window.__viewerBuiltAt')
    return sent, starts, built


def test_the_gallery_asks_for_its_preview_as_soon_as_the_ring_is_in(browser, server, request):
    """Issue 44, goal 2: the gallery's ring is handed from js/main.js's early call to the viewer (asked for once), and
    the preview of the image it opens on (a portrait whose fit at 800 x 600 shows the preview level) is asked for by
    that early call, once, before the viewer is built (its first element in the page) from the pack's other modules.
    The viewer's layer takes those bytes (TileLoader.js, `prefetch`). Each answer 150 ms late."""
    sent, starts, built = load_with_latency(browser, server, request.node, '#image=b-tall')
    previews = [path for path in sent if path.startswith('/images/b-tall/preview.')]
    assert len(previews) == 1, f'preview requests: {previews}'
    assert len([path for path in sent if path.startswith('/api/gallery')]) == 1, sent
    assert built is not None and starts[previews[0]] < built, (starts, built)


def test_no_preview_is_asked_for_early_where_the_view_opens_on_finer_tiles(browser, server, request):
    """At a device scale of 2 the same portrait's fit needs a finer level than the preview's: neither the early call
    nor the layer asks for the preview (its bytes would be wasted)."""
    sent, _, _ = load_with_latency(browser, server, request.node, '#image=b-tall', scale=2, latency=50)
    assert not [path for path in sent if '/preview.' in path and 'b-tall' in path], sent
    assert [path for path in sent if '/dzi/b-tall_files/' in path], 'no tiles of the portrait were asked for'
