//! `cookie_store`: `Set-Cookie` parsing and the cookie store, driven by a script.
//!
//! One operation per line:
//!
//! - `S<n> <value>`: [`CookieStore::set_cookie_from_header`] with `value`, received from
//!   URL `n` (a decimal index into [`URLS`] and then the URLs added with `U`);
//! - `G<n>`: [`CookieStore::cookie_header_for`] URL `n`;
//! - `L`: [`CookieStore::len`];
//! - `C`: [`CookieStore::clear`];
//! - `U <url>`: adds a URL to the list, if it parses.
//!
//! Checked: a `Cookie` header the store makes is a valid, non-empty header value; after
//! `C` the store is empty.

use url::Url;
use whatwg_fetch::cookie::CookieStore;
use whatwg_fetch::headers::is_header_value;

use crate::{MAX_INPUT, lines, word};

/// The URLs a script starts with: hosts, subdomains, paths, schemes, a public suffix, an
/// IP address and an internationalized name.
const URLS: [&str; 10] = [
    "http://example.com/",
    "https://example.com/a/b?q",
    "https://sub.example.com/a",
    "http://localhost:8080/path/",
    "https://example.co.uk/",
    "https://co.uk/",
    "http://127.0.0.1/x",
    "https://xn--nxasmq6b.com/",
    "http://[::1]:8000/",
    "file:///tmp/a",
];

/// At most this many URLs (the built-in ones and those added).
const MAX_URLS: usize = 16;

fn url_at(urls: &[Url], index: &[u8]) -> Option<Url> {
    let index: usize = std::str::from_utf8(index).ok()?.parse().ok()?;
    urls.get(index).cloned()
}

fn check_cookie_header(header: &[u8]) {
    assert!(!header.is_empty(), "an empty Cookie header");
    assert!(
        is_header_value(header),
        "a Cookie header that is not a header value: {:?}",
        String::from_utf8_lossy(header)
    );
}

/// The `cookie_store` target.
pub fn cookie_store(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let store = CookieStore::default();
    let mut urls: Vec<Url> = URLS.iter().filter_map(|url| Url::parse(url).ok()).collect();
    for line in lines(data) {
        let (op, rest) = word(line);
        match op.split_first() {
            Some((b'S', index)) => {
                if let Some(url) = url_at(&urls, index) {
                    store.set_cookie_from_header(&url, rest);
                }
            }
            Some((b'G', index)) => {
                if let Some(url) = url_at(&urls, index) {
                    if let Some(header) = store.cookie_header_for(&url) {
                        check_cookie_header(&header);
                    }
                }
            }
            Some((b'L', _)) => {
                let _ = store.len();
            }
            Some((b'C', _)) => {
                store.clear();
                assert!(store.is_empty(), "cookies left after clear()");
                for url in &urls {
                    assert_eq!(store.cookie_header_for(url), None, "a cookie after clear()");
                }
            }
            Some((b'U', _)) if urls.len() < MAX_URLS => {
                if let Ok(url) = Url::parse(&String::from_utf8_lossy(rest)) {
                    urls.push(url);
                }
            }
            _ => {}
        }
    }
    for url in &urls {
        if let Some(header) = store.cookie_header_for(url) {
            check_cookie_header(&header);
        }
    }
}
