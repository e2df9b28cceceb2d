//! An HTTP/3 server of a test's own on 127.0.0.1 (quinn and h3, as the client), with a
//! certificate from the test's `TestPki`: it answers every request with a body saying
//! what it got (`GET /path 0`: method, path and the bytes of the request body), but
//! `/large` (1 MiB), `/echo` (the request's body), `/json` ([`JSON`]), `/download`
//! (64 MiB), `/alt-used` (the request's `Alt-Used`, or `none`) and `/clear` (the usual
//! body, with `Alt-Svc: clear`), `/too-early` (`425 Too Early`, always), `/delay/MS` (the
//! usual body, MS milliseconds after the request, the server silent meanwhile), and
//! counts the connections and requests it took.
// Each crate that mounts this module uses some of its helpers, never all.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use bytes::{Buf, Bytes, BytesMut};
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

/// `/json`'s body: a small JSON document, as an API answers.
pub const JSON: &str = concat!(
    r#"{"items":["#,
    r#""alpha","bravo","charlie","delta","echo","foxtrot","golf","hotel","india","juliett","#,
    r#""kilo","lima","mike","november","oscar","papa","quebec","romeo","sierra","tango""#,
    r#"],"meta":{"page":1,"per_page":20,"total":20,"generated":"2026-01-01T00:00:00Z"}}"#
);

/// `/download`'s body: 64 MiB, made once.
pub fn download() -> Bytes {
    static BODY: std::sync::OnceLock<Bytes> = std::sync::OnceLock::new();
    BODY.get_or_init(|| Bytes::from(vec![b'x'; 64 << 20]))
        .clone()
}

/// What the server saw.
#[derive(Default)]
pub struct H3Counts {
    pub connections: AtomicUsize,
    pub requests: AtomicUsize,
    /// Responses of an [`h3_raw_server`] the client acknowledged whole (QUIC ACKs, not
    /// reads): what it has received is all in its buffers.
    pub delivered: AtomicUsize,
}

pub struct H3Server {
    pub addr: SocketAddr,
    pub counts: Arc<H3Counts>,
    endpoint: quinn::Endpoint,
}

impl H3Server {
    /// `https://localhost:PORT{path}`: the certificate's name, the server's UDP port.
    pub fn url(&self, path: &str) -> String {
        format!("https://localhost:{}{path}", self.addr.port())
    }
}

impl Drop for H3Server {
    fn drop(&mut self) {
        self.endpoint.close(0u32.into(), b"done");
    }
}

/// Starts the server on a free UDP port of 127.0.0.1 (or `port`).
pub fn h3_server(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
    port: u16,
) -> H3Server {
    h3_server_with(cert, key, port, Options::default())
}

/// [`h3_server`], closing each connection (QUIC `CONNECTION_CLOSE`, code 0) once it has
/// answered `close_after` requests on it.
pub fn h3_server_closing(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
    port: u16,
    close_after: Option<usize>,
) -> H3Server {
    h3_server_with(
        cert,
        key,
        port,
        Options {
            close_after,
            ..Options::default()
        },
    )
}

/// [`h3_server`] allowing a client at most `streams` request streams at once (QUIC's
/// `MAX_STREAMS`), and answering `/slow` after 100 ms.
pub fn h3_server_limited(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
    streams: u32,
) -> H3Server {
    h3_server_with(
        cert,
        key,
        0,
        Options {
            streams: Some(streams),
            ..Options::default()
        },
    )
}

/// [`h3_server`] taking 0-RTT data from clients resuming a session it gave them, and
/// closing each connection once it has answered one request. With `too_early`, it
/// answers the first request of each connection but the first `425 Too Early` (not
/// counted as an answer).
pub fn h3_server_early(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
    too_early: bool,
) -> H3Server {
    h3_server_with(
        cert,
        key,
        0,
        Options {
            close_after: Some(1),
            early_data: true,
            too_early,
            ..Options::default()
        },
    )
}

/// What sets a server of [`h3_server_with`] apart.
#[derive(Clone, Copy, Default)]
struct Options {
    /// Closes each connection once it has answered this many requests.
    close_after: Option<usize>,
    /// The most request streams a client may have open at once.
    streams: Option<u32>,
    /// Takes 0-RTT data.
    early_data: bool,
    /// Answers the first request of each connection but the first `425 Too Early`.
    too_early: bool,
}

/// QUIC's server configuration: TLS 1.3 with `cert` and `key`, ALPN `h3`, taking 0-RTT
/// data with `early_data`.
fn server_config(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
    early_data: bool,
) -> quinn::ServerConfig {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut tls = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .unwrap();
    tls.alpn_protocols = vec![b"h3".to_vec()];
    if early_data {
        // QUIC's value: any amount (RFC 9001 §4.6.1).
        tls.max_early_data_size = u32::MAX;
    }
    let quic = quinn::crypto::rustls::QuicServerConfig::try_from(tls).unwrap();
    quinn::ServerConfig::with_crypto(Arc::new(quic))
}

/// The server of [`h3_server`] and its variants.
fn h3_server_with(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
    port: u16,
    options: Options,
) -> H3Server {
    let Options {
        close_after,
        streams,
        early_data,
        too_early,
    } = options;
    let mut config = server_config(cert, key, early_data);
    if let Some(streams) = streams {
        let mut transport = quinn::TransportConfig::default();
        transport.max_concurrent_bidi_streams(streams.into());
        config.transport_config(Arc::new(transport));
    }
    let endpoint =
        quinn::Endpoint::server(config, SocketAddr::from(([127, 0, 0, 1], port))).unwrap();
    let addr = endpoint.local_addr().unwrap();
    let counts = Arc::new(H3Counts::default());
    let accepting = endpoint.clone();
    let seen = Arc::clone(&counts);
    tokio::spawn(async move {
        while let Some(incoming) = accepting.accept().await {
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                let Ok(connection) = incoming.await else {
                    return;
                };
                let first_connection = seen.connections.fetch_add(1, Ordering::SeqCst) == 0;
                let quic = connection.clone();
                let answered = Arc::new(AtomicUsize::new(0));
                let asked_early = Arc::new(AtomicBool::new(first_connection || !too_early));
                let Ok(mut h3) =
                    h3::server::Connection::<_, Bytes>::new(h3_quinn::Connection::new(connection))
                        .await
                else {
                    return;
                };
                while let Ok(Some(resolver)) = h3.accept().await {
                    let seen = Arc::clone(&seen);
                    let (quic, answered) = (quic.clone(), Arc::clone(&answered));
                    let asked_early = Arc::clone(&asked_early);
                    tokio::spawn(async move {
                        let Ok((request, mut stream)) = resolver.resolve_request().await else {
                            return;
                        };
                        seen.requests.fetch_add(1, Ordering::SeqCst);
                        let first_asked = !asked_early.swap(true, Ordering::SeqCst);
                        if first_asked || request.uri().path() == "/too-early" {
                            let too_early = http::Response::builder().status(425).body(());
                            let _ = stream.send_response(too_early.unwrap()).await;
                            let _ = stream.finish().await;
                            return;
                        }
                        if request.uri().path() == "/slow" {
                            // The stream held, its request not yet read.
                            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                        }
                        let mut received = BytesMut::new();
                        while let Ok(Some(mut chunk)) = stream.recv_data().await {
                            received.extend_from_slice(&chunk.copy_to_bytes(chunk.remaining()));
                        }
                        let path = request.uri().path().to_owned();
                        if let Some(delay) = path.strip_prefix("/delay/") {
                            let delay = delay.parse().expect("/delay/MILLISECONDS");
                            tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
                        }
                        let body = match path.as_str() {
                            "/large" => Bytes::from(vec![b'x'; 1 << 20]),
                            "/json" => Bytes::from_static(JSON.as_bytes()),
                            "/download" => download(),
                            "/echo" => received.clone().freeze(),
                            "/alt-used" => match request.headers().get("alt-used") {
                                Some(value) => Bytes::copy_from_slice(value.as_bytes()),
                                None => Bytes::from_static(b"none"),
                            },
                            _ => Bytes::from(format!(
                                "{} {} {}",
                                request.method(),
                                path,
                                received.len()
                            )),
                        };
                        let mut response = http::Response::builder()
                            .status(200)
                            .header("content-type", "text/plain")
                            .header("content-length", body.len());
                        if path == "/clear" {
                            response = response.header("alt-svc", "clear");
                        }
                        let response = response.body(()).unwrap();
                        if stream.send_response(response).await.is_err() {
                            return;
                        }
                        let _ = stream.send_data(body).await;
                        let _ = stream.finish().await;
                        let answered = answered.fetch_add(1, Ordering::SeqCst) + 1;
                        if close_after == Some(answered) {
                            // Let the response's frames go out first.
                            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                            quic.close(0u32.into(), b"closing");
                        }
                    });
                }
            });
        }
    });
    H3Server {
        addr,
        counts,
        endpoint,
    }
}

/// An HTTP/3 server that resets every request stream it is sent (`RESET_STREAM` and
/// `STOP_SENDING` with `H3_REQUEST_REJECTED`, 0x10b), answering none.
pub fn h3_resetting_server(cert: CertificateDer<'static>, key: PrivateKeyDer<'static>) -> H3Server {
    let (server, _) = raw(cert, key, None, 0);
    server
}

/// An HTTP/3 server that speaks only what it must: its control stream with an empty
/// `SETTINGS`, then on each request stream `response` bytes as written (frames and all),
/// repeated `times` times, then it finishes the stream. Returns the server and the bytes
/// it managed to write (a client that stops reading stops it early).
pub fn h3_raw_server(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
    response: Vec<u8>,
    times: usize,
) -> (H3Server, Arc<AtomicUsize>) {
    raw(cert, key, Some(response), times)
}

/// The raw server: `response` written `times` times on each request stream, or with
/// `None` the stream reset.
fn raw(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
    response: Option<Vec<u8>>,
    times: usize,
) -> (H3Server, Arc<AtomicUsize>) {
    let config = server_config(cert, key, false);
    let endpoint = quinn::Endpoint::server(config, SocketAddr::from(([127, 0, 0, 1], 0))).unwrap();
    let addr = endpoint.local_addr().unwrap();
    let counts = Arc::new(H3Counts::default());
    let written = Arc::new(AtomicUsize::new(0));
    let accepting = endpoint.clone();
    let (seen, wrote) = (Arc::clone(&counts), Arc::clone(&written));
    tokio::spawn(async move {
        while let Some(incoming) = accepting.accept().await {
            let (seen, wrote, response) = (Arc::clone(&seen), Arc::clone(&wrote), response.clone());
            tokio::spawn(async move {
                let Ok(connection) = incoming.await else {
                    return;
                };
                seen.connections.fetch_add(1, Ordering::SeqCst);
                // The control stream (type 0x00) and an empty SETTINGS frame (0x04).
                let Ok(mut control) = connection.open_uni().await else {
                    return;
                };
                if control.write_all(&[0x00, 0x04, 0x00]).await.is_err() {
                    return;
                }
                while let Ok((mut send, mut recv)) = connection.accept_bi().await {
                    seen.requests.fetch_add(1, Ordering::SeqCst);
                    let (wrote, response) = (Arc::clone(&wrote), response.clone());
                    let Some(response) = response else {
                        let _ = send.reset(0x10bu32.into());
                        let _ = recv.stop(0x10bu32.into());
                        continue;
                    };
                    let seen = Arc::clone(&seen);
                    tokio::spawn(async move {
                        let mut request = recv;
                        for _ in 0..times {
                            if send.write_all(&response).await.is_err() {
                                return;
                            }
                            wrote.fetch_add(response.len(), Ordering::SeqCst);
                        }
                        let _ = send.finish();
                        if let Ok(None) = send.stopped().await {
                            seen.delivered.fetch_add(1, Ordering::SeqCst);
                        }
                        // The request is read to its end: dropped before, its side would
                        // ask the client to stop sending it.
                        let _ = request.read_to_end(64 * 1024).await;
                    });
                }
                drop(control);
            });
        }
    });
    (
        H3Server {
            addr,
            counts,
            endpoint,
        },
        written,
    )
}

/// Where an [`h3_uni_server`] writes the bytes of [`OwnStream`].
#[derive(Clone, Copy)]
pub enum Uni {
    /// On its control stream, after its `SETTINGS` frame.
    Control,
    /// On a unidirectional stream of their own, which they start with its type (RFC 9114
    /// §6.2).
    Stream,
}

/// What an [`h3_uni_server`] writes besides its answers, on the first request of each
/// connection.
#[derive(Clone)]
pub struct OwnStream {
    pub on: Uni,
    /// Written `times` times.
    pub bytes: Vec<u8>,
    pub times: usize,
    /// Whether the request stream is finished once they are all written; if not, it is
    /// left open (the request in flight) until the connection closes.
    pub then_finish: bool,
    /// How long the server waits, once the answer is written, before it writes them: time
    /// for the client to read the answer first.
    pub after: std::time::Duration,
}

/// What an [`h3_uni_server`] saw: the bytes of its [`OwnStream`] it managed to write
/// (a client that stops reading stops it), and the error code of the client's
/// `CONNECTION_CLOSE`, once it came.
#[derive(Default)]
pub struct UniSeen {
    pub written: AtomicUsize,
    pub close_code: std::sync::Mutex<Option<u64>>,
}

impl UniSeen {
    /// The error code the client closed the connection with, once it has.
    pub async fn closed_with(&self) -> u64 {
        loop {
            if let Some(code) = *self.close_code.lock().unwrap() {
                return code;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
}

/// An HTTP/3 server like [`h3_raw_server`] that writes on streams of its own too: on each
/// request stream it writes `response`; on the first of each connection, it then writes
/// `own` (on its control stream, or on a new unidirectional stream), and finishes the
/// request stream only after (or never: [`OwnStream::then_finish`]).
pub fn h3_uni_server(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
    response: Vec<u8>,
    own: OwnStream,
) -> (H3Server, Arc<UniSeen>) {
    let config = server_config(cert, key, false);
    let endpoint = quinn::Endpoint::server(config, SocketAddr::from(([127, 0, 0, 1], 0))).unwrap();
    let addr = endpoint.local_addr().unwrap();
    let counts = Arc::new(H3Counts::default());
    let seen = Arc::new(UniSeen::default());
    let accepting = endpoint.clone();
    let (counted, saw) = (Arc::clone(&counts), Arc::clone(&seen));
    tokio::spawn(async move {
        while let Some(incoming) = accepting.accept().await {
            let (counted, saw) = (Arc::clone(&counted), Arc::clone(&saw));
            let (response, own) = (response.clone(), own.clone());
            tokio::spawn(async move {
                let Ok(connection) = incoming.await else {
                    return;
                };
                counted.connections.fetch_add(1, Ordering::SeqCst);
                let closing = connection.clone();
                let told = Arc::clone(&saw);
                tokio::spawn(async move {
                    if let quinn::ConnectionError::ApplicationClosed(close) = closing.closed().await
                    {
                        *told.close_code.lock().unwrap() = Some(close.error_code.into_inner());
                    }
                });
                // The control stream (type 0x00) and an empty SETTINGS frame (0x04).
                let Ok(mut control) = connection.open_uni().await else {
                    return;
                };
                if control.write_all(&[0x00, 0x04, 0x00]).await.is_err() {
                    return;
                }
                let mut control = Some(control);
                while let Ok((mut send, mut request)) = connection.accept_bi().await {
                    counted.requests.fetch_add(1, Ordering::SeqCst);
                    let (connection, saw) = (connection.clone(), Arc::clone(&saw));
                    let (response, own) = (response.clone(), own.clone());
                    let control = control.take();
                    tokio::spawn(async move {
                        if send.write_all(&response).await.is_err() {
                            return;
                        }
                        if let Some(mut control) = control {
                            tokio::time::sleep(own.after).await;
                            let mut opened = None;
                            let stream = match own.on {
                                Uni::Control => &mut control,
                                Uni::Stream => match connection.open_uni().await {
                                    Ok(stream) => opened.insert(stream),
                                    Err(_) => return,
                                },
                            };
                            let mut wrote_all = true;
                            for _ in 0..own.times {
                                if stream.write_all(&own.bytes).await.is_err() {
                                    wrote_all = false;
                                    break;
                                }
                                saw.written.fetch_add(own.bytes.len(), Ordering::SeqCst);
                            }
                            if !(wrote_all && own.then_finish) {
                                // The control stream too stays open: its end is an error
                                // (RFC 9114 §6.2.1).
                                connection.closed().await;
                                return;
                            }
                            // Kept open until the connection closes.
                            tokio::spawn(async move {
                                connection.closed().await;
                                drop((control, opened));
                            });
                        }
                        let _ = send.finish();
                        let _ = request.read_to_end(64 * 1024).await;
                    });
                }
            });
        }
    });
    (
        H3Server {
            addr,
            counts,
            endpoint,
        },
        seen,
    )
}

/// A UDP relay on 127.0.0.1 between QUIC clients and the server at `target` (which can
/// change), counting the bytes of 0-RTT packets the clients send. What the server sends
/// back arrives [`RELAY_DELAY`] late: a round trip long enough for a client to write its
/// first requests before the handshake is done, as over any real network.
pub struct UdpRelay {
    pub addr: SocketAddr,
    /// The bytes of the 0-RTT packets from the client: their payload as the long
    /// header's `Length` gives it (RFC 9000 §17.2.3).
    pub early_bytes: Arc<AtomicUsize>,
    target: Arc<std::sync::Mutex<SocketAddr>>,
    /// Set once the path is to go silent: every datagram, either way, is dropped.
    silent: Arc<AtomicBool>,
}

impl UdpRelay {
    /// Sends what the client sends from now on to `target`.
    pub fn retarget(&self, target: SocketAddr) {
        *self.target.lock().unwrap() = target;
    }

    /// Drops every datagram from now on, both ways, without a word to either end: the
    /// path dies as when UDP is blocked or the server's host is gone.
    pub fn go_silent(&self) {
        self.silent.store(true, Ordering::SeqCst);
    }
}

/// How late a [`UdpRelay`] hands on what the server sends.
pub const RELAY_DELAY: std::time::Duration = std::time::Duration::from_millis(30);

/// Starts a [`UdpRelay`] to `target`: each client address gets a socket of its own
/// towards the server, as a NAT would give it, so that the answers go back to it alone.
pub async fn udp_relay(target: SocketAddr) -> UdpRelay {
    let front = Arc::new(tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap());
    let addr = front.local_addr().unwrap();
    let early_bytes = Arc::new(AtomicUsize::new(0));
    let target = Arc::new(std::sync::Mutex::new(target));
    let silent = Arc::new(AtomicBool::new(false));
    let (counted, to, quiet) = (
        Arc::clone(&early_bytes),
        Arc::clone(&target),
        Arc::clone(&silent),
    );
    tokio::spawn(async move {
        let mut clients =
            std::collections::HashMap::<SocketAddr, Arc<tokio::net::UdpSocket>>::new();
        let mut buffer = vec![0; 65536];
        while let Ok((length, client)) = front.recv_from(&mut buffer).await {
            let back = match clients.get(&client) {
                Some(back) => Arc::clone(back),
                None => {
                    let back = Arc::new(tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap());
                    let (answers, front) = (Arc::clone(&back), Arc::clone(&front));
                    let quiet = Arc::clone(&quiet);
                    tokio::spawn(async move {
                        let mut buffer = vec![0; 65536];
                        while let Ok((length, _)) = answers.recv_from(&mut buffer).await {
                            if quiet.load(Ordering::SeqCst) {
                                continue;
                            }
                            let (datagram, front) = (buffer[..length].to_vec(), Arc::clone(&front));
                            let quiet = Arc::clone(&quiet);
                            tokio::spawn(async move {
                                tokio::time::sleep(RELAY_DELAY).await;
                                // Nor what was on its way when the path went silent.
                                if !quiet.load(Ordering::SeqCst) {
                                    let _ = front.send_to(&datagram, client).await;
                                }
                            });
                        }
                    });
                    clients.insert(client, Arc::clone(&back));
                    back
                }
            };
            if quiet.load(Ordering::SeqCst) {
                continue;
            }
            let datagram = &buffer[..length];
            counted.fetch_add(zero_rtt_bytes(datagram), Ordering::SeqCst);
            let target = *to.lock().unwrap();
            let _ = back.send_to(datagram, target).await;
        }
    });
    UdpRelay {
        addr,
        early_bytes,
        target,
        silent,
    }
}

/// The payload bytes of the 0-RTT packets among the QUIC packets coalesced in
/// `datagram` (RFC 9000 §17.2: long headers, type 1 in QUIC version 1).
fn zero_rtt_bytes(mut datagram: &[u8]) -> usize {
    let mut total = 0;
    while let Some(&first) = datagram.first() {
        if first & 0x80 == 0 {
            // A short header: the rest of the datagram is 1-RTT.
            break;
        }
        let kind = (first >> 4) & 0x03;
        if kind == 3 {
            // Retry: no length, nothing after it.
            break;
        }
        // The first byte and the version, then each connection ID after its length.
        let mut at = 5;
        for _ in 0..2 {
            let Some(&length) = datagram.get(at) else {
                return total;
            };
            at += 1 + usize::from(length);
        }
        if kind == 0 {
            // Initial: the token after its length.
            let Some((token, read)) = varint(datagram.get(at..).unwrap_or_default()) else {
                return total;
            };
            at += read + token;
        }
        let Some((length, read)) = varint(datagram.get(at..).unwrap_or_default()) else {
            return total;
        };
        at += read;
        if kind == 1 {
            total += length;
        }
        datagram = datagram.get(at + length..).unwrap_or_default();
    }
    total
}

/// A QUIC variable-length integer (RFC 9000 §16) and how many bytes it took.
fn varint(bytes: &[u8]) -> Option<(usize, usize)> {
    let first = *bytes.first()?;
    let length = 1usize << (first >> 6);
    let mut value = u64::from(first & 0x3f);
    for &byte in bytes.get(1..length)? {
        value = (value << 8) | u64::from(byte);
    }
    Some((usize::try_from(value).ok()?, length))
}
