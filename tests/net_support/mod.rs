//! Servers on 127.0.0.1 for the network layer's tests.
// Each test crate that mounts this module uses some of its helpers, never all.
#![allow(dead_code)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc::{self, UnboundedReceiver};
use whatwg_fetch::BoxError;
use whatwg_fetch::net::{RequestBody, ResponseBody, SendOptions, Transport};

pub type ServerBody = BoxBody<Bytes, BoxError>;
pub type Handler = Arc<
    dyn Fn(Request<Incoming>) -> Pin<Box<dyn Future<Output = Response<ServerBody>> + Send>>
        + Send
        + Sync,
>;

/// Connection counts a test server keeps.
#[derive(Clone, Default)]
pub struct Counts {
    pub accepts: Arc<AtomicUsize>,
    pub live: Arc<AtomicUsize>,
    pub max_live: Arc<AtomicUsize>,
}

impl Counts {
    pub fn accepts(&self) -> usize {
        self.accepts.load(Ordering::SeqCst)
    }

    pub fn max_live(&self) -> usize {
        self.max_live.load(Ordering::SeqCst)
    }

    fn opened(&self) {
        self.accepts.fetch_add(1, Ordering::SeqCst);
        let live = self.live.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_live.fetch_max(live, Ordering::SeqCst);
    }

    fn closed(&self) {
        self.live.fetch_sub(1, Ordering::SeqCst);
    }
}

pub struct Server {
    pub addr: SocketAddr,
    pub counts: Counts,
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

pub fn full(body: impl Into<Bytes>) -> ServerBody {
    http_body_util::Full::new(body.into())
        .map_err(|never: Infallible| match never {})
        .boxed()
}

/// An HTTP/1.1 hyper server calling `handler` for each request.
pub async fn hyper_server<F, Fut>(handler: F) -> Server
where
    F: Fn(Request<Incoming>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Response<ServerBody>> + Send + 'static,
{
    let handler: Handler = Arc::new(move |req| Box::pin(handler(req)));
    raw_server(move |stream| {
        let service = service(handler.clone());
        async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        }
    })
    .await
}

/// `handler` as a hyper service.
fn service(
    handler: Handler,
) -> impl hyper::service::Service<
    Request<Incoming>,
    Response = Response<ServerBody>,
    Error = Infallible,
    Future = impl Future<Output = Result<Response<ServerBody>, Infallible>> + Send,
> + Clone
+ Send {
    service_fn(move |req| {
        let handler = handler.clone();
        async move { Ok::<_, Infallible>(handler(req).await) }
    })
}

/// A raw TCP server running `script` on each accepted connection.
pub async fn raw_server<F, Fut>(script: F) -> Server
where
    F: Fn(TcpStream) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let counts = Counts::default();
    let server_counts = counts.clone();
    let script = Arc::new(script);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            server_counts.opened();
            let script = script.clone();
            let counts = server_counts.clone();
            tokio::spawn(async move {
                script(stream).await;
                counts.closed();
            });
        }
    });
    Server { addr, counts }
}

/// The request line and the headers of `request` as text, `METHOD target` and then one
/// `name: value` a line, for routes that echo what they received.
pub fn request_head_text<B>(request: &Request<B>) -> String {
    let mut text = format!("{} {}\n", request.method(), request.uri());
    for (name, value) in request.headers() {
        text.push_str(&format!(
            "{}: {}\n",
            name,
            String::from_utf8_lossy(value.as_bytes())
        ));
    }
    text
}

/// A server that answers the first request on each connection with `response`, written as
/// is, and hands that request's head to the receiver.
pub async fn recording_server(response: &'static [u8]) -> (Server, UnboundedReceiver<String>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let server = raw_server(move |mut stream| {
        let tx = tx.clone();
        async move {
            if let Some(head) = read_head(&mut stream).await {
                let _ = tx.send(head);
                let _ = stream.write_all(response).await;
            }
        }
    })
    .await;
    (server, rx)
}

/// Reads up to the end of a request head; `None` at EOF.
pub async fn read_head<S: AsyncRead + Unpin>(stream: &mut S) -> Option<String> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte).await {
            Ok(1) => head.push(byte[0]),
            _ => return None,
        }
    }
    Some(String::from_utf8_lossy(&head).into_owned())
}

/// Whether a stream is still writable by the peer: a read that sees EOF means closed.
pub async fn is_closed<S: AsyncRead + AsyncWrite + Unpin>(stream: &mut S) -> bool {
    let mut buf = [0u8; 1];
    matches!(stream.read(&mut buf).await, Ok(0) | Err(_))
}

pub fn get(url: &str) -> http::Request<RequestBody> {
    http::Request::get(url).body(RequestBody::empty()).unwrap()
}

/// Fails unless `error` is the read timeout's.
pub fn assert_idle_timeout(error: &whatwg_fetch::NetworkError) {
    assert!(
        matches!(
            error,
            whatwg_fetch::NetworkError::Timeout {
                kind: whatwg_fetch::TimeoutKind::Idle,
                ..
            }
        ),
        "{error:?}"
    );
}

/// Sends a GET and gives its status, within 20 seconds.
pub async fn send_status(
    transport: &impl Transport,
    url: &str,
) -> Result<http::StatusCode, whatwg_fetch::NetworkError> {
    tokio::time::timeout(
        std::time::Duration::from_secs(20),
        transport.send(get(url), SendOptions::new()),
    )
    .await
    .expect("the request ends")
    .map(|response| response.status())
}

/// Sends a GET and reads the whole body.
pub async fn get_text(transport: &impl Transport, url: &str) -> (http::StatusCode, String) {
    let response = transport.send(get(url), SendOptions::new()).await.unwrap();
    let status = response.status();
    let body = read_all(response.into_body()).await.unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

pub async fn read_all(body: ResponseBody) -> Result<Bytes, whatwg_fetch::NetworkError> {
    Ok(body.collect().await?.to_bytes())
}

/// Waits until `condition` holds, polling, for at most five seconds.
pub async fn eventually(mut condition: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    while tokio::time::Instant::now() < deadline {
        if condition() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    condition()
}

/// A certificate authority made for one test, and a certificate it signs.
pub struct TestPki {
    pub ca_pem: String,
    pub ca_der: Vec<u8>,
    pub cert: rustls_pki_types::CertificateDer<'static>,
    pub key: rustls_pki_types::PrivateKeyDer<'static>,
}

impl TestPki {
    /// A new CA and a certificate it signs for `names` (host names or IP addresses).
    pub fn new(names: &[&str]) -> TestPki {
        use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca_key = KeyPair::generate().unwrap();
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let names = names
            .iter()
            .map(|name| (*name).to_owned())
            .collect::<Vec<_>>();
        let params = CertificateParams::new(names).unwrap();
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &issuer).unwrap();
        TestPki {
            ca_pem: ca_cert.pem(),
            ca_der: ca_cert.der().to_vec(),
            cert: cert.der().clone(),
            key: rustls_pki_types::PrivateKeyDer::Pkcs8(
                rustls_pki_types::PrivatePkcs8KeyDer::from(key.serialize_der()),
            ),
        }
    }

    /// A TLS acceptor presenting the certificate and offering the `alpn` protocols.
    pub fn acceptor(&self, alpn: &[&[u8]]) -> tokio_rustls::TlsAcceptor {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![self.cert.clone()], self.key.clone_key())
            .unwrap();
        config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
        tokio_rustls::TlsAcceptor::from(Arc::new(config))
    }
}

/// A TLS server on 127.0.0.1 accepting with `acceptor` and calling `handler` for each
/// request, over HTTP/2 when ALPN picked `h2` and HTTP/1.1 otherwise.
pub async fn tls_server<F, Fut>(acceptor: tokio_rustls::TlsAcceptor, handler: F) -> Server
where
    F: Fn(Request<Incoming>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Response<ServerBody>> + Send + 'static,
{
    let handler: Handler = Arc::new(move |req| Box::pin(handler(req)));
    raw_server(move |tcp| {
        let (acceptor, service) = (acceptor.clone(), service(handler.clone()));
        async move {
            let Ok(tls) = acceptor.accept(tcp).await else {
                return;
            };
            if tls.get_ref().1.alpn_protocol() == Some(b"h2".as_slice()) {
                let _ =
                    hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
            } else {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            }
        }
    })
    .await
}

/// What a SOCKS5 client asked a [`socks5_server`] to connect to (RFC 1928 §4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SocksTarget {
    /// ATYP 1 or 4: an address the client resolved.
    Ip(SocketAddr),
    /// ATYP 3: a name for the server to resolve, and the port.
    Name(String, u16),
}

/// One connection to a [`socks5_server`]: the authentication methods offered, the
/// username and password sent (RFC 1929), and the target asked for.
#[derive(Clone, Debug, Default)]
pub struct SocksSession {
    pub methods: Vec<u8>,
    pub credentials: Option<(Vec<u8>, Vec<u8>)>,
    pub target: Option<SocksTarget>,
}

/// How a [`socks5_server`] behaves.
#[derive(Clone, Debug, Default)]
pub struct SocksConfig {
    /// The username and password it requires; `None` requires no authentication.
    pub credentials: Option<(Vec<u8>, Vec<u8>)>,
    /// The names it resolves (lowercase), as its own DNS; any other name is answered
    /// "host unreachable" (reply 4).
    pub names: std::collections::HashMap<String, SocketAddr>,
    /// A reply code to answer every `CONNECT` with instead of connecting.
    pub refuse: Option<u8>,
}

/// A SOCKS5 server on 127.0.0.1 (RFC 1928, `CONNECT` only, with RFC 1929
/// username/password authentication), recording each session.
pub struct SocksServer {
    pub addr: SocketAddr,
    sessions: Arc<std::sync::Mutex<Vec<SocksSession>>>,
}

impl SocksServer {
    /// The proxy URL, `scheme://127.0.0.1:port`.
    pub fn url(&self, scheme: &str) -> String {
        format!("{scheme}://{}", self.addr)
    }

    /// The sessions so far, one per connection accepted.
    pub fn sessions(&self) -> Vec<SocksSession> {
        self.sessions.lock().unwrap().clone()
    }
}

/// Starts a [`SocksServer`]. After a successful `CONNECT` it relays bytes both ways;
/// it answers a name with a bound address of type 3 and an address with type 1, so that
/// clients read both.
pub async fn socks5_server(config: SocksConfig) -> SocksServer {
    let sessions = Arc::new(std::sync::Mutex::new(Vec::new()));
    let config = Arc::new(config);
    let server_sessions = sessions.clone();
    let server = raw_server(move |stream| {
        let (config, sessions) = (config.clone(), server_sessions.clone());
        async move {
            let index = {
                let mut sessions = sessions.lock().unwrap();
                sessions.push(SocksSession::default());
                sessions.len() - 1
            };
            let record = Record { sessions, index };
            let _ = socks5_session(stream, &config, &record).await;
        }
    })
    .await;
    SocksServer {
        addr: server.addr,
        sessions,
    }
}

/// Where a [`socks5_server`] connection notes what it sees.
struct Record {
    sessions: Arc<std::sync::Mutex<Vec<SocksSession>>>,
    index: usize,
}

impl Record {
    fn note(&self, update: impl FnOnce(&mut SocksSession)) {
        update(&mut self.sessions.lock().unwrap()[self.index]);
    }
}

async fn socks5_session(
    mut stream: TcpStream,
    config: &SocksConfig,
    record: &Record,
) -> std::io::Result<()> {
    let mut head = [0u8; 2];
    stream.read_exact(&mut head).await?;
    if head[0] != 5 {
        return Ok(());
    }
    let mut methods = vec![0u8; usize::from(head[1])];
    stream.read_exact(&mut methods).await?;
    record.note(|session| session.methods = methods.clone());
    match &config.credentials {
        Some((username, password)) if methods.contains(&2) => {
            stream.write_all(&[5, 2]).await?;
            let mut version_and_length = [0u8; 2];
            stream.read_exact(&mut version_and_length).await?;
            let mut got_username = vec![0u8; usize::from(version_and_length[1])];
            stream.read_exact(&mut got_username).await?;
            let mut length = [0u8; 1];
            stream.read_exact(&mut length).await?;
            let mut got_password = vec![0u8; usize::from(length[0])];
            stream.read_exact(&mut got_password).await?;
            let pair = (got_username, got_password);
            record.note(|session| session.credentials = Some(pair.clone()));
            if version_and_length[0] != 1 || (&pair.0, &pair.1) != (username, password) {
                stream.write_all(&[1, 1]).await?;
                return Ok(());
            }
            stream.write_all(&[1, 0]).await?;
        }
        None if methods.contains(&0) => stream.write_all(&[5, 0]).await?,
        _ => {
            stream.write_all(&[5, 0xFF]).await?;
            return Ok(());
        }
    }
    let mut request = [0u8; 4];
    stream.read_exact(&mut request).await?;
    let host = match request[3] {
        1 => {
            let mut ip = [0u8; 4];
            stream.read_exact(&mut ip).await?;
            Ok(std::net::IpAddr::from(ip))
        }
        4 => {
            let mut ip = [0u8; 16];
            stream.read_exact(&mut ip).await?;
            Ok(std::net::IpAddr::from(ip))
        }
        3 => {
            let mut length = [0u8; 1];
            stream.read_exact(&mut length).await?;
            let mut name = vec![0u8; usize::from(length[0])];
            stream.read_exact(&mut name).await?;
            Err(String::from_utf8_lossy(&name).into_owned())
        }
        _ => {
            stream.write_all(&[5, 8, 0, 1, 0, 0, 0, 0, 0, 0]).await?;
            return Ok(());
        }
    };
    let mut port = [0u8; 2];
    stream.read_exact(&mut port).await?;
    let port = u16::from_be_bytes(port);
    let target = match &host {
        Ok(ip) => SocksTarget::Ip(SocketAddr::new(*ip, port)),
        Err(name) => SocksTarget::Name(name.clone(), port),
    };
    record.note(|session| session.target = Some(target));
    let refuse = |code: u8| [5, code, 0, 1, 0, 0, 0, 0, 0, 0];
    if let Some(code) = config.refuse {
        stream.write_all(&refuse(code)).await?;
        return Ok(());
    }
    let addr = match &host {
        Ok(ip) => SocketAddr::new(*ip, port),
        Err(name) => match config.names.get(&name.to_ascii_lowercase()) {
            Some(addr) => *addr,
            None => {
                stream.write_all(&refuse(4)).await?;
                return Ok(());
            }
        },
    };
    let Ok(mut upstream) = TcpStream::connect(addr).await else {
        stream.write_all(&refuse(5)).await?;
        return Ok(());
    };
    let mut reply = vec![5, 0, 0];
    match &host {
        Err(_) => {
            reply.push(3);
            reply.push(10);
            reply.extend_from_slice(b"relay.test");
        }
        Ok(_) => {
            reply.push(1);
            reply.extend_from_slice(&[127, 0, 0, 1]);
        }
    }
    reply.extend_from_slice(&upstream.local_addr()?.port().to_be_bytes());
    stream.write_all(&reply).await?;
    tokio::io::copy_bidirectional(&mut stream, &mut upstream).await?;
    Ok(())
}

/// A test CA that signs a server certificate for `names` and a client certificate:
/// `pki` for the server's side of mutual TLS, `client_pem` the client's certificate and
/// private key in one PEM document.
pub struct ClientAuthPki {
    pub pki: TestPki,
    pub client_pem: String,
}

impl ClientAuthPki {
    pub fn new(names: &[&str]) -> ClientAuthPki {
        use rcgen::{
            BasicConstraints, CertificateParams, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
        };
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca_key = KeyPair::generate().unwrap();
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let names = names
            .iter()
            .map(|name| (*name).to_owned())
            .collect::<Vec<_>>();
        let server_key = KeyPair::generate().unwrap();
        let server_cert = CertificateParams::new(names)
            .unwrap()
            .signed_by(&server_key, &issuer)
            .unwrap();
        let mut client_params = CertificateParams::new(vec!["client.test".to_owned()]).unwrap();
        client_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let client_key = KeyPair::generate().unwrap();
        let client_cert = client_params.signed_by(&client_key, &issuer).unwrap();
        ClientAuthPki {
            pki: TestPki {
                ca_pem: ca_cert.pem(),
                ca_der: ca_cert.der().to_vec(),
                cert: server_cert.der().clone(),
                key: rustls_pki_types::PrivateKeyDer::Pkcs8(
                    rustls_pki_types::PrivatePkcs8KeyDer::from(server_key.serialize_der()),
                ),
            },
            client_pem: format!("{}{}", client_cert.pem(), client_key.serialize_pem()),
        }
    }
}

impl TestPki {
    /// A certificate for `names` signed by its own key: its "CA" is itself.
    pub fn self_signed(names: &[&str]) -> TestPki {
        let names = names
            .iter()
            .map(|name| (*name).to_owned())
            .collect::<Vec<_>>();
        let rcgen::CertifiedKey { cert, signing_key } =
            rcgen::generate_simple_self_signed(names).unwrap();
        TestPki {
            ca_pem: cert.pem(),
            ca_der: cert.der().to_vec(),
            cert: cert.der().clone(),
            key: rustls_pki_types::PrivateKeyDer::Pkcs8(
                rustls_pki_types::PrivatePkcs8KeyDer::from(signing_key.serialize_der()),
            ),
        }
    }

    /// A TLS 1.3 acceptor as [`TestPki::acceptor`] whose key exchange groups are `groups`
    /// alone, in that order of preference.
    pub fn acceptor_with_groups(
        &self,
        groups: &[&'static dyn rustls::crypto::SupportedKxGroup],
    ) -> tokio_rustls::TlsAcceptor {
        let provider = rustls::crypto::CryptoProvider {
            kx_groups: groups.to_vec(),
            ..rustls::crypto::aws_lc_rs::default_provider()
        };
        let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(&[&rustls::version::TLS13])
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![self.cert.clone()], self.key.clone_key())
            .unwrap();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        tokio_rustls::TlsAcceptor::from(Arc::new(config))
    }

    /// A TLS acceptor as [`TestPki::acceptor`], speaking only `versions`, and, with
    /// `client_ca`, requiring a client certificate that CA (DER) signed.
    pub fn acceptor_with(
        &self,
        alpn: &[&[u8]],
        versions: &[&'static rustls::SupportedProtocolVersion],
        client_ca: Option<&[u8]>,
    ) -> tokio_rustls::TlsAcceptor {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(versions)
            .unwrap();
        let builder = match client_ca {
            Some(ca) => {
                let mut roots = rustls::RootCertStore::empty();
                roots
                    .add(rustls_pki_types::CertificateDer::from(ca.to_vec()))
                    .unwrap();
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    Arc::new(roots),
                    provider,
                )
                .build()
                .unwrap();
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let mut config = builder
            .with_single_cert(vec![self.cert.clone()], self.key.clone_key())
            .unwrap();
        config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
        tokio_rustls::TlsAcceptor::from(Arc::new(config))
    }
}

/// What a test server saw of one TLS handshake.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Handshake {
    /// Full, resumed, or full after a HelloRetryRequest.
    pub kind: rustls::HandshakeKind,
    /// The key exchange group it used.
    pub group: Option<rustls::NamedGroup>,
}

/// A TLS server as [`tls_server`] that answers every request with the protocol it came
/// over, and sends what it saw of each handshake it completes to the receiver.
pub async fn tls_server_reporting_handshakes(
    acceptor: tokio_rustls::TlsAcceptor,
) -> (Server, UnboundedReceiver<Handshake>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let handler: Handler = Arc::new(|req| {
        Box::pin(async move { Response::new(full(format!("{:?}", req.version()))) })
    });
    let server = raw_server(move |tcp| {
        let (acceptor, service, tx) = (acceptor.clone(), service(handler.clone()), tx.clone());
        async move {
            let Ok(tls) = acceptor.accept(tcp).await else {
                return;
            };
            let connection = tls.get_ref().1;
            if let Some(kind) = connection.handshake_kind() {
                let group = connection
                    .negotiated_key_exchange_group()
                    .map(|group| group.name());
                let _ = tx.send(Handshake { kind, group });
            }
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(tls), service)
                .await;
        }
    })
    .await;
    (server, rx)
}

/// What `error` and its chain of causes say, on one line (as `{:#}` of the crate's `Error`).
#[allow(dead_code)]
pub fn said(error: &(dyn std::error::Error + 'static)) -> String {
    whatwg_fetch::error::Chain(error).to_string()
}

/// Requests per path, as the server saw them.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<HashMap<String, usize>>>);

impl Log {
    pub fn count(&self, path: &str) -> usize {
        self.0.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

/// The body of `cache_server`'s `/large`: 300 KiB of bytes that differ from their
/// neighbours.
pub fn large_body() -> Vec<u8> {
    (0..300 * 1024).map(|i: u32| (i % 251) as u8).collect()
}

/// Routes: `/etag` (max-age=0, ETag "v1"; a 304 to a matching If-None-Match), `/vary`
/// (fresh, Vary: Accept-Language; the body is the request's Accept-Language),
/// `/big` and `/big/...` (fresh, 1000 bytes), `/large` (fresh, [`large_body`]), anything
/// else fresh for an hour with its path as the body; counting the requests for each path.
/// For the HTTP cache's tests.
pub async fn cache_server() -> (Server, Log) {
    let log = Log::default();
    let server_log = log.clone();
    let server = hyper_server(move |request: Request<Incoming>| {
        let log = server_log.clone();
        async move {
            let path = request.uri().path().to_owned();
            *log.0.lock().unwrap().entry(path.clone()).or_default() += 1;
            let fresh = Response::builder().header("cache-control", "max-age=3600");
            if path == "/etag" {
                let builder = Response::builder()
                    .header("cache-control", "max-age=0")
                    .header("etag", "\"v1\"");
                if request
                    .headers()
                    .get("if-none-match")
                    .is_some_and(|tag| tag == "\"v1\"")
                {
                    return builder.status(304).body(full("")).unwrap();
                }
                return builder.body(full("tagged")).unwrap();
            }
            if path == "/vary" {
                let language = request
                    .headers()
                    .get("accept-language")
                    .map(|value| value.to_str().unwrap().to_owned())
                    .unwrap_or_default();
                return fresh
                    .header("vary", "Accept-Language")
                    .body(full(language))
                    .unwrap();
            }
            if path == "/big" || path.starts_with("/big/") {
                return fresh.body(full(vec![b'x'; 1000])).unwrap();
            }
            if path == "/large" {
                return fresh.body(full(large_body())).unwrap();
            }
            fresh.body(full(path)).unwrap()
        }
    })
    .await;
    (server, log)
}
