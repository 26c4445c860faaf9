#!/usr/bin/env python3
"""Integration-test fixture, started by start.sh: a reverse proxy that passes requests to glewlwyd
one at a time. glewlwyd shares one SQLite connection between its threads and answers server_error
now and then when two requests write at the same moment (two sign-ins, or a sign-in beside a
device that polls); the test suites run side by side, so the proxy takes turns for them.
HTTP/1.0, one request per connection, headers and bodies passed as they are. Python standard
library only.

Usage: serial_proxy.py LISTEN_PORT GLEWLWYD_PORT
"""
import http.client, http.server, sys

listen_port, target_port = int(sys.argv[1]), int(sys.argv[2])
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "upgrade"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    timeout = 15  # a client that connects and sends nothing does not hold the line for long

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        upstream = http.client.HTTPConnection("127.0.0.1", target_port, timeout=30)
        try:
            upstream.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
            for name, value in self.headers.items():
                if name.lower() not in HOP_BY_HOP:
                    upstream.putheader(name, value)
            upstream.endheaders(body)
            answer = upstream.getresponse()
            data = answer.read()
        except OSError as error:
            self.send_error(502, f"glewlwyd did not answer: {error}")
            return
        finally:
            upstream.close()
        self.send_response_only(answer.status, answer.reason)
        for name, value in answer.getheaders():
            if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = forward

    def log_message(self, format, *args):
        pass


class Server(http.server.HTTPServer):
    request_queue_size = 128


Server(("127.0.0.1", listen_port), Handler).serve_forever()
