//! `Client` as a tower service, and tower layers around each network request (the `tower`
//! feature), against servers on 127.0.0.1.

#[path = "../../tests/net_support/mod.rs"]
mod net_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use net_support::{full, hyper_server};
use tower::timeout::error::Elapsed;
use tower::{ServiceBuilder, ServiceExt};
use whatwg_fetch::net::RequestBody;
use whatwg_fetch::{BoxError, Client, NetworkError, Request, RequestInit};

/// Bounds each test, so that a hang fails it rather than the whole run.
async fn bounded<F: std::future::Future>(test: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(30), test)
        .await
        .expect("the test finished in time")
}

/// A server whose `/slow` answers only after a minute and `/fast` at once.
async fn slow_and_fast_server() -> net_support::Server {
    hyper_server(|request| async move {
        if request.uri().path() == "/slow" {
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        http::Response::new(full("done"))
    })
    .await
}

#[tokio::test]
async fn a_timeout_layer_around_the_client_fails_a_fetch_to_a_slow_server() {
    bounded(async {
        let server = slow_and_fast_server().await;
        let client = Client::builder().build().unwrap();
        let service = ServiceBuilder::new()
            .concurrency_limit(4)
            .timeout(Duration::from_millis(200))
            .service(client);

        let request = Request::new(server.url("/slow"), RequestInit::default()).unwrap();
        let error: BoxError = service.clone().oneshot(request).await.unwrap_err();
        assert!(error.is::<Elapsed>(), "{error:?}");

        // The same stack serves the next request, as an `http::Request` this time.
        let request = http::Request::get(server.url("/fast"))
            .body(String::new())
            .unwrap();
        let response = service.oneshot(request).await.unwrap();
        assert_eq!(response.status(), 200);
    })
    .await;
}

#[tokio::test]
async fn a_concurrency_limit_layer_holds_the_fetches_in_flight_to_its_limit() {
    bounded(async {
        let in_flight = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let (server_in_flight, server_most) = (in_flight.clone(), most.clone());
        // Each request is held until a second one is in flight with it (or a second
        // passed): with a limit of 2, pairs meet; without one, all six would.
        let server = hyper_server(move |_request| {
            let (in_flight, most) = (server_in_flight.clone(), server_most.clone());
            async move {
                let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                for _ in 0..200 {
                    if in_flight.load(Ordering::SeqCst) >= 2 {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
                in_flight.fetch_sub(1, Ordering::SeqCst);
                http::Response::new(full("ok"))
            }
        })
        .await;
        let client = Client::builder().build().unwrap();
        let service = ServiceBuilder::new()
            .concurrency_limit(2)
            .timeout(Duration::from_secs(20))
            .service(client);
        let mut tasks = Vec::new();
        for _ in 0..6 {
            let service = service.clone();
            let url = server.url("/");
            tasks.push(tokio::spawn(async move {
                let request = Request::new(url, RequestInit::default()).unwrap();
                let mut response = service.oneshot(request).await.unwrap();
                response.text().await.unwrap()
            }));
        }
        for task in tasks {
            assert_eq!(task.await.unwrap(), "ok");
        }
        assert_eq!(most.load(Ordering::SeqCst), 2);
    })
    .await;
}

/// Signs a request with what it asks for at this hop: its method and path.
fn sign(mut request: http::Request<RequestBody>) -> http::Request<RequestBody> {
    let signature = format!("sig:{} {}", request.method(), request.uri().path());
    let value = http::HeaderValue::try_from(signature).unwrap();
    request.headers_mut().insert("x-signature", value);
    request
}

#[tokio::test]
async fn a_transport_layer_signs_each_hop_of_a_redirect_chain() {
    bounded(async {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let server_seen = seen.clone();
        let server = hyper_server(move |request| {
            let seen = server_seen.clone();
            async move {
                let signature = request
                    .headers()
                    .get("x-signature")
                    .map(|value| value.to_str().unwrap().to_owned());
                seen.lock()
                    .unwrap()
                    .push((request.uri().path().to_owned(), signature));
                match request.uri().path() {
                    "/one" => http::Response::builder()
                        .status(302)
                        .header("location", "/two")
                        .body(full(""))
                        .unwrap(),
                    _ => http::Response::new(full("signed")),
                }
            }
        })
        .await;
        let client = Client::builder()
            .transport_layer(ServiceBuilder::new().map_request(sign))
            .build()
            .unwrap();
        let mut response = client
            .fetch(server.url("/one"), RequestInit::default())
            .await
            .unwrap();
        assert!(response.redirected());
        assert_eq!(response.text().await.unwrap(), "signed");
        assert_eq!(
            *seen.lock().unwrap(),
            [
                ("/one".to_owned(), Some("sig:GET /one".to_owned())),
                ("/two".to_owned(), Some("sig:GET /two".to_owned())),
            ]
        );
    })
    .await;
}

#[tokio::test]
async fn an_error_of_a_transport_layer_is_a_layer_network_error() {
    bounded(async {
        let server = slow_and_fast_server().await;
        let client = Client::builder()
            .transport_layer(ServiceBuilder::new().timeout(Duration::from_millis(200)))
            .build()
            .unwrap();
        let error = client
            .fetch(server.url("/slow"), RequestInit::default())
            .await
            .unwrap_err();
        let Some(NetworkError::Layer(cause)) = error.network_error() else {
            panic!("not a layer error: {error:?}");
        };
        assert!(cause.is::<Elapsed>(), "{cause:?}");
        // A timeout, whichever timer it was: as for the client's own timeouts.
        assert!(error.is_timeout(), "{error:?}");
        assert!(!error.is_connect() && !error.is_builder(), "{error:?}");

        // The next fetch on the same client goes through.
        let mut response = client
            .fetch(server.url("/fast"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "done");
    })
    .await;
}

#[tokio::test]
async fn layers_added_later_wrap_those_added_before() {
    bounded(async {
        let order = Arc::new(Mutex::new(Vec::new()));
        let tag = |name: &'static str| {
            let order = order.clone();
            ServiceBuilder::new().map_request(move |request: http::Request<RequestBody>| {
                order.lock().unwrap().push(name);
                request
            })
        };
        let server = slow_and_fast_server().await;
        let client = Client::builder()
            .transport_layer(tag("inner"))
            .transport_layer(tag("outer"))
            .build()
            .unwrap();
        let mut response = client
            .fetch(server.url("/fast"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "done");
        assert_eq!(*order.lock().unwrap(), ["outer", "inner"]);
    })
    .await;
}

#[test]
fn the_clients_service_futures_are_send_and_sync() {
    use http_body_util::BodyExt;

    fn assert_send_sync<T: Send + Sync + 'static>(_: &T) {}
    let mut client = Client::new();
    let request = Request::new("http://127.0.0.1:1/", RequestInit::default()).unwrap();
    assert_send_sync(&tower::Service::<Request>::call(&mut client, request));
    // Whatever the body: this one is `Send` and not `Sync`.
    let body = http_body_util::Empty::<bytes::Bytes>::new().boxed_unsync();
    let request = http::Request::get("http://127.0.0.1:1/")
        .body(body)
        .unwrap();
    assert_send_sync(&tower::Service::<http::Request<_>>::call(
        &mut client,
        request,
    ));
}
