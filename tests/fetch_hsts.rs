//! HSTS end to end: a host that sent `Strict-Transport-Security` over https is fetched over
//! https afterwards, even from an `http:` URL.

mod net_support;

use std::net::SocketAddr;

use net_support::{TestPki, full};
use whatwg_fetch::{Client, RequestInit};

/// A CA (PEM) and an HTTPS server for `a.test` and `www.a.test` on 127.0.0.1. `/sts`
/// answers with `Strict-Transport-Security: max-age=60`, `/sts-sub` with
/// `max-age=60; includeSubDomains`, `/clear` with `max-age=0`; every body is the request's
/// path.
async fn https_server() -> (String, SocketAddr) {
    let pki = TestPki::new(&["a.test", "www.a.test"]);
    let server = net_support::tls_server(pki.acceptor(&[b"http/1.1"]), |req| async move {
        let path = req.uri().path().to_owned();
        let sts = match path.as_str() {
            "/sts" => Some("max-age=60"),
            "/sts-sub" => Some("max-age=60; includeSubDomains"),
            "/clear" => Some("max-age=0"),
            _ => None,
        };
        let mut response = http::Response::builder();
        if let Some(sts) = sts {
            response = response.header("strict-transport-security", sts);
        }
        response.body(full(path)).unwrap()
    })
    .await;
    (pki.ca_pem, server.addr)
}

fn client(ca_pem: &str, addr: SocketAddr, hsts: Option<bool>) -> Client {
    let mut builder = Client::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(ca_pem.as_bytes().to_vec())
        .resolve("a.test", addr)
        .resolve("www.a.test", addr);
    if let Some(hsts) = hsts {
        builder = builder.hsts(hsts);
    }
    builder.build().unwrap()
}

async fn get(client: &Client, url: &str) -> Result<(String, String), whatwg_fetch::Error> {
    let mut response = client.fetch(url, RequestInit::default()).await?;
    let body = response.text().await?;
    Ok((response.url().into_owned(), body))
}

#[tokio::test]
async fn a_known_hsts_host_is_fetched_over_https() {
    let (ca, addr) = https_server().await;
    let client = client(&ca, addr, Some(true));
    let port = addr.port();
    // Before the host is known, an http: URL to the TLS port does not work.
    assert!(
        get(&client, &format!("http://a.test:{port}/before"))
            .await
            .is_err()
    );
    get(&client, &format!("https://a.test:{port}/sts"))
        .await
        .unwrap();
    let (url, body) = get(&client, &format!("http://a.test:{port}/after?q"))
        .await
        .unwrap();
    assert_eq!(url, format!("https://a.test:{port}/after?q"));
    assert_eq!(body, "/after");
    // Without includeSubDomains, a subdomain is not covered.
    assert!(
        get(&client, &format!("http://www.a.test:{port}/"))
            .await
            .is_err()
    );
    // max-age=0 forgets the host.
    get(&client, &format!("https://a.test:{port}/clear"))
        .await
        .unwrap();
    assert!(
        get(&client, &format!("http://a.test:{port}/"))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn include_subdomains_covers_subdomains() {
    let (ca, addr) = https_server().await;
    let client = client(&ca, addr, Some(true));
    let port = addr.port();
    get(&client, &format!("https://a.test:{port}/sts-sub"))
        .await
        .unwrap();
    let (url, _) = get(&client, &format!("http://www.a.test:{port}/x"))
        .await
        .unwrap();
    assert_eq!(url, format!("https://www.a.test:{port}/x"));
}

#[tokio::test]
async fn a_server_side_client_keeps_no_hsts_by_default() {
    let (ca, addr) = https_server().await;
    let client = client(&ca, addr, None);
    let port = addr.port();
    get(&client, &format!("https://a.test:{port}/sts"))
        .await
        .unwrap();
    assert!(
        get(&client, &format!("http://a.test:{port}/"))
            .await
            .is_err()
    );
}
