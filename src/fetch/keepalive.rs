//! The keepalive quota of a client's [fetch group](https://fetch.spec.whatwg.org/#concept-fetch-group):
//! the bodies of keepalive requests in flight total at most 64 KiB (HTTP-network-or-cache
//! fetch step 8.10).
//!
//! A keepalive fetch with a body reserves its body's length the first time a request of it
//! goes out (a redirect or a retry of the same fetch reserves nothing more) and keeps the
//! reservation until its [done flag](https://fetch.spec.whatwg.org/#done-flag) is set: when
//! the response body has been read to its end, or the response (or the fetch) is dropped.
//!
//! DEVIATION: the spec's sum counts every fetch record in the group whose request is
//! keepalive and not done, and the fetch's own record is already in the group, so read
//! literally a fetch would count its own body twice and a single 40 KiB keepalive request
//! would be refused. As browsers do, a fetch's own body counts once.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_core::Stream;

use crate::body::Body;
use crate::error::Result;
use crate::response::Response;

/// The most body bytes keepalive requests of one fetch group may have in flight.
pub(crate) const KEEPALIVE_QUOTA: u64 = 64 * 1024;

/// The body bytes of a client's keepalive fetches that are not done.
#[derive(Debug, Default)]
pub(crate) struct KeepaliveQuota {
    inflight: AtomicU64,
}

impl KeepaliveQuota {
    /// Reserves `bytes` unless "the sum of contentLength and inflightKeepaliveBytes is
    /// greater than 64 kibibytes" (step 8.10.5): then `None`, and the fetch is a network
    /// error.
    pub(crate) fn reserve(self: &Arc<Self>, bytes: u64) -> Option<KeepaliveReservation> {
        self.inflight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |inflight| {
                inflight
                    .checked_add(bytes)
                    .filter(|&total| total <= KEEPALIVE_QUOTA)
            })
            .ok()?;
        Some(KeepaliveReservation {
            quota: Arc::clone(self),
            bytes,
        })
    }

    /// The bytes reserved now.
    #[cfg(test)]
    fn inflight(&self) -> u64 {
        self.inflight.load(Ordering::Acquire)
    }
}

/// One keepalive fetch's share of the quota, given back when dropped.
#[derive(Debug)]
pub(crate) struct KeepaliveReservation {
    quota: Arc<KeepaliveQuota>,
    bytes: u64,
}

impl Drop for KeepaliveReservation {
    fn drop(&mut self) {
        self.quota.inflight.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

/// Keeps `reservation` until `response`'s body ends (the fetch's done flag): at once when
/// there is no body, otherwise with the body, which gives it back at its end or when it is
/// dropped.
pub(crate) fn hold_until_end_of_body(response: &mut Response, reservation: KeepaliveReservation) {
    let slot = response.body_slot_mut();
    let Some(body) = slot.take() else {
        return;
    };
    *slot = Some(body.wrap(|body| Held {
        body,
        reservation: Some(reservation),
    }));
}

/// A body that holds a reservation until its last chunk.
struct Held {
    body: Body,
    reservation: Option<KeepaliveReservation>,
}

impl Stream for Held {
    type Item = Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let item = Pin::new(&mut self.body).poll_next(cx);
        if let Poll::Ready(None | Some(Err(_))) = item {
            // The end of the body: the done flag is set.
            self.reservation = None;
        }
        item
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_stay_within_64_kib_and_are_given_back() {
        let quota = Arc::new(KeepaliveQuota::default());
        let first = quota.reserve(40 * 1024).unwrap();
        assert!(quota.reserve(30 * 1024).is_none(), "40 + 30 KiB is over");
        let second = quota.reserve(24 * 1024).unwrap();
        assert_eq!(quota.inflight(), KEEPALIVE_QUOTA);
        assert!(quota.reserve(1).is_none());
        drop(first);
        assert!(quota.reserve(40 * 1024).is_some());
        drop(second);
        assert_eq!(quota.inflight(), 0);
        assert!(quota.reserve(KEEPALIVE_QUOTA + 1).is_none());
        assert!(quota.reserve(u64::MAX).is_none());
    }

    #[tokio::test]
    async fn a_response_body_holds_the_reservation_to_its_end() {
        let quota = Arc::new(KeepaliveQuota::default());
        let mut response = Response::new(
            Some(crate::body::BodyInit::from("response body")),
            crate::response::ResponseInit::default(),
        )
        .unwrap();
        hold_until_end_of_body(&mut response, quota.reserve(1000).unwrap());
        assert_eq!(quota.inflight(), 1000);
        assert_eq!(response.text().await.unwrap(), "response body");
        assert_eq!(quota.inflight(), 0, "given back at the end of the body");
        // No body: given back at once.
        let mut empty = Response::new(None, crate::response::ResponseInit::default()).unwrap();
        hold_until_end_of_body(&mut empty, quota.reserve(1000).unwrap());
        assert_eq!(quota.inflight(), 0);
    }
}
