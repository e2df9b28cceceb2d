//! The settings of the HTTP/1.1 and HTTP/2 connections a [`HyperTransport`] opens, as its
//! builder sets them; `net/h1.rs` and `net/h2.rs` make their connections' options of them.
//!
//! [`HyperTransport`]: super::HyperTransport

use std::fmt;
use std::time::Duration;

use http::Version;

use crate::error::BoxError;

/// The default limit on a response head: 256 KiB, over HTTP/2
/// (`SETTINGS_MAX_HEADER_LIST_SIZE`, as Chrome and Deno advertise) and HTTP/1.1 alike.
pub(crate) const DEFAULT_MAX_RESPONSE_HEAD: u32 = 256 * 1024;

/// The default count of HTTP/1.1 response header fields: Node's (`maxHeadersCount`).
/// Browsers count none, bounding the head's bytes alone (256 KiB in Chrome).
pub(crate) const DEFAULT_HTTP1_MAX_HEADERS: usize = 2000;

/// The default wait for a keep-alive PING's acknowledgement (hyper's and h2's).
const DEFAULT_KEEP_ALIVE_TIMEOUT: Duration = Duration::from_secs(20);

/// What the connections' protocols are configured with; each field's default is the
/// one its builder method documents.
#[derive(Clone, Debug)]
pub(crate) struct ProtocolOptions {
    pub(crate) http1_title_case_headers: bool,
    pub(crate) http1_max_header_size: u32,
    pub(crate) http1_max_headers: usize,
    pub(crate) http2_max_header_list_size: u32,
    pub(crate) http2_initial_stream_window_size: Option<u32>,
    pub(crate) http2_initial_connection_window_size: Option<u32>,
    pub(crate) http2_adaptive_window: bool,
    pub(crate) http2_max_frame_size: Option<u32>,
    pub(crate) http2_keep_alive_interval: Option<Duration>,
    pub(crate) http2_keep_alive_timeout: Duration,
    pub(crate) http2_keep_alive_while_idle: bool,
}

impl Default for ProtocolOptions {
    fn default() -> ProtocolOptions {
        ProtocolOptions {
            http1_title_case_headers: false,
            http1_max_header_size: DEFAULT_MAX_RESPONSE_HEAD,
            http1_max_headers: DEFAULT_HTTP1_MAX_HEADERS,
            http2_max_header_list_size: DEFAULT_MAX_RESPONSE_HEAD,
            http2_initial_stream_window_size: None,
            http2_initial_connection_window_size: None,
            http2_adaptive_window: false,
            http2_max_frame_size: None,
            http2_keep_alive_interval: None,
            http2_keep_alive_timeout: DEFAULT_KEEP_ALIVE_TIMEOUT,
            http2_keep_alive_while_idle: false,
        }
    }
}

/// A response head this client refused to read: over the limit on its size (or, on
/// HTTP/1.1, its field count), or on HTTP/2 malformed, which h2 does not tell apart. The
/// source of a [`NetworkError::Protocol`](crate::error::NetworkError::Protocol); the error
/// of the connection that read it is its own source. The same response fails the same way
/// again.
///
/// ```
/// use whatwg_fetch::net::HeadRefused;
///
/// // Found in a fetch error's causes: see `version` and `limit`.
/// fn head_refused<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a HeadRefused> {
///     let mut cause = Some(error);
///     while let Some(now) = cause {
///         if let Some(refused) = now.downcast_ref::<HeadRefused>() {
///             return Some(refused);
///         }
///         cause = now.source();
///     }
///     None
/// }
/// # let _ = head_refused;
/// ```
#[derive(Debug)]
pub struct HeadRefused {
    pub(crate) message: String,
    pub(crate) version: Version,
    pub(crate) limit: u32,
    pub(crate) source: BoxError,
}

impl HeadRefused {
    /// The protocol the head came over: HTTP/1.1 or HTTP/2.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // A head of some 20 KB.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let head = format!("HTTP/1.1 200 OK\r\nx-big: {}\r\ncontent-length: 0\r\n\r\n", "v".repeat(20_000));
    /// #     let _ = stream.write_all(head.as_bytes()).await;
    /// # });
    /// use whatwg_fetch::net::HeadRefused;
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().http1_max_header_size(16 * 1024).build()?;
    /// let error = client.get(&url).send().await.unwrap_err();
    /// let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    /// let refused = std::iter::from_fn(|| {
    ///     let now = cause?;
    ///     cause = now.source();
    ///     Some(now)
    /// })
    /// .find_map(|error| error.downcast_ref::<HeadRefused>())
    /// .expect("refused for its size");
    /// assert_eq!((refused.version(), refused.limit()), (whatwg_fetch::Version::HTTP_11, 16 * 1024));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn version(&self) -> Version {
        self.version
    }

    /// The limit in bytes the head was held to
    /// ([`http1_max_header_size`](super::HyperTransportBuilder::http1_max_header_size) or
    /// [`http2_max_header_list_size`](super::HyperTransportBuilder::http2_max_header_list_size)).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // A head of some 20 KB.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let head = format!("HTTP/1.1 200 OK\r\nx-big: {}\r\ncontent-length: 0\r\n\r\n", "v".repeat(20_000));
    /// #     let _ = stream.write_all(head.as_bytes()).await;
    /// # });
    /// use whatwg_fetch::net::HeadRefused;
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().http1_max_header_size(16 * 1024).build()?;
    /// let error = client.get(&url).send().await.unwrap_err();
    /// let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    /// let refused = std::iter::from_fn(|| {
    ///     let now = cause?;
    ///     cause = now.source();
    ///     Some(now)
    /// })
    /// .find_map(|error| error.downcast_ref::<HeadRefused>())
    /// .expect("refused for its size");
    /// assert_eq!((refused.version(), refused.limit()), (whatwg_fetch::Version::HTTP_11, 16 * 1024));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn limit(&self) -> u32 {
        self.limit
    }
}

impl fmt::Display for HeadRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HeadRefused {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}
