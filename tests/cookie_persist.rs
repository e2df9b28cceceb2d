//! Saving a client's cookie jar and loading it into a new client: JSON written by
//! `CookieStore::save_json` (session cookies kept) or `save_json_persistent_only` (left
//! out), and curl's Netscape `cookies.txt`.

mod net_support;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use net_support::{Server, ServerBody, full, hyper_server};
use whatwg_fetch::cookie::{CookieLimits, CookieStore};
use whatwg_fetch::{Client, ErrorKind, RequestInit};

/// Answers with the request's `Cookie` header as the body; every `set=VALUE` in the query
/// becomes a `Set-Cookie: VALUE`.
async fn routes(request: HyperRequest<Incoming>) -> HyperResponse<ServerBody> {
    let query = request.uri().query().unwrap_or_default().to_owned();
    let mut builder = HyperResponse::builder().header("content-type", "text/plain");
    for value in query
        .split('&')
        .filter_map(|pair| pair.strip_prefix("set="))
    {
        let value = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
        builder = builder.header("set-cookie", value.as_ref());
    }
    let cookie = request
        .headers()
        .get("cookie")
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        .unwrap_or_default();
    builder.body(full(cookie)).unwrap()
}

fn client_with(store: Arc<CookieStore>) -> Client {
    Client::builder().cookie_store_with(store).build().unwrap()
}

async fn sent_cookie(client: &Client, server: &Server, path: &str) -> String {
    let mut response = client
        .fetch(server.url(path), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

/// A fresh directory for one test's files.
fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cookie_persist")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn bounded<F: std::future::Future>(test: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(30), test)
        .await
        .expect("test timed out")
}

#[tokio::test]
async fn a_jar_saved_to_disk_is_sent_by_a_client_built_from_it() {
    bounded(async {
        let server = hyper_server(routes).await;
        let file = temp_dir("survives").join("cookies.json");
        let store = Arc::new(CookieStore::default());
        let first = client_with(store.clone());
        sent_cookie(
            &first,
            &server,
            "/set?set=id%3D42%3B%20Max-Age%3D3600&set=theme%3Ddark%3B%20Max-Age%3D3600",
        )
        .await;
        store
            .save_json(std::fs::File::create(&file).unwrap())
            .unwrap();
        drop(first);

        let loaded = CookieStore::load_json(std::fs::File::open(&file).unwrap()).unwrap();
        let second = client_with(Arc::new(loaded));
        assert_eq!(
            sent_cookie(&second, &server, "/echo").await,
            "id=42; theme=dark"
        );
    })
    .await;
}

#[tokio::test]
async fn a_session_login_cookie_survives_save_and_load_and_is_sent_again() {
    bounded(async {
        let server = hyper_server(routes).await;
        let store = Arc::new(CookieStore::default());
        let client = client_with(store.clone());
        // `Set-Cookie: sid=1`, no Max-Age or Expires: a session cookie, as most logins are.
        sent_cookie(&client, &server, "/login?set=sid%3D1").await;
        assert_eq!(store.len(), 1);
        let mut saved = Vec::new();
        store.save_json(&mut saved).unwrap();
        drop(client);

        let loaded = Arc::new(CookieStore::load_json(&saved[..]).unwrap());
        assert_eq!(
            loaded.len(),
            1,
            "as many cookies after loading as before saving"
        );
        assert!(
            loaded.cookies()[0].is_session(),
            "it is still a session cookie"
        );
        let next = client_with(loaded);
        assert_eq!(sent_cookie(&next, &server, "/account").await, "sid=1");
    })
    .await;
}

#[tokio::test]
async fn save_json_persistent_only_drops_session_cookies_as_a_browser_restart_does() {
    bounded(async {
        let server = hyper_server(routes).await;
        let store = Arc::new(CookieStore::default());
        let client = client_with(store.clone());
        sent_cookie(
            &client,
            &server,
            "/login?set=sid%3D1&set=kept%3D2%3B%20Max-Age%3D3600",
        )
        .await;
        assert_eq!(store.len(), 2);
        let mut saved = Vec::new();
        store.save_json_persistent_only(&mut saved).unwrap();
        let loaded = Arc::new(CookieStore::load_json(&saved[..]).unwrap());
        assert_eq!(loaded.len(), 1, "the session cookie was not saved");
        let next = client_with(loaded);
        assert_eq!(sent_cookie(&next, &server, "/account").await, "kept=2");
    })
    .await;
}

#[test]
#[allow(deprecated)]
fn save_json_with_session_cookies_writes_what_save_json_writes() {
    let store = CookieStore::default();
    let url = url::Url::parse("https://example.com/").unwrap();
    store.set_cookie_from_header(&url, b"sid=1");
    store.set_cookie_from_header(&url, b"kept=2; Max-Age=3600");
    let (mut old, mut new) = (Vec::new(), Vec::new());
    store.save_json_with_session_cookies(&mut old).unwrap();
    store.save_json(&mut new).unwrap();
    assert_eq!(old, new);
    assert_eq!(CookieStore::load_json(&new[..]).unwrap().len(), 2);
}

/// A saved cookie as `save_json` writes it, for `host`, expiring at `expires`.
fn saved_cookie(name: &str, host: &str, expires: i64, order: u64) -> serde_json::Value {
    serde_json::json!({
        "name": name, "value": "v", "domain": host, "host_only": true, "path": "/",
        "expires": expires, "creation": order, "last_access": order, "secure": false,
        "http_only": false, "same_site": "default", "persistent": true,
    })
}

#[tokio::test]
async fn expired_cookies_are_dropped_on_load() {
    bounded(async {
        let server = hyper_server(routes).await;
        let host = server.addr.ip().to_string();
        let document = serde_json::json!({
            "version": 1,
            "cookies": [
                saved_cookie("old", &host, 1_000_000_000, 1),
                saved_cookie("live", &host, 4_102_444_800, 2),
            ],
        });
        let store = CookieStore::load_json(document.to_string().as_bytes()).unwrap();
        assert_eq!(store.len(), 1);
        let client = client_with(Arc::new(store));
        assert_eq!(sent_cookie(&client, &server, "/echo").await, "live=v");
    })
    .await;
}

#[test]
fn a_jar_of_ten_thousand_cookies_loads_at_most_the_limits() {
    let cookies: Vec<serde_json::Value> = (0..10_000u64)
        .map(|i| {
            saved_cookie(
                &format!("c{i}"),
                &format!("site{}.example", i / 100),
                4_102_444_800,
                i,
            )
        })
        .collect();
    let document = serde_json::json!({ "version": 1, "cookies": cookies }).to_string();
    let store = CookieStore::load_json(document.as_bytes()).unwrap();
    assert!(store.len() <= CookieLimits::default().max_total);
    // The least recently used made room: the last site's cookies are all there.
    let url = url::Url::parse("http://site99.example/").unwrap();
    let header = store.cookie_header_for(&url).unwrap();
    assert_eq!(header.split(|&b| b == b';').count(), 100);
    let url = url::Url::parse("http://site0.example/").unwrap();
    assert_eq!(store.cookie_header_for(&url), None);
    // Tighter limits hold too.
    let limits = CookieLimits {
        max_per_domain: 10,
        purge_per_domain_to: 10,
        max_total: 50,
        purge_total_to: 50,
    };
    let store = CookieStore::load_json_with_limits(document.as_bytes(), limits).unwrap();
    assert_eq!(store.len(), 50);
}

/// A reader of `head` and then of `fill` without end, counting what it gave.
struct Endless {
    head: std::io::Cursor<Vec<u8>>,
    fill: u8,
    given: Arc<std::sync::atomic::AtomicU64>,
}

impl std::io::Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut read = self.head.read(buf)?;
        if read == 0 {
            buf.fill(self.fill);
            read = buf.len();
        }
        self.given
            .fetch_add(read as u64, std::sync::atomic::Ordering::SeqCst);
        Ok(read)
    }
}

fn endless(head: &[u8], fill: u8) -> (Endless, Arc<std::sync::atomic::AtomicU64>) {
    let given = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let reader = Endless {
        head: std::io::Cursor::new(head.to_vec()),
        fill,
        given: given.clone(),
    };
    (reader, given)
}

#[test]
fn a_json_jar_value_larger_than_a_cookie_is_refused_once_that_much_is_read() {
    use std::io::Read as _;
    // A document whose array never ends (whitespace without end), and one whose cookie's
    // value never ends: each refused once 40 KiB of the one value is read.
    for (head, fill) in [
        (&br#"{"version": 1, "cookies": ["#[..], b' '),
        (
            &br#"{"version": 1, "cookies": [{"name": "a", "value": ""#[..],
            b'v',
        ),
    ] {
        let (reader, given) = endless(head, fill);
        let error = CookieStore::load_json(reader.take(1 << 30)).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        assert!(error.message().contains("over 40960 bytes"), "{error}");
        let given = given.load(std::sync::atomic::Ordering::SeqCst);
        assert!(given < 64 * 1024, "{given} bytes read");
    }
}

#[test]
fn a_cookies_txt_line_without_end_is_refused_once_64_kib_of_it_is_read() {
    let (reader, given) = endless(
        b"# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\t",
        b'v',
    );
    let reader = std::io::BufReader::new(std::io::Read::take(reader, 1 << 30));
    let error = CookieStore::load_netscape(reader).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(
        error.message().contains("line 2: longer than 65536 bytes"),
        "{error}"
    );
    let given = given.load(std::sync::atomic::Ordering::SeqCst);
    assert!(given < 128 * 1024, "{given} bytes read");
}

#[test]
fn a_cookies_txt_of_more_cookies_than_the_store_keeps_loads_the_newest() {
    let limits = CookieLimits {
        max_per_domain: 10_000,
        purge_per_domain_to: 10_000,
        max_total: 100,
        purge_total_to: 100,
    };
    let mut file = String::from("# Netscape HTTP Cookie File\n");
    for n in 0..10_000 {
        file.push_str(&format!(".example.com\tTRUE\t/\tFALSE\t0\tc{n}\tv\n"));
    }
    let store = CookieStore::load_netscape_with_limits(file.as_bytes(), limits).unwrap();
    assert_eq!(store.len(), 100);
    // The last lines of the file are the ones kept, as before it was read in batches.
    let url = url::Url::parse("https://example.com/").unwrap();
    let header = store.cookie_header_for(&url).unwrap();
    let header = String::from_utf8(header.to_vec()).unwrap();
    assert!(
        header.contains("c9999=v") && !header.contains("c9899=v"),
        "{header}"
    );
}

#[test]
fn malformed_json_is_a_type_error_that_says_where() {
    let error = CookieStore::load_json(&b"{\"version\": 1,\n \"cookies\": [}"[..]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(error.to_string().contains("line 2"), "{error}");
    let error = CookieStore::load_json(&br#"{"cookies": []}"#[..]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(error.message().contains("version"), "{error}");
    let mut cookie = saved_cookie("a", "example.com", 4_102_444_800, 1);
    cookie.as_object_mut().unwrap().remove("path");
    let document = serde_json::json!({ "version": 1, "cookies": [cookie] }).to_string();
    let error = CookieStore::load_json(document.as_bytes()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(
        error.message().contains("cookies[0].path: missing"),
        "{error}"
    );
}

#[tokio::test]
async fn a_netscape_cookies_txt_is_read_as_curl_writes_it() {
    bounded(async {
        let server = hyper_server(routes).await;
        let host = server.addr.ip().to_string();
        let file = temp_dir("netscape").join("cookies.txt");
        std::fs::write(
            &file,
            format!(
                "# Netscape HTTP Cookie File\n\
                 # https://curl.se/docs/http-cookies.html\n\
                 \n\
                 {host}\tFALSE\t/\tFALSE\t0\tsession\ts\n\
                 #HttpOnly_{host}\tFALSE\t/\tFALSE\t4102444800\tid\t42\n\
                 {host}\tFALSE\t/\tTRUE\t4102444800\tsecure\tx\n\
                 {host}\tFALSE\t/\tFALSE\t1000000000\texpired\tx\n"
            ),
        )
        .unwrap();
        let reader = std::io::BufReader::new(std::fs::File::open(&file).unwrap());
        let store = CookieStore::load_netscape(reader).unwrap();
        assert_eq!(store.len(), 3);
        let client = client_with(Arc::new(store));
        // The secure cookie is not sent over http, the expired one is gone.
        assert_eq!(
            sent_cookie(&client, &server, "/echo").await,
            "session=s; id=42"
        );
        let error = CookieStore::load_netscape(&b"example.com\tMAYBE\t/\tFALSE\t0\ta\tb\n"[..])
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        assert!(
            error.message().contains("line 1: include subdomains"),
            "{error}"
        );
    })
    .await;
}
