"""Loopback ports for the fleet's servers, below the kernel's range for the local ports of outgoing connections.

A port from that range (a bind to port 0) is free when asked for, but the kernel may hand it to an outgoing
connection before the server given it binds it, minutes later in this test after thousands of connections through
nginx: a replica of the S3 profile once failed to start so ("Address already in use"). Below the range only a
listener can take a port, and each port is given once per run."""
import random
import socket

_given = set()


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port():
    """A port on 127.0.0.1 nothing listens on now, outside the outgoing connections' range, not given before."""
    high = min(_ephemeral_low(), 65536) - 1
    for _ in range(2000):
        port = random.randint(10000, high)
        if port in _given:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _given.add(port)
        return port
    raise SystemExit("fleet: FAIL no free loopback port below the outgoing connections' range")
