//! Conversions between this crate's [`Request`]/[`Response`] and the [`http`](::http) crate's, so
//! code built on `http` types (tower services, hyper servers, axum handlers) can hand values
//! across in both directions.
//!
//! ```
//! # tokio_test::block_on(async {
//! use whatwg_fetch::{Request, Response};
//!
//! // http → Request: the URI must be absolute; headers and body come along.
//! let request = http::Request::post("https://example.com/items")
//!     .header("content-type", "application/json")
//!     .body(String::from("{}"))
//!     .unwrap();
//! let mut request = Request::try_from(request)?;
//! assert_eq!(request.method(), "POST");
//! assert_eq!(request.text().await?, "{}");
//!
//! // Response → http: status, headers and the body stream.
//! let response = Response::from_json(&[1, 2, 3], Default::default())?;
//! let response = http::Response::try_from(response)?;
//! assert_eq!(response.status(), 200);
//! assert_eq!(response.headers()["content-type"], "application/json");
//! # Ok::<(), whatwg_fetch::Error>(())
//! # }).unwrap();
//! ```
// The summary line's links name their targets: rustdoc's module lists show it without
// resolving the names the module imports.
#![allow(rustdoc::redundant_explicit_links)]

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_core::Stream;

use crate::body::{Body, BodyInit};
use crate::environment::Environment;
use crate::error::{BoxError, Error, Result};
use crate::headers::HeadersInit;
use crate::request::{Request, RequestDuplex, RequestInit};
use crate::response::{Response, ResponseInit};

/// An `http_body::Body` as this crate's [`Body`]: its data frames, in order; trailers are
/// dropped, as Fetch has none.
fn body_from_http<B>(body: B, length: Option<u64>) -> Body
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let mut body = Body::from_stream(DataFrames(Box::pin(body)));
    body.set_length(length);
    body
}

/// The data frames of an `http_body::Body`, as a stream.
struct DataFrames<B>(Pin<Box<B>>);

impl<B: http_body::Body<Data = Bytes>> Stream for DataFrames<B> {
    type Item = std::result::Result<Bytes, B::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            match self.0.as_mut().poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Ready(Some(Err(error))) => return Poll::Ready(Some(Err(error))),
                Poll::Ready(Some(Ok(frame))) => {
                    if let Ok(data) = frame.into_data() {
                        return Poll::Ready(Some(Ok(data)));
                    }
                }
            }
        }
    }
}

impl<B> TryFrom<http::Request<B>> for Request
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Error = Error;

    /// `new Request(uri, { method, headers, body })` in the server-side environment. An
    /// empty body (as `http_body` reports it) is no body; any other is sent as a stream
    /// (`duplex: "half"`).
    ///
    /// # Errors
    /// The constructor's `TypeError`s: a URI that is not absolute, an invalid method or
    /// header, a body on `GET` or `HEAD`.
    fn try_from(request: http::Request<B>) -> Result<Request> {
        request_from_http_in(&Arc::new(Environment::server()), request)
    }
}

/// `new Request(uri, { method, headers, body })` made from `environment`, as
/// [`Request::try_from`] is in the server-side one: a relative URI resolves against the
/// environment's base URL.
pub(crate) fn request_from_http_in<B>(
    environment: &Arc<Environment>,
    request: http::Request<B>,
) -> Result<Request>
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let (parts, body) = request.into_parts();
    let length = http_body::Body::size_hint(&body).exact();
    let body = if http_body::Body::is_end_stream(&body) {
        None
    } else {
        Some(BodyInit::Stream(body_from_http(body, length)))
    };
    let init = RequestInit {
        method: Some(parts.method.as_str().to_owned()),
        headers: Some(HeadersInit::from(&parts.headers)),
        duplex: body.as_ref().map(|_| RequestDuplex::Half),
        body,
        ..Default::default()
    };
    Request::new_in(environment, parts.uri.to_string(), init)
}

impl<B> TryFrom<http::Response<B>> for Response
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Error = Error;

    /// `new Response(body, { status, statusText, headers })`; the status text is the HTTP/1
    /// reason phrase, if any. The headers keep guard `response`; the HTTP version is kept
    /// for [`Response::version`].
    ///
    /// # Errors
    /// The constructor's errors: a `RangeError` for a status outside 200–599, a `TypeError`
    /// for a body with a null body status (101, 103, 204, 205, 304).
    fn try_from(response: http::Response<B>) -> Result<Response> {
        let status_text = crate::net::status_text(&response).into_owned();
        let (parts, body) = response.into_parts();
        let length = http_body::Body::size_hint(&body).exact();
        let body = if http_body::Body::is_end_stream(&body) {
            None
        } else {
            Some(BodyInit::Stream(body_from_http(body, length)))
        };
        let init = ResponseInit {
            status: parts.status.as_u16(),
            status_text,
            headers: Some(HeadersInit::from(&parts.headers)),
        };
        let mut response = Response::new(body, init)?;
        response.version = parts.version;
        Ok(response)
    }
}

impl TryFrom<Response> for http::Response<Body> {
    type Error = Error;

    /// The response's status, headers, HTTP version and body stream. A filtered response gives what it
    /// exposes: an opaque one has status 0, which `http` cannot hold.
    ///
    /// # Errors
    /// A `TypeError` for a network error or an opaque response (status 0), or for header
    /// bytes `http` does not accept.
    fn try_from(mut response: Response) -> Result<http::Response<Body>> {
        let status = http::StatusCode::from_u16(response.status()).map_err(|_| {
            Error::type_error(format!(
                "a response of type {} with status {} has no HTTP equivalent",
                response.r#type(),
                response.status()
            ))
        })?;
        let headers = http::HeaderMap::try_from(response.headers().header_list())?;
        let body = response.take_body().unwrap_or_default();
        let mut http_response = http::Response::new(body);
        *http_response.status_mut() = status;
        *http_response.headers_mut() = headers;
        *http_response.version_mut() = response.version();
        Ok(http_response)
    }
}

impl TryFrom<Request> for http::Request<Body> {
    type Error = Error;

    /// The request's method, current URL (without fragment), headers and body.
    ///
    /// # Errors
    /// A `TypeError` if the URL, the method or a header cannot be expressed in `http` types.
    fn try_from(mut request: Request) -> Result<http::Request<Body>> {
        let url = request.current_url();
        let uri: http::Uri = url[..url::Position::AfterQuery].parse().map_err(|error| {
            Error::type_error(format!("URL {url} is not a valid URI")).with_source(error)
        })?;
        let method = http::Method::from_bytes(request.method().as_bytes())
            .map_err(|error| Error::type_error("invalid method").with_source(error))?;
        let headers = http::HeaderMap::try_from(request.headers().header_list())?;
        let body = request.body.take().unwrap_or_default();
        let mut http_request = http::Request::new(body);
        *http_request.method_mut() = method;
        *http_request.uri_mut() = uri;
        *http_request.headers_mut() = headers;
        Ok(http_request)
    }
}

/// Reads a whole `http_body::Body`: a helper for tests and small bodies.
#[cfg(test)]
async fn collect<B>(body: B) -> Bytes
where
    B: http_body::Body<Data = Bytes>,
    B::Error: std::fmt::Debug,
{
    http_body_util::BodyExt::collect(body)
        .await
        .map(|collected| collected.to_bytes())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[tokio::test]
    async fn http_request_round_trip() {
        let request = http::Request::put("https://example.com/a?b#c")
            .header("x-one", "1")
            .body(http_body_util::Full::new(Bytes::from_static(b"payload")))
            .unwrap();
        let request = Request::try_from(request).unwrap();
        assert_eq!(request.method(), "PUT");
        assert_eq!(
            request.headers().get("x-one").unwrap().as_deref(),
            Some("1")
        );
        let back = http::Request::<Body>::try_from(request).unwrap();
        assert_eq!(back.uri(), "https://example.com/a?b");
        assert_eq!(back.headers()["x-one"], "1");
        assert_eq!(collect(back.into_body()).await, "payload");
    }

    #[test]
    fn relative_uris_and_bodies_on_get_are_type_errors() {
        let relative = http::Request::get("/path").body(String::new()).unwrap();
        assert_eq!(
            Request::try_from(relative).unwrap_err().kind(),
            ErrorKind::TypeError
        );
        let get_with_body = http::Request::get("https://example.com/")
            .body(String::from("x"))
            .unwrap();
        assert_eq!(
            Request::try_from(get_with_body).unwrap_err().kind(),
            ErrorKind::TypeError
        );
    }

    #[tokio::test]
    async fn http_response_round_trip() {
        let response = http::Response::builder()
            .status(201)
            .header("content-type", "text/plain")
            .body(String::from("made"))
            .unwrap();
        let mut response = Response::try_from(response).unwrap();
        assert_eq!(response.status(), 201);
        assert_eq!(response.status_text(), "Created");
        assert_eq!(response.text().await.unwrap(), "made");

        let response = Response::new(Some("ok".into()), ResponseInit::default()).unwrap();
        let back = http::Response::<Body>::try_from(response).unwrap();
        assert_eq!(back.status(), 200);
        assert_eq!(back.headers()["content-type"], "text/plain;charset=UTF-8");
        assert_eq!(collect(back.into_body()).await, "ok");
    }

    #[test]
    fn statuses_fetch_rejects_are_errors_both_ways() {
        let early = http::Response::builder()
            .status(103)
            .body(String::new())
            .unwrap();
        assert_eq!(
            Response::try_from(early).unwrap_err().kind(),
            ErrorKind::RangeError
        );
        let opaque = Response::error();
        assert_eq!(
            http::Response::<Body>::try_from(opaque).unwrap_err().kind(),
            ErrorKind::TypeError
        );
    }
}
