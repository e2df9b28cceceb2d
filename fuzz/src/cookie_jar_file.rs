//! `cookie_jar_file`: a saved cookie jar through `CookieStore::load_json_with_limits` or
//! `CookieStore::load_netscape_with_limits`, and what `save_json` writes of the store.
//!
//! The first byte picks the format (even: the JSON document, odd: `cookies.txt`) and, in
//! its upper bits, the store's limits (`max_total` 1 to 64, a quarter of that a domain, so
//! that eviction runs); the rest is the file.
//!
//! Checked beyond "no panic": the loaded store keeps to its limits; every `Cookie` header
//! it makes for a cookie's own origin is a valid header value; what `save_json` writes of
//! it loads back (with the same limits) to the same cookies, field by field, and saving
//! that store writes the same cookies again.

use std::time::SystemTime;

use url::Url;
use whatwg_fetch::cookie::{CookieLimits, CookieStore, SameSite, StoredCookie};
use whatwg_fetch::headers::is_header_value;

use crate::MAX_INPUT;

/// What a round trip keeps of a cookie: every field but the store's clocks.
type Fields = (
    Vec<u8>,
    Vec<u8>,
    String,
    Vec<u8>,
    Option<SystemTime>,
    bool,
    bool,
    bool,
    SameSite,
);

fn fields(cookie: &StoredCookie) -> Fields {
    (
        cookie.name_bytes().to_vec(),
        cookie.value_bytes().to_vec(),
        cookie.domain().to_owned(),
        cookie.path_bytes().to_vec(),
        cookie.expires(),
        cookie.secure(),
        cookie.http_only(),
        cookie.host_only(),
        cookie.same_site(),
    )
}

/// The store's cookies, in an order that does not depend on its clocks.
fn sorted_fields(store: &CookieStore) -> Vec<Fields> {
    let mut cookies: Vec<Fields> = store.cookies().iter().map(fields).collect();
    cookies.sort_by(|a, b| (&a.2, &a.3, &a.0, &a.1).cmp(&(&b.2, &b.3, &b.0, &b.1)));
    cookies
}

fn save(store: &CookieStore) -> Vec<u8> {
    let mut saved = Vec::new();
    store
        .save_json(&mut saved)
        .expect("writing to a Vec does not fail");
    saved
}

/// The `cookie_jar_file` target.
pub fn cookie_jar_file(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Some((&first, file)) = data.split_first() else {
        return;
    };
    let max_total = usize::from(first >> 2) + 1;
    let max_per_domain = (max_total / 4).max(1);
    let limits = CookieLimits {
        max_per_domain,
        purge_per_domain_to: max_per_domain,
        max_total,
        purge_total_to: max_total,
    };
    let loaded = if first & 1 == 0 {
        CookieStore::load_json_with_limits(file, limits)
    } else {
        CookieStore::load_netscape_with_limits(file, limits)
    };
    let Ok(store) = loaded else {
        return;
    };
    assert!(
        store.len() <= max_total,
        "{} cookies, at most {max_total}",
        store.len()
    );
    for cookie in store.cookies() {
        let host = cookie.domain().trim_start_matches('.');
        let scheme = if cookie.secure() { "https" } else { "http" };
        let Ok(url) = Url::parse(&format!("{scheme}://{host}/")) else {
            continue;
        };
        if let Some(header) = store.cookie_header_for(&url) {
            assert!(!header.is_empty(), "an empty Cookie header for {url}");
            assert!(
                is_header_value(&header),
                "a Cookie header that is not a header value for {url}: {:?}",
                String::from_utf8_lossy(&header)
            );
        }
    }
    let saved = save(&store);
    let again = CookieStore::load_json_with_limits(&saved[..], limits).unwrap_or_else(|error| {
        panic!(
            "what save_json wrote does not load: {error}\n{}",
            String::from_utf8_lossy(&saved)
        )
    });
    assert_eq!(
        sorted_fields(&again),
        sorted_fields(&store),
        "{}",
        String::from_utf8_lossy(&saved)
    );
    let resaved = save(&again);
    let reloaded = CookieStore::load_json(&resaved[..]).expect("a saved jar loads");
    assert_eq!(sorted_fields(&reloaded), sorted_fields(&store));
}
