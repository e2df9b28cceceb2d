//! The span of each fetch (the `tracing` feature), at INFO: a level a service leaves on,
//! one span per `fetch()` call however many redirects and retries it takes. The network
//! requests under it have spans of their own at DEBUG (see `net/transport.rs`).
//!
//! Fields of the `fetch` span:
//!
//! - `method`, `url`: the request's method and URL, without credentials or fragment;
//! - `status`: the status of the response, once its head arrived;
//! - `redirects`: how many redirects were followed, and `final_url` the last URL (without
//!   credentials or fragment) when there was at least one;
//! - `elapsed_ms`: the time until the response head (or the error), in milliseconds; the
//!   body is read after the span closes;
//! - `error`: for a failed fetch, its exception name and its network error, if any
//!   (`TypeError: connect to 127.0.0.1:1 failed: …`).

use std::future::Future;

use tokio::time::Instant;
use tracing::Instrument;
use tracing::field::Empty;
use url::Url;

use crate::error::{Error, Result};
use crate::request::Request;
use crate::response::Response;

/// `url` as a span records it: without username, password or fragment.
pub(crate) fn without_credentials(url: &Url) -> Url {
    let mut url = url.clone();
    // Neither fails for a URL that has a host, the only kind with credentials.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_fragment(None);
    url
}

/// Runs `fetch` on `request` in a new `fetch` span, and records its outcome.
pub(crate) async fn in_fetch_span<F, Fetching>(request: Request, fetch: F) -> Result<Response>
where
    F: FnOnce(Request) -> Fetching,
    Fetching: Future<Output = Result<Response>>,
{
    let span = tracing::info_span!(
        "fetch",
        method = request.method(),
        url = %without_credentials(request.current_url()),
        status = Empty,
        redirects = Empty,
        final_url = Empty,
        elapsed_ms = Empty,
        error = Empty,
    );
    let started = Instant::now();
    let result = fetch(request).instrument(span.clone()).await;
    let elapsed = started.elapsed();
    span.record("elapsed_ms", elapsed.as_secs_f64() * 1000.0);
    match &result {
        Ok(response) => {
            span.record("status", response.status());
            let redirects = response.url_list().len().saturating_sub(1);
            span.record("redirects", redirects);
            if redirects > 0 {
                if let Some(url) = response.url_list().last() {
                    span.record(
                        "final_url",
                        tracing::field::display(without_credentials(url)),
                    );
                }
            }
        }
        Err(error) => {
            span.record("error", tracing::field::display(describe(error)));
        }
    }
    result
}

/// An error as the span records it: the exception and the network error, without the
/// URL (which the span has, and which [`Error`]'s `Display` gives as it was).
fn describe(error: &Error) -> String {
    match error.network_error() {
        Some(cause) => format!("{}: {cause}", error.kind()),
        None => format!("{}: {}", error.kind(), error.message()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_fragments_are_left_out() {
        let url = Url::parse("https://user:secret@example.com:8443/a?b=1#top").unwrap();
        assert_eq!(
            without_credentials(&url).as_str(),
            "https://example.com:8443/a?b=1"
        );
        let data = Url::parse("data:,x#y").unwrap();
        assert_eq!(without_credentials(&data).as_str(), "data:,x");
    }
}
