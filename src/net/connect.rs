//! Making a connection: resolve the host, connect TCP, handshake TLS, and start the
//! HTTP/1.1 or HTTP/2 connection task.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use hyper::client::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls_pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use super::body::RequestBody;
use super::io::{HeadAtEof, Http1};
use super::pool::Key;
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
    pub(crate) tls: Arc<rustls::ClientConfig>,
    pub(crate) h1: http1::Builder,
    pub(crate) h2: http2::Builder<TokioExecutor>,
    pub(crate) http2_prior_knowledge: bool,
    pub(crate) connect_timeout: Option<Duration>,
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

    async fn connect_now(&self, key: &Key) -> Result<Connected, NetworkError> {
        let host = bare_host(key.authority.host());
        let port = key
            .authority
            .port_u16()
            .unwrap_or(if key.https { 443 } else { 80 });
        let addrs = self.resolve(host, port).await?;
        let tcp = connect_tcp(&addrs).await?;
        if key.https {
            let server_name = ServerName::try_from(host.to_owned())
                .map_err(|e| NetworkError::Tls(Box::new(e)))?;
            let tls = tokio_rustls::TlsConnector::from(Arc::clone(&self.tls))
                .connect(server_name, tcp)
                .await
                .map_err(|e| NetworkError::Tls(Box::new(e)))?;
            let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2".as_slice());
            if h2 {
                self.handshake_h2(tls).await
            } else {
                self.handshake_h1(tls).await
            }
        } else if self.http2_prior_knowledge {
            self.handshake_h2(tcp).await
        } else {
            self.handshake_h1(tcp).await
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
        let head_expected = Arc::new(AtomicBool::new(false));
        let io = HeadAtEof::new(io, Arc::clone(&head_expected));
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
        Ok(Connected::H1(Http1::new(tx, head_expected)))
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
    fn ipv6_brackets_are_stripped() {
        assert_eq!(bare_host("[::1]"), "::1");
        assert_eq!(bare_host("example.com"), "example.com");
    }
}
