"""What the Python suites share about the servers they start: a free loopback port, and a stop that
lets the server drain (SIGTERM) before it is killed."""
import signal
import socket
import subprocess


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def stop(process, timeout=15):
    """SIGTERM, then SIGKILL if the process has not exited within `timeout` seconds."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
