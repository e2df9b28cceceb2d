//! The [environment settings object](https://html.spec.whatwg.org/multipage/webappapis.html#environment-settings-object)
//! a request is made from: its API base URL and its origin.
//!
//! Two shapes matter in practice:
//!
//! - **Server-side** ([`Environment::server`], the default): no origin, like Deno and Node.
//!   Relative URLs need a base URL, forbidden request-headers are not filtered, and no CORS
//!   rules apply, since there is no page whose origin they would protect.
//! - **Browser-like** ([`Environment::browser`]): an origin, as for a page or worker at
//!   that URL. Forbidden request-headers are dropped by the `request` guard, `referrer`
//!   must be same-origin, and CORS, `Origin`, the Fetch Metadata headers (`Sec-Fetch-Dest`,
//!   `Sec-Fetch-Mode`, `Sec-Fetch-Site` to potentially trustworthy URLs), mixed content
//!   blocking (from a secure origin) and response tainting apply; the client's defaults
//!   turn on cookies, the HTTP cache and HSTS.
//!
//! ```
//! use whatwg_fetch::{Client, Environment, Url};
//!
//! // A client that makes requests as a page at this URL would.
//! let page = Url::parse("https://app.example/inbox")?;
//! let client = Client::builder().environment(Environment::browser(page)).build()?;
//! assert!(client.environment().is_browser_like());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::cell::RefCell;

use url::{Origin, Url};

use crate::blob_url::BlobUrlStore;
use crate::infra::kept::{self, LastText};

idl_enum! {
    /// [`ReferrerPolicy`](https://w3c.github.io/webappsec-referrer-policy/#enumdef-referrerpolicy):
    /// what an environment's policy container holds, and what a request's
    /// [referrer policy](https://fetch.spec.whatwg.org/#concept-request-referrer-policy) is.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit, ReferrerPolicy};
    ///
    /// let init = RequestInit { referrer_policy: Some(ReferrerPolicy::NoReferrer), ..RequestInit::default() };
    /// assert_eq!(Request::new("https://api.example/", init)?.referrer_policy(), ReferrerPolicy::NoReferrer);
    /// assert_eq!(ReferrerPolicy::StrictOriginWhenCrossOrigin.as_str(), "strict-origin-when-cross-origin");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub enum ReferrerPolicy {
        /// `""`: the environment's default policy applies.
        Empty = "",
        /// `"no-referrer"`.
        NoReferrer = "no-referrer",
        /// `"no-referrer-when-downgrade"`.
        NoReferrerWhenDowngrade = "no-referrer-when-downgrade",
        /// `"same-origin"`.
        SameOrigin = "same-origin",
        /// `"origin"`.
        Origin = "origin",
        /// `"strict-origin"`.
        StrictOrigin = "strict-origin",
        /// `"origin-when-cross-origin"`.
        OriginWhenCrossOrigin = "origin-when-cross-origin",
        /// `"strict-origin-when-cross-origin"`.
        StrictOriginWhenCrossOrigin = "strict-origin-when-cross-origin",
        /// `"unsafe-url"`.
        UnsafeUrl = "unsafe-url",
    }
}

/// The environment a [`Request`](crate::request::Request) is made from.
///
/// ```
/// use whatwg_fetch::environment::Environment;
///
/// let page = Environment::browser("https://app.example/index.html".parse()?);
/// assert!(page.is_browser_like());
/// assert_eq!(page.base_url().map(|url| url.as_str()), Some("https://app.example/index.html"));
/// assert!(!Environment::server().is_browser_like());
/// # Ok::<(), url::ParseError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Environment {
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#api-base-url>, none by default.
    base_url: Option<Url>,
    /// <https://html.spec.whatwg.org/multipage/webappapis.html#concept-settings-object-origin>,
    /// none (server-side) by default.
    origin: Option<Origin>,
    /// The [blob URL store](https://w3c.github.io/FileAPI/#BlobURLStore) that `blob:` URLs
    /// fetched from this environment resolve in.
    blob_url_store: BlobUrlStore,
    /// The [policy container](https://html.spec.whatwg.org/multipage/browsers.html#policy-container)'s
    /// [referrer policy](https://html.spec.whatwg.org/multipage/browsers.html#policy-container-referrer-policy),
    /// initially `strict-origin-when-cross-origin`.
    referrer_policy: ReferrerPolicy,
}

impl Default for Environment {
    fn default() -> Environment {
        Environment {
            base_url: None,
            origin: None,
            referrer_policy: ReferrerPolicy::StrictOriginWhenCrossOrigin,
            blob_url_store: BlobUrlStore::default(),
        }
    }
}

impl Environment {
    /// The server-side environment: no base URL, no origin.
    ///
    /// ```
    /// use whatwg_fetch::Environment;
    ///
    /// let environment = Environment::server();
    /// assert!(environment.origin().is_none() && environment.base_url().is_none());
    /// ```
    pub fn server() -> Environment {
        Environment::default()
    }

    /// A browser-like environment for a document or worker at `url`: its origin is the
    /// URL's origin and relative URLs resolve against it.
    ///
    /// ```
    /// use whatwg_fetch::{Environment, Url};
    ///
    /// // As a page at this URL: its origin turns on CORS, and relative URLs resolve against it.
    /// let environment = Environment::browser(Url::parse("https://app.example/inbox/")?);
    /// assert!(environment.is_browser_like());
    /// assert_eq!(environment.base_url().map(Url::as_str), Some("https://app.example/inbox/"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn browser(url: Url) -> Environment {
        Environment {
            origin: Some(url.origin()),
            base_url: Some(url),
            ..Environment::default()
        }
    }

    /// This environment with `base_url` as its API base URL, against which relative request
    /// URLs are parsed. The origin does not change.
    ///
    /// ```
    /// use whatwg_fetch::{Environment, Url};
    ///
    /// let environment = Environment::server().with_base_url(Url::parse("https://api.example/v2/")?);
    /// // A base URL does not make an origin: still server-side.
    /// assert!(!environment.is_browser_like());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_base_url(mut self, base_url: Url) -> Environment {
        self.base_url = Some(base_url);
        self
    }

    /// This environment with `policy` as its policy container's referrer policy: the one a
    /// request whose referrer policy is the empty string gets when it is fetched.
    ///
    /// ```
    /// use whatwg_fetch::{Environment, ReferrerPolicy, Url};
    ///
    /// let page = Url::parse("https://app.example/account/settings")?;
    /// let environment = Environment::browser(page).with_referrer_policy(ReferrerPolicy::NoReferrer);
    /// assert_eq!(environment.referrer_policy(), ReferrerPolicy::NoReferrer);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_referrer_policy(mut self, policy: ReferrerPolicy) -> Environment {
        self.referrer_policy = policy;
        self
    }

    /// The policy container's referrer policy: `strict-origin-when-cross-origin` unless set
    /// with [`Environment::with_referrer_policy`].
    ///
    /// ```
    /// use whatwg_fetch::{Environment, ReferrerPolicy};
    ///
    /// assert_eq!(Environment::server().referrer_policy(), ReferrerPolicy::StrictOriginWhenCrossOrigin);
    /// ```
    pub fn referrer_policy(&self) -> ReferrerPolicy {
        self.referrer_policy
    }

    /// The API base URL, if any.
    ///
    /// ```
    /// use whatwg_fetch::{Environment, Url};
    ///
    /// let base = Url::parse("https://api.example/v2/")?;
    /// assert_eq!(Environment::server().with_base_url(base.clone()).base_url(), Some(&base));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn base_url(&self) -> Option<&Url> {
        self.base_url.as_ref()
    }

    /// The origin, if any: `None` in the server-side environment.
    ///
    /// ```
    /// use whatwg_fetch::{Environment, Url};
    ///
    /// let environment = Environment::browser(Url::parse("https://app.example:8443/inbox")?);
    /// let origin = environment.origin().map(|origin| origin.ascii_serialization());
    /// assert_eq!(origin.as_deref(), Some("https://app.example:8443"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn origin(&self) -> Option<&Origin> {
        self.origin.as_ref()
    }

    /// Whether this environment has an origin, so that the browser's rules apply.
    ///
    /// ```
    /// use whatwg_fetch::{Environment, Url};
    ///
    /// assert!(!Environment::server().is_browser_like());
    /// assert!(Environment::browser(Url::parse("https://app.example/")?).is_browser_like());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_browser_like(&self) -> bool {
        self.origin.is_some()
    }

    /// The blob URL store of this environment: where `URL.createObjectURL` puts blobs and
    /// where fetching a `blob:` URL finds them.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::{Blob, Client, Environment};
    ///
    /// let environment = Arc::new(Environment::server());
    /// // `URL.createObjectURL(blob)`: a `blob:` URL that fetches from this environment read.
    /// let url = environment.blob_url_store().create_object_url(&environment, Blob::from_bytes(&b"in memory"[..], "text/plain"));
    /// let client = Client::builder().environment((*environment).clone()).build()?;
    /// assert_eq!(client.get(url.as_str()).send().await?.text().await?, "in memory");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn blob_url_store(&self) -> &BlobUrlStore {
        &self.blob_url_store
    }

    /// Parses `input` against the API base URL.
    ///
    /// A client mostly fetches the same few URLs, written as they serialize
    /// (`https://api.example/v1/items`), and the URL parser is a sixth of a pooled
    /// request's instructions. So each thread keeps the last input it parsed, in room it
    /// keeps, and when the same input comes again and serializes to itself, the URL with the
    /// base URL it was parsed against: the same input after that, against an equal base, is
    /// the same URL, and gets a copy of it (one allocation) instead of a parse. An input seen
    /// once costs only the copy of its text. What a thread keeps (credentials in a URL,
    /// maybe) lasts until its next parse of another input.
    pub(crate) fn parse_url(&self, input: &str) -> Result<Url, url::ParseError> {
        let base = self.base_url.as_ref();
        let parse = || Url::options().base_url(base).parse(input);
        let same_base =
            |kept: &Option<Url>| kept.as_ref().map(Url::as_str) == base.map(Url::as_str);
        kept::with_slot(&LAST_PARSED, |last| {
            if let Some((_, url)) = last.get(input).filter(|(kept, _)| same_base(kept)) {
                return Ok(url.clone());
            }
            let parsed = parse();
            last.note(input, KEPT_URL_BYTES, || {
                let url = parsed.as_ref().ok().filter(|url| url.as_str() == input)?;
                Some((base.cloned(), url.clone()))
            });
            parsed
        })
        // While the thread's storage is being torn down, or (never) borrowed twice.
        .unwrap_or_else(parse)
    }
}

/// The longest URL a thread keeps from [`Environment::parse_url`].
const KEPT_URL_BYTES: usize = 2048;

thread_local! {
    /// The last input parsed on this thread; once it was parsed twice running and
    /// serialized to itself, the base URL it was parsed against and its URL.
    static LAST_PARSED: RefCell<LastText<(Option<Url>, Url)>> = const {
        RefCell::new(LastText::new())
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_environment_has_no_origin_or_base() {
        let environment = Environment::server();
        assert!(environment.origin().is_none());
        assert!(environment.parse_url("/relative").is_err());
        assert!(environment.parse_url("http://example.com/").is_ok());
    }

    #[test]
    fn browser_environment_resolves_relative_urls() {
        let environment =
            Environment::browser(Url::parse("http://web-platform.test:8000/a/b.html").unwrap());
        let url = environment.parse_url("../c").unwrap();
        assert_eq!(url.as_str(), "http://web-platform.test:8000/c");
        assert_eq!(
            environment.origin(),
            Some(
                &Url::parse("http://web-platform.test:8000/")
                    .unwrap()
                    .origin()
            )
        );
    }

    /// The last input a thread parsed, and the base and URL kept for it.
    type Kept = (String, Option<(Option<String>, String)>);

    /// What this thread keeps.
    fn kept() -> Option<Kept> {
        LAST_PARSED.with(|last| {
            let last = last.borrow();
            let (input, url) = last.parts();
            let url = url
                .map(|(base, url)| (base.as_ref().map(|base| base.to_string()), url.to_string()));
            Some((input.to_owned(), url))
        })
    }

    #[test]
    fn a_kept_url_is_what_parsing_gives() {
        let inputs = [
            "http://example.com/",
            "http://EXAMPLE.com/a/../b",
            "https://example.com:443/x?y#z",
            "http://1.2.3.4:8080/body.json",
            "http://0x7f.1/",
            "http://user:pw@example.com/",
            "http://example.com/%7Efoo/ bar",
            "file:///C:/x",
            "web+demo:/.//not-a-host/",
            "non-special://host/path",
            "mailto:someone@example.com",
            "data:,x#y",
            "blob:https://a.example/0b4e-11",
            "http:relative",
            "//other.example/p",
            "?q",
            "#f",
            "",
            "http://[::1]:80/",
            "http://exa mple.com/",
        ];
        let server = Environment::server();
        let browser =
            Environment::browser(Url::parse("http://web-platform.test:8000/a/b.html").unwrap());
        let other = Environment::browser(Url::parse("https://other.test/dir/").unwrap());
        for environment in [&server, &browser, &other, &server] {
            for input in inputs.iter().chain(inputs.iter().rev()) {
                let expected = Url::options().base_url(environment.base_url()).parse(input);
                for _ in 0..3 {
                    assert_eq!(environment.parse_url(input), expected, "{input:?}");
                }
            }
        }
    }

    #[test]
    fn a_url_is_kept_once_its_input_comes_again_and_serializes_to_itself() {
        let server = Environment::server();
        let input = "https://kept.example/a";
        let url = |base: Option<&str>| Some((base.map(str::to_owned), input.to_owned()));
        server.parse_url(input).unwrap();
        assert_eq!(kept(), Some((input.to_owned(), None)));
        server.parse_url(input).unwrap();
        assert_eq!(kept(), Some((input.to_owned(), url(None))));
        assert_eq!(server.parse_url(input).unwrap().as_str(), input);
        // Against another base: parsed again, and kept with that base.
        let browser = Environment::browser(Url::parse("https://page.example/").unwrap());
        assert_eq!(browser.parse_url(input).unwrap().as_str(), input);
        assert_eq!(
            kept(),
            Some((input.to_owned(), url(Some("https://page.example/"))))
        );
        // Not its own serialization ("https://upper.example/a"): its text only, twice.
        let upper = "HTTPS://UPPER.example/a";
        for _ in 0..2 {
            assert_eq!(
                server.parse_url(upper).unwrap().as_str(),
                "https://upper.example/a"
            );
            assert_eq!(kept(), Some((upper.to_owned(), None)));
        }
        // Not a URL, twice: its text only.
        for _ in 0..2 {
            server.parse_url("https://bad host/").unwrap_err();
            assert_eq!(kept(), Some(("https://bad host/".to_owned(), None)));
        }
        // Too long to keep: what was kept stays.
        let long = format!("https://kept.example/{}", "a".repeat(KEPT_URL_BYTES));
        assert_eq!(server.parse_url(&long).unwrap().as_str(), long);
        assert_eq!(kept(), Some(("https://bad host/".to_owned(), None)));
    }
}
