//! The settings of the HTTP/1.1 and HTTP/2 connections a [`HyperTransport`] opens, and
//! how they become the HTTP/1.1 connections' options (`net/h1.rs`); `net/h2.rs` makes the
//! HTTP/2 connections' settings of them.
//!
//! [`HyperTransport`]: super::HyperTransport

use std::time::Duration;

/// The default limit on a response head: 256 KiB, over HTTP/2
/// (`SETTINGS_MAX_HEADER_LIST_SIZE`, as Chrome and Deno advertise) and HTTP/1.1 alike.
pub(crate) const DEFAULT_MAX_RESPONSE_HEAD: u32 = 256 * 1024;

/// The default count of HTTP/1.1 response header fields, kept on the stack.
pub(crate) const DEFAULT_HTTP1_MAX_HEADERS: usize = super::h1::DEFAULT_MAX_HEADERS;

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

impl ProtocolOptions {
    /// The HTTP/1.1 connections' settings (see `net/h1.rs`).
    pub(crate) fn http1(&self) -> super::h1::Options {
        super::h1::Options {
            title_case_headers: self.http1_title_case_headers,
            max_head: usize::try_from(self.http1_max_header_size).unwrap_or(usize::MAX),
            max_headers: self.http1_max_headers,
        }
    }
}
