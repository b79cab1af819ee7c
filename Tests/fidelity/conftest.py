"""One real `tilescope serve` on a free loopback port over the sources of sources.py, started once for the
suite and stopped at its end."""
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'lib'))
from processes import free_port, stop  # noqa: E402

import sources

REPO = Path(__file__).resolve().parents[2]
OUTPUT = REPO / 'test-output' / 'fidelity'


class Server:
    def __init__(self, images, data):
        binary = os.environ.get('TILESCOPE_BIN', str(REPO / '.build' / 'debug' / 'tilescope'))
        if not Path(binary).exists():
            pytest.fail(f'no server binary at {binary}: build it with `swift build --product tilescope`')
        OUTPUT.mkdir(parents=True, exist_ok=True)
        self.base = f'http://127.0.0.1:{free_port()}'
        self.log_path = OUTPUT / 'server.log'
        self.log = open(self.log_path, 'w')
        self.process = subprocess.Popen(
            [binary, 'serve', '--images', str(images), '--data', str(data), '--port', self.base.rsplit(':', 1)[1],
             '--host', '127.0.0.1', '--quiet', '--settle', '0'],
            cwd=REPO, stdout=self.log, stderr=subprocess.STDOUT)

    def get(self, path, accept=None):
        """(status, content type, body) of a GET."""
        request = urllib.request.Request(self.base + path, headers={'Accept': accept} if accept else {})
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                return reply.status, reply.headers.get('Content-Type'), reply.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get('Content-Type'), error.read()

    def json(self, path):
        status, _, body = self.get(path)
        assert status == 200, f'{path}: {status} {body[:300]!r}'
        return json.loads(body)

    def wait_all(self, count, timeout=300):
        """Every image ready (a failed one fails the suite with its reason)."""
        deadline = time.monotonic() + timeout
        images = []
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f'tilescope exited with {self.process.returncode}:\n{self.log_path.read_text()[-3000:]}')
            try:
                images = self.json('/api/images?limit=100')['images']
            except OSError:
                images = []
            failed = [f"{i['fileName']}: {i.get('reason')}" for i in images if i['status'] == 'failed']
            if failed:
                pytest.fail('builds failed: ' + '; '.join(failed))
            if len(images) == count and all(i['status'] == 'ready' for i in images):
                return {i['fileName']: i for i in images}
            time.sleep(0.3)
        pytest.fail(f'not all {count} images ready after {timeout} s: '
                    + ', '.join(f"{i['fileName']} {i['status']}" for i in images))

    def stop(self):
        stop(self.process)
        self.log.close()


@pytest.fixture(scope='session')
def source_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp('sources')
    return folder, sources.make_all(folder)


@pytest.fixture(scope='session')
def served(source_folder, tmp_path_factory):
    folder, made = source_folder
    server = Server(folder, tmp_path_factory.mktemp('data'))
    try:
        server.images = server.wait_all(len(made))
        yield server
    finally:
        server.stop()
