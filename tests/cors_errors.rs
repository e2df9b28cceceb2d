//! CORS errors that say which check failed and why: a browser-like client whose origin is
//! one server on 127.0.0.1 fetches from another, whose CORS headers each test picks, and
//! the `NetworkError::Cors` it gets names the failing step of the CORS check
//! (https://fetch.spec.whatwg.org/#concept-cors-check) or of the CORS-preflight fetch, with
//! what the server sent and what it must send instead.

mod net_support;

use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use net_support::{Server, ServerBody, full, hyper_server};
use whatwg_fetch::{
    Client, Error, ErrorKind, HeadersInit, NetworkError, RequestCredentials, RequestInit,
};

/// Answers with CORS headers from the query: each `acao=V` an `Access-Control-Allow-Origin:
/// V`, `acac=V` `Access-Control-Allow-Credentials`, `acam=V` `Access-Control-Allow-Methods`,
/// `acah=V` `Access-Control-Allow-Headers`; `pstatus=N` is the status of an `OPTIONS`
/// answer (default 204), `redirect=URL` makes any other request a 302 to `URL`.
async fn routes(request: HyperRequest<Incoming>) -> HyperResponse<ServerBody> {
    let query = request.uri().query().unwrap_or_default().to_owned();
    let params: Vec<(String, String)> = query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(key, value)| {
            let value = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
            (key.to_owned(), value.into_owned())
        })
        .collect();
    let param = |key: &str| {
        params
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value.clone())
    };
    let mut builder = HyperResponse::builder().header("content-type", "text/plain");
    for (key, header) in [
        ("acao", "access-control-allow-origin"),
        ("acac", "access-control-allow-credentials"),
        ("acam", "access-control-allow-methods"),
        ("acah", "access-control-allow-headers"),
    ] {
        for (_, value) in params.iter().filter(|(name, _)| name == key) {
            builder = builder.header(header, value.as_str());
        }
    }
    if request.method() == http::Method::OPTIONS {
        let status = param("pstatus").map_or(204, |status| status.parse().unwrap());
        return builder.status(status).body(full("")).unwrap();
    }
    if let Some(location) = param("redirect") {
        return builder
            .status(302)
            .header("location", location)
            .body(full(""))
            .unwrap();
    }
    builder.body(full("ok")).unwrap()
}

struct Setup {
    page: Server,
    api: Server,
    client: Client,
}

impl Setup {
    /// The page's origin, as the `Origin` header and the messages serialize it.
    fn origin(&self) -> String {
        format!("http://{}", self.page.addr)
    }

    /// The API's URL for `path` and the query `pairs`, percent-encoded.
    fn api_url(&self, pairs: &[(&str, &str)]) -> String {
        let query: Vec<String> = pairs
            .iter()
            .map(|(key, value)| {
                let value = percent_encoding::utf8_percent_encode(
                    value,
                    percent_encoding::NON_ALPHANUMERIC,
                );
                format!("{key}={value}")
            })
            .collect();
        self.api.url(&format!("/api?{}", query.join("&")))
    }

    /// The message of the CORS error that fetching `url` with `init` ends in.
    async fn cors_error(&self, url: &str, init: RequestInit) -> String {
        let error: Error = self.client.fetch(url, init).await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        let network = error.network_error();
        let Some(NetworkError::Cors(message)) = network else {
            panic!("not a CORS error: {error:?}");
        };
        assert_eq!(
            network.unwrap().to_string(),
            format!("CORS check failed: {message}")
        );
        message.to_string()
    }
}

async fn setup() -> Setup {
    let page = hyper_server(routes).await;
    let api = hyper_server(routes).await;
    let client = Client::builder()
        .origin(page.url("/index.html").parse().unwrap())
        .build()
        .unwrap();
    Setup { page, api, client }
}

fn credentialed() -> RequestInit {
    RequestInit {
        credentials: Some(RequestCredentials::Include),
        ..Default::default()
    }
}

/// A PUT with `X-Test: 1`: not CORS-safelisted, so it is preflighted.
fn put(credentials: RequestCredentials, headers: &[(&'static str, &'static str)]) -> RequestInit {
    RequestInit {
        method: Some("PUT".into()),
        body: Some("x".into()),
        credentials: Some(credentials),
        headers: Some(HeadersInit::from(headers.to_vec())),
        ..Default::default()
    }
}

#[tokio::test]
async fn no_allow_origin_names_the_origin_and_the_header_to_send() {
    let setup = setup().await;
    let origin = setup.origin();
    let message = setup
        .cors_error(&setup.api_url(&[]), RequestInit::default())
        .await;
    assert_eq!(
        message,
        format!(
            "the response has no Access-Control-Allow-Origin header, so origin {origin} may \
             not read it: the server must send \"Access-Control-Allow-Origin: {origin}\" \
             (or \"*\")"
        )
    );
    // The whole chain names the URL too.
    let error = setup
        .client
        .fetch(setup.api_url(&[]), RequestInit::default())
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains(&format!("for {}", setup.api_url(&[]))),
        "{error}"
    );

    let message = setup.cors_error(&setup.api_url(&[]), credentialed()).await;
    assert_eq!(
        message,
        format!(
            "the response has no Access-Control-Allow-Origin header, so origin {origin} may \
             not read it: the server must send \"Access-Control-Allow-Origin: {origin}\" and \
             \"Access-Control-Allow-Credentials: true\", as the request's credentials mode \
             is \"include\""
        )
    );
}

#[tokio::test]
async fn another_origin_in_allow_origin_is_quoted_beside_the_requests() {
    let setup = setup().await;
    let origin = setup.origin();
    let url = setup.api_url(&[("acao", "http://example.com")]);
    assert_eq!(
        setup.cors_error(&url, RequestInit::default()).await,
        format!(
            "Access-Control-Allow-Origin is \"http://example.com\", not the request's origin \
             {origin}"
        )
    );
    // Two headers combine into a list, which matches no origin.
    let url = setup.api_url(&[("acao", &origin), ("acao", "http://example.com")]);
    assert_eq!(
        setup.cors_error(&url, RequestInit::default()).await,
        format!(
            "Access-Control-Allow-Origin is \"{origin}, http://example.com\", not the \
             request's origin {origin} (it must hold one origin, not a list)"
        )
    );
    // A trailing slash.
    let url = setup.api_url(&[("acao", &format!("{origin}/"))]);
    assert!(
        setup
            .cors_error(&url, RequestInit::default())
            .await
            .ends_with("(an origin has no path, not even \"/\")")
    );
}

#[tokio::test]
async fn a_wildcard_allow_origin_with_credentials_asks_for_the_origin() {
    let setup = setup().await;
    let origin = setup.origin();
    let url = setup.api_url(&[("acao", "*"), ("acac", "true")]);
    assert_eq!(
        setup.cors_error(&url, credentialed()).await,
        format!(
            "Access-Control-Allow-Origin is \"*\", which does not allow a request whose \
             credentials mode is \"include\": the server must send the request's origin, \
             \"Access-Control-Allow-Origin: {origin}\", and \
             \"Access-Control-Allow-Credentials: true\""
        )
    );
    // Without credentials the same response passes.
    let response = setup
        .client
        .fetch(url.as_str(), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn allow_credentials_other_than_true_with_credentials_is_named() {
    let setup = setup().await;
    let origin = setup.origin();
    let url = setup.api_url(&[("acao", &origin)]);
    assert_eq!(
        setup.cors_error(&url, credentialed()).await,
        "the request's credentials mode is \"include\" but the response has no \
         Access-Control-Allow-Credentials header: the server must send \
         \"Access-Control-Allow-Credentials: true\""
    );
    let url = setup.api_url(&[("acao", &origin), ("acac", "TRUE")]);
    assert_eq!(
        setup.cors_error(&url, credentialed()).await,
        "the request's credentials mode is \"include\" but Access-Control-Allow-Credentials \
         is \"TRUE\", not \"true\" (the value is case-sensitive)"
    );
    let url = setup.api_url(&[("acao", &origin), ("acac", "true")]);
    let response = setup
        .client
        .fetch(url.as_str(), credentialed())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn after_a_redirect_to_another_origin_the_origin_is_null_and_the_message_says_so() {
    let setup = setup().await;
    let origin = setup.origin();
    // The API redirects back to the page's server; both hops allow the page's origin, but
    // the second hop's request has a tainted origin, serialized "null".
    let back = format!(
        "{}?acao={}",
        setup.page.url("/back"),
        percent_encoding::utf8_percent_encode(&origin, percent_encoding::NON_ALPHANUMERIC)
    );
    let url = setup.api_url(&[("acao", &origin), ("redirect", &back)]);
    assert_eq!(
        setup.cors_error(&url, RequestInit::default()).await,
        format!(
            "Access-Control-Allow-Origin is \"{origin}\", not the request's origin null; \
             after a redirect to another origin, the request's origin is sent and compared \
             as \"null\""
        )
    );
}

#[tokio::test]
async fn a_preflight_with_a_status_that_is_not_ok_gives_the_status() {
    let setup = setup().await;
    let origin = setup.origin();
    let url = setup.api_url(&[
        ("acao", &origin),
        ("acam", "PUT"),
        ("acah", "x-test"),
        ("pstatus", "404"),
    ]);
    let init = || put(RequestCredentials::SameOrigin, &[("X-Test", "1")]);
    assert_eq!(
        setup.cors_error(&url, init()).await,
        "the CORS-preflight response (OPTIONS for PUT) has status 404, not an ok status (200 \
         to 299): the server must answer the OPTIONS request with a 2xx status"
    );
    let url = setup.api_url(&[("pstatus", "302"), ("redirect", "/elsewhere")]);
    assert_eq!(
        setup.cors_error(&url, init()).await,
        format!(
            "the CORS-preflight response (OPTIONS for PUT) has status 302, not an ok status \
             (200 to 299): the server must answer the OPTIONS request with a 2xx status, as a \
             preflight's redirect is not followed; and the response has no \
             Access-Control-Allow-Origin header, so origin {origin} may not read it: the \
             server must send \"Access-Control-Allow-Origin: {origin}\" (or \"*\")"
        )
    );
}

#[tokio::test]
async fn a_preflight_that_fails_the_cors_check_says_it_was_the_preflight() {
    let setup = setup().await;
    let origin = setup.origin();
    let url = setup.api_url(&[("acam", "PUT"), ("acah", "x-test")]);
    assert_eq!(
        setup
            .cors_error(
                &url,
                put(RequestCredentials::SameOrigin, &[("X-Test", "1")])
            )
            .await,
        format!(
            "the CORS-preflight response (OPTIONS for PUT) fails the CORS check: the \
             response has no Access-Control-Allow-Origin header, so origin {origin} may not \
             read it: the server must send \"Access-Control-Allow-Origin: {origin}\" (or \
             \"*\")"
        )
    );
}

#[tokio::test]
async fn a_method_the_preflight_does_not_allow_is_named() {
    let setup = setup().await;
    let origin = setup.origin();
    let init = || put(RequestCredentials::SameOrigin, &[]);
    let url = setup.api_url(&[("acao", &origin)]);
    assert_eq!(
        setup.cors_error(&url, init()).await,
        "the CORS-preflight response (OPTIONS for PUT) does not allow method PUT: it has no \
         Access-Control-Allow-Methods header; the server must send \
         \"Access-Control-Allow-Methods: PUT\""
    );
    let url = setup.api_url(&[("acao", &origin), ("acam", "GET, POST")]);
    assert_eq!(
        setup.cors_error(&url, init()).await,
        "the CORS-preflight response (OPTIONS for PUT) does not allow method PUT: \
         Access-Control-Allow-Methods is \"GET, POST\"; the server must list PUT"
    );
    let url = setup.api_url(&[("acao", &origin), ("acam", "put")]);
    assert!(
        setup
            .cors_error(&url, init())
            .await
            .ends_with("the server must list PUT (methods are compared case-sensitively)")
    );
    // "*" covers any method, but not with credentials.
    let url = setup.api_url(&[("acao", &origin), ("acac", "true"), ("acam", "*")]);
    assert_eq!(
        setup
            .cors_error(&url, put(RequestCredentials::Include, &[]))
            .await,
        "the CORS-preflight response (OPTIONS for PUT) does not allow method PUT: \
         Access-Control-Allow-Methods is \"*\", and \"*\" does not cover a request whose \
         credentials mode is \"include\"; the server must list PUT by name"
    );
    let response = setup.client.fetch(url.as_str(), init()).await.unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn a_header_the_preflight_does_not_allow_is_named() {
    let setup = setup().await;
    let origin = setup.origin();
    let init = || put(RequestCredentials::SameOrigin, &[("X-Test", "1")]);
    let url = setup.api_url(&[("acao", &origin), ("acam", "PUT")]);
    assert_eq!(
        setup.cors_error(&url, init()).await,
        "the CORS-preflight response (OPTIONS for PUT) does not allow header x-test: it has \
         no Access-Control-Allow-Headers header; the server must send \
         \"Access-Control-Allow-Headers: x-test\""
    );
    let url = setup.api_url(&[("acao", &origin), ("acam", "PUT"), ("acah", "x-other")]);
    assert_eq!(
        setup.cors_error(&url, init()).await,
        "the CORS-preflight response (OPTIONS for PUT) does not allow header x-test: \
         Access-Control-Allow-Headers is \"x-other\"; the server must list x-test"
    );
    let url = setup.api_url(&[
        ("acao", &origin),
        ("acac", "true"),
        ("acam", "PUT"),
        ("acah", "*"),
    ]);
    assert_eq!(
        setup
            .cors_error(&url, put(RequestCredentials::Include, &[("X-Test", "1")]))
            .await,
        "the CORS-preflight response (OPTIONS for PUT) does not allow header x-test: \
         Access-Control-Allow-Headers is \"*\", and \"*\" does not cover a request whose \
         credentials mode is \"include\"; the server must list x-test by name"
    );
    // Authorization is never covered by "*", credentials or not.
    let url = setup.api_url(&[("acao", &origin), ("acam", "PUT"), ("acah", "*")]);
    assert_eq!(
        setup
            .cors_error(
                &url,
                put(
                    RequestCredentials::SameOrigin,
                    &[("Authorization", "Bearer t")]
                )
            )
            .await,
        "the CORS-preflight response (OPTIONS for PUT) does not allow header Authorization: \
         Access-Control-Allow-Headers is \"*\"; the server must list Authorization by name, \
         as \"*\" never covers it"
    );
}

#[tokio::test]
async fn an_allow_methods_header_that_does_not_parse_is_quoted() {
    let setup = setup().await;
    let origin = setup.origin();
    let url = setup.api_url(&[("acao", &origin), ("acam", "PUT, (all)")]);
    assert_eq!(
        setup
            .cors_error(&url, put(RequestCredentials::SameOrigin, &[]))
            .await,
        "the CORS-preflight response (OPTIONS for PUT) has an Access-Control-Allow-Methods \
         header that does not parse as a comma-separated list of methods: \"PUT, (all)\""
    );
}

#[tokio::test]
async fn a_huge_allow_origin_from_the_server_is_cut_in_the_message() {
    let setup = setup().await;
    let huge = format!("http://{}.example", "a".repeat(20_000));
    let message = setup
        .cors_error(&setup.api_url(&[("acao", &huge)]), RequestInit::default())
        .await;
    assert!(message.len() < 400, "{} bytes", message.len());
    assert!(
        message.starts_with(&format!(
            "Access-Control-Allow-Origin is \"http://{}",
            "a".repeat(100)
        )),
        "{message}"
    );
    assert!(message.contains("…, not the request's origin"), "{message}");
}
