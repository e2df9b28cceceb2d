//! The client options a reqwest user reaches for: default headers, redirect policies and
//! `https_only`, each against a server on 127.0.0.1.

mod net_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use net_support::*;
use whatwg_fetch::header::{ACCEPT, HeaderMap, HeaderValue};
use whatwg_fetch::{Client, NetworkError, RequestRedirect, redirect};

/// A server echoing the request head at `/echo`, and at `/hop/N` redirecting (302) to
/// `/hop/N-1`, `/hop/0` to `/echo`; at the paths of [`UNFOLLOWABLE`], redirecting to their
/// `Location`.
async fn server() -> Server {
    hyper_server(|request| async move {
        let path = request.uri().path().to_owned();
        if let Some((_, location)) = UNFOLLOWABLE.iter().find(|(at, _)| *at == path) {
            return http::Response::builder()
                .status(302)
                .header("location", *location)
                .body(full(""))
                .unwrap();
        }
        if let Some(n) = path.strip_prefix("/hop/") {
            let n: u32 = n.parse().unwrap();
            let next = if n == 0 {
                "/echo".to_owned()
            } else {
                format!("/hop/{}", n - 1)
            };
            return http::Response::builder()
                .status(302)
                .header("location", next)
                .body(full(""))
                .unwrap();
        }
        http::Response::new(full(request_head_text(&request)))
    })
    .await
}

/// Redirects that fetch cannot follow, by the path that answers them: to a URL whose scheme
/// is not an HTTP(S) scheme (HTTP-redirect fetch step 6), and to a `Location` that is no URL
/// (step 5).
const UNFOLLOWABLE: [(&str, &str); 2] = [
    ("/bad-scheme", "htt://example.test/next"),
    ("/unparsable", "http://[::1/next"),
];

async fn text(client: &Client, url: &str) -> Result<String, whatwg_fetch::Error> {
    let mut response = tokio::time::timeout(Duration::from_secs(20), client.get(url).send())
        .await
        .expect("the fetch ends")?;
    response.text().await
}

#[tokio::test]
async fn default_headers_go_on_every_request_that_lacks_them() {
    let server = server().await;
    let mut defaults = HeaderMap::new();
    defaults.insert(ACCEPT, HeaderValue::from_static("application/json"));
    defaults.append("x-team", HeaderValue::from_static("a"));
    defaults.append("x-team", HeaderValue::from_static("b"));
    let client = Client::builder().default_headers(defaults).build().unwrap();

    let head = text(&client, &server.url("/echo")).await.unwrap();
    assert!(head.contains("accept: application/json\n"), "{head}");
    // Every value of a name.
    assert!(
        head.contains("x-team: a, b\n") || head.contains("x-team: a\nx-team: b\n"),
        "{head}"
    );

    // A request's own header of the name wins; the others still come.
    let mut response = client
        .get(server.url("/echo"))
        .header(ACCEPT, "text/plain")
        .send()
        .await
        .unwrap();
    let head = response.text().await.unwrap();
    assert!(head.contains("accept: text/plain\n"), "{head}");
    assert!(!head.contains("application/json"), "{head}");
    assert!(head.contains("x-team"), "{head}");

    // After a redirect too (they are the request's headers from the start).
    let head = text(&client, &server.url("/hop/2")).await.unwrap();
    assert!(head.contains("accept: application/json\n"), "{head}");
}

#[tokio::test]
async fn a_browser_like_clients_default_headers_follow_the_headers_rules() {
    let server = server().await;
    let mut defaults = HeaderMap::new();
    // A forbidden request-header: left out, as `Headers.append` leaves it out.
    defaults.insert("cookie", HeaderValue::from_static("a=b"));
    defaults.insert("x-ok", HeaderValue::from_static("1"));
    let client = Client::builder()
        .origin(server.url("/").parse().unwrap())
        .default_headers(defaults)
        .build()
        .unwrap();
    let head = text(&client, &server.url("/echo")).await.unwrap();
    assert!(!head.contains("cookie: a=b"), "{head}");
    assert!(head.contains("x-ok: 1\n"), "{head}");
}

#[tokio::test]
async fn a_limited_policy_follows_its_limit_and_fails_the_next() {
    let server = server().await;
    let client = Client::builder()
        .redirect(redirect::Policy::limited(3))
        .build()
        .unwrap();
    // /hop/2 → /hop/1 → /hop/0 → /echo: three redirects.
    assert!(text(&client, &server.url("/hop/2")).await.is_ok());
    // Four.
    let error = text(&client, &server.url("/hop/3")).await.unwrap_err();
    assert!(error.is_redirect(), "{error:#}");
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::TooManyRedirects { max: 3 })
        ),
        "{error:#}"
    );
    assert!(
        error.to_string().contains("more than 3 redirects"),
        "{error}"
    );

    // The spec's 20 is not a ceiling for a policy: 30 followed.
    let many = Client::builder()
        .redirect(redirect::Policy::limited(300))
        .build()
        .unwrap();
    assert!(text(&many, &server.url("/hop/29")).await.is_ok());
    // And the default is the spec's 20.
    let error = text(&Client::builder().build().unwrap(), &server.url("/hop/20"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::TooManyRedirects { max: 20 })
        ),
        "{error:#}"
    );
}

#[tokio::test]
async fn policy_none_hands_back_the_redirect_response() {
    let server = server().await;
    let client = Client::builder()
        .redirect(redirect::Policy::none())
        .build()
        .unwrap();
    let response = client.get(server.url("/hop/1")).send().await.unwrap();
    assert_eq!(response.status(), 302);
    assert_eq!(
        response.headers().get("location").unwrap().as_deref(),
        Some("/hop/0")
    );
    assert!(!response.redirected());

    // Browser-like: an opaque-redirect filtered response, as with redirect mode "manual".
    let page = Client::builder()
        .origin(server.url("/").parse().unwrap())
        .redirect(redirect::Policy::none())
        .build()
        .unwrap();
    let response = page.get(server.url("/hop/1")).send().await.unwrap();
    assert_eq!(response.status(), 0);
    assert_eq!(
        response.r#type(),
        whatwg_fetch::ResponseType::OpaqueRedirect
    );
}

#[tokio::test]
async fn a_custom_policy_sees_each_redirect_and_follows_stops_or_fails() {
    let server = server().await;
    let asked = Arc::new(AtomicUsize::new(0));
    let seen = asked.clone();
    let client = Client::builder()
        .redirect(redirect::Policy::custom(move |attempt| {
            seen.fetch_add(1, Ordering::SeqCst);
            assert_eq!(attempt.status(), 302);
            match attempt.url().path() {
                "/hop/0" => attempt.stop(),
                "/hop/5" => attempt.error("no hop 5"),
                _ => attempt.follow(),
            }
        }))
        .build()
        .unwrap();
    // /hop/2 → /hop/1 (followed) → /hop/0 (stopped): the 302 of /hop/1.
    let response = client.get(server.url("/hop/2")).send().await.unwrap();
    assert_eq!(response.status(), 302);
    assert_eq!(response.url(), server.url("/hop/1"));
    assert!(response.redirected());
    assert_eq!(asked.load(Ordering::SeqCst), 2);

    let error = text(&client, &server.url("/hop/6")).await.unwrap_err();
    assert!(error.is_redirect(), "{error:#}");
    let Some(NetworkError::RedirectPolicy(cause)) = error.network_error() else {
        panic!("not a redirect policy error: {error:#}");
    };
    assert_eq!(cause.to_string(), "no hop 5");
    assert!(format!("{error:#}").ends_with(": no hop 5"), "{error:#}");
}

#[tokio::test]
async fn a_policy_that_always_follows_stops_at_the_ceiling() {
    // A server that redirects forever.
    let server = hyper_server(|request| async move {
        let n: u64 = request
            .uri()
            .path()
            .trim_start_matches('/')
            .parse()
            .unwrap_or(0);
        http::Response::builder()
            .status(302)
            .header("location", format!("/{}", n + 1))
            .body(full(""))
            .unwrap()
    })
    .await;
    let client = Client::builder()
        .redirect(redirect::Policy::custom(|attempt| attempt.follow()))
        .build()
        .unwrap();
    let error = tokio::time::timeout(Duration::from_secs(60), client.get(server.url("/0")).send())
        .await
        .expect("the fetch ends")
        .unwrap_err();
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::TooManyRedirects {
                max: redirect::MAX_REDIRECTS
            })
        ),
        "{error:#}"
    );
    assert!(
        error.to_string().contains("more than 30 redirects"),
        "{error}"
    );
}

#[tokio::test]
async fn a_requests_redirect_mode_rules_before_the_policy() {
    let server = server().await;
    let client = Client::builder()
        .redirect(redirect::Policy::custom(|_| panic!("never asked")))
        .build()
        .unwrap();
    let error = client
        .get(server.url("/hop/0"))
        .redirect(RequestRedirect::Error)
        .send()
        .await
        .unwrap_err();
    assert!(
        matches!(error.network_error(), Some(NetworkError::RedirectRefused)),
        "{error:#}"
    );
    let response = client
        .get(server.url("/hop/0"))
        .redirect(RequestRedirect::Manual)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 302);
}

#[tokio::test]
async fn a_policy_that_stops_returns_the_redirect_whatever_its_location_says() {
    let server = server().await;
    let none = Client::builder()
        .redirect(redirect::Policy::none())
        .build()
        .unwrap();
    for (path, location) in UNFOLLOWABLE {
        // `Policy::none()` hands back the redirect response as redirect mode "manual" does.
        let answers = [
            none.get(server.url(path)).send().await,
            Client::new()
                .get(server.url(path))
                .redirect(RequestRedirect::Manual)
                .send()
                .await,
        ];
        for response in answers {
            let response = response.unwrap_or_else(|error| panic!("{path}: {error:#}"));
            assert_eq!(response.status(), 302, "{path}");
            assert_eq!(
                response.headers().get("location").unwrap().as_deref(),
                Some(location),
                "{path}"
            );
        }
    }
}

#[tokio::test]
async fn a_custom_policy_is_asked_about_a_location_of_any_scheme() {
    let server = server().await;
    let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = Client::builder()
        .redirect(redirect::Policy::custom(move |attempt| {
            seen.lock().unwrap().push(attempt.url().to_string());
            match attempt.url().host_str() {
                Some("stop.test") => attempt.stop(),
                Some("refuse.test") => attempt.error("not there"),
                _ => attempt.follow(),
            }
        }))
        .build()
        .unwrap();
    // The attempt is the URL the `Location` names, scheme and all; followed, fetch refuses
    // it (HTTP-redirect fetch step 6).
    let error = text(&client, &server.url("/bad-scheme")).await.unwrap_err();
    assert!(
        matches!(error.network_error(), Some(NetworkError::UnsupportedScheme(scheme)) if scheme == "htt"),
        "{error:#}"
    );
    assert_eq!(*asked.lock().unwrap(), ["htt://example.test/next"]);

    // A `Location` that is no URL is no attempt: the fetch fails as the spec's step 5 has
    // it, and the policy is not asked.
    asked.lock().unwrap().clear();
    let error = text(&client, &server.url("/unparsable")).await.unwrap_err();
    assert!(error.is_redirect(), "{error:#}");
    assert!(
        matches!(error.network_error(), Some(NetworkError::InvalidLocation(location)) if location == "http://[::1/next"),
        "{error:#}"
    );
    assert!(asked.lock().unwrap().is_empty());

    // Stopped or refused, whatever the scheme.
    let server = hyper_server(|request| async move {
        let location = match request.uri().path() {
            "/stop" => "htt://stop.test/",
            _ => "htt://refuse.test/",
        };
        http::Response::builder()
            .status(301)
            .header("location", location)
            .body(full(""))
            .unwrap()
    })
    .await;
    let response = client.get(server.url("/stop")).send().await.unwrap();
    assert_eq!(response.status(), 301);
    let error = text(&client, &server.url("/refuse")).await.unwrap_err();
    assert!(
        matches!(error.network_error(), Some(NetworkError::RedirectPolicy(_))),
        "{error:#}"
    );
}

#[tokio::test]
async fn a_limited_policy_keeps_the_specs_checks_of_the_location() {
    let server = server().await;
    for client in [
        Client::new(),
        Client::builder()
            .redirect(redirect::Policy::limited(3))
            .build()
            .unwrap(),
    ] {
        let error = text(&client, &server.url("/bad-scheme")).await.unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::UnsupportedScheme(scheme)) if scheme == "htt"),
            "{error:#}"
        );
        let error = text(&client, &server.url("/unparsable")).await.unwrap_err();
        assert!(
            matches!(
                error.network_error(),
                Some(NetworkError::InvalidLocation(_))
            ),
            "{error:#}"
        );
    }
}

/// `no_proxy` forgets the proxies given before it: the request goes to its server, in
/// origin form, where through the proxy it went in absolute form.
#[tokio::test]
async fn no_proxy_forgets_the_proxies_given_before_it() {
    let server = server().await;
    let proxy = || whatwg_fetch::Proxy::all(&server.url("")).unwrap();
    let url = "http://origin.test/echo";
    let proxied = Client::builder().proxy(proxy()).build().unwrap();
    let head = text(&proxied, url).await.unwrap();
    assert!(head.starts_with("GET http://origin.test/echo\n"), "{head}");
    let direct = Client::builder()
        .proxy(proxy())
        .no_proxy()
        .resolve("origin.test", server.addr)
        .build()
        .unwrap();
    let head = text(&direct, url).await.unwrap();
    assert!(head.starts_with("GET /echo\n"), "{head}");
    // A proxy given after it is used.
    let again = Client::builder().no_proxy().proxy(proxy()).build().unwrap();
    let head = text(&again, url).await.unwrap();
    assert!(head.starts_with("GET http://origin.test/echo\n"), "{head}");
}

/// `resolve_to_addrs` on the client: the addresses are tried in turn, the URL's port kept
/// for port 0; an empty list is a DNS error.
#[tokio::test]
async fn resolve_to_addrs_sends_a_host_to_its_addresses_in_turn() {
    let server = server().await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let local = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let client = Client::builder()
        .resolve_to_addrs("api.test", &[closed, local])
        .resolve_to_addrs("nowhere.test", &[])
        .build()
        .unwrap();
    let url = format!("http://api.test:{}/echo", server.addr.port());
    let head = text(&client, &url).await.unwrap();
    assert!(head.starts_with("GET /echo\n"), "{head}");
    let error = text(&client, "http://nowhere.test/").await.unwrap_err();
    assert!(
        matches!(error.network_error(), Some(NetworkError::Dns(_))),
        "{error:?}"
    );
}

#[tokio::test]
async fn https_only_refuses_http_urls() {
    let server = server().await;
    let client = Client::builder().https_only(true).build().unwrap();
    let error = text(&client, &server.url("/echo")).await.unwrap_err();
    assert!(
        matches!(error.network_error(), Some(NetworkError::Blocked(_))),
        "{error:#}"
    );
    // Not reached by a redirect: a request error, not a redirect one.
    assert!(error.is_request() && !error.is_redirect(), "{error:#}");
    assert!(error.to_string().contains("https_only"), "{error}");
    // data: URLs are not network requests.
    assert_eq!(text(&client, "data:,hi").await.unwrap(), "hi");
}

#[tokio::test]
async fn https_only_refuses_a_redirect_to_http_as_a_redirect_error() {
    let server = server().await;
    let pki = TestPki::new(&["localhost"]);
    let plain = server.url("/echo");
    let tls = tls_server(pki.acceptor(&[b"http/1.1"]), move |request| {
        let plain = plain.clone();
        async move {
            match request.uri().path() {
                "/down" => http::Response::builder()
                    .status(302)
                    .header("location", plain)
                    .body(full(""))
                    .unwrap(),
                _ => http::Response::new(full("secure")),
            }
        }
    })
    .await;
    let port = tls.addr.port();
    let client = Client::builder()
        .https_only(true)
        .add_root_certificates_pem(pki.ca_pem.clone())
        .resolve("localhost", tls.addr)
        .build()
        .unwrap();
    assert_eq!(
        text(&client, &format!("https://localhost:{port}/"))
            .await
            .unwrap(),
        "secure"
    );
    let error = text(&client, &format!("https://localhost:{port}/down"))
        .await
        .unwrap_err();
    // reqwest's class for it: a redirect error.
    assert!(error.is_redirect() && !error.is_request(), "{error:#}");
    assert!(
        matches!(error.network_error(), Some(NetworkError::RedirectToHttp)),
        "{error:#}"
    );
    assert!(error.to_string().contains("https_only"), "{error}");
    assert_eq!(server.counts.accepts(), 0, "the plain URL was not fetched");
}

#[tokio::test]
async fn a_builder_error_is_a_builder_error_and_a_failed_send_a_request_error() {
    let client = Client::builder().build().unwrap();
    let error = client
        .get("http://127.0.0.1/")
        .header("bad name", "x")
        .send()
        .await
        .unwrap_err();
    assert!(error.is_builder() && !error.is_request(), "{error:#}");
    let error = client.get("not a url").send().await.unwrap_err();
    assert!(error.is_builder(), "{error:#}");
    let dead = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let error = text(&client, &format!("http://{dead}/")).await.unwrap_err();
    assert!(
        error.is_request() && error.is_connect() && !error.is_builder(),
        "{error:#}"
    );
}

/// `data` gzip-encoded.
async fn gzip(data: &[u8]) -> Vec<u8> {
    use tokio::io::AsyncWriteExt;
    let mut encoder = async_compression::tokio::write::GzipEncoder::new(Vec::new());
    encoder.write_all(data).await.unwrap();
    encoder.shutdown().await.unwrap();
    encoder.into_inner()
}

#[tokio::test]
async fn a_coding_turned_off_is_neither_asked_for_nor_decoded() {
    let encoded = gzip(b"decoded text").await;
    let body = encoded.clone();
    // Answers gzip whatever it was asked, and says in a header what it was asked.
    let server = hyper_server(move |request| {
        let body = body.clone();
        async move {
            let asked = request
                .headers()
                .get("accept-encoding")
                .and_then(|value| value.to_str().ok())
                .unwrap_or("")
                .to_owned();
            http::Response::builder()
                .header("content-encoding", "gzip")
                .header("x-asked", asked)
                .body(full(body))
                .unwrap()
        }
    })
    .await;

    let on = Client::builder().build().unwrap();
    let mut response = on.get(server.url("/")).send().await.unwrap();
    assert_eq!(
        response.headers().get("x-asked").unwrap().as_deref(),
        Some("gzip, deflate, br, zstd")
    );
    assert_eq!(response.text().await.unwrap(), "decoded text");

    let off = Client::builder().gzip(false).brotli(false).build().unwrap();
    let mut response = off.get(server.url("/")).send().await.unwrap();
    assert_eq!(
        response.headers().get("x-asked").unwrap().as_deref(),
        Some("deflate, zstd")
    );
    // Sent gzip anyway: the body comes as sent, its Content-Encoding saying what it is.
    assert_eq!(response.bytes().await.unwrap(), encoded);

    let none = Client::builder()
        .gzip(false)
        .deflate(false)
        .brotli(false)
        .zstd(false)
        .build()
        .unwrap();
    let response = none.get(server.url("/")).send().await.unwrap();
    assert_eq!(
        response.headers().get("x-asked").unwrap().as_deref(),
        Some("identity")
    );
}
