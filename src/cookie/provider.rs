//! [`CookieProvider`]: the cookie store a client reads `Cookie` headers from and stores
//! `Set-Cookie` headers in, as a trait, for stores whose operations wait (one on Redis,
//! shared by a fleet) or that a caller writes. [`CookieStore`] is one.

use std::fmt;
use std::future::{Future, ready};
use std::pin::Pin;

use url::Url;

use super::CookieStore;

/// The future a [`CookieProvider`] method returns.
///
/// ```
/// use url::Url;
/// use whatwg_fetch::cookie::{CookieFuture, CookieProvider};
///
/// /// A jar that keeps nothing and sends nothing.
/// #[derive(Debug)]
/// struct NoCookies;
/// impl CookieProvider for NoCookies {
///     fn cookie_header_for<'a>(&'a self, _: &'a Url) -> CookieFuture<'a, Option<Vec<u8>>> {
///         Box::pin(async { None })
///     }
///     fn set_cookies_from_headers<'a>(&'a self, _: &'a Url, _: &'a [&'a [u8]]) -> CookieFuture<'a, ()> {
///         Box::pin(async {})
///     }
/// }
/// let client = whatwg_fetch::Client::builder().cookie_provider(std::sync::Arc::new(NoCookies)).build()?;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub type CookieFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A cookie store a [`Client`](crate::Client) uses through
/// [`ClientBuilder::cookie_provider`](crate::ClientBuilder::cookie_provider): what
/// reqwest's `cookie::CookieStore` trait is, with methods that may wait, so that a store
/// may live outside the process (`RedisCookieStore`, with the `redis` feature).
///
/// Fetch calls [`cookie_header_for`](Self::cookie_header_for) when it
/// [appends a request `Cookie` header](https://fetch.spec.whatwg.org/#append-a-request-cookie-header)
/// and [`set_cookies_from_headers`](Self::set_cookies_from_headers) when it
/// [parses and stores the response's `Set-Cookie` headers](https://fetch.spec.whatwg.org/#parse-and-store-response-set-cookie-headers),
/// for credentialed fetches only, and awaits both: a store bounds its own time (a slow
/// store delays every fetch), and has no way to fail a fetch (a store that cannot answer
/// returns no cookies, or keeps none).
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use url::Url;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::cookie::{CookieFuture, CookieProvider};
///
/// /// Sends one fixed cookie, and records what servers set.
/// #[derive(Debug, Default)]
/// struct Recorder {
///     set: Mutex<Vec<Vec<u8>>>,
/// }
///
/// impl CookieProvider for Recorder {
///     fn cookie_header_for<'a>(&'a self, _url: &'a Url) -> CookieFuture<'a, Option<Vec<u8>>> {
///         Box::pin(async { Some(b"session=fixed".to_vec()) })
///     }
///
///     fn set_cookies_from_headers<'a>(&'a self, _url: &'a Url, headers: &'a [&'a [u8]]) -> CookieFuture<'a, ()> {
///         let mut set = self.set.lock().unwrap();
///         set.extend(headers.iter().map(|header| header.to_vec()));
///         Box::pin(async {})
///     }
/// }
///
/// let client = Client::builder().cookie_provider(Arc::new(Recorder::default())).build()?;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub trait CookieProvider: fmt::Debug + Send + Sync {
    /// The `Cookie` header value to send with a request to `url`, or `None` for none: the
    /// [cookie-string](https://www.rfc-editor.org/rfc/rfc6265#section-5.4) of the cookies
    /// that match it.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use url::Url;
    /// use whatwg_fetch::cookie::{CookieProvider, CookieStore};
    ///
    /// // The in-memory store is a provider too.
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://a.example/")?;
    /// CookieProvider::set_cookies_from_headers(&store, &url, &[b"id=1"]).await;
    /// assert_eq!(CookieProvider::cookie_header_for(&store, &url).await.as_deref(), Some(&b"id=1"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    fn cookie_header_for<'a>(&'a self, url: &'a Url) -> CookieFuture<'a, Option<Vec<u8>>>;

    /// Stores the cookies of the `Set-Cookie` header values `headers`, received in the
    /// response to `url`, in order
    /// ([RFC 6265 §5.2–5.3](https://www.rfc-editor.org/rfc/rfc6265#section-5.2)).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use url::Url;
    /// use whatwg_fetch::cookie::{CookieProvider, CookieStore};
    ///
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://a.example/")?;
    /// CookieProvider::set_cookies_from_headers(&store, &url, &[b"a=1", b"b=2; Path=/"]).await;
    /// assert_eq!(store.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    fn set_cookies_from_headers<'a>(
        &'a self,
        url: &'a Url,
        headers: &'a [&'a [u8]],
    ) -> CookieFuture<'a, ()>;
}

/// The in-memory store answers at once.
impl CookieProvider for CookieStore {
    fn cookie_header_for<'a>(&'a self, url: &'a Url) -> CookieFuture<'a, Option<Vec<u8>>> {
        Box::pin(ready(CookieStore::cookie_header_for(self, url)))
    }

    fn set_cookies_from_headers<'a>(
        &'a self,
        url: &'a Url,
        headers: &'a [&'a [u8]],
    ) -> CookieFuture<'a, ()> {
        for header in headers {
            self.set_cookie_from_header(url, header);
        }
        Box::pin(ready(()))
    }
}
