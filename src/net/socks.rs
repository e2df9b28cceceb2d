//! The client's half of a SOCKS5 handshake ([RFC 1928]), with username/password
//! authentication ([RFC 1929]): what opens a tunnel to a target through a `socks5:` or
//! `socks5h:` proxy. After it, the stream carries the target's bytes: HTTP/1.1 in
//! origin-form, or TLS to the target.
//!
//! Only the `CONNECT` command is used; there is no GSSAPI (RFC 1928 §3 makes it a
//! "MUST" for compliant implementations, but curl, Chrome and Firefox do without, as
//! here). Every field the proxy sends has a size fixed by the RFC or given by a one-byte
//! length, read with exact reads into a fixed buffer: nothing past the proxy's reply is
//! read, and no reply can make the client read more than 262 bytes.
//!
//! [RFC 1928]: https://www.rfc-editor.org/rfc/rfc1928
//! [RFC 1929]: https://www.rfc-editor.org/rfc/rfc1929

use std::fmt;
use std::io;
use std::net::IpAddr;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::proxy::{Proxy, ProxyFailed};
use crate::error::NetworkError;

/// The protocol version, the first byte of each SOCKS5 message (RFC 1928 §3).
const VERSION: u8 = 0x05;
/// RFC 1928 §3: "X'00' NO AUTHENTICATION REQUIRED".
const NO_AUTHENTICATION: u8 = 0x00;
/// RFC 1928 §3: "X'02' USERNAME/PASSWORD".
const USERNAME_PASSWORD: u8 = 0x02;
/// RFC 1928 §3: "X'FF' NO ACCEPTABLE METHODS".
const NO_ACCEPTABLE_METHODS: u8 = 0xFF;
/// RFC 1929 §2: "The VER field contains the current version of the subnegotiation,
/// which is X'01'."
const AUTH_VERSION: u8 = 0x01;
/// RFC 1928 §4: "CONNECT X'01'".
const CONNECT: u8 = 0x01;
/// RFC 1928 §5: the address types.
const ATYP_IPV4: u8 = 0x01;
const ATYP_DOMAIN: u8 = 0x03;
const ATYP_IPV6: u8 = 0x04;

/// What the proxy is asked to connect to.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target<'a> {
    /// An address: `socks5:` (the client resolved the name) or a literal in the URL.
    Ip(IpAddr),
    /// A name for the proxy to resolve: `socks5h:`.
    Name(&'a str),
}

/// Opens a tunnel through the SOCKS5 proxy at the other end of `stream` to `target` on
/// `port`. `shown` is the target as messages name it (`example.com:443`).
///
/// # Errors
///
/// A [`NetworkError::Connect`] whose source is a [`SocksRefused`] when the proxy wants
/// credentials it was not given, rejects them, or refuses the connection;
/// [`NetworkError::Protocol`] when it answers other than as RFC 1928 says or closes the
/// connection in the middle.
pub(crate) async fn handshake<S>(
    stream: &mut S,
    proxy: &Proxy,
    target: Target<'_>,
    port: u16,
    shown: &str,
) -> Result<(), NetworkError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut socks = Handshake { stream, proxy };

    // RFC 1928 §3: "The client connects to the server, and sends a version
    // identifier/method selection message: VER | NMETHODS | METHODS".
    let credentials = proxy.credentials.as_deref();
    let greeting: &[u8] = match credentials {
        Some(_) => &[VERSION, 2, NO_AUTHENTICATION, USERNAME_PASSWORD],
        None => &[VERSION, 1, NO_AUTHENTICATION],
    };
    socks.write(greeting).await?;
    // "The server selects from one of the methods given in METHODS, and sends a METHOD
    // selection message: VER | METHOD".
    let mut reply = [0u8; 2];
    socks.read(&mut reply).await?;
    let [version, method] = reply;
    socks.check_version(version)?;
    match method {
        NO_AUTHENTICATION => {}
        USERNAME_PASSWORD if credentials.is_some() => socks.authenticate().await?,
        // "If the selected METHOD is X'FF', none of the methods listed by the client
        // are acceptable, and the client MUST close the connection."
        NO_ACCEPTABLE_METHODS => {
            return Err(socks.refused(shown, SocksRefusal::NoAcceptableMethod));
        }
        other => {
            return Err(socks.protocol(format!(
                "chose authentication method {other:#04x}, which was not offered"
            )));
        }
    }

    // RFC 1928 §4: "VER | CMD | RSV | ATYP | DST.ADDR | DST.PORT", with RSV X'00'.
    let mut request = Vec::with_capacity(262);
    request.extend_from_slice(&[VERSION, CONNECT, 0x00]);
    match target {
        Target::Ip(IpAddr::V4(ip)) => {
            request.push(ATYP_IPV4);
            request.extend_from_slice(&ip.octets());
        }
        Target::Ip(IpAddr::V6(ip)) => {
            request.push(ATYP_IPV6);
            request.extend_from_slice(&ip.octets());
        }
        Target::Name(name) => {
            // RFC 1928 §5: "the first octet of the address field contains the number of
            // octets of name that follow, there is no terminating NUL octet."
            let length = u8::try_from(name.len())
                .ok()
                .filter(|&length| length > 0)
                .ok_or_else(|| {
                    NetworkError::Other(
                        format!(
                            "host name of {} bytes cannot be sent to a SOCKS5 proxy, \
                             which takes 1 to 255",
                            name.len()
                        )
                        .into(),
                    )
                })?;
            request.push(ATYP_DOMAIN);
            request.push(length);
            request.extend_from_slice(name.as_bytes());
        }
    }
    request.extend_from_slice(&port.to_be_bytes());
    socks.write(&request).await?;

    // RFC 1928 §6: "VER | REP | RSV | ATYP | BND.ADDR | BND.PORT".
    let mut head = [0u8; 4];
    socks.read(&mut head).await?;
    let [version, reply, _reserved, address_type] = head;
    socks.check_version(version)?;
    if reply != 0x00 {
        // "When a reply (REP value other than X'00') indicates a failure, the SOCKS
        // server MUST terminate the TCP connection shortly after sending the reply."
        return Err(socks.refused(shown, SocksRefusal::Reply(reply)));
    }
    // The address the proxy bound, unused here but to be read past: after it comes
    // the target's data.
    let address_length = match address_type {
        ATYP_IPV4 => 4,
        ATYP_IPV6 => 16,
        ATYP_DOMAIN => {
            let mut length = [0u8; 1];
            socks.read(&mut length).await?;
            let [length] = length;
            usize::from(length)
        }
        other => {
            return Err(socks.protocol(format!("answered with unknown address type {other:#04x}")));
        }
    };
    // At most 255 bytes of address and 2 of port.
    let mut bound = [0u8; 257];
    let bound = bound
        .get_mut(..address_length + 2)
        .ok_or_else(|| socks.protocol("answered with an address too long".to_owned()))?;
    socks.read(bound).await?;
    Ok(())
}

/// A handshake in progress: the stream and the proxy its messages name.
struct Handshake<'a, S> {
    stream: &'a mut S,
    proxy: &'a Proxy,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Handshake<'_, S> {
    /// RFC 1929 §2: "VER | ULEN | UNAME | PLEN | PASSWD", answered by "VER | STATUS".
    async fn authenticate(&mut self) -> Result<(), NetworkError> {
        let Some(credentials) = self.proxy.credentials.as_deref() else {
            return Err(self.protocol("asked for credentials that were not offered".to_owned()));
        };
        let (username, password) = (&credentials.username, &credentials.password);
        let too_long = |what: &str| {
            NetworkError::Other(
                format!(
                    "the SOCKS5 {what} for proxy {} is longer than the 255 bytes RFC 1929 \
                     allows",
                    self.proxy.authority
                )
                .into(),
            )
        };
        let username_length = u8::try_from(username.len()).map_err(|_| too_long("username"))?;
        let password_length = u8::try_from(password.len()).map_err(|_| too_long("password"))?;
        let mut message = Vec::with_capacity(3 + username.len() + password.len());
        message.extend_from_slice(&[AUTH_VERSION, username_length]);
        message.extend_from_slice(username);
        message.push(password_length);
        message.extend_from_slice(password);
        self.write(&message).await?;
        let mut reply = [0u8; 2];
        self.read(&mut reply).await?;
        let [version, status] = reply;
        if version != AUTH_VERSION {
            return Err(self.protocol(format!(
                "answered username/password authentication with version {version}, not 1"
            )));
        }
        // "A STATUS field of X'00' indicates success. If the server returns a `failure'
        // (STATUS value other than X'00') status, it MUST close the connection."
        if status != 0x00 {
            return Err(self.refused("", SocksRefusal::AuthenticationFailed));
        }
        Ok(())
    }

    async fn write(&mut self, bytes: &[u8]) -> Result<(), NetworkError> {
        let result = self.stream.write_all(bytes).await;
        result.map_err(|e| self.io_error(e))
    }

    /// Reads exactly `buf.len()` bytes.
    async fn read(&mut self, buf: &mut [u8]) -> Result<(), NetworkError> {
        let result = self.stream.read_exact(buf).await;
        result.map(|_| ()).map_err(|e| self.io_error(e))
    }

    fn check_version(&self, version: u8) -> Result<(), NetworkError> {
        if version == VERSION {
            return Ok(());
        }
        Err(self.protocol(format!(
            "answered with version {version}, not 5: is it a SOCKS5 proxy?"
        )))
    }

    fn io_error(&self, error: io::Error) -> NetworkError {
        if error.kind() == io::ErrorKind::UnexpectedEof {
            return self.protocol("closed the connection in the middle of the handshake".into());
        }
        NetworkError::Connect(Box::new(ProxyFailed::new(
            format!(
                "SOCKS5 handshake with proxy {} failed",
                self.proxy.authority
            ),
            Box::new(error),
        )))
    }

    fn protocol(&self, what: String) -> NetworkError {
        NetworkError::Protocol(format!("SOCKS5 proxy {} {what}", self.proxy.authority).into())
    }

    fn refused(&self, target: &str, reason: SocksRefusal) -> NetworkError {
        NetworkError::Connect(Box::new(SocksRefused {
            proxy: self.proxy.url(),
            target: target.to_owned(),
            reason,
            offered_credentials: self.proxy.credentials.is_some(),
        }))
    }
}

/// A SOCKS5 proxy's refusal: the source of the
/// [`NetworkError::Connect`](crate::NetworkError::Connect) a request through it fails
/// with. It says why ([`SocksRefused::reason`]): the proxy wanted credentials, rejected
/// them, or refused to connect to the target with an RFC 1928 reply code.
///
/// ```
/// # fn check(error: &whatwg_fetch::Error) -> Option<u8> {
/// use std::error::Error as _;
/// use whatwg_fetch::net::{SocksRefusal, SocksRefused};
///
/// let refused = error.network_error()?.source()?.downcast_ref::<SocksRefused>()?;
/// match refused.reason() {
///     // 5: "Connection refused" (RFC 1928 §6).
///     SocksRefusal::Reply(code) => Some(code),
///     _ => None,
/// }
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct SocksRefused {
    /// The proxy's URL, without credentials.
    proxy: String,
    /// `host:port`, or empty when the refusal came before the target was named.
    target: String,
    reason: SocksRefusal,
    offered_credentials: bool,
}

/// Why a SOCKS5 proxy refused: see [`SocksRefused`].
///
/// ```
/// use whatwg_fetch::net::SocksRefusal;
///
/// // Reply code 2 of RFC 1928: "connection not allowed by ruleset".
/// let refusal = SocksRefusal::Reply(2);
/// assert_ne!(refusal, SocksRefusal::AuthenticationFailed);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SocksRefusal {
    /// The proxy accepts none of the authentication methods offered ("NO ACCEPTABLE
    /// METHODS", RFC 1928 §3): it wants a username and password none were given for, or
    /// a method this client does not speak (GSSAPI).
    NoAcceptableMethod,
    /// The proxy rejected the username and password (RFC 1929 §2).
    AuthenticationFailed,
    /// The proxy answered the `CONNECT` request with this reply code (RFC 1928 §6):
    /// 1 general failure, 2 not allowed by its rules, 3 network unreachable, 4 host
    /// unreachable, 5 connection refused, 6 TTL expired, 7 command not supported,
    /// 8 address type not supported.
    Reply(u8),
}

impl SocksRefused {
    /// Why the proxy refused.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     // A SOCKS5 proxy that takes no method the client offers.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 64]).await;
    /// #     let _ = stream.write_all(&[5, 0xFF]).await;
    /// # });
    /// use whatwg_fetch::net::{Proxy, SocksRefusal, SocksRefused};
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// let client = Client::builder().proxy(Proxy::all(&format!("socks5h://{addr}"))?).build()?;
    /// let error = client.get("http://example.com/").send().await.unwrap_err();
    /// let Some(NetworkError::Connect(cause)) = error.network_error() else {
    ///     panic!("not a connect error: {error:?}");
    /// };
    /// let refused = cause.downcast_ref::<SocksRefused>().expect("the proxy's refusal");
    /// assert_eq!(refused.reason(), SocksRefusal::NoAcceptableMethod);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn reason(&self) -> SocksRefusal {
        self.reason
    }

    /// The proxy's URL, without credentials (as [`Proxy::url`]).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     // A SOCKS5 proxy that takes no method the client offers.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 64]).await;
    /// #     let _ = stream.write_all(&[5, 0xFF]).await;
    /// # });
    /// use whatwg_fetch::net::{Proxy, SocksRefusal, SocksRefused};
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// let client = Client::builder().proxy(Proxy::all(&format!("socks5h://{addr}"))?).build()?;
    /// let error = client.get("http://example.com/").send().await.unwrap_err();
    /// let Some(NetworkError::Connect(cause)) = error.network_error() else {
    ///     panic!("not a connect error: {error:?}");
    /// };
    /// let refused = cause.downcast_ref::<SocksRefused>().expect("the proxy's refusal");
    /// assert_eq!(refused.proxy(), format!("socks5h://{addr}"));
    /// # let _ = SocksRefusal::AuthenticationFailed;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn proxy(&self) -> &str {
        &self.proxy
    }
}

/// The text of an RFC 1928 §6 reply code.
fn reply_text(code: u8) -> &'static str {
    match code {
        0x01 => "general SOCKS server failure",
        0x02 => "connection not allowed by ruleset",
        0x03 => "network unreachable",
        0x04 => "host unreachable",
        0x05 => "connection refused",
        0x06 => "TTL expired",
        0x07 => "command not supported",
        0x08 => "address type not supported",
        _ => "unassigned reply code",
    }
}

impl fmt::Display for SocksRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let proxy = self
            .proxy
            .split_once("://")
            .map_or(self.proxy.as_str(), |(_, authority)| authority);
        match self.reason {
            SocksRefusal::NoAcceptableMethod => {
                write!(
                    f,
                    "SOCKS5 proxy {proxy} accepts none of the authentication methods offered"
                )?;
                if self.offered_credentials {
                    f.write_str(" (no authentication, username/password)")
                } else {
                    f.write_str(
                        " (no authentication): it may want a username and password; give \
                         them in the proxy URL",
                    )
                }
            }
            SocksRefusal::AuthenticationFailed => write!(
                f,
                "SOCKS5 proxy {proxy} rejected the username and password (authentication failed)"
            ),
            SocksRefusal::Reply(code) => write!(
                f,
                "SOCKS5 proxy {proxy} refused the connection to {}: {} (reply {code})",
                self.target,
                reply_text(code)
            ),
        }
    }
}

impl std::error::Error for SocksRefused {}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, duplex};

    use super::*;

    /// Bounds a test in time.
    async fn bounded<T>(future: impl std::future::Future<Output = T>) -> T {
        tokio::time::timeout(std::time::Duration::from_secs(10), future)
            .await
            .expect("the test took more than 10 seconds")
    }

    /// Runs the handshake against `script`, which plays the proxy on the other end.
    /// Returns the result, the client's end of the stream, and the script's task.
    async fn run<F, Fut>(
        proxy: &str,
        target: Target<'static>,
        script: F,
    ) -> (
        Result<(), NetworkError>,
        DuplexStream,
        tokio::task::JoinHandle<()>,
    )
    where
        F: FnOnce(DuplexStream) -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let proxy = Proxy::all(proxy).unwrap();
        let (mut client, server) = duplex(1024);
        let task = tokio::spawn(script(server));
        let result = bounded(handshake(
            &mut client,
            &proxy,
            target,
            443,
            "example.com:443",
        ))
        .await;
        (result, client, task)
    }

    /// [`run`], with the client's end closed once the handshake is over.
    async fn against<F, Fut>(
        proxy: &str,
        target: Target<'static>,
        script: F,
    ) -> Result<(), NetworkError>
    where
        F: FnOnce(DuplexStream) -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let (result, client, task) = run(proxy, target, script).await;
        drop(client);
        bounded(task).await.unwrap();
        result
    }

    async fn expect(server: &mut DuplexStream, bytes: &[u8]) {
        let mut got = vec![0u8; bytes.len()];
        server.read_exact(&mut got).await.unwrap();
        assert_eq!(got, bytes);
    }

    fn refusal(result: Result<(), NetworkError>) -> (SocksRefusal, String) {
        match result {
            Err(NetworkError::Connect(source)) => {
                let refused = source.downcast_ref::<SocksRefused>().unwrap();
                (refused.reason(), refused.to_string())
            }
            other => panic!("not a refusal: {other:?}"),
        }
    }

    fn protocol_message(result: Result<(), NetworkError>) -> String {
        match result {
            Err(NetworkError::Protocol(source)) => source.to_string(),
            other => panic!("not a protocol error: {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_name_goes_as_atyp_3_and_a_domain_reply_is_read_to_its_end() {
        let script = |mut s: DuplexStream| async move {
            expect(&mut s, &[5, 1, 0]).await;
            s.write_all(&[5, 0]).await.unwrap();
            let mut request = vec![5, 1, 0, 3, 11];
            request.extend_from_slice(b"example.com");
            request.extend_from_slice(&443u16.to_be_bytes());
            expect(&mut s, &request).await;
            // The bound address as a name, then the target's first byte, which the
            // handshake must leave unread.
            s.write_all(&[5, 0, 0, 3, 4, b'h', b'o', b's', b't', 0, 80, b'!'])
                .await
                .unwrap();
        };
        let (result, mut client, task) =
            run("socks5h://p:1080", Target::Name("example.com"), script).await;
        bounded(task).await.unwrap();
        assert!(result.is_ok(), "{result:?}");
        let mut first = [0u8; 1];
        bounded(client.read_exact(&mut first)).await.unwrap();
        assert_eq!(&first, b"!");
    }

    #[tokio::test]
    async fn addresses_go_as_atyp_1_and_4() {
        let v6: IpAddr = "2001:db8::1".parse().unwrap();
        let result = against("socks5://p", Target::Ip(v6), move |mut s| async move {
            expect(&mut s, &[5, 1, 0]).await;
            s.write_all(&[5, 0]).await.unwrap();
            let mut request = vec![5, 1, 0, 4];
            request.extend_from_slice(
                &"2001:db8::1"
                    .parse::<std::net::Ipv6Addr>()
                    .unwrap()
                    .octets(),
            );
            request.extend_from_slice(&[1, 187]);
            expect(&mut s, &request).await;
            let mut reply = vec![5, 0, 0, 4];
            reply.extend_from_slice(&[0; 18]);
            s.write_all(&reply).await.unwrap();
        })
        .await;
        assert!(result.is_ok(), "{result:?}");
        let v4 = Target::Ip("10.1.2.3".parse().unwrap());
        let result = against("socks5://p", v4, |mut s| async move {
            expect(&mut s, &[5, 1, 0]).await;
            s.write_all(&[5, 0]).await.unwrap();
            expect(&mut s, &[5, 1, 0, 1, 10, 1, 2, 3, 1, 187]).await;
            s.write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]).await.unwrap();
        })
        .await;
        assert!(result.is_ok(), "{result:?}");
    }

    #[tokio::test]
    async fn credentials_are_offered_and_sent_as_rfc_1929_says() {
        let proxy = "socks5h://us%65r:p%40ss@p";
        let result = against(proxy, Target::Name("a.test"), |mut s| async move {
            expect(&mut s, &[5, 2, 0, 2]).await;
            s.write_all(&[5, 2]).await.unwrap();
            expect(&mut s, b"\x01\x04user\x04p@ss").await;
            s.write_all(&[1, 0]).await.unwrap();
            expect(&mut s, b"\x05\x01\x00\x03\x06a.test\x01\xbb").await;
            s.write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]).await.unwrap();
        })
        .await;
        assert!(result.is_ok(), "{result:?}");
    }

    #[tokio::test]
    async fn rejected_credentials_are_an_authentication_failure() {
        let result = against(
            "socks5h://u:p@p",
            Target::Name("a.test"),
            |mut s| async move {
                expect(&mut s, &[5, 2, 0, 2]).await;
                s.write_all(&[5, 2]).await.unwrap();
                expect(&mut s, b"\x01\x01u\x01p").await;
                s.write_all(&[1, 1]).await.unwrap();
            },
        )
        .await;
        let (reason, message) = refusal(result);
        assert_eq!(reason, SocksRefusal::AuthenticationFailed);
        assert!(
            message.contains("p:1080") && message.contains("username"),
            "{message}"
        );
    }

    #[tokio::test]
    async fn no_acceptable_method_says_credentials_may_be_wanted() {
        let result = against("socks5h://p", Target::Name("a.test"), |mut s| async move {
            expect(&mut s, &[5, 1, 0]).await;
            s.write_all(&[5, 0xFF]).await.unwrap();
        })
        .await;
        let (reason, message) = refusal(result);
        assert_eq!(reason, SocksRefusal::NoAcceptableMethod);
        assert!(message.contains("username and password"), "{message}");
    }

    #[tokio::test]
    async fn reply_codes_become_refusals_with_their_text() {
        for (code, text) in [
            (1, "general SOCKS server failure"),
            (5, "connection refused"),
            (0x7f, "unassigned"),
        ] {
            let result = against(
                "socks5h://127.0.0.1:1080",
                Target::Name("example.com"),
                move |mut s| async move {
                    expect(&mut s, &[5, 1, 0]).await;
                    s.write_all(&[5, 0]).await.unwrap();
                    let mut request = [0u8; 18];
                    s.read_exact(&mut request).await.unwrap();
                    s.write_all(&[5, code, 0, 1]).await.unwrap();
                },
            )
            .await;
            let (reason, message) = refusal(result);
            assert_eq!(reason, SocksRefusal::Reply(code));
            assert!(message.contains(text), "{message}");
            if code == 5 {
                assert_eq!(
                    message,
                    "SOCKS5 proxy 127.0.0.1:1080 refused the connection to example.com:443: \
                     connection refused (reply 5)"
                );
            }
        }
    }

    #[tokio::test]
    async fn malformed_answers_are_protocol_errors() {
        // Not SOCKS5 at all: an HTTP server's answer.
        let message = protocol_message(
            against("socks5://p", Target::Name("a.test"), |mut s| async move {
                expect(&mut s, &[5, 1, 0]).await;
                s.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n")
                    .await
                    .unwrap();
            })
            .await,
        );
        assert!(message.contains("version 72"), "{message}");
        // A method that was not offered.
        let message = protocol_message(
            against("socks5://p", Target::Name("a.test"), |mut s| async move {
                expect(&mut s, &[5, 1, 0]).await;
                s.write_all(&[5, 2]).await.unwrap();
            })
            .await,
        );
        assert!(message.contains("not offered"), "{message}");
        // A reply of another version, then an unknown address type.
        for reply in [[4u8, 0, 0, 1], [5, 0, 0, 9]] {
            let result = against(
                "socks5h://p",
                Target::Name("a.test"),
                move |mut s| async move {
                    expect(&mut s, &[5, 1, 0]).await;
                    s.write_all(&[5, 0]).await.unwrap();
                    let mut request = [0u8; 13];
                    s.read_exact(&mut request).await.unwrap();
                    s.write_all(&reply).await.unwrap();
                },
            )
            .await;
            let message = protocol_message(result);
            assert!(message.starts_with("SOCKS5 proxy p:1080 "), "{message}");
        }
        // A reply cut short, in the bound address.
        let message = protocol_message(
            against("socks5h://p", Target::Name("a.test"), |mut s| async move {
                expect(&mut s, &[5, 1, 0]).await;
                s.write_all(&[5, 0]).await.unwrap();
                let mut request = [0u8; 13];
                s.read_exact(&mut request).await.unwrap();
                s.write_all(&[5, 0, 0, 3, 200, b'x']).await.unwrap();
            })
            .await,
        );
        assert!(message.contains("closed the connection"), "{message}");
        // A wrong sub-negotiation version.
        let message = protocol_message(
            against(
                "socks5h://u:p@p",
                Target::Name("a.test"),
                |mut s| async move {
                    expect(&mut s, &[5, 2, 0, 2]).await;
                    s.write_all(&[5, 2]).await.unwrap();
                    expect(&mut s, b"\x01\x01u\x01p").await;
                    s.write_all(&[5, 0]).await.unwrap();
                },
            )
            .await,
        );
        assert!(message.contains("version 5, not 1"), "{message}");
    }

    #[tokio::test]
    async fn names_longer_than_255_bytes_are_not_sent() {
        let long: &'static str = Box::leak("a".repeat(256).into_boxed_str());
        let result = against("socks5h://p", Target::Name(long), |mut s| async move {
            expect(&mut s, &[5, 1, 0]).await;
            s.write_all(&[5, 0]).await.unwrap();
            let mut rest = Vec::new();
            let _ = s.read_to_end(&mut rest).await;
            assert!(rest.is_empty(), "a request went out");
        })
        .await;
        assert!(matches!(result, Err(NetworkError::Other(_))), "{result:?}");
        let long_password = "p".repeat(256);
        let proxy = Proxy::all("socks5h://p")
            .unwrap()
            .basic_auth("u", &long_password);
        let (mut client, mut server) = duplex(1024);
        let task = tokio::spawn(async move {
            expect(&mut server, &[5, 2, 0, 2]).await;
            server.write_all(&[5, 2]).await.unwrap();
            let mut rest = Vec::new();
            let _ = server.read_to_end(&mut rest).await;
            assert!(rest.is_empty(), "credentials went out");
        });
        let result = bounded(handshake(
            &mut client,
            &proxy,
            Target::Name("a.test"),
            1,
            "a.test:1",
        ))
        .await;
        drop(client);
        bounded(task).await.unwrap();
        let error = result.unwrap_err();
        assert!(error.to_string().contains("255"), "{error}");
        assert!(matches!(error, NetworkError::Other(_)), "{error:?}");
    }
}
