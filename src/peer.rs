//! The other end of a connection: the address of the socket's peer and what TLS
//! ([RFC 8446](https://www.rfc-editor.org/rfc/rfc8446),
//! [RFC 5246](https://www.rfc-editor.org/rfc/rfc5246)) was negotiated with the origin,
//! as [`Response::remote_addr`](crate::Response::remote_addr) and
//! [`Response::tls_info`](crate::Response::tls_info) give them.
//!
//! Plain data, at the bottom of the crate: the network layer records it once per
//! connection, in one `Arc` that every response on the connection shares (the requests of
//! a reused HTTP/1.1 connection, the streams of an HTTP/2 one), and the spec types hand
//! it out; neither names the other.

use std::fmt;
use std::net::SocketAddr;

/// What is known of a connection's other end, made once when the connection is made.
#[derive(Debug)]
pub(crate) struct Peer {
    /// The address of the socket's peer: the origin's, or, through a proxy, the proxy's.
    /// `None` over a Unix domain socket.
    pub(crate) addr: Option<SocketAddr>,
    /// The TLS of the connection to the origin; `None` without TLS to the origin.
    pub(crate) tls: Option<TlsInfo>,
}

/// A version of the TLS protocol: the one a connection negotiated (see
/// [`TlsInfo::version`]), or a bound for
/// [`min_tls_version`](crate::net::HyperTransportBuilder::min_tls_version) and
/// [`max_tls_version`](crate::net::HyperTransportBuilder::max_tls_version). Ordered:
/// `Tls12 < Tls13`.
///
/// ```
/// use whatwg_fetch::net::TlsVersion;
/// assert!(TlsVersion::Tls12 < TlsVersion::Tls13);
/// assert_eq!(TlsVersion::Tls13.to_string(), "TLS 1.3");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum TlsVersion {
    /// TLS 1.2, [RFC 5246](https://www.rfc-editor.org/rfc/rfc5246).
    Tls12,
    /// TLS 1.3, [RFC 8446](https://www.rfc-editor.org/rfc/rfc8446).
    Tls13,
}

impl TlsVersion {
    /// Every version, oldest first.
    pub(crate) const ALL: [TlsVersion; 2] = [TlsVersion::Tls12, TlsVersion::Tls13];
}

impl fmt::Display for TlsVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TlsVersion::Tls12 => "TLS 1.2",
            TlsVersion::Tls13 => "TLS 1.3",
        })
    }
}

/// The TLS an `https:` response came over: the protocol version and cipher suite the
/// handshake with the origin settled on, and the certificate chain the origin presented.
/// Through a proxy's tunnel it is the origin's TLS, never the proxy's.
///
/// Recorded for every TLS connection, once, when it is made: every response on the
/// connection shares it. Read it with [`Response::tls_info`](crate::Response::tls_info).
///
/// ```
/// # use whatwg_fetch::{Client, TlsVersion};
/// # async fn run(client: Client) -> whatwg_fetch::Result<()> {
/// let response = client.get("https://example.com/").send().await?;
/// if let Some(tls) = response.tls_info() {
///     assert!(tls.version() >= TlsVersion::Tls12);
///     println!("{} with {}", tls.version(), tls.cipher_suite());
///     let leaf = tls.peer_certificate().expect("a server presents a certificate");
///     println!("leaf certificate: {} bytes of DER", leaf.len());
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct TlsInfo {
    version: TlsVersion,
    cipher_suite: &'static str,
    cipher_suite_id: u16,
    key_exchange_group: Option<&'static str>,
    certificates: Vec<Vec<u8>>,
    /// With public-key pins, which other origins the connection may carry (HTTP/2
    /// coalescing); set by the network layer after `new`.
    pub(crate) carries: Option<CarriedHosts>,
}

/// Which other hosts a connection may carry (HTTP/2 coalescing) besides what its
/// certificate's names allow: the network layer's public-key pins say it.
pub(crate) trait CarriesHosts: fmt::Debug + Send + Sync {
    /// Whether the connection, whose server presented `end_entity` (DER), may carry
    /// requests to `host`.
    fn may_serve(&self, host: &str, end_entity: &[u8]) -> bool;
}

/// A connection's [`CarriesHosts`], equal to another only if it is the same one.
#[derive(Clone, Debug)]
pub(crate) struct CarriedHosts(pub(crate) std::sync::Arc<dyn CarriesHosts>);

impl PartialEq for CarriedHosts {
    fn eq(&self, other: &CarriedHosts) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for CarriedHosts {}

impl TlsInfo {
    /// Made by the network layer from what the handshake settled on.
    pub(crate) fn new(
        version: TlsVersion,
        cipher_suite: &'static str,
        cipher_suite_id: u16,
        key_exchange_group: Option<&'static str>,
        certificates: Vec<Vec<u8>>,
    ) -> TlsInfo {
        TlsInfo {
            version,
            cipher_suite,
            cipher_suite_id,
            key_exchange_group,
            certificates,
            carries: None,
        }
    }

    /// The protocol version negotiated.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    /// # let cert = made.cert.der().clone();
    /// # let key = rustls_pki_types::PrivateKeyDer::try_from(made.signing_key.serialize_der()).unwrap();
    /// # let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    /// # let config = rustls::ServerConfig::builder_with_provider(provider)
    /// #     .with_safe_default_protocol_versions().unwrap()
    /// #     .with_no_client_auth()
    /// #     .with_single_cert(vec![cert.clone()], key).unwrap();
    /// # let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # tokio::spawn(async move {
    /// #     // Answers each request that completes the handshake with `ok`.
    /// #     while let Ok((stream, _)) = listener.accept().await {
    /// #         let Ok(mut tls) = acceptor.accept(stream).await else { continue };
    /// #         let _ = tls.read(&mut [0; 4096]).await;
    /// #         let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// #         let _ = tls.shutdown().await;
    /// #     }
    /// # });
    /// # let ca = cert.to_vec();
    /// // A server on 127.0.0.1 with a certificate for `localhost` from a CA of its own (`ca`).
    /// let client = whatwg_fetch::Client::builder()
    ///     .add_root_certificate_der(ca)
    ///     .resolve("localhost", ([127, 0, 0, 1], 0).into())
    ///     .build()?;
    /// let response = client.get(&format!("https://localhost:{port}/")).send().await?;
    /// let tls = response.tls_info().expect("an https: response");
    /// assert_eq!(tls.version(), whatwg_fetch::TlsVersion::Tls13);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn version(&self) -> TlsVersion {
        self.version
    }

    /// The cipher suite negotiated, by its name in the
    /// [IANA TLS Cipher Suites registry](https://www.iana.org/assignments/tls-parameters/tls-parameters.xhtml#tls-parameters-4):
    /// `TLS_AES_128_GCM_SHA256`, `TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256`, ... (rustls
    /// writes the TLS 1.3 ones `TLS13_...`; this is the registry's `TLS_...`).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    /// # let cert = made.cert.der().clone();
    /// # let key = rustls_pki_types::PrivateKeyDer::try_from(made.signing_key.serialize_der()).unwrap();
    /// # let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    /// # let config = rustls::ServerConfig::builder_with_provider(provider)
    /// #     .with_safe_default_protocol_versions().unwrap()
    /// #     .with_no_client_auth()
    /// #     .with_single_cert(vec![cert.clone()], key).unwrap();
    /// # let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # tokio::spawn(async move {
    /// #     // Answers each request that completes the handshake with `ok`.
    /// #     while let Ok((stream, _)) = listener.accept().await {
    /// #         let Ok(mut tls) = acceptor.accept(stream).await else { continue };
    /// #         let _ = tls.read(&mut [0; 4096]).await;
    /// #         let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// #         let _ = tls.shutdown().await;
    /// #     }
    /// # });
    /// # let ca = cert.to_vec();
    /// // A server on 127.0.0.1 with a certificate for `localhost` from a CA of its own (`ca`).
    /// let client = whatwg_fetch::Client::builder()
    ///     .add_root_certificate_der(ca)
    ///     .resolve("localhost", ([127, 0, 0, 1], 0).into())
    ///     .build()?;
    /// let response = client.get(&format!("https://localhost:{port}/")).send().await?;
    /// let tls = response.tls_info().expect("an https: response");
    /// assert!(tls.cipher_suite().starts_with("TLS_"), "{}", tls.cipher_suite());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn cipher_suite(&self) -> &'static str {
        self.cipher_suite
    }

    /// The cipher suite's two-byte value in that registry: `0x1301` for
    /// `TLS_AES_128_GCM_SHA256`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    /// # let cert = made.cert.der().clone();
    /// # let key = rustls_pki_types::PrivateKeyDer::try_from(made.signing_key.serialize_der()).unwrap();
    /// # let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    /// # let config = rustls::ServerConfig::builder_with_provider(provider)
    /// #     .with_safe_default_protocol_versions().unwrap()
    /// #     .with_no_client_auth()
    /// #     .with_single_cert(vec![cert.clone()], key).unwrap();
    /// # let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # tokio::spawn(async move {
    /// #     // Answers each request that completes the handshake with `ok`.
    /// #     while let Ok((stream, _)) = listener.accept().await {
    /// #         let Ok(mut tls) = acceptor.accept(stream).await else { continue };
    /// #         let _ = tls.read(&mut [0; 4096]).await;
    /// #         let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// #         let _ = tls.shutdown().await;
    /// #     }
    /// # });
    /// # let ca = cert.to_vec();
    /// // A server on 127.0.0.1 with a certificate for `localhost` from a CA of its own (`ca`).
    /// let client = whatwg_fetch::Client::builder()
    ///     .add_root_certificate_der(ca)
    ///     .resolve("localhost", ([127, 0, 0, 1], 0).into())
    ///     .build()?;
    /// let response = client.get(&format!("https://localhost:{port}/")).send().await?;
    /// let tls = response.tls_info().expect("an https: response");
    /// // The TLS 1.3 suites are 0x1301 to 0x1305.
    /// assert!((0x1301..=0x1305).contains(&tls.cipher_suite_id()));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn cipher_suite_id(&self) -> u16 {
        self.cipher_suite_id
    }

    /// The key exchange the handshake used, by its name in the
    /// [IANA TLS Supported Groups registry](https://www.iana.org/assignments/tls-parameters/tls-parameters.xhtml#tls-parameters-8):
    /// `X25519MLKEM768` for the post-quantum hybrid the default build offers first,
    /// `X25519`, `secp256r1`, ... `None` where the transport does not say (HTTP/3, a
    /// resumed TLS 1.2 session).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), whatwg_fetch::Error> {
    /// let response = whatwg_fetch::Client::new().get("https://example.com/").send().await?;
    /// if let Some(tls) = response.tls_info() {
    ///     println!("key exchange: {:?}", tls.key_exchange_group()); // Some("X25519MLKEM768")
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn key_exchange_group(&self) -> Option<&'static str> {
        self.key_exchange_group
    }

    /// The origin's certificate, in DER: the first of
    /// [`peer_certificates`](Self::peer_certificates). As reqwest's
    /// `TlsInfo::peer_certificate`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    /// # let cert = made.cert.der().clone();
    /// # let key = rustls_pki_types::PrivateKeyDer::try_from(made.signing_key.serialize_der()).unwrap();
    /// # let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    /// # let config = rustls::ServerConfig::builder_with_provider(provider)
    /// #     .with_safe_default_protocol_versions().unwrap()
    /// #     .with_no_client_auth()
    /// #     .with_single_cert(vec![cert.clone()], key).unwrap();
    /// # let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # tokio::spawn(async move {
    /// #     // Answers each request that completes the handshake with `ok`.
    /// #     while let Ok((stream, _)) = listener.accept().await {
    /// #         let Ok(mut tls) = acceptor.accept(stream).await else { continue };
    /// #         let _ = tls.read(&mut [0; 4096]).await;
    /// #         let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// #         let _ = tls.shutdown().await;
    /// #     }
    /// # });
    /// # let ca = cert.to_vec();
    /// // A server on 127.0.0.1 with a certificate for `localhost` from a CA of its own (`ca`).
    /// let client = whatwg_fetch::Client::builder()
    ///     .add_root_certificate_der(ca)
    ///     .resolve("localhost", ([127, 0, 0, 1], 0).into())
    ///     .build()?;
    /// let response = client.get(&format!("https://localhost:{port}/")).send().await?;
    /// let tls = response.tls_info().expect("an https: response");
    /// // The server's own certificate, in DER.
    /// assert_eq!(tls.peer_certificate(), Some(&cert[..]));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn peer_certificate(&self) -> Option<&[u8]> {
        self.certificates.first().map(Vec::as_slice)
    }

    /// The certificate chain the origin presented, each in DER, its own certificate first
    /// and then the intermediates as it sent them (a root it sent too is kept).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    /// # let cert = made.cert.der().clone();
    /// # let key = rustls_pki_types::PrivateKeyDer::try_from(made.signing_key.serialize_der()).unwrap();
    /// # let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    /// # let config = rustls::ServerConfig::builder_with_provider(provider)
    /// #     .with_safe_default_protocol_versions().unwrap()
    /// #     .with_no_client_auth()
    /// #     .with_single_cert(vec![cert.clone()], key).unwrap();
    /// # let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # tokio::spawn(async move {
    /// #     // Answers each request that completes the handshake with `ok`.
    /// #     while let Ok((stream, _)) = listener.accept().await {
    /// #         let Ok(mut tls) = acceptor.accept(stream).await else { continue };
    /// #         let _ = tls.read(&mut [0; 4096]).await;
    /// #         let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// #         let _ = tls.shutdown().await;
    /// #     }
    /// # });
    /// # let ca = cert.to_vec();
    /// // A server on 127.0.0.1 with a certificate for `localhost` from a CA of its own (`ca`).
    /// let client = whatwg_fetch::Client::builder()
    ///     .add_root_certificate_der(ca)
    ///     .resolve("localhost", ([127, 0, 0, 1], 0).into())
    ///     .build()?;
    /// let response = client.get(&format!("https://localhost:{port}/")).send().await?;
    /// let tls = response.tls_info().expect("an https: response");
    /// // The chain as the server sent it: here its certificate alone.
    /// assert_eq!(tls.peer_certificates().len(), 1);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn peer_certificates(&self) -> &[Vec<u8>] {
        &self.certificates
    }
}

impl fmt::Debug for TlsInfo {
    /// The version, the cipher suite, and the size of each certificate rather than its
    /// bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sizes: Vec<usize> = self.certificates.iter().map(Vec::len).collect();
        f.debug_struct("TlsInfo")
            .field("version", &self.version)
            .field("cipher_suite", &self.cipher_suite)
            .field("key_exchange_group", &self.key_exchange_group)
            .field("certificate_sizes", &sizes)
            .finish()
    }
}
