"""The client loads only what the carousel shows (issue #13, goal 5): never the whole image list, and no
request for an image that is not on one of its three pages."""
import re

from conftest import http

IMAGE_URL = re.compile(r'/(?:api/images|images|dzi|iiif/\d)/([^/?_]+?)(?:\.dzi|_files|/|\?|$)')


def record_requests(page):
    urls = []
    page.on('request', lambda request: urls.append(request.url))
    return urls


def ids_in(urls):
    ids = set()
    for url in urls:
        path = '/' + url.split('://', 1)[1].split('/', 1)[1]
        match = IMAGE_URL.match(path)
        if match:
            ids.add(match.group(1))
    return ids


def test_only_the_three_pages_around_the_current_image_are_requested(session, server):
    ids = [i['id'] for i in server.images]
    n = len(ids)
    assert n >= 4, 'needs an image that is on none of the three pages'
    urls = record_requests(session.page)
    session.open(f'#image={ids[0]}')
    listed = [u for u in urls if re.search(r'/api/images(\?|$)', u)]
    assert not listed, f'the client fetched the image list: {listed}'
    rings = [u for u in urls if '/api/gallery' in u]
    assert rings and all('limit' not in u for u in rings), urls
    ring = {ids[-1], ids[0], ids[1]}
    assert session.state()['pages'] == [ids[-1], ids[0], ids[1]]
    outside = ids_in(urls) - ring
    assert not outside, f'requests for images on no page: {sorted(outside)} in {urls}'
    assert ids_in(urls) & ring, 'the pages drew their images from the server'

    # Turning the page asks for the ring around the image arrived at; the image after it comes in then.
    urls.clear()
    session.page.click('.nav.next')
    session.wait_idle()
    assert session.state()['pages'] == [ids[0], ids[1], ids[2 % n]]
    assert any(f'/api/gallery?image={ids[1]}' in u for u in urls), urls
    assert ids_in(urls) <= {ids[0], ids[1], ids[2 % n]}, urls
    assert not [u for u in urls if re.search(r'/api/images(\?|$)', u)]


def test_a_deep_link_opens_on_its_image_without_the_list(session, server):
    ids = [i['id'] for i in server.images]
    urls = record_requests(session.page)
    session.open(f'#image={ids[2]}')
    state = session.state()
    assert state['imageId'] == ids[2] and state['index'] == 2 and state['count'] == len(ids)
    assert any(f'/api/gallery?image={ids[2]}' in u for u in urls), urls
    # An image that no longer exists falls back to the first page, without an error on the page.
    session.allowed_failures = re.compile(r'/api/gallery\?image=no-such-image')
    session.open('#image=no-such-image')
    assert session.state()['imageId'] == ids[0]
    status, _ = http('GET', f'{server.base}/api/gallery?image=no-such-image')
    assert status == 404
