//! Redirect policies: how many redirects a client follows, or which, beyond what the
//! request's [redirect mode](crate::RequestRedirect) says.
//!
//! A [`Policy`] is set once per client with
//! [`ClientBuilder::redirect`](crate::ClientBuilder::redirect), as reqwest's is. It rules
//! inside [HTTP-redirect fetch](https://fetch.spec.whatwg.org/#http-redirect-fetch); a
//! request whose redirect mode is `error` or `manual` never reaches it. Where:
//!
//! - [`limited`](Policy::limited) (the default) in place of the spec's limit of 20, after
//!   its checks of the `Location`: one that is no URL fails the fetch with
//!   [`NetworkError::InvalidLocation`](crate::NetworkError::InvalidLocation), one whose
//!   scheme is not `http` or `https` with
//!   [`NetworkError::UnsupportedScheme`](crate::NetworkError::UnsupportedScheme);
//! - [`none`](Policy::none) before those checks: the redirect response is the fetch's,
//!   whatever its `Location` says, as with redirect mode `manual`;
//! - [`custom`](Policy::custom) before those checks too, for a `Location` that is a URL
//!   of any scheme: the policy may stop at `ftp://…` or refuse it, and the fetch fails
//!   with `UnsupportedScheme` only if it follows. A `Location` that is no URL is no
//!   [`Attempt`] to ask about: the fetch fails with `InvalidLocation`.
//!
//! ```
//! use whatwg_fetch::{Client, redirect};
//!
//! // Follow at most 5 redirects, and none that leaves the original host.
//! let client = Client::builder()
//!     .redirect(redirect::Policy::custom(|attempt| {
//!         if attempt.previous().len() > 5 {
//!             attempt.error("too many redirects")
//!         } else if attempt.url().host_str() != attempt.previous()[0].host_str() {
//!             attempt.stop()
//!         } else {
//!             attempt.follow()
//!         }
//!     }))
//!     .build()?;
//! # Ok::<(), whatwg_fetch::Error>(())
//! ```

use std::fmt;
use std::sync::Arc;

use url::Url;

use crate::error::BoxError;

/// The spec's limit: HTTP-redirect fetch step 7 fails the 21st redirect.
const SPEC_LIMIT: usize = 20;

/// The most redirects any policy follows in a row, a custom one or `limited(n)` with a
/// larger `n`: the chain is a peer's to lengthen. Each redirect runs main fetch again
/// inside the one before (HTTP-redirect fetch step 22, as the spec nests it), so the
/// chain's length is the depth of the stack its polling needs: past about 35 hops a 2 MiB
/// thread of an unoptimized build overflowed. 30 leaves a margin.
///
/// ```
/// use whatwg_fetch::redirect::{MAX_REDIRECTS, Policy};
///
/// // The most any policy follows, however high its own limit.
/// let policy = Policy::limited(MAX_REDIRECTS);
/// # let _ = policy;
/// ```
pub const MAX_REDIRECTS: usize = 30;

/// Which redirects a client follows: [`limited`](Policy::limited) (20 by default, as the
/// Fetch Standard has it), [`none`](Policy::none) or [`custom`](Policy::custom).
///
/// ```
/// use whatwg_fetch::{Client, redirect};
///
/// let none = Client::builder().redirect(redirect::Policy::none()).build()?;
/// let five = Client::builder().redirect(redirect::Policy::limited(5)).build()?;
/// let same_host = Client::builder()
///     .redirect(redirect::Policy::custom(|attempt| {
///         if attempt.url().host_str() == attempt.previous()[0].host_str() {
///             attempt.follow()
///         } else {
///             attempt.stop()
///         }
///     }))
///     .build()?;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Clone)]
pub struct Policy {
    inner: Inner,
}

#[derive(Clone)]
enum Inner {
    Limited(usize),
    None,
    Custom(Arc<dyn Fn(Attempt<'_>) -> Action + Send + Sync>),
}

impl Policy {
    /// Follows at most `max` redirects in a row; the next one fails the fetch with
    /// [`NetworkError::TooManyRedirects`](crate::NetworkError::TooManyRedirects).
    ///
    /// ```
    /// use whatwg_fetch::{Client, redirect};
    ///
    /// let client = Client::builder().redirect(redirect::Policy::limited(3)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn limited(max: usize) -> Policy {
        Policy {
            inner: Inner::Limited(max),
        }
    }

    /// Follows no redirect: the redirect response is the fetch's response, its status and
    /// `Location` visible to a server-side client (to a browser-like one, it is an
    /// opaque-redirect filtered response), as with redirect mode `manual`: whatever its
    /// `Location` says, one that is no URL or not `http:` or `https:` included.
    ///
    /// ```
    /// use whatwg_fetch::{Client, redirect};
    ///
    /// let client = Client::builder().redirect(redirect::Policy::none()).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn none() -> Policy {
        Policy { inner: Inner::None }
    }

    /// Asks `policy` about each redirect: it sees the [`Attempt`] (the status, the next URL,
    /// the URLs so far) and answers with [`Attempt::follow`], [`Attempt::stop`] or
    /// [`Attempt::error`]. The spec's limit of 20 does not apply: the policy counts, up to
    /// [`MAX_REDIRECTS`], past which the fetch fails whatever it says.
    ///
    /// The policy is asked about any URL a `Location` names, before fetch checks its
    /// scheme: it may stop at one fetch cannot follow (`ftp:`, a typo's `htt:`), and the
    /// redirect response is the fetch's; followed, such a URL fails the fetch with
    /// [`NetworkError::UnsupportedScheme`](crate::NetworkError::UnsupportedScheme). A
    /// `Location` that is no URL is not asked about: the fetch fails with
    /// [`NetworkError::InvalidLocation`](crate::NetworkError::InvalidLocation), as the
    /// spec has it ([`Policy::none`] hands back even that response).
    ///
    /// ```
    /// use whatwg_fetch::{Client, redirect};
    ///
    /// let client = Client::builder()
    ///     .redirect(redirect::Policy::custom(|attempt| match attempt.url().scheme() {
    ///         "https" => attempt.follow(),
    ///         _ => attempt.error("refusing a redirect to plain HTTP"),
    ///     }))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn custom<F>(policy: F) -> Policy
    where
        F: Fn(Attempt<'_>) -> Action + Send + Sync + 'static,
    {
        Policy {
            inner: Inner::Custom(Arc::new(policy)),
        }
    }

    /// What to do with a redirect of status `status` to `next` (`None` for a `Location`
    /// that is no URL), asked before HTTP-redirect fetch checks the `Location` (its steps 5
    /// and 6), for a policy that decides without those checks: `none` stops whatever the
    /// `Location` says, and a custom policy is asked about any URL, whatever its scheme
    /// (not about a `Location` that is no URL). `None` for a policy asked after them, in
    /// step 7's place, with [`redirect`](Self::redirect): `limited`, the spec's.
    pub(crate) fn redirect_before_location_checks(
        &self,
        status: u16,
        next: Option<&Url>,
        previous: &[Url],
    ) -> Option<Action> {
        match &self.inner {
            Inner::Limited(_) => None,
            Inner::None => Some(Action {
                inner: ActionInner::Stop,
            }),
            Inner::Custom(_) => next.map(|next| self.redirect(status, next, previous)),
        }
    }

    /// What to do with a redirect of status `status` to `next`, after `previous` (the
    /// request's URL list so far, the first URL first).
    pub(crate) fn redirect(&self, status: u16, next: &Url, previous: &[Url]) -> Action {
        let attempt = Attempt {
            status,
            next,
            previous,
        };
        // A redirect past the ceiling fails whatever the policy says.
        if previous.len() > MAX_REDIRECTS {
            return Action {
                inner: ActionInner::TooMany(MAX_REDIRECTS),
            };
        }
        match &self.inner {
            Inner::Limited(max) if previous.len() > *max => Action {
                inner: ActionInner::TooMany(*max),
            },
            Inner::Limited(_) => attempt.follow(),
            Inner::None => attempt.stop(),
            Inner::Custom(policy) => policy(attempt),
        }
    }
}

/// The spec's: at most 20 redirects.
impl Default for Policy {
    fn default() -> Policy {
        Policy::limited(SPEC_LIMIT)
    }
}

impl fmt::Debug for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner {
            Inner::Limited(max) => f.debug_tuple("Policy::limited").field(max).finish(),
            Inner::None => f.write_str("Policy::none()"),
            Inner::Custom(_) => f.write_str("Policy::custom(..)"),
        }
    }
}

/// A redirect a [custom policy](Policy::custom) is asked about.
///
/// ```
/// use whatwg_fetch::redirect::Policy;
///
/// // Seen by a custom policy at each redirect: its status, where it leads, where it came from.
/// let policy = Policy::custom(|attempt| {
///     eprintln!("{} to {} after {:?}", attempt.status(), attempt.url(), attempt.previous());
///     attempt.follow()
/// });
/// # let _ = policy;
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Attempt<'a> {
    status: u16,
    next: &'a Url,
    previous: &'a [Url],
}

impl<'a> Attempt<'a> {
    /// The redirect's status: 301, 302, 303, 307 or 308.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/a", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // `/a` redirects to `/b` (301), `/b` to `/c` (307), `/c` answers.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap();
    /// #         let reply: &[u8] = match &head[..n] {
    /// #             h if h.starts_with(b"GET /a ") => b"HTTP/1.1 301 Moved Permanently\r\nlocation: /b\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #             h if h.starts_with(b"GET /b ") => b"HTTP/1.1 307 Temporary Redirect\r\nlocation: /c\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #             _ => b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\nc",
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::{Arc, Mutex};
    /// use whatwg_fetch::{Client, redirect};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let policy = redirect::Policy::custom(move |attempt| {
    ///     log.lock().unwrap().push(attempt.status());
    ///     attempt.follow()
    /// });
    /// let client = Client::builder().redirect(policy).build()?;
    /// let response = client.get(&url).send().await?;
    /// assert_eq!(*seen.lock().unwrap(), [301, 307]);
    /// # let _ = response;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The URL the redirect leads to, its `Location` parsed: of any scheme, not only
    /// `http:` and `https:` (see [`Policy::custom`]).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/a", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // `/a` redirects to `/b` (301), `/b` to `/c` (307), `/c` answers.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap();
    /// #         let reply: &[u8] = match &head[..n] {
    /// #             h if h.starts_with(b"GET /a ") => b"HTTP/1.1 301 Moved Permanently\r\nlocation: /b\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #             h if h.starts_with(b"GET /b ") => b"HTTP/1.1 307 Temporary Redirect\r\nlocation: /c\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #             _ => b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\nc",
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::{Arc, Mutex};
    /// use whatwg_fetch::{Client, redirect};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let policy = redirect::Policy::custom(move |attempt| {
    ///     log.lock().unwrap().push(attempt.url().path().to_owned());
    ///     attempt.follow()
    /// });
    /// let client = Client::builder().redirect(policy).build()?;
    /// let response = client.get(&url).send().await?;
    /// assert_eq!(*seen.lock().unwrap(), ["/b", "/c"]);
    /// # let _ = response;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn url(&self) -> &'a Url {
        self.next
    }

    /// The URLs fetched so far, the request's first: one more than the redirects followed.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/a", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // `/a` redirects to `/b` (301), `/b` to `/c` (307), `/c` answers.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap();
    /// #         let reply: &[u8] = match &head[..n] {
    /// #             h if h.starts_with(b"GET /a ") => b"HTTP/1.1 301 Moved Permanently\r\nlocation: /b\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #             h if h.starts_with(b"GET /b ") => b"HTTP/1.1 307 Temporary Redirect\r\nlocation: /c\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #             _ => b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\nc",
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::{Arc, Mutex};
    /// use whatwg_fetch::{Client, redirect};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let policy = redirect::Policy::custom(move |attempt| {
    ///     log.lock().unwrap().push(attempt.previous().len());
    ///     attempt.follow()
    /// });
    /// let client = Client::builder().redirect(policy).build()?;
    /// let response = client.get(&url).send().await?;
    /// // The first redirect comes after one URL, the second after two.
    /// assert_eq!(*seen.lock().unwrap(), [1, 2]);
    /// # let _ = response;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn previous(&self) -> &'a [Url] {
        self.previous
    }

    /// Follows the redirect.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/a", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // `/a` redirects to `/b` (301), `/b` to `/c` (307), `/c` answers.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap();
    /// #         let reply: &[u8] = match &head[..n] {
    /// #             h if h.starts_with(b"GET /a ") => b"HTTP/1.1 301 Moved Permanently\r\nlocation: /b\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #             h if h.starts_with(b"GET /b ") => b"HTTP/1.1 307 Temporary Redirect\r\nlocation: /c\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #             _ => b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\nc",
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::{Arc, Mutex};
    /// use whatwg_fetch::{Client, redirect};
    ///
    /// let policy = redirect::Policy::custom(|attempt| attempt.follow());
    /// let client = Client::builder().redirect(policy).build()?;
    /// let response = client.get(&url).send().await?;
    /// assert_eq!((response.status(), response.url_list().len()), (200, 3));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn follow(self) -> Action {
        Action {
            inner: ActionInner::Follow,
        }
    }

    /// Follows no further: the redirect response is the fetch's response (see
    /// [`Policy::none`]).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/a", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // `/a` redirects to `/b` (301), `/b` to `/c` (307), `/c` answers.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap();
    /// #         let reply: &[u8] = match &head[..n] {
    /// #             h if h.starts_with(b"GET /a ") => b"HTTP/1.1 301 Moved Permanently\r\nlocation: /b\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #             h if h.starts_with(b"GET /b ") => b"HTTP/1.1 307 Temporary Redirect\r\nlocation: /c\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #             _ => b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\nc",
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::{Arc, Mutex};
    /// use whatwg_fetch::{Client, redirect};
    ///
    /// // Follows a permanent redirect, hands a temporary one back to the caller.
    /// let policy = redirect::Policy::custom(|attempt| match attempt.status() {
    ///     301 | 308 => attempt.follow(),
    ///     _ => attempt.stop(),
    /// });
    /// let client = Client::builder().redirect(policy).build()?;
    /// let response = client.get(&url).send().await?;
    /// assert_eq!(response.status(), 307);
    /// assert_eq!(response.headers().get("location")?.as_deref(), Some("/c"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn stop(self) -> Action {
        Action {
            inner: ActionInner::Stop,
        }
    }

    /// Fails the fetch: a network error
    /// ([`NetworkError::RedirectPolicy`](crate::NetworkError::RedirectPolicy)) whose source
    /// is `error`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/a", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // `/a` redirects to `/b` (301), `/b` to `/c` (307), `/c` answers.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap();
    /// #         let reply: &[u8] = match &head[..n] {
    /// #             h if h.starts_with(b"GET /a ") => b"HTTP/1.1 301 Moved Permanently\r\nlocation: /b\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #             h if h.starts_with(b"GET /b ") => b"HTTP/1.1 307 Temporary Redirect\r\nlocation: /c\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #             _ => b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\nc",
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::{Arc, Mutex};
    /// use whatwg_fetch::{Client, redirect};
    ///
    /// use whatwg_fetch::NetworkError;
    ///
    /// // Follows a redirect to `/b` only.
    /// let policy = redirect::Policy::custom(|attempt| match attempt.url().path() {
    ///     "/b" => attempt.follow(),
    ///     path => {
    ///         let path = path.to_owned();
    ///         attempt.error(format!("redirect to {path} refused"))
    ///     }
    /// });
    /// let client = Client::builder().redirect(policy).build()?;
    /// let error = client.get(&url).send().await.unwrap_err();
    /// assert!(error.is_redirect());
    /// assert!(matches!(error.network_error(), Some(NetworkError::RedirectPolicy(_))));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn error(self, error: impl Into<BoxError>) -> Action {
        Action {
            inner: ActionInner::Error(error.into()),
        }
    }
}

/// What a [`Policy`] decided for a redirect: made by [`Attempt::follow`],
/// [`Attempt::stop`] or [`Attempt::error`].
///
/// ```
/// use whatwg_fetch::redirect::{Action, Policy};
///
/// // What a custom policy returns, made by the attempt it was given.
/// let policy = Policy::custom(|attempt| -> Action {
///     if attempt.previous().len() > 3 { attempt.error("too many hops") } else { attempt.follow() }
/// });
/// # let _ = policy;
/// ```
#[derive(Debug)]
pub struct Action {
    inner: ActionInner,
}

#[derive(Debug)]
enum ActionInner {
    Follow,
    Stop,
    Error(BoxError),
    /// More redirects than a limited policy's `max`.
    TooMany(usize),
}

/// [`Action`] taken apart, for HTTP-redirect fetch.
pub(crate) enum Decision {
    Follow,
    Stop,
    Error(BoxError),
    TooMany(usize),
}

impl Action {
    pub(crate) fn decision(self) -> Decision {
        match self.inner {
            ActionInner::Follow => Decision::Follow,
            ActionInner::Stop => Decision::Stop,
            ActionInner::Error(error) => Decision::Error(error),
            ActionInner::TooMany(max) => Decision::TooMany(max),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(n: usize) -> Vec<Url> {
        (0..n)
            .map(|i| Url::parse(&format!("http://a.test/{i}")).unwrap())
            .collect()
    }

    #[test]
    fn a_limited_policy_follows_max_redirects_and_refuses_the_next() {
        let next = Url::parse("http://a.test/next").unwrap();
        let policy = Policy::limited(2);
        // The request's URL and one redirect so far: the second redirect is followed.
        assert!(matches!(
            policy.redirect(302, &next, &urls(2)).decision(),
            Decision::Follow
        ));
        assert!(matches!(
            policy.redirect(302, &next, &urls(3)).decision(),
            Decision::TooMany(2)
        ));
        assert!(matches!(Policy::default().inner, Inner::Limited(20)));
        assert!(matches!(
            Policy::none().redirect(301, &next, &urls(1)).decision(),
            Decision::Stop
        ));
    }

    #[test]
    fn none_and_custom_policies_decide_before_the_location_is_checked() {
        let early = |policy: &Policy, next: Option<&Url>| {
            policy
                .redirect_before_location_checks(302, next, &urls(1))
                .map(Action::decision)
        };
        let unsupported = Url::parse("htt://a.test/next").unwrap();
        // The spec's limit waits for the spec's checks.
        assert!(early(&Policy::limited(5), Some(&unsupported)).is_none());
        // `none` stops whatever the `Location` says, a URL or not.
        assert!(matches!(
            early(&Policy::none(), Some(&unsupported)),
            Some(Decision::Stop)
        ));
        assert!(matches!(early(&Policy::none(), None), Some(Decision::Stop)));
        // A custom policy is asked about a URL of any scheme, and about nothing else.
        let custom = Policy::custom(|attempt| match attempt.url().scheme() {
            "htt" => attempt.stop(),
            _ => attempt.follow(),
        });
        assert!(matches!(
            early(&custom, Some(&unsupported)),
            Some(Decision::Stop)
        ));
        assert!(early(&custom, None).is_none());
    }
}
