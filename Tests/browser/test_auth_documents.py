"""The client's reading of the IIIF Authorization Flow 2.0 documents (Public/js/auth/AuthDocuments.js, pure), run in
Chromium on the spec's own examples (https://iiif.io/api/auth/2.0/) and on what a client must not trust."""
import pytest

from conftest import page_session

SPEC_PROBE = {
    'id': 'https://auth.example.org/probe/my-video', 'type': 'AuthProbeService2',
    'errorHeading': {'en': ['Not allowed']},
    'service': [
        {'id': 'https://auth.example.org/login', 'type': 'AuthAccessService2', 'profile': 'active',
         'label': {'en': ['Login to Example Institution']}, 'heading': {'en': ['Please Log In']},
         'note': {'en': ['Example Institution requires that you log in.']}, 'confirmLabel': {'en': ['Login']},
         'service': [{'id': 'https://auth.example.org/token', 'type': 'AuthAccessTokenService2',
                      'errorHeading': {'en': ['Something went wrong']}},
                     {'id': 'https://auth.example.org/logout', 'type': 'AuthLogoutService2',
                      'label': {'en': ['Logout from Example Institution']}}]},
        {'type': 'AuthAccessService2', 'profile': 'external', 'label': {'en': ['External']},
         'service': [{'id': '/token', 'type': 'AuthAccessTokenService2'}]},
        # Unusable, so left out: an unknown profile, an active one without id, one without a token service.
        {'id': 'https://auth.example.org/x', 'type': 'AuthAccessService2', 'profile': 'clickthrough',
         'service': [{'id': 'https://auth.example.org/token', 'type': 'AuthAccessTokenService2'}]},
        {'type': 'AuthAccessService2', 'profile': 'active',
         'service': [{'id': 'https://auth.example.org/token', 'type': 'AuthAccessTokenService2'}]},
        {'id': 'https://auth.example.org/login2', 'type': 'AuthAccessService2', 'profile': 'kiosk', 'service': []},
    ],
}


@pytest.fixture
def documents(browser, server, request):
    with page_session(browser, server.base, request.node) as session:
        session.page.goto(server.base + '/embed.html')
        yield lambda script, *args: session.page.evaluate(
            f"async (args) => {{ const d = await import('/js/auth/AuthDocuments.js'); return ({script})(d, ...args); }}",
            list(args))


def test_probe_services_are_found_where_info_json_or_a_manifest_declares_them(documents):
    info = {'id': 'https://auth.example.org/iiif/3/x', 'service': [{'type': 'ImageService3'}, SPEC_PROBE]}
    found = documents('(d, doc) => d.probeServices(doc, "https://auth.example.org/iiif/3/x/info.json")', info)
    assert len(found) == 1
    probe = found[0]
    assert probe['id'] == SPEC_PROBE['id']
    # The spec's order (3.3): external, then active; the unusable ones left out; relative ids resolved.
    assert [a['profile'] for a in probe['access']] == ['external', 'active']
    external, active = probe['access']
    assert external['id'] is None and external['token']['id'] == 'https://auth.example.org/token'
    assert active['id'] == 'https://auth.example.org/login'
    assert active['logout'] == {'id': 'https://auth.example.org/logout',
                                'label': {'en': ['Logout from Example Institution']}}
    manifest = {'items': [{'items': [{'items': [{'body': {'service': [SPEC_PROBE]}}]}]}]}
    assert len(documents('(d, doc) => d.probeServices(doc, "https://a.example/")', manifest)) == 1
    # A 401's JSON body from Tilescope carries the same list as `service`.
    assert len(documents('(d, doc) => d.probeServices(doc, "https://a.example/")',
                         {'error': 'unauthorized', 'service': [SPEC_PROBE]})) == 1
    for nothing in (None, 'text', {'service': [{'type': 'AuthProbeService2'}]},
                    {'service': [{'type': 'AuthProbeService2', 'id': 'javascript:alert(1)', 'service': []}]}):
        assert documents('(d, doc) => d.probeServices(doc, "https://a.example/")', nothing) == []


def test_probe_outcomes(documents):
    outcome = lambda result: documents('(d, r) => d.probeOutcome(r, "https://a.example/probe/x")', result)
    base = {'@context': 'http://iiif.io/api/auth/2/context.json', 'type': 'AuthProbeResult2'}
    assert outcome({**base, 'status': 200})['kind'] == 'granted'
    moved = outcome({**base, 'status': 302, 'location': {'id': '/signed/t/iiif/3/x/info.json', 'type': 'ImageService3'}})
    assert moved['kind'] == 'moved' and moved['location']['id'] == 'https://a.example/signed/t/iiif/3/x/info.json'
    denied = outcome({**base, 'status': 401, 'heading': {'en': ['No']},
                      'substitute': [{'id': '/auth/degraded/x.jpeg', 'type': 'Image', 'width': 400}]})
    assert denied['kind'] == 'denied' and denied['tier']['id'] == 'https://a.example/auth/degraded/x.jpeg'
    assert denied['tier']['width'] == 400 and denied['heading'] == {'en': ['No']}
    # A 30x to a single picture is a tier shown meanwhile (Tilescope's degraded tier), not the end of the flow.
    picture = outcome({**base, 'status': 302, 'location': {'id': '/auth/degraded/x.jpeg', 'type': 'Image', 'width': 64}})
    assert picture['kind'] == 'denied' and picture['tier']['id'] == 'https://a.example/auth/degraded/x.jpeg'
    # A location with a refusal is taken as the tier offered meanwhile; a 30x without one moves nowhere.
    assert outcome({**base, 'status': 401, 'location': {'id': '/d.jpeg'}})['tier']['id'] == 'https://a.example/d.jpeg'
    assert outcome({**base, 'status': 302})['kind'] == 'denied'
    for junk in (None, {'status': 200}, {**base, 'status': '200'}):
        assert outcome(junk) == {'kind': 'denied', 'status': None, 'tier': None, 'heading': None, 'note': None}


def test_language_maps_and_token_messages(documents):
    text = lambda value, languages: documents('(d, v, l) => d.languageText(v, l)', value, languages)
    assert text({'en': ['Sign', 'in'], 'de': ['Anmelden']}, ['de-CH']) == 'Anmelden'
    assert text({'fr': ['Connexion'], 'none': ['Login']}, ['de']) == 'Login'
    assert text({'fr': ['Connexion']}, []) == 'Connexion'
    assert text('plain', []) == 'plain' and text(None, []) == '' and text({'en': 5}, []) == ''
    message = lambda data, wanted: documents('(d, m, id) => d.tokenMessage(m, id)', data, wanted)
    token = {'@context': 'http://iiif.io/api/auth/2/context.json', 'type': 'AuthAccessToken2', 'accessToken': 'abc',
             'expiresIn': 300, 'messageId': 'm1'}
    assert message(token, 'm1') == {'accessToken': 'abc', 'expiresIn': 300}
    assert message(token, 'm2') is None, 'a message for another request is ignored (4.4)'
    assert message({**token, 'expiresIn': -1}, 'm1') == {'accessToken': 'abc', 'expiresIn': None}
    error = {'type': 'AuthAccessTokenError2', 'profile': 'missingAspect', 'messageId': 'm1', 'heading': {'en': ['No']}}
    assert message(error, 'm1') == {'error': 'missingAspect', 'heading': {'en': ['No']}, 'note': None}
    assert message({'type': 'Other', 'messageId': 'm1'}, 'm1') is None
    assert documents('(d) => d.withQuery("https://a.example/token?x=1", { messageId: "m 1", origin: "https://c.example" })') \
        == 'https://a.example/token?x=1&messageId=m+1&origin=https%3A%2F%2Fc.example'
