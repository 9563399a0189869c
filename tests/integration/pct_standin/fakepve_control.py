# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Client of fakepve's control socket (fakepve_serve.py --control): what the fake API was asked and did."""

import http.client
import json
import socket


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("fakepve")
        self.socket_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.socket_path)


def read_state(socket_path):
    """fakepve's /state: {"requests": [[method, path, ...], ...], "tasks": [{"type": ..., ...}, ...], ...}."""
    connection = _UnixHTTPConnection(socket_path)
    try:
        connection.request("GET", "/state")
        response = connection.getresponse()
        if response.status != 200:
            raise RuntimeError("fakepve control socket %s: GET /state answered %d" % (socket_path, response.status))
        return json.loads(response.read())
    finally:
        connection.close()
