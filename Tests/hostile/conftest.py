"""Fixtures for the hostile-traffic tests: a real `tilescope serve` on a free loopback port over a
small image made with the vips CLI, and the file-descriptor room to open thousands of sockets."""
import json
import os
import resource
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'lib'))
from processes import free_port, stop  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
OUTPUT = REPO / 'test-output' / 'hostile'


def raise_descriptor_limit(needed):
    """The test opens thousands of sockets: raise its own soft limit to the hard one, or fail."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.fail(f'the open-files hard limit is {hard}; this test needs {needed} (raise it with ulimit -Hn)')
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Server:
    """`tilescope serve` with extra flags; its log is kept in test-output/hostile/ (its access log too,
    unless `stdout` names another descriptor for it)."""

    def __init__(self, images, data, name, *flags, open_files=None, stdout=None):
        binary = os.environ.get('TILESCOPE_BIN', str(REPO / '.build' / 'debug' / 'tilescope'))
        if not Path(binary).exists():
            pytest.fail(f'no server binary at {binary}: build it with `swift build --product tilescope`')
        OUTPUT.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.base = f'http://127.0.0.1:{self.port}'
        self.log_path = OUTPUT / f'{name}.log'
        self.log = open(self.log_path, 'w')
        self.process = subprocess.Popen(
            [binary, 'serve', '--images', str(images), '--data', str(data), '--port', str(self.port),
             '--host', '127.0.0.1', '--log-format', 'json', *flags],
            cwd=REPO, stdout=self.log if stdout is None else stdout,
            stderr=subprocess.STDOUT if stdout is None else self.log,
            # A hard open-files limit the server cannot raise, as systemd's default of 1024 is for many.
            preexec_fn=(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files)))
            if open_files else None)
        self.tiles = self.wait_ready()

    def get_json(self, path):
        with urllib.request.urlopen(self.base + path, timeout=5) as reply:
            return json.loads(reply.read())

    def wait_ready(self, timeout=120):
        """Until the image is built; returns the paths of its full-resolution tiles."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f'tilescope exited with {self.process.returncode}:\n{self.log_path.read_text()[-3000:]}')
            try:
                images = self.get_json('/api/images')['images']
                if images and images[0]['status'] == 'ready':
                    image = images[0]
                    template = image['urls']['tiles']
                    self.all_tiles = []
                    width, height, size = image['width'], image['height'], image['tileSize']
                    for level in range(image['maxLevel'], -1, -1):
                        columns, rows = -(-width // size), -(-height // size)
                        self.all_tiles += [template.replace('{level}', str(level)).replace('{col}', str(c))
                                           .replace('{row}', str(r)) for r in range(rows) for c in range(columns)]
                        width, height = max(1, -(-width // 2)), max(1, -(-height // 2))
                    top = -(-image['width'] // size) * -(-image['height'] // size)
                    return self.all_tiles[:top]
            except OSError:
                pass
            time.sleep(0.2)
        pytest.fail(f'image not built after {timeout} s')

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        stop(self.process)
        self.log.close()


@pytest.fixture(scope='session')
def images(tmp_path_factory):
    folder = tmp_path_factory.mktemp('images')
    subprocess.run(['vips', 'gaussnoise', str(folder / 'noise.jpg'), '2000', '1500'], check=True)
    return folder


@pytest.fixture(scope='session')
def large_images(tmp_path_factory):
    """An image of about 1,400 tiles: more than a 1024 open-files limit."""
    folder = tmp_path_factory.mktemp('large-images')
    subprocess.run(['vips', 'black', str(folder / 'large.jpg'), '8000', '8000'], check=True)
    return folder


@pytest.fixture
def start_server(images, tmp_path):
    """Starts a server with the given flags; every one started is stopped at the end of the test."""
    started = []

    def start(name, *flags, folder=None, open_files=None, stdout=None):
        server = Server(folder or images, tmp_path / f'data-{len(started)}', name, *flags, open_files=open_files,
                        stdout=stdout)
        started.append(server)
        return server

    yield start
    for server in started:
        assert server.alive(), f'the server died during the test: see {server.log_path}'
        server.stop()
