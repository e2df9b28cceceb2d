//! The Redis connection of the stores a fleet shares (the `redis` feature): the HTTP
//! cache's `cache::RedisCacheStore` and the cookie jar's `cookie::RedisCookieStore`. Both
//! connect the same way, name the URL in their errors without its password, give keys
//! expiries Redis takes ([`expiry_millis`]), and bound the bytes waiting for their tasks
//! ([`QueueBudget`]).

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};

/// Connects to the Redis at `url` for the store named `store` (the type, which errors
/// name): one multiplexed connection that reconnects by itself, each attempt bounded by
/// `connect_timeout`, and no response timeout (the stores bound each command themselves).
///
/// # Errors
/// An I/O error naming `store` and the URL (without its password) when the URL is not a
/// Redis URL (`InvalidInput`), or when Redis cannot be reached within `connect_timeout`
/// (`TimedOut`, or the connection's error).
pub(crate) async fn connect(
    store: &str,
    url: &str,
    connect_timeout: Duration,
) -> io::Result<ConnectionManager> {
    let shown = without_password(url);
    let client = ::redis::Client::open(url).map_err(|error| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{store}: {shown} is not a Redis URL: {error}"),
        )
    })?;
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(connect_timeout))
        .set_response_timeout(None)
        .set_number_of_retries(2)
        .set_max_delay(connect_timeout);
    tokio::time::timeout(
        connect_timeout,
        ConnectionManager::new_with_config(client, config),
    )
    .await
    .map_err(|_| {
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!("{store}: connecting to {shown} took more than {connect_timeout:?}"),
        )
    })?
    .map_err(|error| {
        io::Error::new(
            io_error_kind(&error),
            format!("{store}: connecting to {shown}: {error}"),
        )
    })
}

/// The longest expiry the stores give a key: 2^31 seconds (68 years), the most a
/// `delta-seconds` counts for (RFC 9111 §1.2.2), in milliseconds. Redis refuses a `PX`
/// that, added to its clock, passes an `i64` of milliseconds ("invalid expire time"), or
/// that is not an `i64` at all: a write with such an expiry would fail, and leave what it
/// was to replace.
pub(crate) const MAX_EXPIRY_MILLIS: u64 = crate::infra::MAX_DELTA_SECONDS * 1000;

/// `ttl` as the milliseconds of a `PX` Redis takes: at least 1 (`PX 0` is refused too),
/// at most [`MAX_EXPIRY_MILLIS`].
pub(crate) fn expiry_millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis())
        .unwrap_or(u64::MAX)
        .clamp(1, MAX_EXPIRY_MILLIS)
}

/// The bytes of the work waiting for a store's task (queued, or being done), within a
/// budget: a channel bounded by a count of items is not bounded in bytes when an item
/// may be a record of 16 MiB. Work is taken while the bytes waiting, with its own, stay
/// within the budget, or when nothing waits (so that an item larger than the budget
/// still goes, alone).
#[derive(Debug)]
pub(crate) struct QueueBudget {
    budget: usize,
    waiting: AtomicUsize,
}

impl QueueBudget {
    /// A budget of `budget` bytes, none waiting.
    pub(crate) fn new(budget: usize) -> QueueBudget {
        QueueBudget {
            budget,
            waiting: AtomicUsize::new(0),
        }
    }

    /// Counts `bytes` as waiting, if they fit: whether they did. Each `true` is followed
    /// by a [`release`](Self::release) of the same bytes.
    pub(crate) fn take(&self, bytes: usize) -> bool {
        self.waiting
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |waiting| {
                let total = waiting.checked_add(bytes)?;
                (waiting == 0 || total <= self.budget).then_some(total)
            })
            .is_ok()
    }

    /// Counts `bytes` taken as no longer waiting.
    pub(crate) fn release(&self, bytes: usize) {
        let _ = self
            .waiting
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |waiting| {
                Some(waiting.saturating_sub(bytes))
            });
    }
}

/// The SHA-1 of `bytes` in lowercase hex, as Redis names a script it keeps and as Lua's
/// `redis.sha1hex` answers.
pub(crate) fn sha1_hex(bytes: &[u8]) -> String {
    use sha1::Digest;
    sha1::Sha1::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// A Redis URL as an error shows it: without its password.
pub(crate) fn without_password(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        Ok(_) => url.to_owned(),
        Err(_) => "the URL given".to_owned(),
    }
}

/// The I/O kind of a redis error: its own when it is an I/O error, else `Other`.
fn io_error_kind(error: &::redis::RedisError) -> io::ErrorKind {
    if error.is_timeout() {
        io::ErrorKind::TimedOut
    } else if error.is_connection_refusal() {
        io::ErrorKind::ConnectionRefused
    } else {
        io::ErrorKind::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_shows_the_url_without_its_password() {
        assert_eq!(
            without_password("redis://user:secret@127.0.0.1:6379/0"),
            "redis://user:***@127.0.0.1:6379/0"
        );
        assert_eq!(
            without_password("redis://127.0.0.1:6379"),
            "redis://127.0.0.1:6379"
        );
        assert_eq!(without_password("not a url"), "the URL given");
    }

    #[test]
    fn a_script_is_named_as_redis_names_it() {
        // `SCRIPT LOAD "return 1"` answers this, as Redis's documentation shows.
        assert_eq!(
            sha1_hex(b"return 1"),
            "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"
        );
    }

    #[test]
    fn a_budget_takes_what_fits_and_one_item_when_nothing_waits() {
        let budget = QueueBudget::new(100);
        assert!(budget.take(60));
        assert!(budget.take(40));
        assert!(!budget.take(1), "full");
        budget.release(60);
        assert!(!budget.take(61));
        assert!(budget.take(60));
        budget.release(100);
        // Nothing waits: one item larger than the budget goes, and nothing beside it.
        assert!(budget.take(1000));
        assert!(!budget.take(1));
        budget.release(1000);
        assert!(budget.take(1));
        assert!(!budget.take(usize::MAX), "no overflow");
    }

    #[test]
    fn an_expiry_is_one_redis_takes() {
        assert_eq!(expiry_millis(Duration::ZERO), 1);
        assert_eq!(expiry_millis(Duration::from_micros(10)), 1);
        assert_eq!(expiry_millis(Duration::from_secs(60)), 60_000);
        assert_eq!(
            expiry_millis(Duration::from_secs(1 << 31)),
            MAX_EXPIRY_MILLIS
        );
        assert_eq!(expiry_millis(Duration::MAX), MAX_EXPIRY_MILLIS);
        // Within an `i64` of milliseconds from now, for centuries yet.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        assert!(u128::from(MAX_EXPIRY_MILLIS) + now.as_millis() * 100 < i64::MAX as u128);
    }
}
