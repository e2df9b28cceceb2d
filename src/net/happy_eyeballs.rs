//! Happy Eyeballs version 2 ([RFC 8305](https://www.rfc-editor.org/rfc/rfc8305)): a
//! host's addresses are ordered so that IPv6 and IPv4 alternate (§4), and connection
//! attempts to them are started one at a time, each a Connection Attempt Delay after the
//! one before or as soon as one fails; the first to connect wins and the others are
//! closed (§5). An address that blackholes its SYNs then costs a quarter of a second,
//! not the kernel's minutes-long connect timeout.
//!
//! Left out, and why:
//! - §3, sending the AAAA and A queries apart and starting on the first answer (with a
//!   Resolution Delay): a [`Resolve`](super::Resolve) answers with one list, as
//!   `getaddrinfo` does.
//! - §4's first step, sorting by Destination Address Selection (RFC 6724 §6), and its
//!   history-based rules: `getaddrinfo` has sorted the system resolver's answer; a
//!   caller's resolver's order is its choice and is kept.
//! - §6, answers that change while attempts run: there is one answer.
//! - §7, NAT64 synthesis: the system's business.
//!
//! # Within the connect timeout
//!
//! The whole race runs under the transport's connect timeout, and every address gets a
//! try within it: when an attempt starts with `k` addresses still waiting and `left` of
//! the connect timeout remaining, the next one starts after
//! `min(delay, left / (k + 1))` rather than after the Connection Attempt Delay alone (or
//! at once, if this one fails first). So 100 ms for two addresses gives the first 50 ms
//! before the second starts, where waiting out the 250 ms delay would have spent the
//! whole timeout on the first; a timeout of at least `delay` per address changes nothing.
//!
//! Why this rather than hyper-util's fixed equal share (each address `timeout / n`, then
//! abandoned for the next):
//! - an attempt is not cut off at its share: it goes on racing the later ones until the
//!   timeout, so a first address that answers a little late still wins, as RFC 8305 §5
//!   keeps attempts running;
//! - the share is worked out again at each start, so time an address did not use (it
//!   was refused at once) goes to the ones after it, not lost.
//!
//! The rule "a subsequent connection MUST NOT be started within 10 milliseconds of the
//! previous attempt" still holds: a timeout too short for every address to get 10 ms
//! reaches only the first ones. Below the 100 ms Minimum Connection Attempt Delay, which
//! RFC 8305 §5 recommends, a share of a short timeout goes on down to those 10 ms: the
//! caller's timeout bounds the whole connect, and an address never tried is worse than
//! one tried early. Every sum saturates, so no timeout (`Duration::MAX` included) makes
//! the schedule overflow.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use tokio::time::Instant;

/// The default Connection Attempt Delay: "One recommended value for a default delay is
/// 250 milliseconds" (RFC 8305 §5).
pub(crate) const DEFAULT_CONNECTION_ATTEMPT_DELAY: Duration = Duration::from_millis(250);

/// "The recommended minimum value is 100 milliseconds, which is referred to as the
/// 'Minimum Connection Attempt Delay'" (RFC 8305 §5, §8).
pub(crate) const MIN_CONNECTION_ATTEMPT_DELAY: Duration = Duration::from_millis(100);

/// "The Connection Attempt Delay SHOULD have an upper bound, referred to as the 'Maximum
/// Connection Attempt Delay'. The current recommended value is 2 seconds" (RFC 8305 §5).
pub(crate) const MAX_CONNECTION_ATTEMPT_DELAY: Duration = Duration::from_secs(2);

/// "A subsequent connection MUST NOT be started within 10 milliseconds of the previous
/// attempt" (RFC 8305 §5), which holds for an attempt started because another failed too.
const MIN_GAP_BETWEEN_ATTEMPTS: Duration = Duration::from_millis(10);

/// The most addresses of one host the connect path tries: the first 32 that Happy
/// Eyeballs would reach, whatever gave them (the system resolver, a
/// [`Resolve`](super::Resolve) of the caller's, `resolve_with`, an override).
///
/// Every address is a connection attempt when the ones before it fail, each at least
/// 10 ms after the last, so an answer of thousands of addresses (a DNS answer over TCP
/// holds hundreds; a resolver of one's own, any number) would keep one connect going for
/// many seconds and keep as many errors. The addresses kept are those the race reaches
/// first, in the resolver's order: the families alternate (RFC 8305 §4), so with both in
/// the answer each keeps its first 16, and a family with fewer leaves the rest of the 32
/// to the other. With a [local address](super::HyperTransportBuilder::local_address), the
/// 32 are of its family, and at most 32 of the other are reported as skipped.
///
/// ```
/// use whatwg_fetch::net::MAX_CONNECT_ADDRESSES;
///
/// // However many addresses a name has, a connection tries at most these.
/// assert!(MAX_CONNECT_ADDRESSES >= 2);
/// ```
pub const MAX_CONNECT_ADDRESSES: usize = 32;

/// A Connection Attempt Delay within RFC 8305's bounds (§5, §8): 100 ms to 2 s.
pub(crate) fn connection_attempt_delay(delay: Duration) -> Duration {
    delay.clamp(MIN_CONNECTION_ATTEMPT_DELAY, MAX_CONNECTION_ATTEMPT_DELAY)
}

/// [RFC 8305 §4](https://www.rfc-editor.org/rfc/rfc8305#section-4), Sorting Addresses:
/// "the client SHOULD modify the ordered list to interleave address families. Whichever
/// address family is first in the list should be followed by an address of the other
/// address family". The First Address Family Count is 1: the families alternate
/// address by address, each keeping its own order, and what one family has left over
/// goes last.
pub(crate) fn sort_addresses(addrs: Vec<SocketAddr>) -> Vec<SocketAddr> {
    let Some(first) = addrs.first() else {
        return addrs;
    };
    let first_is_v6 = first.is_ipv6();
    if addrs.iter().all(|addr| addr.is_ipv6() == first_is_v6) {
        return addrs;
    }
    let (first_family, other_family): (Vec<SocketAddr>, Vec<SocketAddr>) = addrs
        .into_iter()
        .partition(|addr| addr.is_ipv6() == first_is_v6);
    let mut sorted = Vec::with_capacity(first_family.len() + other_family.len());
    let (mut first_family, mut other_family) = (first_family.into_iter(), other_family.into_iter());
    loop {
        match (first_family.next(), other_family.next()) {
            (None, None) => return sorted,
            (one, other) => {
                sorted.extend(one);
                sorted.extend(other);
            }
        }
    }
}

/// The first `max` of `addrs` that Happy Eyeballs, alternating IPv6 and IPv4 (RFC 8305
/// §4), would try, in their own order: each family gets half of `max`, and what one
/// family leaves unused goes to the other. A list of `max` or fewer is returned as it is.
pub(crate) fn first_to_try(addrs: Vec<SocketAddr>, max: usize) -> Vec<SocketAddr> {
    if addrs.len() <= max {
        return addrs;
    }
    let v6 = addrs.iter().filter(|addr| addr.is_ipv6()).count();
    let v4 = addrs.len().saturating_sub(v6);
    // With both families past half of `max`, each gets half (the first family one more
    // for an odd `max`, as it starts the alternation); a family below half leaves the rest
    // to the other.
    let half = max / 2;
    let (mut keep_v6, mut keep_v4) = (v6.min(half), v4.min(half));
    let spare = max.saturating_sub(keep_v6).saturating_sub(keep_v4);
    let first_is_v6 = addrs.first().is_some_and(SocketAddr::is_ipv6);
    if first_is_v6 {
        keep_v6 = v6.min(keep_v6.saturating_add(spare));
        keep_v4 = v4.min(max.saturating_sub(keep_v6));
    } else {
        keep_v4 = v4.min(keep_v4.saturating_add(spare));
        keep_v6 = v6.min(max.saturating_sub(keep_v4));
    }
    addrs
        .into_iter()
        .filter(|addr| {
            let keep = if addr.is_ipv6() {
                &mut keep_v6
            } else {
                &mut keep_v4
            };
            let kept = *keep > 0;
            *keep = keep.saturating_sub(1);
            kept
        })
        .collect()
}

/// [RFC 8305 §5](https://www.rfc-editor.org/rfc/rfc8305#section-5), Connection Attempts:
/// calls `connect` for each of `addrs` in order, "one connection attempt to a single
/// address is started first, followed by the others in the list, one at a time", the
/// next when `delay` (the Connection Attempt Delay) has passed since the last start or
/// when an attempt fails, whichever comes first, but never within 10 ms of the last
/// start; with a `deadline` (the end of the connect timeout), sooner than `delay` when
/// the addresses not started would otherwise not each get their share of the time left
/// (see [`next_attempt_after`] and the module's documentation). "Once one of the connection attempts succeeds [...], all other connections
/// attempts that have not yet succeeded SHOULD be canceled": the first success is
/// returned and every other attempt is dropped, which closes its socket; addresses not
/// yet tried are not.
///
/// Starting the next attempt when one fails is not in RFC 8305's text, which only spaces
/// attempts out to spare the network; waiting out the delay after a refusal would spare
/// nothing. curl and hyper-util do the same.
///
/// # Errors
///
/// When every attempt fails: each address with its error, in the order the attempts
/// started (not the order they failed in). Empty when `addrs` is.
pub(crate) async fn race_connection_attempts<T, F, Fut>(
    addrs: Vec<SocketAddr>,
    delay: Duration,
    deadline: Option<Instant>,
    connect: F,
) -> Result<T, Vec<(SocketAddr, io::Error)>>
where
    F: Fn(SocketAddr) -> Fut,
    Fut: Future<Output = io::Result<T>>,
{
    // One address, the usual case for `localhost` or a literal: nothing to race.
    if let [addr] = addrs.as_slice() {
        let addr = *addr;
        return connect(addr).await.map_err(|error| vec![(addr, error)]);
    }
    let attempt = |(index, addr): (usize, SocketAddr)| {
        let connecting = connect(addr);
        async move { (index, addr, connecting.await) }
    };
    let mut failures: Vec<(usize, SocketAddr, io::Error)> = Vec::new();
    let mut not_started = addrs.into_iter().enumerate().peekable();
    let mut running = FuturesUnordered::new();
    let Some(first) = not_started.next() else {
        return Err(Vec::new());
    };
    running.push(attempt(first));
    let mut last_start = Instant::now();
    let next_start = tokio::time::sleep_until(next_attempt_at(
        last_start,
        delay,
        deadline,
        not_started.len(),
    ));
    tokio::pin!(next_start);
    loop {
        tokio::select! {
            biased;
            Some((index, addr, result)) = running.next(), if !running.is_empty() => match result {
                // Dropping `running` cancels the other attempts.
                Ok(connected) => return Ok(connected),
                Err(error) => {
                    failures.push((index, addr, error));
                    if not_started.peek().is_some() {
                        // A deadline already past fires at once.
                        next_start
                            .as_mut()
                            .reset(later(last_start, MIN_GAP_BETWEEN_ATTEMPTS));
                    } else if running.is_empty() {
                        break;
                    }
                }
            },
            () = &mut next_start, if not_started.peek().is_some() => {
                if let Some(next) = not_started.next() {
                    running.push(attempt(next));
                }
                last_start = Instant::now();
                next_start.as_mut().reset(next_attempt_at(
                    last_start,
                    delay,
                    deadline,
                    not_started.len(),
                ));
            },
            else => break,
        }
    }
    failures.sort_by_key(|(index, _, _)| *index);
    Err(failures
        .into_iter()
        .map(|(_, addr, error)| (addr, error))
        .collect())
}

/// How long after an attempt starts, at `start`, the next one does if this one has not
/// failed by then: the Connection Attempt Delay `delay`, or, with `time_left` of the
/// connect timeout and `waiting` addresses not yet started, the share of the time left of
/// this attempt and each of those (`time_left / (waiting + 1)`) when that is shorter;
/// never under the 10 ms RFC 8305 §5 requires between two starts. No input overflows:
/// the division is by at least 1, and a count past `u32::MAX` divides by `u32::MAX`.
fn next_attempt_after(delay: Duration, time_left: Option<Duration>, waiting: usize) -> Duration {
    let after = match time_left {
        None => delay,
        Some(time_left) => {
            // DEVIATION: RFC 8305 §5 recommends no delay under 100 ms; a share of a short
            // connect timeout goes down to the 10 ms it requires, so that every address
            // is tried before the timeout ends the connect (see the module's docs).
            let shares = u32::try_from(waiting.saturating_add(1)).unwrap_or(u32::MAX);
            let share = time_left.checked_div(shares).unwrap_or(time_left);
            delay.min(share)
        }
    };
    after.max(MIN_GAP_BETWEEN_ATTEMPTS)
}

/// When the next attempt starts after one started at `start` (see
/// [`next_attempt_after`]), `deadline` being the end of the connect timeout if any.
fn next_attempt_at(
    start: Instant,
    delay: Duration,
    deadline: Option<Instant>,
    waiting: usize,
) -> Instant {
    let time_left = deadline.map(|deadline| deadline.saturating_duration_since(start));
    later(start, next_attempt_after(delay, time_left, waiting))
}

/// `after` past `at`, or, were that past what an `Instant` holds, about 30 years on
/// (tokio's own far future).
fn later(at: Instant, after: Duration) -> Instant {
    at.checked_add(after)
        .or_else(|| at.checked_add(Duration::from_secs(86_400 * 365 * 30)))
        .unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use super::*;

    fn addr(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    fn addrs(texts: &[&str]) -> Vec<SocketAddr> {
        texts.iter().map(|text| addr(text)).collect()
    }

    fn v4(n: u8) -> SocketAddr {
        SocketAddr::from((std::net::Ipv4Addr::new(10, 0, 0, n), 0))
    }

    fn v6(n: u16) -> SocketAddr {
        SocketAddr::from((std::net::Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, n), 0))
    }

    #[test]
    fn the_addresses_kept_are_the_first_happy_eyeballs_would_try() {
        // Both families past half: 16 of each, in the resolver's order.
        let many: Vec<SocketAddr> = (1..=100).map(v6).chain((1..=100).map(v4)).collect();
        let kept = first_to_try(many, 32);
        let expected: Vec<SocketAddr> = (1..=16).map(v6).chain((1..=16).map(v4)).collect();
        assert_eq!(kept, expected);

        // One family short: the other gets what it leaves.
        let few_v4: Vec<SocketAddr> = (1..=100).map(v6).chain((1..=5).map(v4)).collect();
        let kept = first_to_try(few_v4, 32);
        let expected: Vec<SocketAddr> = (1..=27).map(v6).chain((1..=5).map(v4)).collect();
        assert_eq!(kept, expected);

        // One family only: the first 32.
        let kept = first_to_try((1..=255).map(v4).collect(), 32);
        assert_eq!(kept, (1..=32).map(v4).collect::<Vec<_>>());

        // An odd cap: the family that starts the alternation gets the extra one.
        let kept = first_to_try((1..=9).map(v4).chain((1..=9).map(v6)).collect(), 5);
        assert_eq!(kept, vec![v4(1), v4(2), v4(3), v6(1), v6(2)]);

        // Fewer than the cap: all of them, as they were.
        let mixed = vec![v4(1), v6(1), v4(2)];
        assert_eq!(first_to_try(mixed.clone(), 32), mixed);
        assert!(first_to_try(Vec::new(), 32).is_empty());
    }

    #[test]
    fn addresses_alternate_families_starting_with_the_first_ones() {
        assert_eq!(
            sort_addresses(addrs(&["[::1]:1", "[::2]:1", "[::3]:1", "10.0.0.1:1"])),
            addrs(&["[::1]:1", "10.0.0.1:1", "[::2]:1", "[::3]:1"])
        );
        assert_eq!(
            sort_addresses(addrs(&["10.0.0.1:1", "10.0.0.2:1", "[::1]:1", "[::2]:1"])),
            addrs(&["10.0.0.1:1", "[::1]:1", "10.0.0.2:1", "[::2]:1"])
        );
        assert_eq!(
            sort_addresses(addrs(&["10.0.0.1:1", "[::1]:1", "[::2]:1", "10.0.0.2:1"])),
            addrs(&["10.0.0.1:1", "[::1]:1", "10.0.0.2:1", "[::2]:1"])
        );
    }

    #[test]
    fn addresses_of_one_family_keep_their_order() {
        let one_family = addrs(&["10.0.0.2:1", "10.0.0.1:1", "10.0.0.3:1"]);
        assert_eq!(sort_addresses(one_family.clone()), one_family);
        assert_eq!(sort_addresses(Vec::new()), Vec::new());
    }

    #[test]
    fn the_delay_is_held_within_the_rfc_bounds() {
        assert_eq!(
            connection_attempt_delay(Duration::ZERO),
            Duration::from_millis(100)
        );
        assert_eq!(
            connection_attempt_delay(Duration::from_millis(300)),
            Duration::from_millis(300)
        );
        assert_eq!(
            connection_attempt_delay(Duration::from_secs(60)),
            Duration::from_secs(2)
        );
        assert_eq!(
            connection_attempt_delay(Duration::MAX),
            Duration::from_secs(2)
        );
        assert_eq!(
            connection_attempt_delay(Duration::from_nanos(1)),
            Duration::from_millis(100)
        );
    }

    #[test]
    fn the_next_attempt_waits_the_delay_or_its_share_of_the_time_left() {
        let ms = Duration::from_millis;
        // No connect timeout, or one long enough: the delay.
        assert_eq!(next_attempt_after(ms(250), None, 3), ms(250));
        assert_eq!(next_attempt_after(ms(250), Some(ms(1000)), 1), ms(250));
        // 100 ms for this attempt and one more: half each.
        assert_eq!(next_attempt_after(ms(250), Some(ms(100)), 1), ms(50));
        assert_eq!(next_attempt_after(ms(2000), Some(ms(600)), 2), ms(200));
        // Never within 10 ms of the last start, however little is left.
        assert_eq!(next_attempt_after(ms(250), Some(ms(15)), 1), ms(10));
        assert_eq!(next_attempt_after(ms(250), Some(Duration::ZERO), 1), ms(10));
    }

    #[test]
    fn extreme_times_and_counts_neither_overflow_nor_panic() {
        let ms = Duration::from_millis;
        for time_left in [
            None,
            Some(Duration::MAX),
            Some(Duration::ZERO),
            Some(Duration::from_nanos(1)),
        ] {
            for waiting in [0, 1, usize::MAX] {
                for delay in [
                    Duration::ZERO,
                    Duration::from_nanos(1),
                    ms(250),
                    Duration::MAX,
                ] {
                    let after = next_attempt_after(delay, time_left, waiting);
                    assert!(after >= ms(10), "{delay:?} {time_left:?} {waiting}");
                    assert!(
                        after <= delay.max(ms(10)),
                        "{delay:?} {time_left:?} {waiting}"
                    );
                }
            }
        }
        let now = Instant::now();
        assert!(later(now, Duration::MAX) > now);
        let deadline = later(now, Duration::MAX);
        assert!(next_attempt_at(now, Duration::MAX, Some(deadline), usize::MAX) > now);
        assert_eq!(next_attempt_at(now, ms(250), Some(now), 1), now + ms(10));
        // A deadline already past.
        assert_eq!(
            next_attempt_at(now + ms(50), ms(250), Some(now), 1),
            now + ms(60)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_connect_timeout_shorter_than_the_delays_gives_each_address_a_share() {
        // 300 ms for three addresses, the first two silent: a third each.
        let (result, starts) = race_within(
            &["10.0.0.1:1", "10.0.0.2:1", "10.0.0.3:2"],
            Some(Duration::from_millis(300)),
        )
        .await;
        assert_eq!(result.unwrap(), addr("10.0.0.3:2"));
        assert_eq!(
            starts,
            vec![
                (addr("10.0.0.1:1"), Duration::ZERO),
                (addr("10.0.0.2:1"), Duration::from_millis(100)),
                (addr("10.0.0.3:2"), Duration::from_millis(200)),
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_share_an_address_left_unused_goes_to_those_after_it() {
        // The first is refused at once; the next starts 10 ms on, with 290 ms left for
        // two addresses: the third starts 145 ms after it.
        let (result, starts) = race_within(
            &["10.0.0.0:3", "10.0.0.1:1", "10.0.0.2:2"],
            Some(Duration::from_millis(300)),
        )
        .await;
        assert_eq!(result.unwrap(), addr("10.0.0.2:2"));
        assert_eq!(
            starts,
            vec![
                (addr("10.0.0.0:3"), Duration::ZERO),
                (addr("10.0.0.1:1"), Duration::from_millis(10)),
                (addr("10.0.0.2:2"), Duration::from_millis(155)),
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn an_attempt_past_its_share_can_still_win() {
        // The first connects after 200 ms, past its 150 ms share; the second never does.
        let (result, starts) = race_within(
            &["10.0.0.200:2", "10.0.0.1:1"],
            Some(Duration::from_millis(300)),
        )
        .await;
        assert_eq!(result.unwrap(), addr("10.0.0.200:2"));
        assert_eq!(starts[1], (addr("10.0.0.1:1"), Duration::from_millis(150)));
    }

    #[tokio::test(start_paused = true)]
    async fn a_timeout_too_short_for_every_share_still_spaces_attempts_10_ms_apart() {
        let list = ["10.0.0.1:1", "10.0.0.2:1", "10.0.0.3:1"];
        for timeout in [Duration::ZERO, Duration::from_nanos(1)] {
            let starts = Arc::new(Mutex::new(Vec::new()));
            let t0 = Instant::now();
            let racing =
                race_connection_attempts(addrs(&list), Duration::MAX, Some(t0 + timeout), |addr| {
                    scripted(addr, Arc::clone(&starts), t0)
                });
            // The connect timeout, which the caller runs, ends the race.
            assert!(
                tokio::time::timeout(Duration::from_millis(100), racing)
                    .await
                    .is_err()
            );
            let at: Vec<Duration> = starts.lock().unwrap().iter().map(|(_, at)| *at).collect();
            assert_eq!(
                at,
                [0, 10, 20].map(Duration::from_millis),
                "timeout {timeout:?}"
            );
        }
    }

    /// What a scripted attempt does, after as many milliseconds as the address's last
    /// octet: by its port, 1 never answers, 2 connects and 3 is refused.
    async fn scripted(
        addr: SocketAddr,
        starts: Arc<Mutex<Vec<(SocketAddr, Duration)>>>,
        t0: Instant,
    ) -> io::Result<SocketAddr> {
        starts.lock().unwrap().push((addr, t0.elapsed()));
        let wait = match addr.ip() {
            std::net::IpAddr::V4(ip) => u64::from(ip.octets()[3]),
            std::net::IpAddr::V6(ip) => u64::from(ip.octets()[15]),
        };
        tokio::time::sleep(Duration::from_millis(wait)).await;
        match addr.port() {
            2 => Ok(addr),
            3 => Err(io::Error::new(io::ErrorKind::ConnectionRefused, "refused")),
            _ => std::future::pending().await,
        }
    }

    /// Races `list` with a 250 ms delay, under a connect timeout of `timeout` if any.
    async fn race_within(
        list: &[&str],
        timeout: Option<Duration>,
    ) -> (
        Result<SocketAddr, Vec<(SocketAddr, io::Error)>>,
        Vec<(SocketAddr, Duration)>,
    ) {
        let starts = Arc::new(Mutex::new(Vec::new()));
        let t0 = Instant::now();
        let deadline = timeout.map(|timeout| t0 + timeout);
        let result =
            race_connection_attempts(addrs(list), Duration::from_millis(250), deadline, |addr| {
                scripted(addr, Arc::clone(&starts), t0)
            })
            .await;
        let starts = starts.lock().unwrap().clone();
        (result, starts)
    }

    async fn race(
        list: &[&str],
    ) -> (
        Result<SocketAddr, Vec<(SocketAddr, io::Error)>>,
        Vec<(SocketAddr, Duration)>,
    ) {
        race_within(list, None).await
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_address_gets_the_next_attempt_started_after_the_delay() {
        let (result, starts) = race(&["[::1]:1", "10.0.0.1:2"]).await;
        assert_eq!(result.unwrap(), addr("10.0.0.1:2"));
        assert_eq!(
            starts,
            vec![
                (addr("[::1]:1"), Duration::ZERO),
                (addr("10.0.0.1:2"), Duration::from_millis(250)),
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_attempt_starts_the_next_at_once_but_not_within_10_ms() {
        let (result, starts) = race(&["10.0.0.0:3", "10.0.0.30:3", "10.0.0.1:2"]).await;
        assert_eq!(result.unwrap(), addr("10.0.0.1:2"));
        assert_eq!(
            starts,
            vec![
                (addr("10.0.0.0:3"), Duration::ZERO),
                (addr("10.0.0.30:3"), Duration::from_millis(10)),
                (addr("10.0.0.1:2"), Duration::from_millis(40)),
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_slower_attempt_started_first_can_still_win() {
        // The first answers after 255 ms, once the second has started (at 250 ms); the
        // second never answers.
        let (result, starts) = race(&["10.0.0.255:2", "10.0.0.1:1"]).await;
        assert_eq!(result.unwrap(), addr("10.0.0.255:2"));
        assert_eq!(starts.len(), 2, "{starts:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn every_failure_is_reported_in_the_order_the_attempts_started() {
        // They fail in the order second (at 251 ms), first (255 ms), third (261 ms).
        let (result, _) = race(&["10.0.0.255:3", "[::1]:3", "10.0.0.1:3"]).await;
        let failures = result.unwrap_err();
        let tried: Vec<SocketAddr> = failures.iter().map(|(addr, _)| *addr).collect();
        assert_eq!(tried, addrs(&["10.0.0.255:3", "[::1]:3", "10.0.0.1:3"]));
        assert!(
            failures
                .iter()
                .all(|(_, error)| error.kind() == io::ErrorKind::ConnectionRefused)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_losing_attempts_are_dropped_when_one_connects() {
        struct Guard(Arc<AtomicUsize>);
        impl Drop for Guard {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let dropped = Arc::new(AtomicUsize::new(0));
        let result = race_connection_attempts(
            addrs(&["10.0.0.1:1", "10.0.0.2:1", "10.0.0.3:2"]),
            Duration::from_millis(250),
            None,
            |addr| {
                let guard = Guard(Arc::clone(&dropped));
                async move {
                    let _guard = guard;
                    if addr.port() == 2 {
                        Ok(addr)
                    } else {
                        std::future::pending().await
                    }
                }
            },
        )
        .await;
        assert_eq!(result.unwrap(), addr("10.0.0.3:2"));
        assert_eq!(dropped.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn no_addresses_is_an_empty_failure() {
        let result: Result<(), _> =
            race_connection_attempts(Vec::new(), Duration::from_millis(250), None, |_| async {
                Ok(())
            })
            .await;
        assert!(result.unwrap_err().is_empty());
    }
}
