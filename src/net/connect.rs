//! Making a connection: resolve the host, connect TCP (to the origin, or to a proxy and
//! through a `CONNECT` tunnel), handshake TLS, and start the HTTP/1.1 or HTTP/2
//! connection task.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use hyper::client::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls_pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use super::body::RequestBody;
use super::io::{HeadAtEof, HeadWatch, Http1};
use super::pool::Key;
use super::proxy::{Proxy, ProxyRefused};
use super::tls::TlsSetup;
use crate::error::{NetworkError, TimeoutKind};

/// A caller's resolver: addresses for a lowercase host name, or `None` to ask DNS.
pub(crate) type ResolveFn = Arc<dyn Fn(&str) -> Option<Vec<SocketAddr>> + Send + Sync>;

/// A connection's request handle, by the protocol it speaks.
pub(crate) enum Connected {
    H1(Http1),
    H2(http2::SendRequest<RequestBody>),
}

/// Everything needed to open a connection; built once per transport.
pub(crate) struct Connector {
    /// Host names (lowercase) mapped to addresses; port 0 means the URL's port.
    pub(crate) overrides: HashMap<String, Vec<SocketAddr>>,
    /// Consulted after `overrides`, before DNS.
    pub(crate) resolve_fn: Option<ResolveFn>,
    pub(crate) tls: TlsSetup,
    pub(crate) h1: http1::Builder,
    pub(crate) h2: http2::Builder<TokioExecutor>,
    pub(crate) http2_prior_knowledge: bool,
    pub(crate) connect_timeout: Option<Duration>,
    /// The proxies, in the order given; a [`Key`]'s `proxy` indexes this list.
    pub(crate) proxies: Box<[Proxy]>,
}

impl Connector {
    /// Opens a new connection to `key`'s origin within the connect timeout.
    pub(crate) async fn connect(&self, key: &Key) -> Result<Connected, NetworkError> {
        match self.connect_timeout {
            Some(timeout) => tokio::time::timeout(timeout, self.connect_now(key))
                .await
                .map_err(|_| NetworkError::Timeout(TimeoutKind::Connect))?,
            None => self.connect_now(key).await,
        }
    }

    /// The index of the first proxy that carries requests to `key`'s origin.
    pub(crate) fn proxy_for(&self, key: &Key) -> Option<usize> {
        let host = key.authority.host();
        self.proxies
            .iter()
            .position(|proxy| proxy.intercepts_host(key.https, host))
    }

    /// The proxy `key` goes through, if any.
    pub(crate) fn proxy(&self, key: &Key) -> Option<&Proxy> {
        key.proxy.and_then(|index| self.proxies.get(index))
    }

    async fn connect_now(&self, key: &Key) -> Result<Connected, NetworkError> {
        let host = bare_host(key.authority.host());
        let port = key
            .authority
            .port_u16()
            .unwrap_or(if key.https { 443 } else { 80 });
        if let Some(index) = key.proxy {
            let proxy = self.proxies.get(index).ok_or(NetworkError::Other(
                "connection key names a proxy the transport does not have".into(),
            ))?;
            return self.connect_via_proxy(proxy, key, host, port).await;
        }
        let addrs = self.resolve(host, port).await?;
        let tcp = connect_tcp(&addrs).await?;
        if key.https {
            self.handshake_tls(tcp, host).await
        } else if self.http2_prior_knowledge {
            self.handshake_h2(tcp).await
        } else {
            self.handshake_h1(tcp).await
        }
    }

    /// A connection through `proxy`: to the proxy itself for an `http:` origin (the
    /// requests then go in absolute-form), or through a `CONNECT` tunnel to an `https:`
    /// one, with TLS to the origin inside it.
    async fn connect_via_proxy(
        &self,
        proxy: &Proxy,
        key: &Key,
        host: &str,
        port: u16,
    ) -> Result<Connected, NetworkError> {
        let proxy_host = bare_host(proxy.authority.host());
        let proxy_port = proxy.authority.port_u16().unwrap_or(80);
        let addrs = self.resolve(proxy_host, proxy_port).await?;
        let mut tcp = connect_tcp(&addrs).await?;
        if !key.https {
            return self.handshake_h1(tcp).await;
        }
        connect_tunnel(&mut tcp, key, port, proxy).await?;
        self.handshake_tls(tcp, host).await
    }

    /// TLS to `host` over `io`, then HTTP/2 or HTTP/1.1 as ALPN picked. A failure is a
    /// [`NetworkError::Tls`] whose source, a `TlsHandshakeError`, names the host and the
    /// reason.
    async fn handshake_tls<T>(&self, io: T, host: &str) -> Result<Connected, NetworkError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let server_name = ServerName::try_from(host.to_owned())
            .map_err(|e| TlsSetup::server_name_error(host, e))?;
        let tls = tokio_rustls::TlsConnector::from(Arc::clone(&self.tls.config))
            .connect(server_name, io)
            .await
            .map_err(|e| self.tls.handshake_error(host, e))?;
        let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2".as_slice());
        if h2 {
            self.handshake_h2(tls).await
        } else {
            self.handshake_h1(tls).await
        }
    }

    /// The addresses of `host`: a literal IP address as is, an override if there is
    /// one, else the system resolver's answer.
    async fn resolve(&self, host: &str, port: u16) -> Result<Vec<SocketAddr>, NetworkError> {
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Ok(vec![SocketAddr::new(ip, port)]);
        }
        let lower;
        let name = if host.bytes().any(|b| b.is_ascii_uppercase()) {
            lower = host.to_ascii_lowercase();
            lower.as_str()
        } else {
            host
        };
        let with_port = |addr: &SocketAddr| match addr.port() {
            0 => SocketAddr::new(addr.ip(), port),
            _ => *addr,
        };
        if let Some(addrs) = self.overrides.get(name) {
            return Ok(addrs.iter().map(with_port).collect());
        }
        if let Some(addrs) = self.resolve_fn.as_ref().and_then(|f| f(name)) {
            return Ok(addrs.iter().map(with_port).collect());
        }
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((name, port))
            .await
            .map_err(|e| NetworkError::Dns(Box::new(e)))?
            .collect();
        if addrs.is_empty() {
            return Err(NetworkError::Dns(Box::new(io::Error::new(
                io::ErrorKind::NotFound,
                "no addresses",
            ))));
        }
        Ok(addrs)
    }

    async fn handshake_h1<T>(&self, io: T) -> Result<Connected, NetworkError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let watch = Arc::new(HeadWatch::default());
        let io = HeadAtEof::new(io, Arc::clone(&watch));
        let (tx, conn) = self
            .h1
            .handshake(TokioIo::new(io))
            .await
            .map_err(|e| NetworkError::Protocol(Box::new(e)))?;
        // The connection's one task: it ends when the connection closes or when every
        // handle to it is dropped.
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(Connected::H1(Http1::new(tx, watch)))
    }

    async fn handshake_h2<T>(&self, io: T) -> Result<Connected, NetworkError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, conn) = self
            .h2
            .handshake(TokioIo::new(io))
            .await
            .map_err(|e| NetworkError::Protocol(Box::new(e)))?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(Connected::H2(tx))
    }
}

/// The longest `CONNECT` response head read from a proxy.
const MAX_CONNECT_HEAD: usize = 16 * 1024;

/// Asks the proxy at the other end of `tcp` for a tunnel to `key`'s origin
/// ([RFC 9110 §9.3.6](https://httpwg.org/specs/rfc9110.html#CONNECT)): any 2xx answer
/// opens it, anything else is refused.
async fn connect_tunnel<T>(
    tcp: &mut T,
    key: &Key,
    port: u16,
    proxy: &Proxy,
) -> Result<(), NetworkError>
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    // The authority-form target: host and port, never userinfo. An IPv6 host keeps
    // its brackets.
    let target = format!("{}:{port}", key.authority.host());
    let mut head = Vec::with_capacity(128);
    head.extend_from_slice(b"CONNECT ");
    head.extend_from_slice(target.as_bytes());
    head.extend_from_slice(b" HTTP/1.1\r\nHost: ");
    head.extend_from_slice(target.as_bytes());
    head.extend_from_slice(b"\r\n");
    if let Some(authorization) = &proxy.authorization {
        head.extend_from_slice(b"Proxy-Authorization: ");
        head.extend_from_slice(authorization.as_bytes());
        head.extend_from_slice(b"\r\n");
    }
    head.extend_from_slice(b"\r\n");
    tcp.write_all(&head)
        .await
        .map_err(|e| NetworkError::Connect(Box::new(e)))?;

    let mut buf = Vec::with_capacity(512);
    let end = loop {
        let mut chunk = [0u8; 512];
        let read = tcp
            .read(&mut chunk)
            .await
            .map_err(|e| NetworkError::Connect(Box::new(e)))?;
        if read == 0 {
            return Err(NetworkError::Protocol(
                format!("proxy closed the connection before answering CONNECT {target}").into(),
            ));
        }
        buf.extend_from_slice(chunk.get(..read).unwrap_or_default());
        if let Some(end) = memchr::memmem::find(&buf, b"\r\n\r\n") {
            break end + 4;
        }
        if buf.len() > MAX_CONNECT_HEAD {
            return Err(NetworkError::Protocol(
                "proxy's answer to CONNECT has a head too large".into(),
            ));
        }
    };
    let status = connect_status(&buf).ok_or_else(|| {
        NetworkError::Protocol(
            format!("proxy's answer to CONNECT {target} is not an HTTP/1 response").into(),
        )
    })?;
    if !status.is_success() {
        return Err(NetworkError::Connect(Box::new(ProxyRefused::new(
            status, target,
        ))));
    }
    // The origin speaks first only after the TLS client hello: anything already here
    // is not the origin's.
    if buf.len() > end {
        return Err(NetworkError::Protocol(
            "proxy sent data after accepting CONNECT, before the tunnel was used".into(),
        ));
    }
    Ok(())
}

/// The status code of the response head in `head` (`HTTP/1.x NNN reason`).
fn connect_status(head: &[u8]) -> Option<http::StatusCode> {
    let line_end = memchr::memchr(b'\n', head)?;
    let line = head.get(..line_end)?;
    let rest = line
        .strip_prefix(b"HTTP/1.1 ")
        .or_else(|| line.strip_prefix(b"HTTP/1.0 "))?;
    let code = rest.get(..3)?;
    if rest.get(3).is_some_and(|&b| b != b' ' && b != b'\r') {
        return None;
    }
    http::StatusCode::from_bytes(code).ok()
}

/// A host without the brackets of an IPv6 literal.
fn bare_host(host: &str) -> &str {
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

/// Connects to the first address that accepts, with `TCP_NODELAY` set.
async fn connect_tcp(addrs: &[SocketAddr]) -> Result<TcpStream, NetworkError> {
    let mut last = None;
    for addr in addrs {
        match TcpStream::connect(addr).await {
            Ok(stream) => {
                stream
                    .set_nodelay(true)
                    .map_err(|e| NetworkError::Connect(Box::new(e)))?;
                return Ok(stream);
            }
            Err(error) => last = Some(error),
        }
    }
    Err(NetworkError::Connect(Box::new(last.unwrap_or_else(|| {
        io::Error::new(io::ErrorKind::NotFound, "no addresses to connect to")
    }))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_status_reads_the_status_line() {
        assert_eq!(
            connect_status(b"HTTP/1.1 200 Connection established\r\n\r\n"),
            Some(http::StatusCode::OK)
        );
        assert_eq!(
            connect_status(b"HTTP/1.0 407\r\n\r\n"),
            Some(http::StatusCode::PROXY_AUTHENTICATION_REQUIRED)
        );
        assert_eq!(connect_status(b"HTTP/1.1 2000 OK\r\n"), None);
        assert_eq!(connect_status(b"SSH-2.0\r\n"), None);
        assert_eq!(connect_status(b"HTTP/1.1 20"), None);
    }

    #[test]
    fn ipv6_brackets_are_stripped() {
        assert_eq!(bare_host("[::1]"), "::1");
        assert_eq!(bare_host("example.com"), "example.com");
    }
}
