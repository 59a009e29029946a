"""The conformance suite's client command when clients are forked (`forks.py`): the standard library
only, run without site-packages, so it starts in milliseconds.

    python -S tests/conformance/launch.py SOCKET [ARGS…]

Passes ARGS, the environment, the working folder and its standard streams to the forking process
at SOCKET and exits with the status the forked client reports (1 if it reports none).
"""

import json
import os
import socket
import sys


def main() -> int:
    request = json.dumps({"argv": sys.argv[2:], "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(sys.argv[1])
        socket.send_fds(connection, [len(request).to_bytes(4, "big") + request], [0, 1, 2])
        status = b""
        while len(status) < 4 and (more := connection.recv(4 - len(status))):
            status += more
    return int.from_bytes(status, "big", signed=True) if len(status) == 4 else 1


if __name__ == "__main__":
    sys.exit(main())
