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
    graph = import_graph(['/js/main.js'], PUBLIC)
    assert set(listed) == graph, (f'not listed: {sorted(graph - set(listed))}; '
                                  f'listed, never imported: {sorted(set(listed) - graph)}')


def test_the_benchmark_page_preloads_exactly_its_import_graph():
    """bench/client/tilescope.html loads as the gallery page does, so that its times are the client's."""
    html = (REPO / 'bench' / 'client' / 'tilescope.html').read_text()
    inline = html.split('<script type="module">', 1)[1]
    entries = [spec for spec in re.findall(r"^\s*import .* from '([^']+)';", inline, re.M) if spec.startswith('/js/')]
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
