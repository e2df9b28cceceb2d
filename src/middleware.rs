//! Tower middleware (the `tower` feature): a [`Client`] is a `tower::Service`, so that any
//! tower layer (a timeout, a concurrency or rate limit, a retry, a trace) wraps whole
//! fetches; and [`ClientBuilder::transport_layer`](crate::ClientBuilder::transport_layer)
//! puts layers around each network request, below redirects and the HTTP cache.
//!
//! A [`Client`] serves two kinds of request:
//!
//! - `Service<`[`Request`]`>`, answering a [`Response`]: the `fetch()` method as a
//!   service, with nothing lost (status text, URL list, response type);
//! - `Service<http::Request<B>>` for any `http_body::Body` `B`, answering an
//!   `http::Response<`[`Body`]`>`: for layers written for the `http` crate (tower-http's).
//!   The request is made as `new Request(uri, { method, headers, body })` in the client's
//!   environment (a relative URI resolves against its base URL); the response keeps its
//!   status, headers and body stream (see [`crate::interop`]).
//!
//! Both are always ready (the client queues in its pool), clone the client (an `Arc`) into
//! each call, and fail with this crate's [`Error`]; a layer may add its own (tower's
//! `Timeout` answers a `BoxError` that is an [`Error`] or its `Elapsed`).
//!
//! ```
//! # tokio_test::block_on(async {
//! # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! # let url = format!("http://{}/", listener.local_addr()?);
//! # tokio::spawn(async move {
//! #     use tokio::io::{AsyncReadExt, AsyncWriteExt};
//! #     while let Ok((mut stream, _)) = listener.accept().await {
//! #         let _ = stream.read(&mut [0; 4096]).await;
//! #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 5\r\n\r\nHello").await;
//! #     }
//! # });
//! use std::time::Duration;
//! use tower::{ServiceBuilder, ServiceExt};
//! use whatwg_fetch::{Client, Request, RequestInit};
//!
//! let client = Client::builder().build()?;
//! let service = ServiceBuilder::new()
//!     .concurrency_limit(16) // at most 16 fetches at once; more wait
//!     .timeout(Duration::from_secs(10)) // each fetch, up to its response head
//!     .service(client);
//!
//! let request = Request::new(&url, RequestInit::default())?;
//! let mut response = service.clone().oneshot(request).await?;
//! assert_eq!(response.text().await?, "Hello");
//!
//! // The same stack takes the `http` crate's requests too.
//! let request = http::Request::get(&url).body(String::new())?;
//! let response = service.oneshot(request).await?;
//! assert_eq!(response.status(), 200);
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! # }).unwrap();
//! ```
//!
//! A `Timeout` layer bounds the wait for the response head; the body is read after the
//! service has answered. [`ClientBuilder::timeout`](crate::ClientBuilder::timeout) bounds
//! both.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;

use crate::body::Body;
use crate::client::Client;
use crate::error::{BoxError, Error};
use crate::request::Request;
use crate::response::Response;

/// The future of a [`Client`] serving a [`Request`]: `Send` and `Sync`, as the future of
/// [`RequestBuilder::send`](crate::RequestBuilder::send) is.
///
/// ```
/// # tokio_test::block_on(async {
/// use tower_service::Service;
/// use whatwg_fetch::middleware::ResponseFuture;
/// use whatwg_fetch::{Client, Request, RequestInit};
///
/// let mut client = Client::new();
/// let future: ResponseFuture = client.call(Request::new("data:,served", RequestInit::default())?);
/// assert_eq!(future.await?.text().await?, "served");
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
pub type ResponseFuture = Pin<Box<dyn Future<Output = Result<Response, Error>> + Send + Sync>>;

/// The future of a [`Client`] serving an `http::Request`: `Send` and `Sync`, whatever the
/// request's body.
///
/// ```
/// # tokio_test::block_on(async {
/// use tower_service::Service;
/// use whatwg_fetch::middleware::HttpResponseFuture;
///
/// let mut client = whatwg_fetch::Client::new();
/// let request = http::Request::get("data:,served").body(String::new()).map_err(|e| whatwg_fetch::Error::type_error(e.to_string()))?;
/// let future: HttpResponseFuture = client.call(request);
/// let response = future.await?;
/// assert_eq!(response.status(), 200);
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
pub type HttpResponseFuture =
    Pin<Box<dyn Future<Output = Result<http::Response<Body>, Error>> + Send + Sync>>;

impl tower_service::Service<Request> for Client {
    type Response = Response;
    type Error = Error;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        Poll::Ready(Ok(()))
    }

    /// [`Client::fetch_request`].
    fn call(&mut self, request: Request) -> ResponseFuture {
        let client = self.clone();
        Box::pin(async move { client.fetch_request(request).await })
    }
}

impl<B> tower_service::Service<http::Request<B>> for Client
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = http::Response<Body>;
    type Error = Error;
    type Future = HttpResponseFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Error>> {
        Poll::Ready(Ok(()))
    }

    /// The request made in the client's environment, fetched, and its response as an
    /// `http::Response`.
    ///
    /// # Errors
    /// The constructor's `TypeError`s (a relative URI without a base URL, a body on
    /// `GET`), [`Client::fetch`]'s, and a `TypeError` for an opaque response, which has no
    /// `http` equivalent.
    fn call(&mut self, request: http::Request<B>) -> HttpResponseFuture {
        let client = self.clone();
        // The request's body `B` need not be `Sync`: the future holds it until its first
        // poll, through `&mut` only.
        Box::pin(sync_wrapper::SyncFuture::new(async move {
            let request = crate::interop::request_from_http_in(client.environment(), request)?;
            let response = client.fetch_request(request).await?;
            http::Response::try_from(response)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use tower_service::Service;

    #[tokio::test]
    async fn a_client_serves_requests_of_both_kinds() {
        let mut client = Client::builder().build().unwrap();
        let request = Request::new("data:,one", crate::RequestInit::default()).unwrap();
        let mut response = Service::<Request>::call(&mut client, request)
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "one");

        let mock = crate::mock::MockTransport::new();
        mock.intercept("GET", "https://api.example/two")
            .unwrap()
            .reply(crate::mock::MockResponse::new(200).header("content-type", "text/plain"));
        let mut client = Client::builder()
            .transport(std::sync::Arc::new(mock))
            .build()
            .unwrap();
        let request = http::Request::get("https://api.example/two")
            .body(String::new())
            .unwrap();
        let response = client.call(request).await.unwrap();
        assert_eq!(response.headers()["content-type"], "text/plain");
    }

    #[tokio::test]
    async fn an_http_request_resolves_against_the_clients_base_url() {
        // A blocked port keeps the fetch off the network, and its error names the URL.
        let mut client = Client::builder()
            .origin("https://app.example:1/".parse().unwrap())
            .build()
            .unwrap();
        let request = http::Request::get("/x").body(String::new()).unwrap();
        let error = client.call(request).await.unwrap_err();
        assert!(matches!(
            error.network_error(),
            Some(crate::NetworkError::BadPort(1))
        ));
        assert_eq!(error.url(), Some("https://app.example:1/x"));

        let mut server_side = Client::builder().build().unwrap();
        let relative = http::Request::get("/x").body(String::new()).unwrap();
        let error = server_side.call(relative).await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
    }
}
