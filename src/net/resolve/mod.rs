//! Name resolution: the [`Resolve`] trait a caller plugs in, the [`SystemResolver`] used
//! when none is, and the [`DnsError`] that names the host that failed.
//!
//! A host name is answered, in this order, by a literal IP address, the transport's
//! override map ([`HyperTransportBuilder::resolve`](super::HyperTransportBuilder::resolve)),
//! its resolver function
//! ([`resolve_with`](super::HyperTransportBuilder::resolve_with)), and then the resolver
//! ([`resolver`](super::HyperTransportBuilder::resolver)), by default the system's. The
//! addresses go to Happy Eyeballs (see the `happy_eyeballs` module) in the order given.
//!
//! With the `hickory-dns` feature, `hickory.rs` holds a second resolver, hickory's DNS
//! stub resolver (`HickoryResolver`), turned on by `HyperTransportBuilder::hickory_dns`.

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;

use crate::error::BoxError;

#[cfg(feature = "hickory-dns")]
mod hickory;
#[cfg(feature = "hickory-dns")]
pub use hickory::{HickoryError, HickoryResolver};

/// The future a [`Resolve`] returns: the addresses of a name, or why there are none.
pub type ResolveFuture = Pin<Box<dyn Future<Output = Result<Vec<SocketAddr>, BoxError>> + Send>>;

/// Resolves host names to addresses, in place of the system resolver.
///
/// [`resolve`](Resolve::resolve) gets the host name in lowercase, without the brackets or
/// port of a URL, and returns its addresses in the order the caller prefers (Happy
/// Eyeballs then interleaves IPv6 and IPv4 ones, starting with the family of the first).
/// An address with port 0 takes the request URL's port. An error, or an empty list,
/// fails the request with [`NetworkError::Dns`](crate::NetworkError::Dns), whose source
/// is a [`DnsError`] naming the host. IP-address literals never reach the resolver.
///
/// A resolver that answers for the `.internal` names of a service registry and asks the
/// system for any other:
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::net::SocketAddr;
/// use std::sync::Arc;
/// use whatwg_fetch::net::{HyperTransport, Resolve, ResolveFuture, SystemResolver};
///
/// struct Registry {
///     api: SocketAddr,
/// }
///
/// impl Resolve for Registry {
///     fn resolve(&self, name: &str) -> ResolveFuture {
///         if name == "api.internal" {
///             let api = self.api;
///             return Box::pin(async move { Ok(vec![api]) });
///         }
///         SystemResolver.resolve(name)
///     }
/// }
///
/// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// # let addr = listener.local_addr().unwrap();
/// # tokio::spawn(async move {
/// #     use tokio::io::{AsyncReadExt, AsyncWriteExt};
/// #     let (mut socket, _) = listener.accept().await.unwrap();
/// #     let _ = socket.read(&mut [0; 1024]).await;
/// #     socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi").await.unwrap();
/// # });
/// use whatwg_fetch::net::{RequestBody, SendOptions, Transport};
///
/// // Port 0: the URL's port.
/// let registry = Registry { api: SocketAddr::new([127, 0, 0, 1].into(), 0) };
/// let transport = HyperTransport::builder().resolver(Arc::new(registry)).build().unwrap();
/// let url = format!("http://api.internal:{}/", addr.port());
/// let request = http::Request::get(url).body(RequestBody::empty()).unwrap();
/// let response = transport.send(request, SendOptions::new()).await.unwrap();
/// assert_eq!(response.status(), 200);
/// # });
/// ```
pub trait Resolve: Send + Sync + 'static {
    /// The addresses of `name`, a lowercase host name.
    ///
    /// # Errors
    ///
    /// Any error; the request fails with
    /// [`NetworkError::Dns`](crate::NetworkError::Dns) whose source is a [`DnsError`]
    /// carrying it.
    fn resolve(&self, name: &str) -> ResolveFuture;
}

/// The system resolver (`getaddrinfo` on a blocking thread, through
/// `tokio::net::lookup_host`): the default, and a fallback for a [`Resolve`] of one's own.
///
/// Its addresses come sorted by the system, per Destination Address Selection
/// ([RFC 6724 §6](https://www.rfc-editor.org/rfc/rfc6724#section-6)), with port 0.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use whatwg_fetch::net::{Resolve, SystemResolver};
///
/// let addrs = SystemResolver.resolve("localhost").await.unwrap();
/// assert!(addrs.iter().all(|addr| addr.ip().is_loopback()));
/// # });
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, name: &str) -> ResolveFuture {
        let name = name.to_owned();
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((name.as_str(), 0)).await?;
            Ok(addrs.collect())
        })
    }
}

/// Why a host name has no addresses: the source of
/// [`NetworkError::Dns`](crate::NetworkError::Dns). Its `Display` names the host
/// (`DNS lookup of example.invalid failed: …`); the resolver's own error is its
/// [`source`](std::error::Error::source).
#[derive(Debug)]
pub struct DnsError {
    host: Box<str>,
    source: BoxError,
}

impl DnsError {
    pub(crate) fn new(host: &str, source: BoxError) -> DnsError {
        DnsError {
            host: host.into(),
            source,
        }
    }

    /// The host name that was looked up.
    pub fn host(&self) -> &str {
        &self.host
    }
}

impl fmt::Display for DnsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DNS lookup of {} failed", self.host)
    }
}

impl std::error::Error for DnsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dns_error_names_the_host() {
        let error = DnsError::new("nonexistent.invalid", "no such host".into());
        // Its own part; the reason is its source.
        assert_eq!(
            error.to_string(),
            "DNS lookup of nonexistent.invalid failed"
        );
        assert_eq!(
            crate::error::Chain(&error).to_string(),
            "DNS lookup of nonexistent.invalid failed: no such host"
        );
        assert_eq!(error.host(), "nonexistent.invalid");
        assert!(std::error::Error::source(&error).is_some());
    }
}
