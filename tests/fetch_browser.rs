//! fetch() in a browser-like environment: a client with an origin gets CORS, `Origin`,
//! `Referer`, forbidden-header filtering and response tainting, as a page at that origin.

mod net_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use net_support::{Server, ServerBody, full, hyper_server, request_head_text};
use whatwg_fetch::{
    Client, ErrorKind, HeadersInit, NetworkError, RequestInit, RequestMode, ResponseType,
};

/// Echoes the request head; CORS headers come from the query: `acao=ORIGIN`,
/// `expose=NAMES`, `preflight` (answer OPTIONS with an allowing preflight).
async fn cors_routes(
    request: HyperRequest<Incoming>,
    preflights: Arc<AtomicUsize>,
) -> HyperResponse<ServerBody> {
    let query = request.uri().query().unwrap_or_default().to_owned();
    let param = |key: &str| {
        query
            .split('&')
            .find_map(|pair| pair.strip_prefix(&format!("{key}=")))
            .map(|value| {
                percent_encoding::percent_decode_str(value)
                    .decode_utf8_lossy()
                    .into_owned()
            })
    };
    let mut builder = HyperResponse::builder()
        .header("content-type", "text/plain")
        .header("x-custom", "hidden unless exposed");
    if let Some(origin) = param("acao") {
        builder = builder.header("access-control-allow-origin", origin);
    }
    if let Some(expose) = param("expose") {
        builder = builder.header("access-control-expose-headers", expose);
    }
    if request.method() == http::Method::OPTIONS {
        preflights.fetch_add(1, Ordering::SeqCst);
        if query.contains("preflight") {
            builder = builder
                .header("access-control-allow-methods", "PUT")
                .header("access-control-allow-headers", "x-test")
                .header("access-control-max-age", "60");
        }
        return builder.body(full("")).unwrap();
    }
    let text = request_head_text(&request);
    builder.body(full(text)).unwrap()
}

async fn server(preflights: Arc<AtomicUsize>) -> Server {
    hyper_server(move |request| cors_routes(request, preflights.clone())).await
}

struct Setup {
    page: Server,
    other: Server,
    client: Client,
    preflights: Arc<AtomicUsize>,
}

async fn setup() -> Setup {
    let preflights = Arc::new(AtomicUsize::new(0));
    let page = server(preflights.clone()).await;
    let other = server(preflights.clone()).await;
    let client = Client::builder()
        .origin(page.url("/index.html").parse().unwrap())
        .build()
        .unwrap();
    Setup {
        page,
        other,
        client,
        preflights,
    }
}

fn origin_of(server: &Server) -> String {
    format!("http://{}", server.addr)
}

#[tokio::test]
async fn same_origin_get_sends_referer_but_no_origin() {
    let setup = setup().await;
    let mut response = setup
        .client
        .fetch("/echo", RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.r#type(), ResponseType::Basic);
    let text = response.text().await.unwrap();
    assert!(
        text.contains(&format!("\nreferer: {}\n", setup.page.url("/index.html"))),
        "{text}"
    );
    assert!(!text.contains("\norigin:"), "{text}");
}

/// `referer(false)`: the environment's policy is `no-referrer`, so the page's URL is not
/// sent; a request with a policy of its own still follows it.
#[tokio::test]
async fn referer_false_sends_no_referer_unless_a_request_asks() {
    let setup = setup().await;
    let client = Client::builder()
        .origin(setup.page.url("/index.html").parse().unwrap())
        .referer(false)
        .build()
        .unwrap();
    let text = client
        .get("/echo")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!text.contains("\nreferer:"), "{text}");
    let text = client
        .get("/echo")
        .referrer_policy(whatwg_fetch::ReferrerPolicy::SameOrigin)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains(&format!("\nreferer: {}\n", setup.page.url("/index.html"))),
        "{text}"
    );
}

#[tokio::test]
async fn same_origin_post_sends_origin() {
    let setup = setup().await;
    let init = RequestInit {
        method: Some("POST".into()),
        body: Some("x".into()),
        ..Default::default()
    };
    let text = setup
        .client
        .fetch("/echo", init)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains(&format!("\norigin: {}\n", origin_of(&setup.page))),
        "{text}"
    );
}

#[tokio::test]
async fn basic_responses_hide_set_cookie_and_requests_drop_forbidden_headers() {
    let setup = setup().await;
    let init = RequestInit {
        headers: Some(HeadersInit::from(vec![("Cookie", "a=b"), ("X-Ok", "1")])),
        ..Default::default()
    };
    let text = setup
        .client
        .fetch("/echo", init)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!text.contains("\ncookie:"), "{text}");
    assert!(text.contains("\nx-ok: 1\n"), "{text}");
}

#[tokio::test]
async fn cross_origin_without_acao_fails_the_cors_check() {
    let setup = setup().await;
    let error = setup
        .client
        .fetch(setup.other.url("/echo").as_str(), RequestInit::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(
        matches!(error.network_error(), Some(NetworkError::Cors(_))),
        "{error:?}"
    );
}

#[tokio::test]
async fn cross_origin_cors_response_exposes_only_safelisted_and_exposed_headers() {
    let setup = setup().await;
    let url = setup
        .other
        .url(&format!("/echo?acao={}", origin_of(&setup.page)));
    let mut response = setup
        .client
        .fetch(url.as_str(), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.r#type(), ResponseType::Cors);
    assert!(response.headers().has("content-type").unwrap());
    assert!(!response.headers().has("x-custom").unwrap());
    let text = response.text().await.unwrap();
    assert!(
        text.contains(&format!("\norigin: {}\n", origin_of(&setup.page))),
        "{text}"
    );
    assert!(
        text.contains(&format!("\nreferer: {}/\n", origin_of(&setup.page))),
        "cross-origin referer is the origin only: {text}"
    );

    let exposed = setup.other.url("/echo?acao=*&expose=x-custom");
    let response = setup
        .client
        .fetch(exposed.as_str(), RequestInit::default())
        .await
        .unwrap();
    assert!(response.headers().has("x-custom").unwrap());
}

#[tokio::test]
async fn non_simple_requests_are_preflighted_and_cached() {
    let setup = setup().await;
    let url = setup
        .other
        .url(&format!("/echo?preflight&acao={}", origin_of(&setup.page)));
    let init = || RequestInit {
        method: Some("PUT".into()),
        body: Some("x".into()),
        headers: Some(HeadersInit::from(vec![("X-Test", "1")])),
        ..Default::default()
    };
    let text = setup
        .client
        .fetch(url.as_str(), init())
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.starts_with("PUT "), "{text}");
    assert_eq!(setup.preflights.load(Ordering::SeqCst), 1);
    setup.client.fetch(url.as_str(), init()).await.unwrap();
    assert_eq!(
        setup.preflights.load(Ordering::SeqCst),
        1,
        "the preflight cache answers the second time"
    );

    let refused = setup
        .other
        .url(&format!("/echo?acao={}", origin_of(&setup.page)));
    let error = setup
        .client
        .fetch(refused.as_str(), init())
        .await
        .unwrap_err();
    assert!(
        matches!(error.network_error(), Some(NetworkError::Cors(_))),
        "{error:?}"
    );
}

#[tokio::test]
async fn no_cors_gives_an_opaque_response_and_same_origin_mode_refuses() {
    let setup = setup().await;
    let init = RequestInit {
        mode: Some(RequestMode::NoCors),
        ..Default::default()
    };
    let mut response = setup
        .client
        .fetch(setup.other.url("/echo").as_str(), init)
        .await
        .unwrap();
    assert_eq!(response.r#type(), ResponseType::Opaque);
    assert_eq!(response.status(), 0);
    assert_eq!(response.url(), "");
    assert_eq!(response.text().await.unwrap(), "");

    let init = RequestInit {
        mode: Some(RequestMode::SameOrigin),
        ..Default::default()
    };
    let error = setup
        .client
        .fetch(setup.other.url("/echo").as_str(), init)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
}

#[tokio::test]
async fn server_side_clients_send_no_origin_and_skip_cors() {
    let setup = setup().await;
    let client = Client::builder().build().unwrap();
    let mut response = client
        .fetch(setup.other.url("/echo").as_str(), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.r#type(), ResponseType::Basic);
    assert!(response.headers().has("x-custom").unwrap());
    let text = response.text().await.unwrap();
    assert!(
        !text.contains("\norigin:") && !text.contains("\nreferer:"),
        "{text}"
    );
}
