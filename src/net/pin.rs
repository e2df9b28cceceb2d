//! Public-key pinning: the SHA-256 digests of the keys a host's certificate may carry,
//! checked on every TLS connection to the host beside (or, opted into, instead of) the
//! validation of its chain. curl's `CURLOPT_PINNEDPUBLICKEY`, per host: what is hashed is
//! the DER `SubjectPublicKeyInfo` of the server's own certificate (the end entity, never
//! an intermediate or the root), written `sha256//` and the digest in base64, as curl and
//! HPKP (RFC 7469 §2.4) write it.
//!
//! The verifier that applies the pins is `tls::Pinned`; the coalescing of HTTP/2
//! connections asks [`ConnectionPins::may_serve`] whether a connection made for one host
//! may carry another's requests.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;
use std::sync::Arc;

use rustls::pki_types::{CertificateDer, ServerName};
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::peer::CarriesHosts;

/// The prefix of a pin's text form.
const PREFIX: &str = "sha256//";

/// A public-key pin: the SHA-256 digest of a DER-encoded `SubjectPublicKeyInfo`, the key
/// (and its algorithm) a server's certificate carries. A certificate reissued for the
/// same key has the same pin; a new key has a new one. See
/// [`HyperTransportBuilder::pin_public_keys`](super::HyperTransportBuilder::pin_public_keys).
///
/// Written as curl writes it (`CURLOPT_PINNEDPUBLICKEY`, `--pinnedpubkey`): `sha256//`
/// and the digest in base64, 44 characters with the `=` padding. `Display` writes that
/// form and [`FromStr`] reads it.
///
/// ```
/// use whatwg_fetch::net::PublicKeyPin;
///
/// let pin: PublicKeyPin = "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE=".parse()?;
/// assert_eq!(pin.sha256()[..4], [0x62, 0x12, 0x89, 0x29]);
/// assert_eq!(pin.to_string(), "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE=");
/// assert_eq!(PublicKeyPin::from_sha256(*pin.sha256()), pin);
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicKeyPin([u8; 32]);

impl PublicKeyPin {
    /// The pin of a key whose `SubjectPublicKeyInfo` has this SHA-256 digest.
    ///
    /// ```
    /// use whatwg_fetch::net::PublicKeyPin;
    ///
    /// let pin = PublicKeyPin::from_sha256([0; 32]);
    /// assert_eq!(pin.to_string(), "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    /// ```
    pub const fn from_sha256(digest: [u8; 32]) -> PublicKeyPin {
        PublicKeyPin(digest)
    }

    /// The pin of a DER-encoded `SubjectPublicKeyInfo`: what
    /// `openssl pkey -pubin -outform der` writes of a public key, or
    /// `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der` of a
    /// certificate's. Its digest, without checking that the bytes are a key.
    ///
    /// ```
    /// use whatwg_fetch::net::PublicKeyPin;
    ///
    /// # let spki_der: &[u8] = b"";
    /// let pin = PublicKeyPin::from_spki_der(spki_der);
    /// println!("{pin}"); // sha256//…
    /// ```
    pub fn from_spki_der(spki: &[u8]) -> PublicKeyPin {
        PublicKeyPin(Sha256::digest(spki).into())
    }

    /// The pin of the key a DER-encoded X.509 certificate carries: the digest of its
    /// `SubjectPublicKeyInfo`. What [`TlsInfo::peer_certificate`](crate::TlsInfo::peer_certificate)
    /// gives of a response is such a certificate, so a first connection tells the pin to
    /// configure:
    ///
    /// ```no_run
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::PublicKeyPin;
    ///
    /// # async fn run() -> whatwg_fetch::Result<()> {
    /// let response = Client::new().get("https://example.com/").send().await?;
    /// if let Some(der) = response.tls_info().and_then(|tls| tls.peer_certificate()) {
    ///     println!("{}", PublicKeyPin::from_certificate_der(der)?);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// The same as curl's `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der
    /// | openssl dgst -sha256 -binary | base64`.
    ///
    /// # Errors
    ///
    /// A [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) when `der` is not a
    /// certificate webpki can read (an X.509 v3 certificate).
    pub fn from_certificate_der(der: &[u8]) -> Result<PublicKeyPin, Error> {
        spki_pin(&CertificateDer::from(der)).map_err(|e| {
            Error::type_error(format!(
                "PublicKeyPin::from_certificate_der: not a certificate: {e}"
            ))
        })
    }

    /// The SHA-256 digest this pin holds.
    ///
    /// ```
    /// use whatwg_fetch::net::PublicKeyPin;
    ///
    /// assert_eq!(PublicKeyPin::from_sha256([7; 32]).sha256(), &[7; 32]);
    /// ```
    pub fn sha256(&self) -> &[u8; 32] {
        &self.0
    }
}

/// The pin of the key `certificate` carries, or rustls's error for a certificate it
/// cannot read.
pub(crate) fn spki_pin(certificate: &CertificateDer<'_>) -> Result<PublicKeyPin, rustls::Error> {
    let parsed = rustls::server::ParsedCertificate::try_from(certificate)?;
    Ok(PublicKeyPin::from_spki_der(
        parsed.subject_public_key_info().as_ref(),
    ))
}

impl From<[u8; 32]> for PublicKeyPin {
    fn from(digest: [u8; 32]) -> PublicKeyPin {
        PublicKeyPin(digest)
    }
}

impl fmt::Display for PublicKeyPin {
    /// `sha256//` and the digest in base64, with padding.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{PREFIX}{}",
            crate::infra::forgiving_base64_encode(&self.0)
        )
    }
}

impl fmt::Debug for PublicKeyPin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKeyPin({self})")
    }
}

impl FromStr for PublicKeyPin {
    type Err = Error;

    /// Reads `sha256//` and 32 bytes in base64 (standard alphabet; the one `=` of
    /// padding may be left out), as curl's `--pinnedpubkey` takes a pin.
    ///
    /// # Errors
    ///
    /// A [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) that quotes the input and
    /// says what is wrong and where: another prefix than `sha256//`, a character that is
    /// not base64 (and its byte offset), or a digest of another length than 32 bytes.
    ///
    /// ```
    /// use whatwg_fetch::net::PublicKeyPin;
    ///
    /// let error = "sha256//AAAA".parse::<PublicKeyPin>().unwrap_err();
    /// assert_eq!(
    ///     error.message(),
    ///     "invalid public key pin \"sha256//AAAA\": the base64 after sha256// is 3 bytes, \
    ///      not the 32 of a SHA-256 digest"
    /// );
    /// ```
    fn from_str(text: &str) -> Result<PublicKeyPin, Error> {
        let invalid =
            |why: String| Error::type_error(format!("invalid public key pin {text:?}: {why}"));
        let Some(encoded) = text.strip_prefix(PREFIX) else {
            return Err(invalid(format!(
                "it does not start with {PREFIX} (the only hash curl and this crate take)"
            )));
        };
        // Padding only at the end: `=` elsewhere is a misplaced character.
        let data = encoded.trim_end_matches('=');
        if let Some((at, c)) = data
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '+' || c == '/'))
        {
            return Err(invalid(format!(
                "{c:?} at byte {} is not base64",
                PREFIX.len() + at
            )));
        }
        if encoded.len() - data.len() > 2 {
            return Err(invalid("too much = padding".into()));
        }
        let bytes = crate::infra::forgiving_base64_decode(encoded)
            .ok_or_else(|| invalid(format!("the base64 after {PREFIX} is cut short")))?;
        let digest: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
            invalid(format!(
                "the base64 after {PREFIX} is {} bytes, not the 32 of a SHA-256 digest",
                bytes.len()
            ))
        })?;
        Ok(PublicKeyPin(digest))
    }
}

/// A server whose certificate's key is not one pinned for its host: the source of the
/// [`TlsHandshakeError`](super::TlsHandshakeError) of the connection, which is then not
/// used (no request is sent on it). Its text names the key seen and the pins expected,
/// in the `sha256//` form:
///
/// ```text
/// the server's public key sha256//n4bQgY…= is not among the pins for localhost: sha256//YhKJ…=, sha256//Ua7z…=
/// ```
///
/// Found with [`PinMismatch::find`] on a fetch's error or a transport's, or
/// [`TlsHandshakeError::pin_mismatch`](super::TlsHandshakeError::pin_mismatch).
///
/// ```no_run
/// use whatwg_fetch::Client;
/// use whatwg_fetch::net::PinMismatch;
///
/// # async fn run(pins: Vec<whatwg_fetch::net::PublicKeyPin>) {
/// let client = Client::builder().pin_public_keys("*.example.com", pins).build().unwrap();
/// if let Err(error) = client.get("https://api.example.com/").send().await {
///     if let Some(mismatch) = PinMismatch::find(&error) {
///         assert_eq!(mismatch.host(), "api.example.com");
///         assert_eq!(mismatch.pinned_for(), "*.example.com");
///         eprintln!("presented {}, pinned {:?}", mismatch.found(), mismatch.expected());
///     }
/// }
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinMismatch {
    host: Box<str>,
    pattern: Box<str>,
    expected: Arc<[PublicKeyPin]>,
    found: PublicKeyPin,
}

impl PinMismatch {
    /// The pin mismatch among `error` and its causes (its
    /// [`source`](std::error::Error::source) chain), if a connection failed for one: on
    /// a fetch's [`Error`](crate::Error), on a transport's [`NetworkError`](crate::NetworkError),
    /// on a proxy's or a handshake's error alike.
    ///
    /// ```no_run
    /// use whatwg_fetch::net::PinMismatch;
    ///
    /// # async fn run(client: whatwg_fetch::Client) {
    /// if let Err(error) = client.get("https://example.com/").send().await {
    ///     if let Some(mismatch) = PinMismatch::find(&error) {
    ///         eprintln!("{} has key {}", mismatch.host(), mismatch.found());
    ///     }
    /// }
    /// # }
    /// ```
    pub fn find<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a PinMismatch> {
        std::iter::successors(Some(error), |&error| error.source())
            .find_map(|error| error.downcast_ref::<PinMismatch>())
    }

    /// The host the connection was for, as the handshake named it (a name in lowercase,
    /// or an IP address).
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
    /// use whatwg_fetch::net::{PinMismatch, PublicKeyPin};
    ///
    /// // The server's key is not the one pinned for `localhost`.
    /// let pinned = PublicKeyPin::from_spki_der(b"another key");
    /// let client = whatwg_fetch::Client::builder()
    ///     .add_root_certificate_der(ca)
    ///     .resolve("localhost", ([127, 0, 0, 1], 0).into())
    ///     .pin_public_keys("localhost", [pinned])
    ///     .build()?;
    /// let error = client.get(&format!("https://localhost:{port}/")).send().await.unwrap_err();
    /// let mismatch = PinMismatch::find(&error).expect("refused for its key");
    /// assert_eq!(mismatch.host(), "localhost");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The host or pattern (`*.example.com`) whose pins applied, as given to
    /// [`pin_public_keys`](super::HyperTransportBuilder::pin_public_keys) (in lowercase).
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
    /// use whatwg_fetch::net::{PinMismatch, PublicKeyPin};
    ///
    /// // The server's key is not the one pinned for `localhost`.
    /// let pinned = PublicKeyPin::from_spki_der(b"another key");
    /// let client = whatwg_fetch::Client::builder()
    ///     .add_root_certificate_der(ca)
    ///     .resolve("localhost", ([127, 0, 0, 1], 0).into())
    ///     .pin_public_keys("localhost", [pinned])
    ///     .build()?;
    /// let error = client.get(&format!("https://localhost:{port}/")).send().await.unwrap_err();
    /// let mismatch = PinMismatch::find(&error).expect("refused for its key");
    /// assert_eq!(mismatch.pinned_for(), "localhost");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn pinned_for(&self) -> &str {
        &self.pattern
    }

    /// The pins the key had to match, one of them.
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
    /// use whatwg_fetch::net::{PinMismatch, PublicKeyPin};
    ///
    /// // The server's key is not the one pinned for `localhost`.
    /// let pinned = PublicKeyPin::from_spki_der(b"another key");
    /// let client = whatwg_fetch::Client::builder()
    ///     .add_root_certificate_der(ca)
    ///     .resolve("localhost", ([127, 0, 0, 1], 0).into())
    ///     .pin_public_keys("localhost", [pinned])
    ///     .build()?;
    /// let error = client.get(&format!("https://localhost:{port}/")).send().await.unwrap_err();
    /// let mismatch = PinMismatch::find(&error).expect("refused for its key");
    /// assert_eq!(mismatch.expected(), [pinned]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn expected(&self) -> &[PublicKeyPin] {
        &self.expected
    }

    /// The pin of the key the server's certificate carries.
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
    /// use whatwg_fetch::net::{PinMismatch, PublicKeyPin};
    ///
    /// // The server's key is not the one pinned for `localhost`.
    /// let pinned = PublicKeyPin::from_spki_der(b"another key");
    /// let client = whatwg_fetch::Client::builder()
    ///     .add_root_certificate_der(ca)
    ///     .resolve("localhost", ([127, 0, 0, 1], 0).into())
    ///     .pin_public_keys("localhost", [pinned])
    ///     .build()?;
    /// let error = client.get(&format!("https://localhost:{port}/")).send().await.unwrap_err();
    /// let mismatch = PinMismatch::find(&error).expect("refused for its key");
    /// // The pin to add, if the key is the one meant: the SHA-256 of the certificate's key.
    /// assert_eq!(mismatch.found(), PublicKeyPin::from_certificate_der(&cert)?);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn found(&self) -> PublicKeyPin {
        self.found
    }
}

impl fmt::Display for PinMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the server's public key {} is not among the pins for {}: ",
            self.found, self.pattern
        )?;
        for (index, pin) in self.expected.iter().enumerate() {
            if index > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{pin}")?;
        }
        Ok(())
    }
}

impl std::error::Error for PinMismatch {}

/// The pins of a host, or of the hosts a pattern covers.
#[derive(Debug)]
pub(crate) struct HostPins {
    /// The host or `*.` pattern, as written in the set (lowercase).
    pattern: Box<str>,
    pins: Arc<[PublicKeyPin]>,
    /// Whether the pins replace the validation of the chain and the name.
    pub(crate) only: bool,
}

impl HostPins {
    /// Whether the key `end_entity` carries is one of these pins: `Ok` if it is, the
    /// error the verifier reports if not (a [`PinMismatch`] inside rustls's `Other`), or
    /// if the certificate cannot be read.
    pub(crate) fn check(
        &self,
        host: &str,
        end_entity: &CertificateDer<'_>,
    ) -> Result<(), rustls::Error> {
        let found = spki_pin(end_entity)?;
        if self.pins.contains(&found) {
            return Ok(());
        }
        Err(rustls::Error::InvalidCertificate(
            rustls::CertificateError::Other(rustls::OtherError(Arc::new(PinMismatch {
                host: host.into(),
                pattern: self.pattern.clone(),
                expected: Arc::clone(&self.pins),
                found,
            }))),
        ))
    }
}

/// The [`PinMismatch`] a verifier's error carries, if it is one.
pub(crate) fn mismatch_in(error: &rustls::Error) -> Option<&PinMismatch> {
    match error {
        rustls::Error::InvalidCertificate(rustls::CertificateError::Other(other)) => {
            other.0.downcast_ref::<PinMismatch>()
        }
        _ => None,
    }
}

/// One call of `pin_public_keys` or `pin_public_keys_only`, kept by the builder until
/// `build` checks it.
#[derive(Clone, Debug)]
pub(crate) struct PinEntry {
    pub(crate) host: String,
    pub(crate) pins: Vec<PublicKeyPin>,
    pub(crate) only: bool,
}

/// Every host's pins: exact names and IP addresses, and `*.` patterns of one label.
#[derive(Debug, Default)]
pub(crate) struct PinSet {
    exact: HashMap<String, HostPins>,
    /// Keyed by what follows `*.`.
    wildcard: HashMap<String, HostPins>,
}

impl PinSet {
    /// The set of `entries`: the pins of several entries for one host add up, and the
    /// host is pins-only if any of them is.
    ///
    /// # Errors
    ///
    /// A message for a host that is neither a name, an IP address nor a `*.` pattern, or
    /// a host without a pin.
    pub(crate) fn new(entries: &[PinEntry]) -> Result<PinSet, String> {
        let mut gathered: HashMap<(String, bool), (Vec<PublicKeyPin>, bool)> = HashMap::new();
        let mut order = Vec::new();
        for entry in entries {
            let key = pattern_key(&entry.host).ok_or_else(|| {
                format!(
                    "pin_public_keys({:?}): not a host name, an IP address or a `*.` \
                     pattern of one label (`*.example.com`)",
                    entry.host
                )
            })?;
            let (pins, only) = gathered.entry(key.clone()).or_insert_with(|| {
                order.push(key.clone());
                (Vec::new(), false)
            });
            for pin in &entry.pins {
                if !pins.contains(pin) {
                    pins.push(*pin);
                }
            }
            *only |= entry.only;
        }
        let mut set = PinSet::default();
        for key in order {
            let Some((pins, only)) = gathered.remove(&key) else {
                continue;
            };
            let (name, wildcard) = key;
            if pins.is_empty() {
                let shown = if wildcard {
                    format!("*.{name}")
                } else {
                    name.clone()
                };
                return Err(format!(
                    "pin_public_keys({shown:?}): no pin given, so no connection to the host \
                     could be made"
                ));
            }
            let pattern = if wildcard {
                format!("*.{name}")
            } else {
                name.clone()
            };
            let host_pins = HostPins {
                pattern: pattern.into(),
                pins: pins.into(),
                only,
            };
            match wildcard {
                true => set.wildcard.insert(name, host_pins),
                false => set.exact.insert(name, host_pins),
            };
        }
        Ok(set)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.exact.is_empty() && self.wildcard.is_empty()
    }

    /// The pins for the host a handshake is with, and its name as a message shows it.
    pub(crate) fn for_server(&self, server_name: &ServerName<'_>) -> Option<(&HostPins, String)> {
        let host = match server_name {
            ServerName::DnsName(name) => name.as_ref().to_owned(),
            ServerName::IpAddress(ip) => IpAddr::from(*ip).to_string(),
            _ => return None,
        };
        Some((self.find(&host)?, host))
    }

    /// The pins for `host` (a name, or an IP address without brackets): its own, else
    /// those of the `*.` pattern over it.
    pub(crate) fn find(&self, host: &str) -> Option<&HostPins> {
        if self.is_empty() {
            return None;
        }
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        if let Some(pins) = self.exact.get(&host) {
            return Some(pins);
        }
        if host.parse::<IpAddr>().is_ok() {
            return None;
        }
        let (_, parent) = host.split_once('.')?;
        self.wildcard.get(parent)
    }
}

/// The form a host pattern is kept in: the name (lowercase, no final dot), or the
/// address (as `IpAddr` writes it), and whether it is a `*.` pattern over that name.
fn pattern_key(host: &str) -> Option<(String, bool)> {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let bare = host
        .strip_prefix('[')
        .and_then(|host| host.strip_suffix(']'))
        .unwrap_or(&host);
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Some((ip.to_string(), false));
    }
    let (name, wildcard) = match host.strip_prefix("*.") {
        Some(parent) => (parent, true),
        None => (host.as_str(), false),
    };
    // A DNS name as TLS takes it (an IP address after `*.` is not one).
    match ServerName::try_from(name) {
        Ok(ServerName::DnsName(_)) => Some((name.to_owned(), wildcard)),
        _ => None,
    }
}

/// What pinning asks of the HTTP/2 connections one transport makes, recorded with each
/// one's [`TlsInfo`](crate::TlsInfo): which other origins it may carry (coalescing,
/// RFC 9113 §9.1.1).
#[derive(Clone, Debug)]
pub(crate) struct ConnectionPins {
    pins: Arc<PinSet>,
    /// Whether the connection's chain was validated (its host is not pins-only).
    chain_validated: bool,
}

impl ConnectionPins {
    /// What a connection to `host` made under `pins` may carry; `None` without pins.
    pub(crate) fn new(pins: &Arc<PinSet>, host: &str) -> Option<ConnectionPins> {
        if pins.is_empty() {
            return None;
        }
        Some(ConnectionPins {
            pins: Arc::clone(pins),
            chain_validated: !pins.find(host).is_some_and(|pins| pins.only),
        })
    }
}

impl CarriesHosts for ConnectionPins {
    /// Whether the connection, whose server presented `end_entity` (and whose names
    /// cover `host`, as the caller checks), may carry requests to `host` too: what a
    /// connection of `host`'s own would have had to pass, it passed. A pinned host
    /// needs its pins to match the key; a host checked against the roots needs the
    /// connection's chain to have been validated.
    fn may_serve(&self, host: &str, end_entity: &[u8]) -> bool {
        match self.pins.find(host) {
            None => self.chain_validated,
            Some(pins) => {
                (self.chain_validated || pins.only)
                    && spki_pin(&CertificateDer::from(end_entity))
                        .is_ok_and(|found| pins.pins.contains(&found))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(host: &str, pins: &[[u8; 32]], only: bool) -> PinEntry {
        PinEntry {
            host: host.to_owned(),
            pins: pins.iter().copied().map(PublicKeyPin::from).collect(),
            only,
        }
    }

    #[test]
    fn the_text_form_round_trips() {
        for digest in [[0; 32], [0xff; 32], std::array::from_fn(|i| i as u8)] {
            let pin = PublicKeyPin::from_sha256(digest);
            let text = pin.to_string();
            assert!(text.starts_with("sha256//") && text.len() == 52, "{text}");
            assert_eq!(text.parse::<PublicKeyPin>().unwrap(), pin);
            // The padding may be left out.
            assert_eq!(text[..51].parse::<PublicKeyPin>().unwrap(), pin);
        }
    }

    #[test]
    fn bad_pins_say_what_is_wrong_and_where() {
        let message = |text: &str| {
            text.parse::<PublicKeyPin>()
                .unwrap_err()
                .message()
                .to_owned()
        };
        assert_eq!(
            message("sha1//AAAA"),
            "invalid public key pin \"sha1//AAAA\": it does not start with sha256// (the \
             only hash curl and this crate take)"
        );
        assert_eq!(
            message("sha256//AAAAAAAAAAAAAAAAAAAA!AAAAAAAAAAAAAAAAAAAAAA="),
            "invalid public key pin \"sha256//AAAAAAAAAAAAAAAAAAAA!AAAAAAAAAAAAAAAAAAAAAA=\": \
             '!' at byte 28 is not base64"
        );
        assert_eq!(
            message("sha256//AAAA=AAA"),
            "invalid public key pin \"sha256//AAAA=AAA\": '=' at byte 12 is not base64"
        );
        // 48 bytes: a SHA-384 digest.
        let sha384 = format!("sha256//{}", "A".repeat(64));
        assert_eq!(
            message(&sha384),
            format!(
                "invalid public key pin {sha384:?}: the base64 after sha256// is 48 bytes, \
                 not the 32 of a SHA-256 digest"
            )
        );
        assert!(message("sha256//A").contains("cut short"));
        assert!(message("sha256//").contains("is 0 bytes"));
        assert!(message("sha256//AAAA===").contains("too much = padding"));
    }

    #[test]
    fn hosts_match_exactly_or_by_one_wildcard_label() {
        let set = PinSet::new(&[
            entry("Example.COM.", &[[1; 32]], false),
            entry("*.example.com", &[[2; 32]], false),
            entry("exact.example.com", &[[3; 32]], true),
            entry("[::1]", &[[4; 32]], false),
            entry("127.0.0.1", &[[5; 32]], false),
        ])
        .unwrap();
        let pins = |host: &str| set.find(host).map(|pins| pins.pins.to_vec());
        assert_eq!(pins("example.com"), Some(vec![PublicKeyPin([1; 32])]));
        assert_eq!(pins("www.example.com."), Some(vec![PublicKeyPin([2; 32])]));
        assert_eq!(pins("WWW.example.com"), Some(vec![PublicKeyPin([2; 32])]));
        // An exact host's own pins, not the pattern's.
        assert_eq!(pins("exact.example.com"), Some(vec![PublicKeyPin([3; 32])]));
        assert!(set.find("exact.example.com").unwrap().only);
        // One label only.
        assert_eq!(pins("a.b.example.com"), None);
        assert_eq!(pins("example.org"), None);
        assert_eq!(pins("::1"), Some(vec![PublicKeyPin([4; 32])]));
        assert_eq!(pins("127.0.0.1"), Some(vec![PublicKeyPin([5; 32])]));
        assert_eq!(pins("127.0.0.2"), None);
    }

    #[test]
    fn pins_of_one_host_add_up() {
        let set = PinSet::new(&[
            entry("a.test", &[[1; 32]], false),
            entry("A.test", &[[2; 32], [1; 32]], true),
        ])
        .unwrap();
        let pins = set.find("a.test").unwrap();
        assert_eq!(*pins.pins, [PublicKeyPin([1; 32]), PublicKeyPin([2; 32])]);
        assert!(pins.only);
    }

    #[test]
    fn bad_hosts_and_empty_pin_lists_are_refused() {
        for host in ["", "a b", "*", "*.", "a.*.test", "**.test", "*.127.0.0.1"] {
            let error = PinSet::new(&[entry(host, &[[1; 32]], false)]).unwrap_err();
            assert!(error.contains("not a host name"), "{host}: {error}");
        }
        let error = PinSet::new(&[entry("a.test", &[], false)]).unwrap_err();
        assert_eq!(
            error,
            "pin_public_keys(\"a.test\"): no pin given, so no connection to the host could \
             be made"
        );
    }

    #[test]
    fn a_certificate_that_cannot_be_read_is_an_error() {
        let error = PublicKeyPin::from_certificate_der(b"not DER").unwrap_err();
        assert!(
            error
                .message()
                .starts_with("PublicKeyPin::from_certificate_der: not a certificate"),
            "{error}"
        );
    }
}
