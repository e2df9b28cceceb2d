//! TLS for `https:` connections, through rustls on the crypto provider of this crate's
//! features: aws-lc-rs (`aws-lc-rs`, the default), which offers the post-quantum hybrid key
//! exchange `X25519MLKEM768` first and `X25519` beside it, as Chrome and Firefox do; ring
//! (`ring`), which has no post-quantum key exchange; or, with neither, the process's
//! default provider (`CryptoProvider::install_default`). TLS 1.3
//! ([RFC 8446](https://www.rfc-editor.org/rfc/rfc8446)) and TLS 1.2
//! ([RFC 5246](https://www.rfc-editor.org/rfc/rfc5246)), server certificates checked
//! against trusted roots ([RFC 5280](https://www.rfc-editor.org/rfc/rfc5280)) and the
//! host name ([RFC 9110 §4.3.4](https://httpwg.org/specs/rfc9110.html#https.identify)).
//! The configuration is built once per transport, so every connection it makes shares
//! rustls's in-memory session cache and a second connection to a server resumes the
//! first one's session.
//!
//! Which roots are trusted, and why this default: see [the `net` module's
//! documentation](super#tls). On Linux and the other Unix systems but Apple's and
//! Android, the system's roots come from `rustls-native-certs`, read once per process,
//! and one webpki verifier checks chains against them, the built-in roots and the added
//! ones together: `rustls-platform-verifier` does the same there, but reads the store
//! again for every verifier, 5 ms in a release build (37 ms in a debug one) for
//! Debian's bundle of 144 roots, each time a client is built. Elsewhere the verifier is
//! `SystemThenRoots`: the platform verifier (the system's verifier, with the added
//! roots as extra ones), then, only for a chain whose issuer it does not know, webpki
//! over the built-in and added roots. That one is built in this crate's unit tests on
//! Linux too, where the platform verifier is a dev-dependency.

use std::fmt;
use std::io;
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{AlertDescription, CertificateError, DigitallySignedStruct, SignatureScheme};
use rustls_pki_types::pem::PemObject;

use super::pin::{ConnectionPins, PinEntry, PinMismatch, PinSet};
use crate::error::{BoxError, Error, NetworkError};

pub use crate::peer::{TlsInfo, TlsVersion};

/// The rustls version of `version`.
fn rustls_version(version: TlsVersion) -> &'static rustls::SupportedProtocolVersion {
    match version {
        TlsVersion::Tls12 => &rustls::version::TLS12,
        TlsVersion::Tls13 => &rustls::version::TLS13,
    }
}

/// What the handshake of `connection` settled on, once it is done: `None` before (rustls
/// knows no version or suite yet), or for a version this crate does not offer.
pub(crate) fn tls_info(connection: &rustls::ClientConnection) -> Option<TlsInfo> {
    let version = match connection.protocol_version()? {
        rustls::ProtocolVersion::TLSv1_2 => TlsVersion::Tls12,
        rustls::ProtocolVersion::TLSv1_3 => TlsVersion::Tls13,
        _ => return None,
    };
    let suite = connection.negotiated_cipher_suite()?.suite();
    let certificates = connection
        .peer_certificates()
        .unwrap_or_default()
        .iter()
        .map(|certificate| certificate.as_ref().to_vec())
        .collect();
    let group = connection
        .negotiated_key_exchange_group()
        .and_then(|group| group.name().as_str());
    Some(TlsInfo::new(
        version,
        iana_name(suite),
        u16::from(suite),
        group,
        certificates,
    ))
}

/// The IANA registry's name of `suite`: rustls's, but for the TLS 1.3 suites, which
/// rustls writes `TLS13_...` where the registry has `TLS_...`.
fn iana_name(suite: rustls::CipherSuite) -> &'static str {
    match suite {
        rustls::CipherSuite::TLS13_AES_128_GCM_SHA256 => "TLS_AES_128_GCM_SHA256",
        rustls::CipherSuite::TLS13_AES_256_GCM_SHA384 => "TLS_AES_256_GCM_SHA384",
        rustls::CipherSuite::TLS13_CHACHA20_POLY1305_SHA256 => "TLS_CHACHA20_POLY1305_SHA256",
        rustls::CipherSuite::TLS13_AES_128_CCM_SHA256 => "TLS_AES_128_CCM_SHA256",
        rustls::CipherSuite::TLS13_AES_128_CCM_8_SHA256 => "TLS_AES_128_CCM_8_SHA256",
        other => other.as_str().unwrap_or("unknown"),
    }
}

/// A client certificate and its private key, which the client presents to a server that
/// asks for one (mutual TLS): see
/// [`HyperTransportBuilder::identity`](super::HyperTransportBuilder::identity).
///
/// ```
/// use whatwg_fetch::NetworkError;
/// use whatwg_fetch::net::Identity;
///
/// let error = Identity::from_pem(b"no PEM here").unwrap_err();
/// let Some(NetworkError::Tls(reason)) = error.network_error() else { unreachable!() };
/// assert_eq!(reason.to_string(), "the identity PEM has no certificate (no CERTIFICATE section)");
/// ```
#[derive(Clone)]
pub struct Identity {
    key: Arc<rustls::sign::CertifiedKey>,
}

impl Identity {
    /// An identity from one PEM document holding the certificate chain, the client's own
    /// certificate first and then any intermediates (`CERTIFICATE` sections), and its
    /// private key (one `PRIVATE KEY`, `RSA PRIVATE KEY` or `EC PRIVATE KEY` section: PKCS
    /// #8, PKCS #1 or SEC1), in any order: the certificate and key files of curl's
    /// `--cert` and `--key` put together.
    ///
    /// ```
    /// use whatwg_fetch::{Client, Identity};
    ///
    /// # let made = rcgen::generate_simple_self_signed(vec!["client.internal".to_owned()]).unwrap();
    /// # let pem = format!("{}{}", made.cert.pem(), made.signing_key.serialize_pem());
    /// // `pem`: the certificate chain and the key, as `std::fs::read("client.pem")?` reads them.
    /// let identity = Identity::from_pem(pem.as_bytes())?;
    /// let client = Client::builder().identity(identity).build()?;
    /// // A certificate without its key is refused.
    /// assert!(Identity::from_pem(made.cert.pem().as_bytes()).is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) with a
    /// [`NetworkError::Tls`] source that says what is wrong: no certificate, no private
    /// key, a malformed section, a key that the crypto provider cannot use, or a key that does not
    /// belong to the first certificate.
    pub fn from_pem(pem: &[u8]) -> Result<Identity, Error> {
        let chain = CertificateDer::pem_slice_iter(pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| config_error("the identity PEM has a malformed certificate", e))?;
        if chain.is_empty() {
            return Err(config_message(
                "the identity PEM has no certificate (no CERTIFICATE section)",
            ));
        }
        let key = match PrivateKeyDer::from_pem_slice(pem) {
            Ok(key) => key,
            Err(rustls_pki_types::pem::Error::NoItemsFound) => {
                return Err(config_message(
                    "the identity PEM has no private key (no PRIVATE KEY, RSA PRIVATE KEY \
                     or EC PRIVATE KEY section)",
                ));
            }
            Err(e) => return Err(config_error("the identity PEM has a malformed key", e)),
        };
        let key = rustls::sign::CertifiedKey::from_der(chain, key, &*provider()?)
            .map_err(|e| config_error("the identity's key cannot be used", e))?;
        Ok(Identity { key: Arc::new(key) })
    }
}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Identity")
            .field("certificates", &self.key.cert.len())
            .finish_non_exhaustive()
    }
}

/// Why a TLS handshake failed, and with which host: the source of a
/// [`NetworkError::Tls`] from a connection. Its [`source`](std::error::Error::source) is
/// the error rustls (or the connection under it) reported.
///
/// ```text
/// TLS handshake with localhost failed
/// ```
///
/// and its source says why (`invalid peer certificate: UnknownIssuer`).
#[derive(Debug)]
pub struct TlsHandshakeError {
    host: Box<str>,
    hint: Option<String>,
    source: BoxError,
}

impl TlsHandshakeError {
    fn new(host: &str, source: BoxError, hint: Option<String>) -> TlsHandshakeError {
        TlsHandshakeError {
            host: host.into(),
            hint,
            source,
        }
    }

    /// The host the handshake was with: a name, or an IP address.
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
    /// use whatwg_fetch::net::TlsHandshakeError;
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// // A server whose certificate no root here vouches for.
    /// let client = Client::builder().resolve("localhost", ([127, 0, 0, 1], 0).into()).build()?;
    /// let error = client.get(&format!("https://localhost:{port}/")).send().await.unwrap_err();
    /// let Some(NetworkError::Tls(cause)) = error.network_error() else { panic!("{error:?}") };
    /// let handshake = cause.downcast_ref::<TlsHandshakeError>().expect("a handshake's");
    /// assert_eq!(handshake.host(), "localhost");
    /// # let _ = cert;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The mismatch, when the handshake failed because the server's key is not one
    /// pinned for the host (see
    /// [`pin_public_keys`](super::HyperTransportBuilder::pin_public_keys)).
    ///
    /// ```no_run
    /// use whatwg_fetch::NetworkError;
    /// use whatwg_fetch::net::{HyperTransport, SendOptions, TlsHandshakeError, Transport};
    ///
    /// # async fn run(transport: HyperTransport, request: http::Request<whatwg_fetch::net::RequestBody>) {
    /// if let Err(NetworkError::Tls(source)) = transport.send(request, SendOptions::new()).await {
    ///     let handshake = source.downcast_ref::<TlsHandshakeError>();
    ///     if let Some(mismatch) = handshake.and_then(TlsHandshakeError::pin_mismatch) {
    ///         eprintln!("{mismatch}");
    ///     }
    /// }
    /// # }
    /// ```
    pub fn pin_mismatch(&self) -> Option<&PinMismatch> {
        self.source.downcast_ref::<PinMismatch>()
    }
}

impl fmt::Display for TlsHandshakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The reason is the source's to say (`{:#}` of the crate's `Error` prints it).
        write!(f, "TLS handshake with {} failed", self.host)?;
        if let Some(hint) = &self.hint {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for TlsHandshakeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

/// The TLS options of a [`HyperTransportBuilder`](super::HyperTransportBuilder).
#[derive(Clone)]
pub(crate) struct TlsOptions {
    pub(crate) system_roots: bool,
    pub(crate) built_in_roots: bool,
    pub(crate) extra_roots: Vec<CertificateDer<'static>>,
    pub(crate) identity: Option<Identity>,
    pub(crate) min_version: TlsVersion,
    pub(crate) max_version: TlsVersion,
    pub(crate) accept_invalid_certs: bool,
    pub(crate) accept_invalid_hostnames: bool,
    pub(crate) key_log: bool,
    /// Public-key pins, per host, as the builder was given them.
    pub(crate) pins: Vec<PinEntry>,
    /// The caller's own configuration, which replaces all of the above.
    pub(crate) rustls_config: Option<Arc<rustls::ClientConfig>>,
}

impl Default for TlsOptions {
    fn default() -> TlsOptions {
        TlsOptions {
            // Each on when its Cargo feature is.
            system_roots: cfg!(feature = "system-roots"),
            built_in_roots: cfg!(feature = "built-in-roots"),
            extra_roots: Vec::new(),
            identity: None,
            min_version: TlsVersion::Tls12,
            max_version: TlsVersion::Tls13,
            accept_invalid_certs: false,
            accept_invalid_hostnames: false,
            key_log: false,
            pins: Vec::new(),
            rustls_config: None,
        }
    }
}

impl fmt::Debug for TlsOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsOptions")
            .field("system_roots", &self.system_roots)
            .field("built_in_roots", &self.built_in_roots)
            .field("extra_roots", &self.extra_roots.len())
            .field("identity", &self.identity)
            .field("min_version", &self.min_version)
            .field("max_version", &self.max_version)
            .field("accept_invalid_certs", &self.accept_invalid_certs)
            .field("accept_invalid_hostnames", &self.accept_invalid_hostnames)
            .field("key_log", &self.key_log)
            .field("pins", &self.pins)
            .field("rustls_config", &self.rustls_config.is_some())
            .finish()
    }
}

/// A transport's TLS: the configuration every connection shares, and what is known to
/// explain a failed handshake.
pub(crate) struct TlsSetup {
    pub(crate) config: Arc<rustls::ClientConfig>,
    /// The versions allowed, when built from the options (a caller's own configuration
    /// keeps its versions to itself).
    versions: Option<(TlsVersion, TlsVersion)>,
    identity: bool,
    /// The public-key pins the configuration's verifier checks; empty without any.
    pins: Arc<PinSet>,
}

impl TlsSetup {
    /// Whether the configuration is the caller's own (`rustls_config`), whose verifier
    /// this crate does not know.
    pub(crate) fn is_callers(&self) -> bool {
        self.versions.is_none()
    }

    /// Whether TLS 1.3, which QUIC needs (RFC 9001 §4.2), is among the versions allowed:
    /// `None` for a caller's own configuration, whose versions it keeps to itself (its
    /// handshakes say).
    #[cfg(feature = "http3")]
    pub(crate) fn allows_tls13(&self) -> Option<bool> {
        self.versions
            .map(|(_, max)| max >= crate::peer::TlsVersion::Tls13)
    }
}

impl TlsOptions {
    /// The configuration for a transport, offering `h2` by ALPN with `http2`.
    pub(crate) fn build(&self, http2: bool) -> Result<TlsSetup, Error> {
        let pins = Arc::new(PinSet::new(&self.pins).map_err(config_message)?);
        if let Some(config) = &self.rustls_config {
            if !pins.is_empty() {
                return Err(config_message(
                    "pin_public_keys: the pins cannot apply to a rustls_config of the \
                     caller's own, whose verifier is its own (check the pins in that \
                     verifier)",
                ));
            }
            let config = if config.alpn_protocols.is_empty() {
                let mut config = rustls::ClientConfig::clone(config);
                config.alpn_protocols = alpn(http2);
                Arc::new(config)
            } else {
                Arc::clone(config)
            };
            return Ok(TlsSetup {
                config,
                versions: None,
                identity: false,
                pins,
            });
        }
        let provider = provider()?;
        let versions: Vec<_> = TlsVersion::ALL
            .into_iter()
            .filter(|version| (self.min_version..=self.max_version).contains(version))
            .map(rustls_version)
            .collect();
        if versions.is_empty() {
            return Err(config_message(format!(
                "min_tls_version {} is above max_tls_version {}",
                self.min_version, self.max_version
            )));
        }
        let verifier: Arc<dyn ServerCertVerifier> = if self.accept_invalid_certs {
            Arc::new(FixedVerdict {
                algorithms: provider.signature_verification_algorithms,
                refusal: None,
            })
        } else if self.accept_invalid_hostnames {
            Arc::new(IgnoreHostnames {
                inner: self.verifier(&provider)?,
            })
        } else {
            self.verifier(&provider)?
        };
        // Pins are checked after (or, for a pins-only host, instead of) all of the above.
        let verifier: Arc<dyn ServerCertVerifier> = match pins.is_empty() {
            true => verifier,
            false => Arc::new(Pinned {
                inner: verifier,
                pins: Arc::clone(&pins),
            }),
        };
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&versions)
            .map_err(|e| config_error("the TLS versions cannot be used", e))?
            .dangerous()
            .with_custom_certificate_verifier(verifier);
        let mut config = match &self.identity {
            Some(identity) => {
                builder.with_client_cert_resolver(Arc::new(rustls::sign::SingleCertAndKey::from(
                    rustls::sign::CertifiedKey::clone(&identity.key),
                )))
            }
            None => builder.with_no_client_auth(),
        };
        config.alpn_protocols = alpn(http2);
        if self.key_log {
            // Reads `SSLKEYLOGFILE` now, and appends to that file (NSS's key log format).
            config.key_log = Arc::new(rustls::KeyLogFile::new());
        }
        Ok(TlsSetup {
            config: Arc::new(config),
            versions: Some((self.min_version, self.max_version)),
            identity: self.identity.is_some(),
            pins,
        })
    }

    /// The verifier of server certificates for the roots chosen (see the module's
    /// documentation).
    fn verifier(
        &self,
        provider: &Arc<CryptoProvider>,
    ) -> Result<Arc<dyn ServerCertVerifier>, Error> {
        if self.system_roots && !cfg!(feature = "system-roots") {
            return Err(config_message(
                "tls_system_roots(true): the system's trust store is not in this build (its \
                 Cargo feature `system-roots` is off)",
            ));
        }
        if self.built_in_roots && !cfg!(feature = "built-in-roots") {
            return Err(config_message(
                "tls_built_in_roots(true): the built-in roots are not in this build (its \
                 Cargo feature `built-in-roots` is off)",
            ));
        }
        #[cfg(all(
            feature = "system-roots",
            not(all(unix, not(target_os = "android"), not(target_vendor = "apple")))
        ))]
        if self.system_roots {
            return self.platform_verifier(provider);
        }
        self.webpki_verifier(provider)
    }

    /// The roots added with `add_root_certificate_der` and `add_root_certificates_pem`.
    fn added_roots(&self) -> Result<rustls::RootCertStore, Error> {
        let mut added = rustls::RootCertStore::empty();
        for root in &self.extra_roots {
            added
                .add(root.clone())
                .map_err(|e| config_error("an added root certificate cannot be used", e))?;
        }
        Ok(added)
    }

    /// On Linux and the other Unix systems, one webpki verifier over the system's roots
    /// (read once per process), the built-in ones and the added ones: what
    /// `rustls-platform-verifier` does there, without reading the store for each
    /// transport (5 ms in a release build for Debian's 144 roots).
    /// Elsewhere, and without the system's store, webpki over the built-in and added
    /// roots.
    fn webpki_verifier(
        &self,
        provider: &Arc<CryptoProvider>,
    ) -> Result<Arc<dyn ServerCertVerifier>, Error> {
        let mut roots = self.added_roots()?;
        #[cfg(all(
            feature = "system-roots",
            unix,
            not(target_os = "android"),
            not(target_vendor = "apple")
        ))]
        if self.system_roots {
            roots
                .roots
                .extend(system_roots().roots.iter().map(|root| root.to_owned()));
        }
        if self.built_in_roots {
            extend_with_built_in_roots(&mut roots);
        }
        webpki_verifier(roots, self.system_roots, provider)
    }

    /// On macOS, iOS, Windows and Android, the system's verifier through
    /// `rustls-platform-verifier` (with the added roots as its extra roots), then, for a
    /// chain whose issuer it does not know, webpki over the built-in and added roots.
    #[cfg(any(
        test,
        all(
            feature = "system-roots",
            not(all(unix, not(target_os = "android"), not(target_vendor = "apple")))
        )
    ))]
    fn platform_verifier(
        &self,
        provider: &Arc<CryptoProvider>,
    ) -> Result<Arc<dyn ServerCertVerifier>, Error> {
        let added = self.added_roots()?;
        if !self.system_roots {
            let mut roots = added;
            if self.built_in_roots {
                extend_with_built_in_roots(&mut roots);
            }
            return webpki_verifier(roots, false, provider);
        }
        let system: Arc<dyn ServerCertVerifier> =
            match rustls_platform_verifier::Verifier::new_with_extra_roots(
                self.extra_roots.iter().cloned(),
                Arc::clone(provider),
            ) {
                Ok(verifier) => Arc::new(verifier),
                Err(e) if !self.built_in_roots => {
                    return Err(config_error(
                        "the system's trust store cannot be used, and the built-in roots \
                         are off",
                        e,
                    ));
                }
                // A system store with no certificate: the built-in roots serve alone.
                Err(_) => {
                    let mut roots = added;
                    extend_with_built_in_roots(&mut roots);
                    return webpki_verifier(roots, true, provider);
                }
            };
        if !self.built_in_roots {
            return Ok(system);
        }
        let mut roots = added;
        extend_with_built_in_roots(&mut roots);
        let fallback =
            WebPkiServerVerifier::builder_with_provider(Arc::new(roots), Arc::clone(provider))
                .build()
                .map_err(|e| config_error("the root certificates cannot be used", e))?;
        Ok(Arc::new(SystemThenRoots { system, fallback }))
    }
}

/// Mozilla's roots, compiled in, added to `roots` (none without the `built-in-roots`
/// feature).
fn extend_with_built_in_roots(roots: &mut rustls::RootCertStore) {
    #[cfg(feature = "built-in-roots")]
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let _ = roots;
}

/// A webpki verifier over `roots`, or the error of having none to trust.
fn webpki_verifier(
    roots: rustls::RootCertStore,
    system_roots: bool,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<dyn ServerCertVerifier>, Error> {
    // As reqwest: the client is built, and every certificate is refused, saying why.
    if roots.is_empty() {
        return Ok(Arc::new(FixedVerdict {
            algorithms: provider.signature_verification_algorithms,
            refusal: Some(if system_roots {
                "no root certificates to trust: the system's trust store has none, the \
                 built-in roots are off, and none was added"
            } else {
                "no root certificates to trust: the system's and the built-in roots are off \
                 (or not in this build), and none was added"
            }),
        }));
    }
    let verifier =
        WebPkiServerVerifier::builder_with_provider(Arc::new(roots), Arc::clone(provider))
            .build()
            .map_err(|e| config_error("the root certificates cannot be used", e))?;
    Ok(verifier)
}

/// The roots in the system's trust store, as `rustls-native-certs` finds them (the file
/// and directories OpenSSL uses, or `SSL_CERT_FILE` and `SSL_CERT_DIR` when set), read
/// when the first transport that trusts them is built and kept for the process.
/// Certificates that cannot be read are left out, as `rustls-platform-verifier` does.
#[cfg(all(
    feature = "system-roots",
    unix,
    not(target_os = "android"),
    not(target_vendor = "apple")
))]
fn system_roots() -> &'static rustls::RootCertStore {
    static ROOTS: std::sync::OnceLock<rustls::RootCertStore> = std::sync::OnceLock::new();
    ROOTS.get_or_init(|| {
        let mut roots = rustls::RootCertStore::empty();
        roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
        roots
    })
}

/// The ALPN protocols offered ([RFC 7301](https://www.rfc-editor.org/rfc/rfc7301)).
fn alpn(http2: bool) -> Vec<Vec<u8>> {
    if http2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    }
}

/// The crypto provider of the `aws-lc-rs` feature: its default key exchange groups are
/// `X25519MLKEM768` (ML-KEM-768 with X25519, draft-ietf-tls-ecdhe-mlkem), `X25519`,
/// `secp256r1` and `secp384r1`, in that order, and a ClientHello carries key shares for the
/// first two, so that a server without the hybrid group answers without a second round trip.
#[cfg(feature = "aws-lc-rs")]
fn provider() -> Result<Arc<CryptoProvider>, Error> {
    Ok(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
}

/// The crypto provider of the `ring` feature, for targets aws-lc does not build on.
/// DEVIATION: no post-quantum key exchange (ring has no ML-KEM), which rustls 0.23.48 marks
/// by deprecating this provider; the build asked for it, so the warning is not passed on.
#[cfg(all(feature = "ring", not(feature = "aws-lc-rs")))]
#[allow(deprecated)]
fn provider() -> Result<Arc<CryptoProvider>, Error> {
    Ok(Arc::new(rustls::crypto::ring::default_provider()))
}

/// Built without a provider feature: the provider the program installed for the process.
#[cfg(not(any(feature = "aws-lc-rs", feature = "ring")))]
fn provider() -> Result<Arc<CryptoProvider>, Error> {
    CryptoProvider::get_default().cloned().ok_or_else(|| {
        config_message(
            "no TLS crypto provider: this build has neither the `aws-lc-rs` nor the `ring` \
             feature, and no provider was installed with \
             rustls::crypto::CryptoProvider::install_default",
        )
    })
}

impl TlsSetup {
    /// The [`NetworkError::Tls`] for a handshake with `host` that failed with `error`
    /// (tokio-rustls carries rustls's error inside an I/O error).
    pub(crate) fn handshake_error(&self, host: &str, error: io::Error) -> NetworkError {
        let source: BoxError = match error
            .get_ref()
            .and_then(|e| e.downcast_ref::<rustls::Error>())
        {
            // The mismatch itself, whose text rustls would write as `Other(…)`.
            Some(rustls) => match super::pin::mismatch_in(rustls) {
                Some(mismatch) => Box::new(mismatch.clone()),
                None => Box::new(rustls.clone()),
            },
            None => Box::new(error),
        };
        let hint = self.hint(&*source);
        NetworkError::Tls(Box::new(TlsHandshakeError::new(host, source, hint)))
    }

    /// What the handshake of `connection`, with `host`, settled on ([`tls_info`]), with
    /// what the pins allow of its sharing with other origins; or the mismatch of a
    /// resumed session whose certificate (the one of the session it resumes, which
    /// rustls gives as the peer's) carries a key not pinned for `host`. rustls resumes
    /// only a session its verifier, the pins' own, accepted for the same server name,
    /// so that check is a second line.
    pub(crate) fn connection_info(
        &self,
        host: &str,
        connection: &rustls::ClientConnection,
    ) -> Result<Option<TlsInfo>, NetworkError> {
        let mut info = tls_info(connection);
        if self.pins.is_empty() {
            return Ok(info);
        }
        if connection.handshake_kind() == Some(rustls::HandshakeKind::Resumed) {
            self.check_resumed(host, connection.peer_certificates())?;
        }
        if let Some(info) = &mut info {
            info.carries = ConnectionPins::new(&self.pins, host)
                .map(|pins| crate::peer::CarriedHosts(Arc::new(pins)));
        }
        Ok(info)
    }

    /// The pins of `host` checked against `certificates`, the chain a resumed session
    /// gives as the peer's.
    fn check_resumed(
        &self,
        host: &str,
        certificates: Option<&[CertificateDer<'static>]>,
    ) -> Result<(), NetworkError> {
        let Some(pins) = self.pins.find(host) else {
            return Ok(());
        };
        let failed = |source: BoxError| {
            NetworkError::Tls(Box::new(TlsHandshakeError::new(host, source, None)))
        };
        let end_entity = certificates
            .and_then(|chain| chain.first())
            .ok_or_else(|| failed(Box::new(rustls::Error::NoCertificatesPresented)))?;
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        pins.check(&host, end_entity)
            .map_err(|error| match super::pin::mismatch_in(&error) {
                Some(mismatch) => failed(Box::new(mismatch.clone())),
                None => failed(Box::new(error)),
            })
    }

    /// The [`NetworkError::Tls`] for a `host` that is not a valid server name.
    pub(crate) fn server_name_error(host: &str, error: impl Into<BoxError>) -> NetworkError {
        NetworkError::Tls(Box::new(TlsHandshakeError::new(host, error.into(), None)))
    }

    /// The [`NetworkError::Tls`] for an alert the server of `host` sent after the client
    /// finished its side of the handshake, found in the error of a request on that
    /// connection: in TLS 1.3 a server checks the client's certificate then (RFC 8446
    /// §4.4.2.4), so its refusal arrives when the client reads the response.
    pub(crate) fn alert_after_handshake(
        &self,
        host: &str,
        error: &(dyn std::error::Error + 'static),
    ) -> Option<NetworkError> {
        // The I/O error in `error`'s source chain.
        let mut cause = std::error::Error::source(error);
        let io = loop {
            let found = cause?;
            if let Some(io) = found.downcast_ref::<io::Error>() {
                break io;
            }
            cause = found.source();
        };
        self.alert_in(host, io)
    }

    /// The same, found in the I/O error `io` a connection to `host` failed with.
    pub(crate) fn alert_in(&self, host: &str, io: &io::Error) -> Option<NetworkError> {
        // Over HTTP/1.1 the I/O error keeps rustls's inside.
        if let Some(rustls) = io.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>()) {
            return Some(self.after_handshake(host, Box::new(rustls.clone())));
        }
        // Over HTTP/2, the h2 library keeps only the I/O error's kind and text; the TLS
        // layer is what reports bad data under it.
        if io.kind() != io::ErrorKind::InvalidData {
            return None;
        }
        let text = io.to_string();
        let alert = ALERTS_AFTER_HANDSHAKE
            .into_iter()
            .map(rustls::Error::AlertReceived)
            .find(|alert| alert.to_string() == text);
        Some(match alert {
            Some(alert) => self.after_handshake(host, Box::new(alert)),
            None => self.after_handshake(host, text.into()),
        })
    }

    fn after_handshake(&self, host: &str, source: BoxError) -> NetworkError {
        let hint = self.hint(&*source);
        NetworkError::Tls(Box::new(TlsHandshakeError::new(host, source, hint)))
    }

    /// What this client's configuration adds to an explanation of `error`.
    fn hint(&self, error: &(dyn std::error::Error + 'static)) -> Option<String> {
        use rustls::PeerIncompatible;
        let error = error.downcast_ref::<rustls::Error>();
        let version_mismatch = matches!(
            error,
            Some(
                rustls::Error::AlertReceived(AlertDescription::ProtocolVersion)
                    | rustls::Error::PeerIncompatible(
                        PeerIncompatible::ServerTlsVersionIsDisabledByOurConfig
                            | PeerIncompatible::ServerDoesNotSupportTls12Or13
                            | PeerIncompatible::SupportedVersionsExtensionRequired
                    )
            )
        );
        if version_mismatch {
            let (min, max) = self.versions?;
            return Some(if min == max {
                format!("the server does not speak {min}, the only version allowed")
            } else {
                format!("the server speaks neither {min} nor {max}")
            });
        }
        let certificate_required = matches!(
            error,
            Some(rustls::Error::AlertReceived(
                AlertDescription::CertificateRequired
            ))
        );
        if certificate_required && !self.identity {
            return Some("the server requires a client certificate; none is set".into());
        }
        None
    }
}

/// The alerts a server sends when it refuses a client's certificate, or the lack of one,
/// after the client's side of a TLS 1.3 handshake (RFC 8446 §6.2): recognized by their
/// text where the HTTP/2 library kept only that.
const ALERTS_AFTER_HANDSHAKE: [AlertDescription; 9] = [
    AlertDescription::CertificateRequired,
    AlertDescription::BadCertificate,
    AlertDescription::UnsupportedCertificate,
    AlertDescription::CertificateRevoked,
    AlertDescription::CertificateExpired,
    AlertDescription::CertificateUnknown,
    AlertDescription::UnknownCA,
    AlertDescription::AccessDenied,
    AlertDescription::HandshakeFailure,
];

/// The source to report for `error`, a handshake's I/O error from tokio-rustls: the
/// [`PinMismatch`] it carries (whose text rustls would write as `Other(…)`, and which the
/// I/O error's `source` would skip), else `error` itself.
pub(crate) fn mismatch_or_io(error: io::Error) -> BoxError {
    let mismatch = error
        .get_ref()
        .and_then(|e| e.downcast_ref::<rustls::Error>())
        .and_then(super::pin::mismatch_in);
    match mismatch {
        Some(mismatch) => Box::new(mismatch.clone()),
        None => Box::new(error),
    }
}

/// A build-time TLS failure, as the builders report it.
fn config_error(what: &'static str, source: impl Into<BoxError>) -> Error {
    let source = source.into();
    Error::network(NetworkError::Tls(Box::new(ConfigError {
        message: format!("{what}: {source}"),
        source: Some(source),
    })))
}

fn config_message(message: impl Into<String>) -> Error {
    Error::network(NetworkError::Tls(Box::new(ConfigError {
        message: message.into(),
        source: None,
    })))
}

/// What is wrong with a TLS option.
#[derive(Debug)]
struct ConfigError {
    message: String,
    source: Option<BoxError>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as _)
    }
}

/// The three signature methods of a [`ServerCertVerifier`] that checks the handshake's
/// signatures as the verifier in `self.$field` does.
macro_rules! delegate_signatures {
    ($field:ident) => {
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            self.$field.verify_tls12_signature(message, cert, dss)
        }

        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            self.$field.verify_tls13_signature(message, cert, dss)
        }

        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.$field.supported_verify_schemes()
        }
    };
}

/// The system's verifier, then, for a chain whose issuer it does not know, the verifier
/// of the built-in and added roots.
#[cfg(any(
    test,
    all(
        feature = "system-roots",
        not(all(unix, not(target_os = "android"), not(target_vendor = "apple")))
    )
))]
#[derive(Debug)]
struct SystemThenRoots {
    system: Arc<dyn ServerCertVerifier>,
    fallback: Arc<WebPkiServerVerifier>,
}

#[cfg(any(
    test,
    all(
        feature = "system-roots",
        not(all(unix, not(target_os = "android"), not(target_vendor = "apple")))
    )
))]
impl ServerCertVerifier for SystemThenRoots {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.system.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Err(rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer)) => self
                .fallback
                .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now),
            verified => verified,
        }
    }

    delegate_signatures!(system);
}

/// Public-key pinning: a host with pins is accepted only if its certificate's key is
/// one of them, after the inner verifier accepted the certificate (or instead of it, for
/// a pins-only host). A host without pins is the inner verifier's alone. The handshake's
/// signatures are the inner verifier's to check, pinned or not.
#[derive(Debug)]
struct Pinned {
    inner: Arc<dyn ServerCertVerifier>,
    pins: Arc<PinSet>,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some((pins, host)) = self.pins.for_server(server_name) else {
            return self.inner.verify_server_cert(
                end_entity,
                intermediates,
                server_name,
                ocsp_response,
                now,
            );
        };
        if !pins.only {
            self.inner.verify_server_cert(
                end_entity,
                intermediates,
                server_name,
                ocsp_response,
                now,
            )?;
        }
        pins.check(&host, end_entity)?;
        Ok(ServerCertVerified::assertion())
    }

    delegate_signatures!(inner);
}

/// `danger_accept_invalid_hostnames`: a chain the inner verifier trusts is accepted
/// whatever names its certificate is for.
#[derive(Debug)]
struct IgnoreHostnames {
    inner: Arc<dyn ServerCertVerifier>,
}

impl ServerCertVerifier for IgnoreHostnames {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        // webpki checks the name only after the chain, so a name error means the chain
        // is trusted. (The verifiers of macOS and Windows check both at once and report
        // one fault.)
        match self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            verified => verified,
        }
    }

    delegate_signatures!(inner);
}

/// A verifier whose verdict on every certificate is fixed: accepted with no `refusal`
/// (`danger_accept_invalid_certs`), refused with it (no roots to trust). The handshake's
/// signatures are still checked against the certificate's key, as the protocol needs.
#[derive(Debug)]
struct FixedVerdict {
    algorithms: WebPkiSupportedAlgorithms,
    refusal: Option<&'static str>,
}

impl ServerCertVerifier for FixedVerdict {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.refusal {
            None => Ok(ServerCertVerified::assertion()),
            Some(why) => Err(rustls::Error::General(why.to_owned())),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// Whether the certificate recorded for a connection (`tls`) is valid for `host` too, by
/// its names (RFC 6125, as the handshake checked them for the connection's own host):
/// what another origin needs to share the connection (RFC 9113 §9.1.1). The chain was
/// verified when the connection was made, unless its host was pinned alone (pins-only):
/// with pins, the connection serves `host` only if it passed what `host`'s own would
/// have (see `ConnectionPins::may_serve`): a pinned host never shares a connection whose
/// key is not one of its pins.
pub(crate) fn certificate_covers(tls: &TlsInfo, host: &str) -> bool {
    let (Some(der), Ok(name)) = (tls.peer_certificate(), ServerName::try_from(host)) else {
        return false;
    };
    if let Some(carries) = &tls.carries {
        if !carries.0.may_serve(host, der) {
            return false;
        }
    }
    let der = CertificateDer::from(der);
    rustls::server::ParsedCertificate::try_from(&der)
        .and_then(|certificate| rustls::client::verify_server_name(&certificate, &name))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reason of a TLS error from a builder.
    fn reason(error: Error) -> String {
        match error.network_error() {
            Some(NetworkError::Tls(reason)) => reason.to_string(),
            other => panic!("not a TLS error: {other:?}"),
        }
    }

    #[test]
    fn a_min_version_above_the_max_is_an_error() {
        let options = TlsOptions {
            min_version: TlsVersion::Tls13,
            max_version: TlsVersion::Tls12,
            ..TlsOptions::default()
        };
        assert_eq!(
            reason(options.build(true).err().unwrap()),
            "min_tls_version TLS 1.3 is above max_tls_version TLS 1.2"
        );
    }

    #[test]
    fn with_no_roots_at_all_every_certificate_is_refused_saying_so() {
        let options = TlsOptions {
            system_roots: false,
            built_in_roots: false,
            ..TlsOptions::default()
        };
        let provider = provider().unwrap();
        let verifier = options.verifier(&provider).unwrap();
        let (_, leaf) = ca_and_leaf("no roots");
        let error = verifier
            .verify_server_cert(
                &leaf,
                &[],
                &ServerName::try_from("localhost").unwrap(),
                &[],
                UnixTime::now(),
            )
            .unwrap_err();
        assert!(
            error.to_string().contains("no root certificates to trust"),
            "{error}"
        );
        // The transport is still built: plain `http:` needs no roots.
        assert!(options.build(true).is_ok());
    }

    #[test]
    fn an_identity_without_a_key_says_so() {
        let no_key = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
        let error = Identity::from_pem(no_key.as_bytes()).unwrap_err();
        assert!(reason(error).contains("no private key"));
    }

    /// A CA named `ca_name` (DER) and a certificate it signs for `localhost` (DER).
    fn ca_and_leaf(ca_name: &str) -> (CertificateDer<'static>, CertificateDer<'static>) {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, ca_name);
        let ca_key = KeyPair::generate().unwrap();
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let leaf_key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["localhost".to_owned()])
            .unwrap()
            .signed_by(&leaf_key, &issuer)
            .unwrap();
        (ca.der().clone(), leaf.der().clone())
    }

    fn verify(
        verifier: &dyn ServerCertVerifier,
        leaf: &CertificateDer<'_>,
        name: &str,
    ) -> Result<(), rustls::Error> {
        let name = ServerName::try_from(name.to_owned()).unwrap();
        verifier
            .verify_server_cert(leaf, &[], &name, &[], UnixTime::now())
            .map(|_| ())
    }

    #[test]
    fn the_platform_verifier_trusts_added_roots_then_falls_back_to_the_built_in_ones() {
        // The verifier of macOS and Windows, built here on Linux, where it reads the
        // system's store itself.
        let (ca, leaf) = ca_and_leaf("Test CA");
        let (_, stranger) = ca_and_leaf("Unknown CA");
        let provider = provider().unwrap();
        let options = TlsOptions {
            extra_roots: vec![ca],
            ..TlsOptions::default()
        };
        let verifier = options.platform_verifier(&provider).unwrap();
        assert!(format!("{verifier:?}").starts_with("SystemThenRoots"));
        verify(&*verifier, &leaf, "localhost").unwrap();
        assert!(matches!(
            verify(&*verifier, &stranger, "localhost"),
            Err(rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer
            ))
        ));
        assert!(matches!(
            verify(&*verifier, &leaf, "elsewhere.test"),
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. }
            ))
        ));
        let ignoring = IgnoreHostnames { inner: verifier };
        verify(&ignoring, &leaf, "elsewhere.test").unwrap();
        assert!(verify(&ignoring, &stranger, "elsewhere.test").is_err());

        // Without the built-in roots, the system's verifier alone; without the system's
        // store, webpki alone.
        let system_only = TlsOptions {
            built_in_roots: false,
            ..options.clone()
        };
        let verifier = system_only.platform_verifier(&provider).unwrap();
        assert!(!format!("{verifier:?}").starts_with("SystemThenRoots"));
        verify(&*verifier, &leaf, "localhost").unwrap();
        let added_only = TlsOptions {
            system_roots: false,
            built_in_roots: false,
            ..options
        };
        let verifier = added_only.platform_verifier(&provider).unwrap();
        assert!(format!("{verifier:?}").starts_with("WebPkiServerVerifier"));
        verify(&*verifier, &leaf, "localhost").unwrap();
    }

    /// Options pinning `host` to `pins`, on top of the validation or (`only`) instead.
    fn pinning(host: &str, pins: &[crate::net::PublicKeyPin], only: bool) -> PinEntry {
        PinEntry {
            host: host.to_owned(),
            pins: pins.to_vec(),
            only,
        }
    }

    #[test]
    fn a_resumed_session_whose_key_is_not_pinned_is_refused() {
        use crate::net::PublicKeyPin;
        let (_, leaf) = ca_and_leaf("Test CA");
        let pin = super::super::pin::spki_pin(&leaf).unwrap();
        let setup = |pins: &[PublicKeyPin]| {
            TlsOptions {
                pins: vec![pinning("localhost", pins, false)],
                ..TlsOptions::default()
            }
            .build(true)
            .unwrap()
        };
        let chain = [leaf.clone()];
        let pinned = setup(&[pin]);
        pinned.check_resumed("localhost", Some(&chain)).unwrap();
        pinned.check_resumed("unpinned.test", None).unwrap();
        let other = setup(&[PublicKeyPin::from_sha256([1; 32])]);
        let error = other.check_resumed("localhost", Some(&chain)).unwrap_err();
        let NetworkError::Tls(source) = &error else {
            panic!("{error:?}");
        };
        let handshake = source.downcast_ref::<TlsHandshakeError>().unwrap();
        assert_eq!(handshake.host(), "localhost");
        assert_eq!(handshake.pin_mismatch().unwrap().found(), pin);
        // A resumed session without a certificate is no proof of the key.
        let error = pinned.check_resumed("localhost", None).unwrap_err();
        assert!(
            crate::error::Chain(&error)
                .to_string()
                .ends_with("peer sent no certificates"),
            "{error}"
        );
    }

    #[test]
    fn under_pins_a_connection_carries_what_a_hosts_own_would_have_passed() {
        use super::super::pin::{ConnectionPins, spki_pin};
        use crate::net::PublicKeyPin;
        use crate::peer::CarriesHosts;
        let (_, leaf) = ca_and_leaf("Test CA");
        let pin = spki_pin(&leaf).unwrap();
        let set = Arc::new(
            PinSet::new(&[
                pinning("right.test", &[pin], false),
                pinning("wrong.test", &[PublicKeyPin::from_sha256([1; 32])], false),
                pinning("only.test", &[pin], true),
            ])
            .unwrap(),
        );
        let leaf = leaf.as_ref();
        // Made for a host whose chain was validated.
        let validated = ConnectionPins::new(&set, "unpinned.test").unwrap();
        assert!(validated.may_serve("other.test", leaf));
        assert!(validated.may_serve("right.test", leaf));
        assert!(!validated.may_serve("wrong.test", leaf));
        assert!(validated.may_serve("only.test", leaf));
        // Made for a pins-only host: no chain was validated.
        let pins_only = ConnectionPins::new(&set, "only.test").unwrap();
        assert!(!pins_only.may_serve("other.test", leaf));
        assert!(!pins_only.may_serve("right.test", leaf));
        assert!(pins_only.may_serve("ONLY.test", leaf));
        // Without pins, nothing to record.
        assert!(ConnectionPins::new(&Arc::new(PinSet::default()), "a.test").is_none());
    }

    #[test]
    fn alpn_follows_http2() {
        assert_eq!(alpn(true), [b"h2".to_vec(), b"http/1.1".to_vec()]);
        assert_eq!(alpn(false), [b"http/1.1".to_vec()]);
    }
}
