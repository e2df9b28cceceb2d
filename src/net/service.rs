//! A [`Transport`] seen as a `tower::Service`, and a `tower::Service` seen as a
//! [`Transport`] (the `tower` feature): so that tower layers (signing, logging, a rate
//! limit, a timeout per hop) can stand between the fetch algorithm and the network.
//!
//! The fetch algorithm calls a [`Transport`] once per network request: once per redirect
//! hop, once per revalidation of a cached response, below the HTTP cache and the cookie
//! store. [`TransportService`] is that call as a `Service<http::Request<RequestBody>>`;
//! a layer wraps it, and [`ServiceTransport`] turns the layered service back into the
//! [`Transport`] the client calls. `ClientBuilder::transport_layer` does both.
//!
//! The [`SendOptions`] of a request travel in its extensions: [`ServiceTransport`] puts
//! them there, [`TransportService`] takes them out (the defaults if a layer removed them).

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use super::{RequestBody, ResponseBody, SendOptions, Transport, TransportFuture};
use crate::error::{BoxError, NetworkError};

/// A [`Transport`] as a `tower::Service<http::Request<RequestBody>>`: the innermost
/// service of the stack a `ClientBuilder::transport_layer` layer wraps.
///
/// Always ready; each call sends one request with the [`SendOptions`] found in its
/// extensions (the defaults if there are none). Cheap to clone.
///
/// ```
/// # tokio_test::block_on(async {
/// use std::sync::Arc;
/// use tower_service::Service;
/// use whatwg_fetch::net::{RequestBody, ResponseBody, SendOptions, Transport, TransportFuture, TransportService};
///
/// struct Hello;
///
/// impl Transport for Hello {
///     fn send(&self, _: http::Request<RequestBody>, _: SendOptions) -> TransportFuture {
///         Box::pin(async { Ok(http::Response::new(ResponseBody::full("hello"))) })
///     }
/// }
///
/// let mut service = TransportService::new(Arc::new(Hello));
/// let response = service.call(http::Request::new(RequestBody::empty())).await?;
/// assert_eq!(response.status(), 200);
/// # Ok::<(), whatwg_fetch::NetworkError>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct TransportService {
    transport: Arc<dyn Transport>,
}

impl TransportService {
    /// The service that sends through `transport`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::net::{HyperTransport, TransportService};
    ///
    /// // The transport as a `tower::Service`, for layers of one's own around it.
    /// let service = TransportService::new(Arc::new(HyperTransport::new()?));
    /// # let _ = service;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn new(transport: Arc<dyn Transport>) -> TransportService {
        TransportService { transport }
    }

    /// The transport requests are sent through.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::net::{HyperTransport, Transport, TransportService};
    ///
    /// let transport: Arc<dyn Transport> = Arc::new(HyperTransport::new()?);
    /// let service = TransportService::new(transport.clone());
    /// assert!(Arc::ptr_eq(service.transport(), &transport));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn transport(&self) -> &Arc<dyn Transport> {
        &self.transport
    }
}

impl std::fmt::Debug for TransportService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransportService").finish_non_exhaustive()
    }
}

impl tower_service::Service<http::Request<RequestBody>> for TransportService {
    type Response = http::Response<ResponseBody>;
    type Error = NetworkError;
    type Future = TransportFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), NetworkError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: http::Request<RequestBody>) -> TransportFuture {
        let options = request
            .extensions_mut()
            .remove::<SendOptions>()
            .unwrap_or_default();
        self.transport.send(request, options)
    }
}

/// A `tower::Service<http::Request<RequestBody>>` as a [`Transport`]: what
/// `ClientBuilder::transport_layer` makes of the layered [`TransportService`], so that
/// the client keeps calling a [`Transport`].
///
/// Each [`send`](Transport::send) clones the service (tower services share their state
/// between clones: a concurrency limit's semaphore, a rate limit's window), waits until
/// the clone is ready and calls it, with the [`SendOptions`] in the request's extensions.
/// An error of the service that is a [`NetworkError`] stays one; any other (a layer's
/// timeout, a refusal) becomes a [`NetworkError::Layer`] whose source it is.
///
/// ```
/// use std::sync::Arc;
/// use whatwg_fetch::net::{HyperTransport, ServiceTransport, TransportService};
///
/// // Any tower service of the transport's shape, given to a client as its transport.
/// let service = tower::ServiceBuilder::new()
///     .concurrency_limit(64)
///     .service(TransportService::new(Arc::new(HyperTransport::new()?)));
/// let client = whatwg_fetch::Client::builder().transport(Arc::new(ServiceTransport::new(service))).build()?;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub struct ServiceTransport<S> {
    // A mutex only to be `Sync`, as a `Transport` must: tower services often are not (a
    // concurrency limit holds a boxed future). It is held only to clone.
    service: Mutex<S>,
}

impl<S> ServiceTransport<S> {
    /// The transport that sends each request through `service`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// use tower::ServiceBuilder;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    /// use whatwg_fetch::net::{ServiceTransport, TransportService};
    /// use whatwg_fetch::Client;
    ///
    /// let mock = MockTransport::new();
    /// mock.intercept("GET", "https://api.example/")?.reply(MockResponse::new(200));
    /// // A tower stack around a transport, used as a transport again.
    /// let service = ServiceBuilder::new()
    ///     .timeout(Duration::from_secs(5))
    ///     .service(TransportService::new(Arc::new(mock)));
    /// let client = Client::builder().transport(Arc::new(ServiceTransport::new(service))).build()?;
    /// assert_eq!(client.get("https://api.example/").send().await?.status(), 200);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn new(service: S) -> ServiceTransport<S> {
        ServiceTransport {
            service: Mutex::new(service),
        }
    }
}

impl<S> std::fmt::Debug for ServiceTransport<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceTransport").finish_non_exhaustive()
    }
}

impl<S> Transport for ServiceTransport<S>
where
    S: tower_service::Service<http::Request<RequestBody>, Response = http::Response<ResponseBody>>
        + Clone
        + Send
        + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    fn send(
        &self,
        mut request: http::Request<RequestBody>,
        options: SendOptions,
    ) -> TransportFuture {
        // A poisoned lock held nothing but a clone in progress: the service is whole.
        let service = match self.service.lock() {
            Ok(service) => service.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        request.extensions_mut().insert(options);
        Box::pin(call(service, request))
    }
}

/// Waits until `service` is ready, then calls it with `request`.
async fn call<S>(
    mut service: S,
    request: http::Request<RequestBody>,
) -> Result<http::Response<ResponseBody>, NetworkError>
where
    S: tower_service::Service<http::Request<RequestBody>, Response = http::Response<ResponseBody>>,
    S::Error: Into<BoxError>,
{
    std::future::poll_fn(|cx| service.poll_ready(cx))
        .await
        .map_err(network_error)?;
    service.call(request).await.map_err(network_error)
}

/// A service's error as a [`NetworkError`]: itself if it is one, else
/// [`NetworkError::Layer`] around it.
fn network_error(error: impl Into<BoxError>) -> NetworkError {
    match error.into().downcast::<NetworkError>() {
        Ok(network) => *network,
        Err(other) => NetworkError::Layer(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_service::Service;

    /// Answers with the request's `x-echo` header as the body, or fails when asked.
    struct Echo;

    impl Transport for Echo {
        fn send(
            &self,
            request: http::Request<RequestBody>,
            options: SendOptions,
        ) -> TransportFuture {
            let echo = request
                .headers()
                .get("x-echo")
                .map(|value| value.as_bytes().to_vec())
                .unwrap_or_default();
            Box::pin(async move {
                if echo == b"fail" {
                    return Err(NetworkError::Other("asked to fail".into()));
                }
                let mut response = http::Response::new(ResponseBody::full(echo));
                if options.new_connection {
                    response
                        .headers_mut()
                        .insert("x-new-connection", http::HeaderValue::from_static("1"));
                }
                Ok(response)
            })
        }
    }

    /// A service that fails every call with an error that is not a network error.
    #[derive(Clone)]
    struct Refuse;

    impl Service<http::Request<RequestBody>> for Refuse {
        type Response = http::Response<ResponseBody>;
        type Error = std::io::Error;
        type Future = std::future::Ready<Result<Self::Response, std::io::Error>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), std::io::Error>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, _: http::Request<RequestBody>) -> Self::Future {
            std::future::ready(Err(std::io::Error::other("refused by policy")))
        }
    }

    fn request(echo: &'static str) -> http::Request<RequestBody> {
        let mut request = http::Request::new(RequestBody::empty());
        request
            .headers_mut()
            .insert("x-echo", http::HeaderValue::from_static(echo));
        request
    }

    #[tokio::test]
    async fn send_options_cross_the_service_in_the_extensions() {
        let transport = ServiceTransport::new(TransportService::new(Arc::new(Echo)));
        let response = transport
            .send(request("hi"), SendOptions::new().with_new_connection(true))
            .await
            .unwrap();
        assert_eq!(response.headers()["x-new-connection"], "1");
        let response = transport
            .send(request("hi"), SendOptions::new())
            .await
            .unwrap();
        assert!(!response.headers().contains_key("x-new-connection"));
    }

    #[tokio::test]
    async fn a_network_error_stays_one_and_another_error_becomes_a_layer_error() {
        let transport = ServiceTransport::new(TransportService::new(Arc::new(Echo)));
        let error = transport
            .send(request("fail"), SendOptions::new())
            .await
            .unwrap_err();
        assert!(matches!(error, NetworkError::Other(_)), "{error:?}");

        let transport = ServiceTransport::new(Refuse);
        let error = transport
            .send(request("x"), SendOptions::new())
            .await
            .unwrap_err();
        assert!(matches!(error, NetworkError::Layer(_)), "{error:?}");
        assert_eq!(error.to_string(), "transport layer failed");
        assert_eq!(
            crate::error::Chain(&error).to_string(),
            "transport layer failed: refused by policy"
        );
        assert!(std::error::Error::source(&error).is_some());
    }

    #[tokio::test]
    async fn the_transport_service_is_always_ready() {
        let mut service = TransportService::new(Arc::new(Echo));
        std::future::poll_fn(|cx| service.poll_ready(cx))
            .await
            .unwrap();
        let response = service.call(request("x")).await.unwrap();
        assert_eq!(response.status(), 200);
    }
}
