//! Fetch Metadata request headers (`Sec-Fetch-Dest`, `Sec-Fetch-Mode`, `Sec-Fetch-Site`,
//! `Sec-Fetch-User`) on the wire: a browser-like client sends them to potentially
//! trustworthy URLs, on every hop of a redirect chain and on CORS preflights; a server-side
//! client never does.
//!
//! Every host name resolves to 127.0.0.1: `a.test` is the page's host, `www.a.test` the same
//! site, `b.test` another site. One HTTPS server (a certificate for all three, from a test CA
//! made here) and one plain HTTP server record what they receive.

mod net_support;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use net_support::{ServerBody, TestPki, full, hyper_server};
use whatwg_fetch::{Client, HeadersInit, RequestInit, RequestMode, RequestRedirect};

/// What a server received: one request head.
#[derive(Clone, Debug)]
struct Recorded {
    method: String,
    host: String,
    path: String,
    headers: http::HeaderMap,
}

impl Recorded {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .map(|value| value.to_str().expect("an ASCII header value"))
    }

    /// (`Sec-Fetch-Dest`, `Sec-Fetch-Mode`, `Sec-Fetch-Site`, `Sec-Fetch-User`).
    fn metadata(&self) -> [Option<&str>; 4] {
        [
            self.header("sec-fetch-dest"),
            self.header("sec-fetch-mode"),
            self.header("sec-fetch-site"),
            self.header("sec-fetch-user"),
        ]
    }

    fn has_no_metadata(&self) -> bool {
        self.headers
            .keys()
            .all(|name| !name.as_str().starts_with("sec-fetch-"))
    }
}

type Log = Arc<Mutex<Vec<Recorded>>>;

/// Records the request, then answers: OPTIONS with a preflight allowing anything;
/// `/redirect?to=URL` with a 302 to the percent-decoded URL; anything else with `ok`. Every
/// response allows the request's `Origin` (`null` included) with credentials.
async fn recording_routes(request: HyperRequest<Incoming>, log: Log) -> HyperResponse<ServerBody> {
    let host = request
        .headers()
        .get("host")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    log.lock().unwrap().push(Recorded {
        method: request.method().to_string(),
        host,
        path: request.uri().path().to_owned(),
        headers: request.headers().clone(),
    });
    let mut builder = HyperResponse::builder().header("access-control-allow-credentials", "true");
    if let Some(origin) = request.headers().get("origin") {
        builder = builder.header("access-control-allow-origin", origin);
    }
    if request.method() == http::Method::OPTIONS {
        return builder
            .status(204)
            .header("access-control-allow-methods", "*")
            .header("access-control-allow-headers", "*")
            .body(full(""))
            .unwrap();
    }
    if request.uri().path() == "/redirect" {
        let query = request.uri().query().unwrap_or_default();
        let to = query.strip_prefix("to=").expect("/redirect?to=URL");
        let location = percent_encoding::percent_decode_str(to)
            .decode_utf8()
            .unwrap()
            .into_owned();
        return builder
            .status(302)
            .header("location", location)
            .body(full(""))
            .unwrap();
    }
    builder.body(full("ok")).unwrap()
}

/// A CA and a certificate it signs for the test hosts.
fn pki() -> TestPki {
    TestPki::new(&["a.test", "www.a.test", "b.test"])
}

/// An HTTPS (HTTP/1.1) server on 127.0.0.1 running [`recording_routes`] into `log`.
async fn https_server(pki: &TestPki, log: Log) -> SocketAddr {
    let server = net_support::tls_server(pki.acceptor(&[b"http/1.1"]), move |request| {
        recording_routes(request, log.clone())
    })
    .await;
    server.addr
}

struct Setup {
    pki: TestPki,
    log: Log,
    /// The HTTPS server's port.
    https: u16,
    /// The plain HTTP server's port.
    http: u16,
}

impl Setup {
    async fn new() -> Setup {
        let pki = pki();
        let log = Log::default();
        let https = https_server(&pki, log.clone()).await.port();
        let http_log = log.clone();
        let http = hyper_server(move |request| recording_routes(request, http_log.clone()))
            .await
            .addr
            .port();
        Setup {
            pki,
            log,
            https,
            http,
        }
    }

    /// `https://{host}:{port}{path}` on the HTTPS server.
    fn https_url(&self, host: &str, path: &str) -> String {
        format!("https://{host}:{}{path}", self.https)
    }

    /// `http://{host}:{port}{path}` on the plain HTTP server.
    fn http_url(&self, host: &str, path: &str) -> String {
        format!("http://{host}:{}{path}", self.http)
    }

    /// A client resolving every host to 127.0.0.1 and trusting the test CA, in a
    /// browser-like environment at `page` if given, else server-side.
    fn client(&self, page: Option<&str>) -> Client {
        let local = SocketAddr::from(([127, 0, 0, 1], 0));
        let mut builder = Client::builder()
            .resolve_with(move |_| Some(vec![local]))
            .tls_built_in_roots(false)
            .add_root_certificates_pem(self.pki.ca_pem.as_bytes());
        if let Some(page) = page {
            builder = builder.origin(page.parse().unwrap());
        }
        builder.build().unwrap()
    }

    /// A browser-like client for a page at `https://a.test`.
    fn page_client(&self) -> Client {
        self.client(Some(&self.https_url("a.test", "/page.html")))
    }

    /// Fetches `url` with `init` and checks the response is `ok`.
    async fn fetch(&self, client: &Client, url: &str, init: RequestInit) {
        let response = client.fetch(url, init).await.unwrap();
        assert!(
            response.ok() || response.status() == 0,
            "{url}: status {}",
            response.status()
        );
    }

    /// Everything the servers received, in order.
    fn recorded(&self) -> Vec<Recorded> {
        self.log.lock().unwrap().clone()
    }

    /// The only request the servers received.
    fn only_request(&self) -> Recorded {
        let recorded = self.recorded();
        assert_eq!(recorded.len(), 1, "{recorded:#?}");
        recorded.into_iter().next().unwrap()
    }
}

/// `/redirect?to=` followed by `url`, percent-encoded.
fn redirect_to(url: &str) -> String {
    let to = percent_encoding::utf8_percent_encode(url, percent_encoding::NON_ALPHANUMERIC);
    format!("/redirect?to={to}")
}

fn mode(mode: RequestMode) -> RequestInit {
    RequestInit {
        mode: Some(mode),
        ..Default::default()
    }
}

#[tokio::test]
async fn same_origin_fetch_is_same_origin_with_destination_empty() {
    let setup = Setup::new().await;
    let client = setup.page_client();
    let url = setup.https_url("a.test", "/echo");
    setup.fetch(&client, &url, RequestInit::default()).await;
    let request = setup.only_request();
    assert_eq!(
        request.metadata(),
        [Some("empty"), Some("cors"), Some("same-origin"), None]
    );
}

#[tokio::test]
async fn same_site_fetch_is_same_site() {
    let setup = Setup::new().await;
    let client = setup.page_client();
    let url = setup.https_url("www.a.test", "/echo");
    setup.fetch(&client, &url, RequestInit::default()).await;
    assert_eq!(
        setup.only_request().metadata(),
        [Some("empty"), Some("cors"), Some("same-site"), None]
    );
}

#[tokio::test]
async fn cross_site_fetch_is_cross_site() {
    let setup = Setup::new().await;
    let client = setup.page_client();
    let url = setup.https_url("b.test", "/echo");
    setup.fetch(&client, &url, RequestInit::default()).await;
    assert_eq!(
        setup.only_request().metadata(),
        [Some("empty"), Some("cors"), Some("cross-site"), None]
    );
}

#[tokio::test]
async fn sec_fetch_mode_is_the_request_mode() {
    let setup = Setup::new().await;
    let client = setup.page_client();
    let url = setup.https_url("a.test", "/echo");
    for request_mode in [
        RequestMode::SameOrigin,
        RequestMode::NoCors,
        RequestMode::Cors,
    ] {
        setup.fetch(&client, &url, mode(request_mode)).await;
    }
    let modes: Vec<_> = setup
        .recorded()
        .iter()
        .map(|request| request.header("sec-fetch-mode").map(str::to_owned))
        .collect();
    assert_eq!(
        modes,
        [Some("same-origin"), Some("no-cors"), Some("cors")].map(|mode| mode.map(str::to_owned))
    );
    for request in setup.recorded() {
        assert_eq!(request.header("sec-fetch-dest"), Some("empty"));
        assert_eq!(request.header("sec-fetch-site"), Some("same-origin"));
        assert_eq!(request.header("sec-fetch-user"), None);
    }
}

#[tokio::test]
async fn a_trailing_dot_host_is_another_site() {
    let setup = Setup::new().await;
    let client = setup.page_client();
    for host in ["a.test.", "www.a.test."] {
        let url = setup.https_url(host, "/echo");
        setup.fetch(&client, &url, RequestInit::default()).await;
    }
    let recorded = setup.recorded();
    assert_eq!(recorded.len(), 2, "{recorded:#?}");
    for request in recorded {
        assert_eq!(
            request.header("sec-fetch-site"),
            Some("cross-site"),
            "{}",
            request.host
        );
    }
}

#[tokio::test]
async fn each_hop_of_a_redirect_chain_describes_the_chain_so_far() {
    let setup = Setup::new().await;
    let client = setup.page_client();
    // a.test → b.test → a.test: the hop through another site makes the rest cross-site.
    let last = setup.https_url("a.test", "/echo");
    let middle = setup.https_url("b.test", &redirect_to(&last));
    let first = setup.https_url("a.test", &redirect_to(&middle));
    setup
        .fetch(&client, &first, mode(RequestMode::NoCors))
        .await;
    let sites: Vec<_> = setup
        .recorded()
        .iter()
        .map(|request| {
            (
                request.host.clone(),
                request.header("sec-fetch-site").unwrap().to_owned(),
            )
        })
        .collect();
    let port = setup.https;
    assert_eq!(
        sites,
        [
            (format!("a.test:{port}"), "same-origin".to_owned()),
            (format!("b.test:{port}"), "cross-site".to_owned()),
            (format!("a.test:{port}"), "cross-site".to_owned()),
        ]
    );
}

#[tokio::test]
async fn a_same_site_redirect_chain_is_same_site() {
    let setup = Setup::new().await;
    let client = setup.page_client();
    // a.test → www.a.test → a.test, in CORS mode.
    let last = setup.https_url("a.test", "/echo");
    let middle = setup.https_url("www.a.test", &redirect_to(&last));
    let first = setup.https_url("a.test", &redirect_to(&middle));
    setup.fetch(&client, &first, RequestInit::default()).await;
    let sites: Vec<_> = setup
        .recorded()
        .iter()
        .map(|request| request.header("sec-fetch-site").map(str::to_owned))
        .collect();
    assert_eq!(
        sites,
        [Some("same-origin"), Some("same-site"), Some("same-site")]
            .map(|site| site.map(str::to_owned))
    );
    for request in setup.recorded() {
        assert_eq!(request.header("sec-fetch-mode"), Some("cors"));
    }
}

#[tokio::test]
async fn a_redirect_through_plain_http_sends_nothing_there_and_cross_site_after() {
    let setup = Setup::new().await;
    // A page on plain http: it does not restrict mixed content (from an https page, the
    // redirect to http would be blocked; see below).
    let client = setup.client(Some(&setup.http_url("a.test", "/page.html")));
    // https://a.test → http://a.test → https://a.test.
    let last = setup.https_url("a.test", "/echo");
    let middle = setup.http_url("a.test", &redirect_to(&last));
    let first = setup.https_url("a.test", &redirect_to(&middle));
    setup
        .fetch(&client, &first, mode(RequestMode::NoCors))
        .await;
    let recorded = setup.recorded();
    let paths: Vec<_> = recorded
        .iter()
        .map(|request| request.path.as_str())
        .collect();
    assert_eq!(paths, ["/redirect", "/redirect", "/echo"]);
    // https://a.test is another site than the page's http://a.test: the scheme counts.
    assert_eq!(recorded[0].header("sec-fetch-site"), Some("cross-site"));
    // Plain http to a host that is not loopback is not potentially trustworthy.
    assert!(recorded[1].has_no_metadata(), "{:#?}", recorded[1]);
    // Once a hop was cross-site, the rest of the chain is.
    assert_eq!(
        recorded[2].metadata(),
        [Some("empty"), Some("no-cors"), Some("cross-site"), None]
    );
}

#[tokio::test]
async fn a_secure_page_does_not_follow_a_redirect_to_plain_http() {
    let setup = Setup::new().await;
    let client = setup.page_client();
    let last = setup.http_url("a.test", "/echo");
    let first = setup.https_url("a.test", &redirect_to(&last));
    let error = client
        .fetch(first.as_str(), mode(RequestMode::NoCors))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), whatwg_fetch::ErrorKind::TypeError);
    // Mixed content is blocked before anything is sent.
    let recorded = setup.recorded();
    assert_eq!(recorded.len(), 1, "{recorded:#?}");
    assert_eq!(recorded[0].path, "/redirect");
}

#[tokio::test]
async fn cors_preflight_carries_the_metadata_headers() {
    let setup = Setup::new().await;
    let client = setup.page_client();
    let url = setup.https_url("b.test", "/echo");
    let init = RequestInit {
        headers: Some(HeadersInit::from([("x-test", "testing")])),
        ..Default::default()
    };
    setup.fetch(&client, &url, init).await;
    let recorded = setup.recorded();
    assert_eq!(recorded.len(), 2, "{recorded:#?}");
    assert_eq!(recorded[0].method, "OPTIONS");
    assert_eq!(
        recorded[0].metadata(),
        [Some("empty"), Some("cors"), Some("cross-site"), None]
    );
    assert_eq!(recorded[1].method, "GET");
    assert_eq!(
        recorded[1].metadata(),
        [Some("empty"), Some("cors"), Some("cross-site"), None]
    );
}

#[tokio::test]
async fn plain_http_gets_no_metadata_but_loopback_does() {
    let setup = Setup::new().await;
    // A page on plain http fetching from its own origin: not potentially trustworthy.
    let page = setup.http_url("a.test", "/page.html");
    let client = setup.client(Some(&page));
    let url = setup.http_url("a.test", "/echo");
    setup.fetch(&client, &url, RequestInit::default()).await;
    let request = setup.only_request();
    assert!(request.has_no_metadata(), "{request:#?}");
    // Plain http to a loopback address is potentially trustworthy.
    setup.log.lock().unwrap().clear();
    let url = format!("http://127.0.0.1:{}/echo", setup.http);
    setup.fetch(&client, &url, RequestInit::default()).await;
    assert_eq!(
        setup.only_request().metadata(),
        [Some("empty"), Some("cors"), Some("cross-site"), None]
    );
}

#[tokio::test]
async fn a_server_side_client_sends_no_metadata() {
    let setup = Setup::new().await;
    let client = setup.client(None);
    for url in [
        setup.https_url("a.test", "/echo"),
        setup.https_url("b.test", &redirect_to(&setup.https_url("a.test", "/echo"))),
        format!("http://127.0.0.1:{}/echo", setup.http),
    ] {
        setup.fetch(&client, &url, RequestInit::default()).await;
    }
    let recorded = setup.recorded();
    assert_eq!(recorded.len(), 4, "{recorded:#?}");
    for request in recorded {
        assert!(request.has_no_metadata(), "{request:#?}");
    }
}

#[tokio::test]
async fn a_server_side_client_sends_its_own_sec_fetch_headers_unchanged() {
    let setup = Setup::new().await;
    let client = setup.client(None);
    let init = RequestInit {
        headers: Some(HeadersInit::from([("sec-fetch-mode", "navigate")])),
        redirect: Some(RequestRedirect::Follow),
        ..Default::default()
    };
    let url = setup.https_url("a.test", "/echo");
    setup.fetch(&client, &url, init).await;
    let request = setup.only_request();
    assert_eq!(request.header("sec-fetch-mode"), Some("navigate"));
    assert_eq!(request.header("sec-fetch-site"), None);
}

#[tokio::test]
async fn a_page_cannot_set_sec_fetch_headers() {
    let setup = Setup::new().await;
    let client = setup.page_client();
    let init = RequestInit {
        headers: Some(HeadersInit::from([
            ("sec-fetch-site", "none"),
            ("sec-fetch-user", "?1"),
        ])),
        ..Default::default()
    };
    let url = setup.https_url("b.test", "/echo");
    setup.fetch(&client, &url, init).await;
    // `Sec-` names are forbidden request-headers: dropped, then set by the fetch.
    assert_eq!(
        setup.only_request().metadata(),
        [Some("empty"), Some("cors"), Some("cross-site"), None]
    );
}
