#!/usr/bin/env python3
"""Serve the web-platform-tests suite with wptserve and pywebsocket3, configured like WPT's
`tools/serve`.

Usage: serve.py CONFIG.json

CONFIG.json is written by the `wpt` runner (see wpt/src/server.rs):

    {
      "doc_root": "/path/to/suite",
      "bind_address": "127.0.0.1",
      "browser_host": "web-platform.test",
      "alternate_hosts": {"alt": "not-web-platform.test"},
      "subdomains": ["www", "www1", ..., "www.www1", ...],
      "not_subdomains": ["nonexistent", ...],
      "ports": {"http": [8000, 8001], "https": [8443, 8444], "h2": [9000],
                "ws": [8888], "wss": [8889]},
      "cert_dir": "/path/to/cache/certs",
      "hosts": ["web-platform.test", "www.web-platform.test", ...]
    }

It generates a private test CA and one host certificate whose subjectAltName lists every host
explicitly (a wildcard does not cover two-level names), starts the stash, one wptserve server
per `http`, `https` and `h2` port and one pywebsocket3 server per `ws` and `wss` port (the
handlers are `<doc_root>/websockets/handlers/*_wsh.py`), and prints "READY" once every server is
listening. SIGTERM/SIGINT stop it.
"""

import datetime
import hashlib
import json
import logging
import multiprocessing
import os
import signal
import ssl
import sys
import threading
import time
import types


def ensure_certs(cert_dir, hosts):
    """Create (or reuse) the CA and the host certificate for `hosts`; return their paths."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    os.makedirs(cert_dir, exist_ok=True)
    ca_cert_path = os.path.join(cert_dir, "cacert.pem")
    ca_key_path = os.path.join(cert_dir, "cakey.pem")
    host_cert_path = os.path.join(cert_dir, "host.pem")
    host_key_path = os.path.join(cert_dir, "host.key")
    stamp_path = os.path.join(cert_dir, "hosts.sha256")
    stamp = hashlib.sha256("\n".join(sorted(hosts)).encode("utf-8")).hexdigest()

    paths = {"ca_cert_path": ca_cert_path, "cert_path": host_cert_path, "key_path": host_key_path}
    if all(os.path.exists(p) for p in (ca_cert_path, host_cert_path, host_key_path, stamp_path)):
        with open(stamp_path) as f:
            if f.read().strip() == stamp:
                return paths

    now = datetime.datetime.now(datetime.timezone.utc)
    not_before = now - datetime.timedelta(days=1)
    not_after = now + datetime.timedelta(days=3650)

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "whatwg-fetch wpt test CA")])
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                          data_encipherment=False, key_agreement=False, key_cert_sign=True,
                          crl_sign=True, encipher_only=False, decipher_only=False),
            critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )

    host_key = ec.generate_private_key(ec.SECP256R1())
    sans = [x509.DNSName(h) for h in hosts]
    host_cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0])]))
        .issuer_name(ca_name)
        .public_key(host_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )

    def write(path, data):
        with open(path, "wb") as f:
            f.write(data)

    pem = serialization.Encoding.PEM
    nopass = serialization.NoEncryption()
    pkcs8 = serialization.PrivateFormat.PKCS8
    write(ca_key_path, ca_key.private_bytes(pem, pkcs8, nopass))
    write(ca_cert_path, ca_cert.public_bytes(pem))
    write(host_key_path, host_key.private_bytes(pem, pkcs8, nopass))
    write(host_cert_path, host_cert.public_bytes(pem))
    write(stamp_path, stamp.encode("ascii"))
    return paths


def install_tools_shim():
    """A few xhr handlers import `tools.wpt.utils.load_source`, which the suite subset lacks."""
    if "tools.wpt.utils" in sys.modules:
        return
    try:
        import tools.wpt.utils  # noqa: F401  (a full checkout has it)
        return
    except ImportError:
        pass
    import importlib.util

    def load_source(name, path):
        spec = importlib.util.spec_from_file_location(name or "wpt_handler", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    tools = types.ModuleType("tools")
    wpt = types.ModuleType("tools.wpt")
    utils = types.ModuleType("tools.wpt.utils")
    utils.load_source = load_source
    tools.__path__ = []
    wpt.__path__ = []
    tools.wpt = wpt
    wpt.utils = utils
    sys.modules.update({"tools": tools, "tools.wpt": wpt, "tools.wpt.utils": utils})


class _ClosedAtEof:
    """A socket whose recv() raises ConnectionResetError at the end of the stream.

    wptserve 4.0.3's HTTP/2 handler (`Http2WebTestRequestHandler.handle_one_request`) tells a
    closed socket by `data == ''`, which the bytes recv() returns never equal: a connection
    whose client went away without a GOAWAY (a test process that exits, or is killed at its
    deadline) makes it call recv() again and again, at a whole core and holding the GIL, until
    the server stops, and the tests after it time out. The error ends that loop as a closed
    connection should end it (its `except OSError`).
    """

    def __init__(self, sock):
        self._sock = sock

    def recv(self, *args):
        data = self._sock.recv(*args)
        if not data:
            raise ConnectionResetError("the client closed the HTTP/2 connection")
        return data

    def __getattr__(self, name):
        return getattr(self._sock, name)


def _h2_handler(server):
    """wptserve's HTTP/2 request handler, ending its connection loop when the client closes,
    with its WebSocket streams made to keep to HTTP/2's rules (`_fix_h2_websockets`)."""

    _fix_h2_websockets(server)

    class Http2Handler(server.Http2WebTestRequestHandler):
        def handle_one_request(self):
            if not isinstance(self.request, _ClosedAtEof):
                self.request = _ClosedAtEof(self.request)
            return super().handle_one_request()

    return Http2Handler


def _fix_h2_websockets(server):
    """Three fixes to wptserve 4.0.3's WebSockets over HTTP/2 (RFC 8441), each a rule of HTTP/2
    its `?wpt_flags=h2` tests depend on, without which they wait for what never comes, whatever
    the client does. Over HTTP/1.1 the same handlers get these from TCP.

    - Flow control (RFC 9113 section 6.9): what the handler reads of its stream is acknowledged
      (a WINDOW_UPDATE), as a receiver must for the sender to go on; wptserve never does, so a
      client could send no more than the first 64 KiB. Acknowledged as read, not as received,
      so that a handler slow to read still holds the client back, as TCP does; and read as it
      arrives, in parts, as from a socket.
    - A closed window: while the client's window for its stream is closed, the writer waits
      for it to open, where wptserve sends empty DATA frames in a busy loop (a flood that
      clients' HTTP/2 stacks close the connection over).
    - An aborted handler (`AbortedByUserException`, HTTP/1.1's way of closing the TCP
      connection) resets its stream (RST_STREAM CANCEL); wptserve leaves the stream open, so
      the client never learns the connection is gone.
    """
    if getattr(server, "_whatwg_fetch_fixed", False):
        return
    server._whatwg_fetch_fixed = True
    from h2.errors import ErrorCodes
    from pywebsocket3.handshake import AbortedByUserException
    from wptserve import response

    def send_pending(handler, connection):
        data = connection.data_to_send()
        if data:
            handler.request.sendall(data)

    def read_acknowledged(self, length):
        # What has arrived, up to `length` (pywebsocket reads again for the rest): a read
        # that waited for all of a message larger than the window would wait for bytes the
        # client may send only once what it sent is acknowledged.
        data = self._request_handler.rfile.read1(length)
        if data:
            handler = self._request_handler
            with handler.conn as connection:
                try:
                    connection.acknowledge_received_data(len(data), handler.h2_stream_id)
                    send_pending(handler, connection)
                except Exception:  # the stream or the connection closed meanwhile
                    pass
        return data

    server._WebSocketConnection.read = read_acknowledged

    max_payload_size = response.H2ResponseWriter.get_max_payload_size

    def payload_size_when_open(self, stream_id=None):
        deadline = time.monotonic() + 30
        size = max_payload_size(self, stream_id)
        while size <= 0 and time.monotonic() < deadline:
            time.sleep(0.005)
            size = max_payload_size(self, stream_id)
        return size

    response.H2ResponseWriter.get_max_payload_size = payload_size_when_open

    sub_thread = server.Http2WebTestRequestHandler._stream_ws_sub_thread

    def sub_thread_resetting(self, request, stream_handler, queue):
        try:
            sub_thread(self, request, stream_handler, queue)
        except AbortedByUserException:
            with stream_handler.conn as connection:
                try:
                    connection.reset_stream(stream_handler.h2_stream_id, ErrorCodes.CANCEL)
                    send_pending(stream_handler, connection)
                except Exception:  # already closed
                    pass
            queue.put(None)

    server.Http2WebTestRequestHandler._stream_ws_sub_thread = sub_thread_resetting


class WebSocketDaemon:
    """A pywebsocket3 server in a thread, as WPT's `tools/serve` `WebSocketDaemon` starts it:
    the standalone server's options for `-p PORT -d DOC_ROOT -w HANDLERS_ROOT` (`-H HOST` when
    bound to an address), with `--tls`, the host key and certificate for `wss`.

    Two differences, both about TLS: pywebsocket3 4.0.2 (the newest release) wraps its sockets
    with `ssl.wrap_socket`, which Python 3.12 removed, where WPT's vendored copy uses an
    `SSLContext`: so does this server. And it does the TLS handshake in the connection's own
    thread, not in `accept()` on the one thread that serves the port, so that a client slow to
    handshake (or a bare TCP probe) does not hold up the others.
    """

    def __init__(self, host, port, doc_root, handlers_root, ssl_config=None):
        from pywebsocket3 import standalone

        args = ["-p", str(port), "-d", doc_root, "-w", handlers_root]
        if ssl_config is not None:
            args += ["--tls",
                     "--private-key", ssl_config["key_path"],
                     "--certificate", ssl_config["cert_path"]]
        if host:
            args = ["-H", host] + args
        opts, _ = standalone._parse_args_and_config(args)
        opts.cgi_directories = []
        opts.is_executable_method = None
        self.server = _websocket_server_cls()(opts)
        if not self.server._sockets:
            raise OSError("cannot listen for WebSockets on %s:%s (port in use?)" % (host, port))
        self.thread = None

    def start(self):
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        if self.thread is not None:
            self.server.shutdown()
            self.server.server_close()
            self.thread.join()
            self.thread = None


def _websocket_server_cls():
    from pywebsocket3.websocket_server import WebSocketServer

    class Server(WebSocketServer):
        def _create_sockets(self):
            opts = self.websocket_server_options
            use_tls, opts.use_tls = opts.use_tls, False
            try:
                super()._create_sockets()
            finally:
                opts.use_tls = use_tls
            if use_tls:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(certfile=opts.certificate, keyfile=opts.private_key)
                self._sockets = [
                    (context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False),
                     addrinfo)
                    for sock, addrinfo in self._sockets
                ]

        def get_request(self):
            # The base class logs the cipher and the client certificate, which need the
            # handshake done.
            return self.socket.accept()

        def process_request_thread(self, request, client_address):
            if isinstance(request, ssl.SSLSocket):
                try:
                    request.do_handshake()
                except (OSError, ValueError):
                    self.shutdown_request(request)
                    return
            super().process_request_thread(request, client_address)

    return Server


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        cfg = json.load(f)

    doc_root = cfg["doc_root"]
    # Handlers import helpers from the suite root (e.g. `from fetch.api.resources ...`).
    sys.path.insert(0, doc_root)
    install_tools_shim()

    from wptserve import handlers, server, stash
    from wptserve.config import ConfigBuilder

    # wptserve logs through the root logger.
    logging.basicConfig(level=logging.DEBUG if cfg.get("verbose") else logging.WARNING,
                        stream=sys.stderr)
    logger = logging.getLogger()

    certs = ensure_certs(cfg["cert_dir"], cfg["hosts"])

    builder = ConfigBuilder(
        logger,
        subdomains=set(cfg["subdomains"]),
        not_subdomains=set(cfg["not_subdomains"]),
        browser_host=cfg["browser_host"],
        alternate_hosts=cfg["alternate_hosts"],
        doc_root=doc_root,
        server_host=cfg["bind_address"],
        ports=cfg["ports"],
        ssl={
            "type": "pregenerated",
            "pregenerated": {
                "host_key_path": certs["key_path"],
                "host_cert_path": certs["cert_path"],
                "ca_cert_path": certs["ca_cert_path"],
            },
        },
        logging={"level": "warning", "suppress_handler_traceback": False},
    )

    from wptserve import routes as default_routes
    routes = [
        ("GET", "/resources/WebIDLParser.js",
         handlers.handler(lambda request, response: _webidl_parser(doc_root, request, response))),
    ] + list(default_routes.routes)

    # The WebSocket handlers, for the ws and wss servers and for WebSockets over HTTP/2.
    ws_doc_root = os.path.join(doc_root, "websockets", "handlers")

    stop = threading.Event()
    servers = []
    stash_authkey = os.urandom(16).hex()
    # A proxy that comes back from the stash inside a value (a queue in a tuple, as the
    # `msg_channel` WebSocket handler stores) connects with this process's authkey, not with
    # the stash's: make them one.
    multiprocessing.current_process().authkey = stash_authkey.encode("ascii")
    stash_server = stash.StashServer((cfg["bind_address"], 0), authkey=stash_authkey)
    # The stash's address is in the environment from here on: the WebSocket handlers that use
    # it read it when they are loaded, as the servers start.
    with stash_server, builder as config:
        ssl_config = config.ssl_config
        for scheme, ports in config.ports.items():
            for port in ports:
                if scheme in ("ws", "wss"):
                    daemon = WebSocketDaemon(cfg["bind_address"], port, doc_root, ws_doc_root,
                                             ssl_config if scheme == "wss" else None)
                    daemon.start()
                    servers.append(daemon)
                    continue
                use_ssl = scheme in ("https", "h2")
                httpd = server.WebTestHttpd(
                    host=cfg["bind_address"],
                    port=port,
                    doc_root=doc_root,
                    ws_doc_root=ws_doc_root if scheme == "h2" else None,
                    routes=routes,
                    config=config,
                    use_ssl=use_ssl,
                    key_file=ssl_config["key_path"] if use_ssl else None,
                    certificate=ssl_config["cert_path"] if use_ssl else None,
                    http2=(scheme == "h2"),
                    handler_cls=(_h2_handler(server) if scheme == "h2"
                                 else server.Http1WebTestRequestHandler),
                )
                httpd.start()
                servers.append(httpd)

        def on_signal(signum, frame):
            stop.set()

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        print("READY", flush=True)
        while not stop.wait(0.5):
            pass
        # Request threads can hang on shutdown: stop the listeners in the background, all at
        # once (each takes up to its poll interval, 0.5 s), and leave after a short grace
        # period whatever happens.
        stoppers = [threading.Thread(target=s.stop, daemon=True) for s in servers]
        for stopper in stoppers:
            stopper.start()
        deadline = time.monotonic() + 2.0
        for stopper in stoppers:
            stopper.join(max(0.0, deadline - time.monotonic()))
    os._exit(0)


def _webidl_parser(doc_root, request, response):
    """`/resources/WebIDLParser.js` is served from resources/webidl2/lib/webidl2.js, as in WPT."""
    path = os.path.join(doc_root, "resources", "webidl2", "lib", "webidl2.js")
    with open(path, "rb") as f:
        body = f.read()
    response.headers.set("Content-Type", "text/javascript; charset=utf-8")
    response.content = body


if __name__ == "__main__":
    sys.exit(main(sys.argv))
