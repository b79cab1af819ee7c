"""An HTTP/2 front for a Tilescope server on loopback (test_http2.py, and bench/client/run.py's `--http2`): nginx on a
loopback port, TLS with a certificate made for the run (the browser is told to trust it), every request passed to
the one server behind it over kept-alive HTTP/1.1, nothing cached.

Why: over HTTP/1.1 a browser keeps six connections to a host and each waits a whole round trip between one answer
and the next request, so a view of 40 small tiles pays about seven round trips beside its bytes; over HTTP/2 every
request of the view goes out at once on one connection. A deployment behind any TLS front (nginx, a CDN) gets HTTP/2
from it (docs/scale-out.md), so both viewers are measured there too, on the same server."""
import base64
import hashlib
import os
import subprocess
import tempfile
import time
import urllib.request
import ssl
from pathlib import Path

CONFIG = """
worker_processes 1;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    upstream tilescope {{ server 127.0.0.1:{upstream}; keepalive 16; }}
    server {{
        listen 127.0.0.1:{port} ssl http2;
        ssl_certificate {folder}/cert.pem;
        ssl_certificate_key {folder}/key.pem;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $http_host;
        proxy_buffering off;
        location / {{ proxy_pass http://tilescope; }}
    }}
}}
"""


class Front:
    """nginx serving https://127.0.0.1:PORT with HTTP/2 in front of `upstream_port`; `stop()` ends it."""

    def __init__(self, upstream_port, port):
        self.folder = Path(tempfile.mkdtemp(prefix='tilescope-http2-'))
        subprocess.run(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1',
                        '-keyout', str(self.folder / 'key.pem'), '-out', str(self.folder / 'cert.pem')],
                       check=True, capture_output=True)
        config = self.folder / 'nginx.conf'
        # As root nginx's workers would run as nobody, who cannot read the key in this private folder.
        user = 'user root;\n' if os.geteuid() == 0 else ''
        config.write_text(user + CONFIG.format(upstream=upstream_port, port=port, folder=self.folder))
        self.process = subprocess.Popen(
            ['nginx', '-c', str(config), '-p', str(self.folder),
             '-g', f'daemon off; pid {self.folder}/nginx.pid; error_log {self.folder}/error.log;'],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        self.base = f'https://127.0.0.1:{port}'
        self._wait()

    def browser_args(self):
        """Chromium's flag that trusts this certificate (by its key's hash): a certificate error would also turn
        the HTTP cache off, which `ignore_https_errors` alone leaves so."""
        key = subprocess.run(['openssl', 'x509', '-in', str(self.folder / 'cert.pem'), '-pubkey', '-noout'],
                             check=True, capture_output=True).stdout
        der = subprocess.run(['openssl', 'pkey', '-pubin', '-outform', 'der'], input=key, check=True,
                             capture_output=True).stdout
        digest = base64.b64encode(hashlib.sha256(der).digest()).decode()
        return [f'--ignore-certificate-errors-spki-list={digest}']

    def _wait(self, timeout=20):
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f'nginx exited: {(self.folder / "error.log").read_text()[-2000:]}')
            try:
                with urllib.request.urlopen(self.base + '/healthz', timeout=2, context=context) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError('nginx did not answer')

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
