#!/usr/bin/env python3
"""Reproduces libmicrohttpd 0.9.75's 128-event stall against a tilescope binary, deterministically.

  stall128.py BINARY [--images DIR --data DIR] [--connections 128] [--wait 10]

Starts `BINARY serve --threads 1` with 600 s timeouts, opens the connections and lets the server accept
them, stops the server (SIGSTOP), sends one request on every connection, resumes it (SIGCONT), and
counts the answers that arrive within --wait seconds. The server's single poll thread then finds
exactly --connections descriptors ready at once. libmicrohttpd's own epoll loop (MAX_EVENTS = 128)
answers none of 128 until its connection timeout; it answers 127 or 129 at once. Prints one line:
`answered A of N within W s`; exits 1 if some went unanswered.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time



def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--connections", type=int, default=128)
    parser.add_argument("--wait", type=float, default=10)
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="stall128-")
    os.makedirs(f"{scratch}/images")
    port = free_port()
    server = subprocess.Popen(
        [args.binary, "serve", "--images", f"{scratch}/images", "--data", f"{scratch}/data", "--host", "127.0.0.1",
         "--port", str(port), "--threads", "1", "--timeout", "600", "--header-timeout", "600", "--quiet"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    sys.exit("stall128: the server did not start")
                time.sleep(0.1)
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(args.connections)]
        time.sleep(1)  # every connection accepted and its first (write-ready) event consumed
        server.send_signal(signal.SIGSTOP)
        time.sleep(0.2)
        for client in clients:
            client.sendall(b"GET /api/images HTTP/1.1\r\nHost: stall\r\n\r\n")
        time.sleep(0.2)
        server.send_signal(signal.SIGCONT)
        answered, end = 0, time.time() + args.wait
        for client in clients:
            client.settimeout(max(0.01, end - time.time()))
            try:
                if client.recv(12).startswith(b"HTTP/1.1 200"):
                    answered += 1
            except OSError:
                pass
        print(f"answered {answered} of {args.connections} within {args.wait:g} s")
        sys.exit(0 if answered == args.connections else 1)
    finally:
        server.send_signal(signal.SIGCONT)
        server.terminate()
        server.wait(30)
        subprocess.run(["rm", "-rf", scratch])


if __name__ == "__main__":
    main()
