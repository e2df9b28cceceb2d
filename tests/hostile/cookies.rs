//! Servers that flood the cookie store: many `Set-Cookie` headers per response, huge
//! cookies, many subdomains of one site. The store keeps to its limits (see
//! `whatwg_fetch::cookie`), the `Cookie` header it sends stays bounded, and the client
//! goes on working; `Response::cookies` lists at most one cookie per header.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use whatwg_fetch::cookie::CookieStore;
use whatwg_fetch::{Client, RequestInit};

use crate::net_support::{Server, full, hyper_server};

const TIME_LIMIT: Duration = Duration::from_secs(30);

/// The size of each cookie the flooding server sets: `r000c00=` and 20 bytes of value.
const FLOOD_PAIR_BYTES: usize = 28;

/// Serves `/flood/R` with 95 `Set-Cookie` headers (`rRRRcII=…; Path=/`), `/big/R` with one
/// cookie of 200 KiB (under the 256 KiB response head limit) and one small cookie `smallR=1`, `/edge` with a cookie of exactly
/// 4096 bytes of name and value; every response's body is the request's `Cookie` header.
/// Records the longest `Cookie` header it received.
async fn flooding_server(longest_cookie_header: Arc<AtomicUsize>) -> Server {
    hyper_server(move |request: HyperRequest<Incoming>| {
        let longest_cookie_header = longest_cookie_header.clone();
        async move {
            let path = request.uri().path().to_owned();
            let mut builder = HyperResponse::builder().header("content-type", "text/plain");
            if let Some(round) = path.strip_prefix("/flood/") {
                for i in 0..95 {
                    let cookie = format!("r{round:0>3}c{i:02}=0123456789abcdefghij; Path=/");
                    builder = builder.header("set-cookie", cookie);
                }
            } else if let Some(round) = path.strip_prefix("/big/") {
                let big = format!("big{round}={}; Path=/", "x".repeat(200 * 1024));
                builder = builder
                    .header("set-cookie", big)
                    .header("set-cookie", format!("small{round}=1; Path=/"));
            } else if path == "/edge" {
                // "e=" and 4095 bytes: 4096 of name and value, the most a cookie may have.
                builder = builder.header("set-cookie", format!("e={}", "v".repeat(4095)));
            }
            let cookie = request
                .headers()
                .get("cookie")
                .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
                .unwrap_or_default();
            longest_cookie_header.fetch_max(cookie.len(), Ordering::SeqCst);
            builder.body(full(cookie)).unwrap()
        }
    })
    .await
}

fn browser_client(server: &Server) -> Client {
    Client::builder()
        .origin(server.url("/").parse().unwrap())
        .build()
        .unwrap()
}

/// Fetches `path` and returns the `Cookie` header the server received.
async fn cookie_sent(client: &Client, server: &Server, path: &str) -> String {
    let mut response = client
        .fetch(server.url(path), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

fn store(client: &Client) -> &Arc<CookieStore> {
    client.cookie_store().unwrap()
}

#[tokio::test]
async fn a_flood_of_set_cookie_headers_keeps_the_store_and_the_cookie_header_bounded() {
    tokio::time::timeout(TIME_LIMIT, async {
        let longest = Arc::new(AtomicUsize::new(0));
        let server = flooding_server(longest.clone()).await;
        let client = browser_client(&server);
        let max_per_domain = store(&client).limits().max_per_domain;
        // 106 responses of 95 cookies each: 10,070 cookies offered to one site.
        for round in 0..106 {
            cookie_sent(&client, &server, &format!("/flood/{round}")).await;
            assert!(store(&client).len() <= max_per_domain, "round {round}");
        }
        // The next request carries at most the per-domain limit of cookies, the most
        // recently set ones.
        let sent = cookie_sent(&client, &server, "/echo").await;
        let pairs: Vec<&str> = sent.split("; ").collect();
        assert!(
            pairs.len() <= max_per_domain,
            "{} cookies sent",
            pairs.len()
        );
        assert!(pairs.contains(&"r105c94=0123456789abcdefghij"));
        assert!(!pairs.iter().any(|pair| pair.starts_with("r000")));
        let bound = max_per_domain * (FLOOD_PAIR_BYTES + 2);
        assert!(
            longest.load(Ordering::SeqCst) <= bound,
            "Cookie header over {bound}"
        );
        assert!(store(&client).stored_bytes() <= max_per_domain * (FLOOD_PAIR_BYTES + 32));
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_cookie_of_200_kib_is_ignored_and_not_retained() {
    tokio::time::timeout(TIME_LIMIT, async {
        let longest = Arc::new(AtomicUsize::new(0));
        let server = flooding_server(longest.clone()).await;
        let client = browser_client(&server);
        for round in 0..20 {
            cookie_sent(&client, &server, &format!("/big/{round}")).await;
            // Only the small cookies are kept: 7 or 8 bytes of name and value, "127.0.0.1"
            // and "/" each.
            let stored = store(&client).stored_bytes();
            assert!(
                stored <= (round + 1) * (8 + 9 + 1),
                "{stored} bytes after {round}"
            );
        }
        assert_eq!(store(&client).len(), 20);
        // The next request on the same client works and carries the small cookies only.
        let sent = cookie_sent(&client, &server, "/echo").await;
        assert_eq!(sent.split("; ").count(), 20);
        assert!(sent.split("; ").all(|pair| pair.starts_with("small")));
        assert!(longest.load(Ordering::SeqCst) < 1024);
        // 4096 bytes of name and value is still a cookie.
        cookie_sent(&client, &server, "/edge").await;
        assert_eq!(store(&client).len(), 21);
        let sent = cookie_sent(&client, &server, "/echo").await;
        assert!(sent.contains(&format!("e={}", "v".repeat(4095))));
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn subdomains_of_one_site_share_its_per_domain_limit() {
    tokio::time::timeout(TIME_LIMIT, async {
        let longest = Arc::new(AtomicUsize::new(0));
        let server = flooding_server(longest.clone()).await;
        // A server-side client with a cookie store, and 20 subdomains of flood.test all
        // answered by the same server.
        let mut builder = Client::builder().cookie_store(true);
        for host in 0..20 {
            builder = builder.resolve(&format!("h{host}.flood.test"), server.addr);
        }
        let client = builder.build().unwrap();
        let max_per_domain = store(&client).limits().max_per_domain;
        let port = server.addr.port();
        for host in 0..20 {
            let url = format!("http://h{host}.flood.test:{port}/flood/{host}");
            let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
            assert_eq!(response.status(), 200);
            response.text().await.unwrap();
        }
        // 1,900 host-only cookies, all of registrable domain flood.test.
        assert!(store(&client).len() <= max_per_domain);
        let url = format!("http://h19.flood.test:{port}/echo");
        let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
        assert_eq!(response.status(), 200);
        assert!(!response.text().await.unwrap().is_empty());
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn response_cookies_list_one_per_header_and_skip_an_oversized_one() {
    crate::bounded(async {
        let server = flooding_server(Arc::new(AtomicUsize::new(0))).await;
        // Server-side: Set-Cookie stays visible, and no store is involved.
        let client = Client::new();
        let response = client
            .fetch(server.url("/flood/1"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.cookies().count(), 95, "one per Set-Cookie header");
        // A 200 KiB cookie is over RFC 6265bis's 4096 bytes of name and value: skipped as
        // the store would ignore it, while the small one beside it is listed.
        let response = client
            .fetch(server.url("/big/1"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.headers().get_set_cookie().len(), 2);
        let names: Vec<_> = response
            .cookies()
            .map(|c| c.name().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["small1"]);
        let response = client
            .fetch(server.url("/edge"), RequestInit::default())
            .await
            .unwrap();
        let edge: Vec<_> = response.cookies().collect();
        assert_eq!(edge.len(), 1);
        assert_eq!(edge[0].value_bytes().len(), 4095);
    })
    .await;
}
