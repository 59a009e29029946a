"""The command that stands for a forked process (`tests/forking.py`): the standard library only, run as
`python -S -I`, so it starts in milliseconds.

    python -S -I tests/fork_launch.py SOCKET [ARGS…]

Passes ARGS, the environment, the working folder and its standard streams to the forking process at
SOCKET, which forks a child that runs on them. The child is this process as its starter sees it: a signal
sent here is passed on to the child, and this process ends the way the child ended (its exit status, or
killed by the same signal). If this process is killed outright, the forking process kills the child.
"""

import json
import os
import signal
import socket
import sys

_PASSED_ON = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def _receive(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size and (more := connection.recv(size - len(data))):
        data += more
    return data


def main() -> int:
    child = 0
    pending = []

    def pass_on(number, _frame):
        if child:
            os.kill(child, number)
        else:
            pending.append(number)

    for number in _PASSED_ON:
        signal.signal(number, pass_on)
    request = json.dumps({"argv": sys.argv[2:], "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(sys.argv[1])
        socket.send_fds(connection, [len(request).to_bytes(4, "big") + request], [0, 1, 2])
        nothing = os.open(os.devnull, os.O_RDWR)
        for stream in (0, 1, 2):  # the child has them now: an end of a pipe kept here would hold it open
            os.dup2(nothing, stream)
        os.close(nothing)
        pid = _receive(connection, 4)
        if len(pid) < 4:
            return 1
        child = int.from_bytes(pid, "big")
        for number in pending:
            os.kill(child, number)
        status = _receive(connection, 4)
    if len(status) < 4:
        return 1
    status = int.from_bytes(status, "big")
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        return 128 + number
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
