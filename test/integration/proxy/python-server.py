# A VM's web server for the smuggling tests, run INSIDE a VM: `python3 python-server.py PORT`.
# Python's own BaseHTTPRequestHandler speaking HTTP/1.1: it knows nothing of upgrades, answers
# every request on a connection in turn and keeps the connection for the next one. Each answer
# is JSON: the request line, and the headers as a CGI or WSGI application reads them (PEP 3333:
# "HTTP_" + the name upper-cased with "-" as "_", so X_Exectl_Email and X-Exectl-Email are one).
# `GET /seen` answers every request read before, as [request line, HTTP_X_EXECTL_EMAIL or null].
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

seen = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def do_GET(self):
        environ = {}
        for name, value in self.headers.items():
            key = 'HTTP_' + name.upper().replace('-', '_')
            # As WSGI servers do, repeated names are joined with commas.
            environ[key] = environ[key] + ',' + value if key in environ else value
        line = self.requestline
        answer = list(seen) if line.startswith('GET /seen ') else {'line': line, 'environ': environ}
        seen.append([line, environ.get('HTTP_X_EXECTL_EMAIL')])
        body = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


HTTPServer(('127.0.0.1', int(sys.argv[1])), Handler).serve_forever()
