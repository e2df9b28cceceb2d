//! Freshness: the request and response directives of
//! [`Cache-Control`](https://httpwg.org/specs/rfc9111.html#field.cache-control)
//! (RFC 9111 §5.2), a response's
//! [freshness lifetime](https://httpwg.org/specs/rfc9111.html#calculating.freshness.lifetime)
//! (§4.2.1, with the heuristic of §4.2.2 for the statuses
//! [RFC 9110 §15.1](https://httpwg.org/specs/rfc9110.html#rfc.section.15.1) calls
//! heuristically cacheable) and [age](https://httpwg.org/specs/rfc9111.html#age.calculations)
//! (§4.2.3); whether a stored response must be validated before use, or may be used while it
//! is revalidated ([RFC 5861 §3](https://httpwg.org/specs/rfc5861.html#stale-while-revalidate));
//! and the 504 a request `only-if-cached` gets when nothing stored answers it (§5.2.1.7).

use std::num::IntErrorKind;
use std::time::{Duration, SystemTime};

use super::storage::Entry;
use crate::headers::{HeaderList, Headers, HeadersGuard};
use crate::infra::{MAX_DELTA_SECONDS, days_from_civil, days_in_month};
use crate::request::Request;
use crate::response::Response;

/// Whether `request` has the request directive `Cache-Control: only-if-cached`
/// ([RFC 9111 §5.2.1.7](https://httpwg.org/specs/rfc9111.html#cache-request-directive.only-if-cached)):
/// when nothing stored can answer it, the cache answers 504 (Gateway Timeout).
pub(crate) fn requests_only_if_cached(request: &Request) -> bool {
    cache_control(request.headers.header_list()).only_if_cached
}

/// A 504 (Gateway Timeout) response, the cache's answer to `only-if-cached` when it has
/// nothing.
pub(crate) fn gateway_timeout() -> Response {
    Response::from_network(
        504,
        "Gateway Timeout",
        Headers::from_header_list(HeaderList::new(), HeadersGuard::Immutable),
        None,
        Vec::new(),
    )
}

/// The parsed `Cache-Control` directives of a header list.
#[derive(Debug, Default, PartialEq)]
pub(super) struct CacheControl {
    pub(super) max_age: Option<u64>,
    pub(super) s_maxage: bool,
    pub(super) no_store: bool,
    pub(super) no_cache: bool,
    pub(super) must_revalidate: bool,
    pub(super) public: bool,
    /// `max-stale`: `Some(None)` without an argument (any staleness).
    pub(super) max_stale: Option<Option<u64>>,
    pub(super) min_fresh: Option<u64>,
    pub(super) only_if_cached: bool,
    /// `stale-while-revalidate` (RFC 5861 §3): seconds a stale response may still be used
    /// while it is revalidated in the background.
    pub(super) stale_while_revalidate: Option<u64>,
    /// `stale-if-error` (RFC 5861 §4): seconds a stale response may be used when
    /// validating it fails. This cache does not serve it so; it only keeps a record that
    /// long in a store that expires records (see [`time_of_use`]).
    pub(super) stale_if_error: Option<u64>,
}

/// Parses every `Cache-Control` header of `headers` (names are case-insensitive; an
/// invalid `max-age` counts as 0, i.e. stale, as RFC 9111 §4.2.1 advises; a repeated one
/// takes the first; a delta-seconds past 2^31 is 2^31, see [`delta_seconds`]).
pub(super) fn cache_control(headers: &HeaderList) -> CacheControl {
    let mut directives = CacheControl::default();
    for value in headers.values(b"cache-control") {
        for directive in value.split(|&byte| byte == b',') {
            let directive = String::from_utf8_lossy(directive);
            let (name, argument) = match directive.split_once('=') {
                Some((name, argument)) => (name.trim(), Some(argument.trim().trim_matches('"'))),
                None => (directive.trim(), None),
            };
            match name.to_ascii_lowercase().as_str() {
                "max-age" if directives.max_age.is_none() => {
                    directives.max_age = Some(argument.and_then(delta_seconds).unwrap_or(0));
                }
                "s-maxage" => directives.s_maxage = true,
                "max-stale" => {
                    directives.max_stale = Some(argument.and_then(delta_seconds));
                }
                "min-fresh" => {
                    directives.min_fresh = argument.and_then(delta_seconds);
                }
                "no-store" => directives.no_store = true,
                "no-cache" => directives.no_cache = true,
                "must-revalidate" => directives.must_revalidate = true,
                "public" => directives.public = true,
                "only-if-cached" => directives.only_if_cached = true,
                "stale-while-revalidate" => {
                    directives.stale_while_revalidate = argument.and_then(delta_seconds);
                }
                "stale-if-error" => {
                    directives.stale_if_error = argument.and_then(delta_seconds);
                }
                _ => {}
            }
        }
    }
    directives
}

/// A [delta-seconds](https://httpwg.org/specs/rfc9111.html#delta-seconds) (RFC 9111
/// §1.2.2), read as `str::parse` reads a `u64`, except that a value past 2^31 (even one
/// past `u64`, which `parse` refuses) is 2^31 ([`MAX_DELTA_SECONDS`]): "If a cache
/// receives a delta-seconds value greater than the greatest integer it can represent, or
/// if any of its subsequent calculations overflows, the cache MUST consider the value to
/// be 2147483648 (2^31) or the greatest positive integer it can conveniently represent."
/// So a `max-age` too large for a `u64` is fresh rather than invalid (stale), and the
/// times computed from one stay within what a store can expire a record after.
fn delta_seconds(value: &str) -> Option<u64> {
    match value.parse::<u64>() {
        Ok(seconds) => Some(seconds.min(MAX_DELTA_SECONDS)),
        Err(error) if *error.kind() == IntErrorKind::PosOverflow => Some(MAX_DELTA_SECONDS),
        Err(_) => None,
    }
}

/// An HTTP-date header value, if it parses (see [`parse_http_date`]).
fn date_header(headers: &HeaderList, name: &str) -> Option<SystemTime> {
    let value = headers.get(name)?;
    parse_http_date(std::str::from_utf8(&value).ok()?.trim(), SystemTime::now())
}

const DAY_NAMES: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const LONG_DAY_NAMES: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];
const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// An [HTTP-date](https://httpwg.org/specs/rfc9110.html#http.date) in any of its three
/// formats (RFC 9110 §5.6.7: IMF-fixdate, rfc850-date, asctime-date), matched
/// case-insensitively as [RFC 9111 §4.2](https://httpwg.org/specs/rfc9111.html#expiration.model)
/// has a cache do. A two-digit rfc850 year more than 50 years after `now` is the most recent
/// past year with those digits (RFC 9110 §5.6.7).
///
/// Anything else is invalid (`None`): other zones than `GMT`, missing or extra separators,
/// one-digit hours, two-digit years in IMF-fixdate. The day name must be one, but is not
/// checked against the date, as Chrome, Firefox and Safari do not.
fn parse_http_date(value: &str, now: SystemTime) -> Option<SystemTime> {
    let value = value.to_ascii_lowercase();
    let (year, month, day, time) = match value.split_once(", ") {
        // IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
        Some((day_name, rest)) if DAY_NAMES.contains(&day_name) => {
            let [day, month, year, time, "gmt"] = split_exact(rest, ' ')? else {
                return None;
            };
            (digits(year, 4)?, month, digits(day, 2)?, time)
        }
        // rfc850-date: `Sunday, 06-Nov-94 08:49:37 GMT`.
        Some((day_name, rest)) if LONG_DAY_NAMES.contains(&day_name) => {
            let [date, time, "gmt"] = split_exact(rest, ' ')? else {
                return None;
            };
            let [day, month, year] = split_exact(date, '-')?;
            (
                rfc850_year(digits(year, 2)?, now),
                month,
                digits(day, 2)?,
                time,
            )
        }
        Some(_) => return None,
        // asctime-date: `Sun Nov  6 08:49:37 1994`.
        None => {
            let (day_name, rest) = value.split_at_checked(3)?;
            let rest = rest.strip_prefix(' ')?;
            let (month, rest) = rest.split_at_checked(3)?;
            let rest = rest.strip_prefix(' ')?;
            let (day, rest) = rest.split_at_checked(2)?;
            let day = match day.strip_prefix(' ') {
                Some(digit) => digits(digit, 1)?,
                None => digits(day, 2)?,
            };
            let [time, year] = split_exact(rest.strip_prefix(' ')?, ' ')?;
            if !DAY_NAMES.contains(&day_name) {
                return None;
            }
            (digits(year, 4)?, month, day, time)
        }
    };
    // 1 for January.
    let month = MONTHS.iter().position(|name| *name == month)? + 1;
    let [hour, minute, second] = split_exact(time, ':')?;
    let (hour, minute, second) = (digits(hour, 2)?, digits(minute, 2)?, digits(second, 2)?);
    let month = u32::try_from(month).ok()?;
    if day == 0
        || day > i64::from(days_in_month(year, month))
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let days = days_from_civil(year, i64::from(month), day);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second;
    match u64::try_from(seconds) {
        Ok(after) => SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(after)),
        Err(_) => SystemTime::UNIX_EPOCH.checked_sub(Duration::from_secs(seconds.unsigned_abs())),
    }
}

/// `value` split at every `separator` into exactly `N` parts (nothing is allocated, however
/// many separators a peer sent).
fn split_exact<const N: usize>(value: &str, separator: char) -> Option<[&str; N]> {
    let mut parts = [""; N];
    let mut split = value.split(separator);
    for part in &mut parts {
        *part = split.next()?;
    }
    match split.next() {
        Some(_) => None,
        None => Some(parts),
    }
}

/// `value` as a number, if it is exactly `count` ASCII digits.
fn digits(value: &str, count: usize) -> Option<i64> {
    if value.len() != count || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    value.parse().ok()
}

/// The year of a two-digit rfc850 year (RFC 9110 §5.6.7): within 50 years after `now`,
/// else the most recent past year with those digits.
fn rfc850_year(two_digits: i64, now: SystemTime) -> i64 {
    let seconds = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    // The average Gregorian year is 31,556,952 s: near enough for a 50-year window.
    let now_year = 1970 + i64::try_from(seconds / 31_556_952).unwrap_or(0);
    let year = now_year - now_year.rem_euclid(100) + two_digits;
    if year > now_year + 50 {
        year - 100
    } else if year + 100 <= now_year + 50 {
        year + 100
    } else {
        year
    }
}

/// Whether `status` is [heuristically cacheable](https://httpwg.org/specs/rfc9110.html#rfc.section.15.1).
pub(super) fn is_heuristically_cacheable(status: u16) -> bool {
    matches!(
        status,
        200 | 203 | 204 | 206 | 300 | 301 | 308 | 404 | 405 | 410 | 414 | 501
    )
}

/// The [freshness lifetime](https://httpwg.org/specs/rfc9111.html#calculating.freshness.lifetime)
/// of a response with `status` and `headers`, received at `response_time`.
pub(super) fn freshness_lifetime(
    status: u16,
    headers: &HeaderList,
    response_time: SystemTime,
) -> Duration {
    let directives = cache_control(headers);
    // If the cache is not shared, s-maxage is ignored; max-age comes first.
    if let Some(max_age) = directives.max_age {
        return Duration::from_secs(max_age);
    }
    let date = date_header(headers, "date").unwrap_or(response_time);
    // Otherwise, if the Expires header field is present, its value minus the value of the
    // Date header field (an invalid Expires means already expired).
    if headers.contains("expires") {
        return date_header(headers, "expires")
            .and_then(|expires| expires.duration_since(date).ok())
            .unwrap_or(Duration::ZERO);
    }
    // Otherwise, a heuristic freshness lifetime: 10% of the time since Last-Modified.
    if is_heuristically_cacheable(status) || directives.public {
        if let Some(last_modified) = date_header(headers, "last-modified") {
            if let Ok(since) = date.duration_since(last_modified) {
                return since / 10;
            }
        }
    }
    Duration::ZERO
}

/// How long past a validated response's use a store keeps it: a cache reading it then can
/// still send its validator, and a 304 costs less than the response.
pub(super) const VALIDATION_GRACE: Duration = Duration::from_secs(24 * 60 * 60);

/// How long from `now` a stored response is of use to a cache that reads it from a store:
/// its freshness lifetime left, plus its `stale-while-revalidate` and `stale-if-error`
/// windows (RFC 5861), plus [`VALIDATION_GRACE`] when it has a validator (`ETag` or
/// `Last-Modified`). Not in RFC 9111: it is the expiry a shared store gives the record.
pub(super) fn time_of_use(
    status: u16,
    headers: &HeaderList,
    request_time: SystemTime,
    response_time: SystemTime,
    now: SystemTime,
) -> Duration {
    let directives = cache_control(headers);
    let lifetime = freshness_lifetime(status, headers, response_time);
    let age = current_age(headers, request_time, response_time, now);
    let windows = Duration::from_secs(
        directives
            .stale_while_revalidate
            .unwrap_or(0)
            .saturating_add(directives.stale_if_error.unwrap_or(0)),
    );
    let mut time = lifetime.saturating_add(windows).saturating_sub(age);
    if headers.contains("etag") || headers.contains("last-modified") {
        time = time.saturating_add(VALIDATION_GRACE);
    }
    time
}

/// The [current age](https://httpwg.org/specs/rfc9111.html#age.calculations) at `now` of a
/// response with `headers`, requested at `request_time` and received at `response_time`.
pub(super) fn current_age(
    headers: &HeaderList,
    request_time: SystemTime,
    response_time: SystemTime,
    now: SystemTime,
) -> Duration {
    // RFC 9111 §5.1: a list-based Age (one line `7200, 0`, or several lines) counts by its
    // first member, the others discarded; an invalid value is ignored, and one past 2^31 is
    // 2^31 (§1.2.2).
    let age_value = headers
        .get("age")
        .and_then(|age| {
            let first = std::str::from_utf8(&age).ok()?.split(',').next()?;
            delta_seconds(first.trim())
        })
        .map_or(Duration::ZERO, Duration::from_secs);
    let date_value = date_header(headers, "date").unwrap_or(response_time);
    let apparent_age = response_time
        .duration_since(date_value)
        .unwrap_or(Duration::ZERO);
    let response_delay = response_time
        .duration_since(request_time)
        .unwrap_or(Duration::ZERO);
    let corrected_age_value = age_value.saturating_add(response_delay);
    let corrected_initial_age = apparent_age.max(corrected_age_value);
    let resident_time = now.duration_since(response_time).unwrap_or(Duration::ZERO);
    corrected_initial_age.saturating_add(resident_time)
}

/// Whether `entry` must be validated before it answers a request with `request_headers`
/// at `now`: it is stale (beyond what the request's `max-stale` allows), it says
/// `no-cache`, or the request asks for validation (`no-cache`, `Pragma: no-cache`,
/// `max-age`, `min-fresh`).
pub(super) fn needs_validation(
    entry: &Entry,
    request_headers: &HeaderList,
    now: SystemTime,
) -> bool {
    let response = cache_control(&entry.headers);
    let request = cache_control(request_headers);
    if response.no_cache
        || request.no_cache
        || (!request_headers.contains("cache-control")
            && request_headers
                .values(b"pragma")
                .any(|value| value.eq_ignore_ascii_case(b"no-cache")))
    {
        return true;
    }
    let age = current_age(&entry.headers, entry.request_time, entry.response_time, now);
    let lifetime = freshness_lifetime(entry.status, &entry.headers, entry.response_time);
    if request
        .max_age
        .is_some_and(|max_age| age > Duration::from_secs(max_age))
    {
        return true;
    }
    if request
        .min_fresh
        .is_some_and(|min_fresh| lifetime < age.saturating_add(Duration::from_secs(min_fresh)))
    {
        return true;
    }
    if lifetime > age {
        return false;
    }
    // Stale: usable only within the request's max-stale, and never with must-revalidate.
    match request.max_stale {
        Some(max_stale) if !response.must_revalidate => {
            max_stale.is_some_and(|max_stale| age - lifetime > Duration::from_secs(max_stale))
        }
        _ => true,
    }
}

/// Whether a stored response that needs validation may still be used while it is validated
/// in the background: it is stale only by age, by less than its `stale-while-revalidate`
/// window ([RFC 5861 §3](https://httpwg.org/specs/rfc5861.html#stale-while-revalidate)),
/// and neither the response (`no-cache`, `must-revalidate`) nor the request (`no-cache`,
/// `Pragma: no-cache`, `max-age`, `min-fresh`) asks for a validated response.
pub(super) fn is_stale_while_revalidate(
    entry: &Entry,
    request_headers: &HeaderList,
    now: SystemTime,
) -> bool {
    let response = cache_control(&entry.headers);
    let request = cache_control(request_headers);
    let Some(window) = response.stale_while_revalidate else {
        return false;
    };
    if response.no_cache
        || response.must_revalidate
        || request.no_cache
        || request.max_age.is_some()
        || request.min_fresh.is_some()
        || request_headers
            .values(b"pragma")
            .any(|value| value.eq_ignore_ascii_case(b"no-cache"))
    {
        return false;
    }
    let age = current_age(&entry.headers, entry.request_time, entry.response_time, now);
    let lifetime = freshness_lifetime(entry.status, &entry.headers, entry.response_time);
    age >= lifetime && age - lifetime < Duration::from_secs(window)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{at, date, entry, list};
    use super::*;

    #[test]
    fn max_age_comes_before_expires_and_s_maxage_is_ignored() {
        let headers = list(&[
            ("Cache-Control", "s-maxage=10, max-age=100"),
            ("Date", &date(0)),
            ("Expires", &date(5)),
        ]);
        assert_eq!(
            freshness_lifetime(200, &headers, at(0)),
            Duration::from_secs(100)
        );
        let headers = list(&[("Cache-Control", "s-maxage=10")]);
        assert_eq!(freshness_lifetime(200, &headers, at(0)), Duration::ZERO);
    }

    #[test]
    fn expires_counts_from_date_and_an_invalid_one_is_already_expired() {
        let headers = list(&[("Date", &date(0)), ("Expires", &date(60))]);
        assert_eq!(
            freshness_lifetime(200, &headers, at(30)),
            Duration::from_secs(60)
        );
        let headers = list(&[("Date", &date(0)), ("Expires", "0")]);
        assert_eq!(freshness_lifetime(200, &headers, at(0)), Duration::ZERO);
    }

    #[test]
    fn http_dates_parse_in_all_three_formats_and_any_case() {
        let expected = Some(SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777));
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        for value in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "SUN, 06 NOV 1994 08:49:37 gmt",
            "sunday, 06-nov-94 08:49:37 GMT",
            // The day name is not checked against the date.
            "Thu Nov  6 08:49:37 1994",
        ] {
            assert_eq!(parse_http_date(value, now), expected, "{value}");
        }
        assert_eq!(
            parse_http_date("Thu Aug 18 02:01:18 2050", now),
            parse_http_date("Thu, 18 Aug 2050 02:01:18 GMT", now)
        );
        assert_eq!(
            parse_http_date("Thursday, 18-Aug-50 02:01:18 GMT", now),
            parse_http_date("Thu, 18 Aug 2050 02:01:18 GMT", now)
        );
        assert_eq!(
            parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT", now),
            Some(SystemTime::UNIX_EPOCH)
        );
        assert_eq!(
            parse_http_date("Thu, 29 Feb 2024 00:00:00 GMT", now),
            Some(SystemTime::UNIX_EPOCH + Duration::from_secs(1_709_164_800))
        );
    }

    #[test]
    fn malformed_http_dates_are_invalid() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        for value in [
            "0",
            "",
            "Thu, 18 Aug 2050 02:01:18 UTC",
            "Thu, 18 Aug 2050 02:01:18 AEST",
            "Thu, 18 Aug 50 02:01:18 GMT",
            "Thu 18 Aug 2050 02:01:18 GMT",
            "Thu, 18  Aug  2050 02:01:18 GMT",
            "Thu, 18-Aug-2050 02:01:18 GMT",
            "Thu, 18 Aug 2050 02.01.18 GMT",
            "Thu, 18 Aug 2050 2:01:18 GMT",
            "Thu, 30 Feb 2050 02:01:18 GMT",
            "Thu, 18 Aug 2050 24:01:18 GMT",
            "Xyz, 18 Aug 2050 02:01:18 GMT",
            "Thu Aug 18 02:01:18 50",
            "Thu Aug 8 02:01:18 2050",
            "Thu, 18 Aug 2050 02:01:18 GMT extra",
            "Thü, 18 Aug 2050 02:01:18 GMT",
        ] {
            assert_eq!(parse_http_date(value, now), None, "{value:?}");
        }
    }

    #[test]
    fn two_digit_years_are_within_fifty_years_from_now() {
        // In 2027 (1,800,000,000 s after 1970), `77` is 2077 and `78` is 1978.
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let year = |value: &str| {
            parse_http_date(value, now)
                .and_then(|at| at.duration_since(SystemTime::UNIX_EPOCH).ok())
                .map(|since| since.as_secs() / 31_556_952 + 1970)
        };
        assert_eq!(year("Friday, 01-Jul-77 00:00:00 GMT"), Some(2077));
        assert_eq!(year("Friday, 01-Jul-78 00:00:00 GMT"), Some(1978));
        assert_eq!(year("Friday, 01-Jul-26 00:00:00 GMT"), Some(2026));
    }

    #[test]
    fn expires_in_asctime_or_another_case_gives_freshness() {
        let headers = list(&[
            ("Date", &date(0)),
            ("Expires", "TUE, 14 NOV 2023 22:14:20 gmt"),
        ]);
        assert_eq!(
            freshness_lifetime(200, &headers, at(0)),
            Duration::from_secs(60)
        );
        let headers = list(&[("Date", &date(0)), ("Expires", "Tue Nov 14 22:14:20 2023")]);
        assert_eq!(
            freshness_lifetime(200, &headers, at(0)),
            Duration::from_secs(60)
        );
    }

    #[test]
    fn heuristic_freshness_is_a_tenth_of_the_age_of_last_modified_for_some_statuses() {
        let headers = list(&[("Date", &date(1000)), ("Last-Modified", &date(0))]);
        assert_eq!(
            freshness_lifetime(200, &headers, at(1000)),
            Duration::from_secs(100)
        );
        assert_eq!(
            freshness_lifetime(404, &headers, at(1000)),
            Duration::from_secs(100)
        );
        assert_eq!(freshness_lifetime(500, &headers, at(1000)), Duration::ZERO);
        assert_eq!(freshness_lifetime(302, &headers, at(1000)), Duration::ZERO);
    }

    #[test]
    fn a_delta_seconds_past_2_to_the_31_counts_as_2_to_the_31() {
        for (value, seconds) in [
            ("0", Some(0)),
            ("60", Some(60)),
            ("2147483647", Some(2_147_483_647)),
            ("2147483648", Some(MAX_DELTA_SECONDS)),
            ("2147483649", Some(MAX_DELTA_SECONDS)),
            ("99999999999999999", Some(MAX_DELTA_SECONDS)),
            ("99999999999999999999999", Some(MAX_DELTA_SECONDS)),
            ("", None),
            ("-1", None),
            ("1.5", None),
            ("1e9", None),
        ] {
            assert_eq!(delta_seconds(value), seconds, "{value:?}");
        }
        // In `max-age`: past `u64` it was invalid (stale); now 2^31 seconds, as any
        // value from 2^31 on.
        for age in ["2147483648", "99999999999999999", "99999999999999999999999"] {
            let headers = list(&[("Cache-Control", &format!("max-age={age}"))]);
            assert_eq!(
                freshness_lifetime(200, &headers, at(0)),
                Duration::from_secs(MAX_DELTA_SECONDS),
                "max-age={age}"
            );
        }
        // In `Age`: past `u64` it was ignored (fresh); now 2^31 seconds old.
        let headers = list(&[
            ("Cache-Control", "max-age=3600"),
            ("Age", "99999999999999999999999"),
            ("Date", &date(10)),
        ]);
        assert_eq!(
            current_age(&headers, at(10), at(10), at(10)),
            Duration::from_secs(MAX_DELTA_SECONDS)
        );
        assert!(needs_validation(
            &entry(headers, 200),
            &HeaderList::new(),
            at(10)
        ));
    }

    #[test]
    fn a_list_based_age_counts_by_its_first_member() {
        // One line `7200, 0` and two lines `7200`, `0` are both 7200 seconds old.
        for headers in [
            list(&[("Age", "7200, 0"), ("Date", &date(10))]),
            list(&[("Age", "7200"), ("Age", "0"), ("Date", &date(10))]),
        ] {
            assert_eq!(
                current_age(&headers, at(10), at(10), at(10)),
                Duration::from_secs(7200)
            );
        }
        let headers = list(&[("Age", "0, 7200"), ("Date", &date(10))]);
        assert_eq!(
            current_age(&headers, at(10), at(10), at(10)),
            Duration::ZERO
        );
        // An invalid first member is ignored, even when a later one is valid.
        let headers = list(&[("Age", "abc, 7200"), ("Date", &date(10))]);
        assert_eq!(
            current_age(&headers, at(10), at(10), at(10)),
            Duration::ZERO
        );
    }

    #[test]
    fn current_age_adds_age_delay_and_resident_time() {
        let headers = list(&[("Age", "100"), ("Date", &date(10))]);
        // Requested at 10, received at 12: corrected age 102, then 20 s resident.
        assert_eq!(
            current_age(&headers, at(10), at(12), at(32)),
            Duration::from_secs(122)
        );
        // A Date far in the past makes the apparent age win.
        let headers = list(&[("Date", &date(0))]);
        assert_eq!(
            current_age(&headers, at(500), at(500), at(500)),
            Duration::from_secs(500)
        );
    }

    #[test]
    fn stale_and_no_cache_responses_need_validation() {
        let now = at(10);
        let fresh = entry(list(&[("Cache-Control", "max-age=60")]), 200);
        assert!(!needs_validation(&fresh, &HeaderList::new(), now));
        let aged = entry(list(&[("Cache-Control", "max-age=60"), ("Age", "60")]), 200);
        assert!(needs_validation(&aged, &HeaderList::new(), now));
        let no_cache = entry(list(&[("Cache-Control", "max-age=60, no-cache")]), 200);
        assert!(needs_validation(&no_cache, &HeaderList::new(), now));
    }

    #[test]
    fn request_directives_ask_for_validation_or_allow_staleness() {
        let now = at(10);
        let fresh = entry(list(&[("Cache-Control", "max-age=60")]), 200);
        for request in [
            list(&[("Cache-Control", "no-cache")]),
            list(&[("Pragma", "no-cache")]),
            list(&[("Cache-Control", "max-age=5")]),
            list(&[("Cache-Control", "min-fresh=55")]),
        ] {
            assert!(needs_validation(&fresh, &request, now));
        }
        // Pragma is ignored when Cache-Control is present.
        let request = list(&[("Pragma", "no-cache"), ("Cache-Control", "max-age=60")]);
        assert!(!needs_validation(&fresh, &request, now));
        let stale = entry(list(&[("Cache-Control", "max-age=5")]), 200);
        assert!(!needs_validation(
            &stale,
            &list(&[("Cache-Control", "max-stale=10")]),
            now
        ));
        assert!(needs_validation(
            &stale,
            &list(&[("Cache-Control", "max-stale=1")]),
            now
        ));
        let must_revalidate = entry(
            list(&[("Cache-Control", "max-age=5, must-revalidate")]),
            200,
        );
        assert!(needs_validation(
            &must_revalidate,
            &list(&[("Cache-Control", "max-stale")]),
            now
        ));
    }

    #[test]
    fn a_record_is_of_use_for_its_freshness_left_its_windows_and_a_day_with_a_validator() {
        let fresh = list(&[(
            "Cache-Control",
            "max-age=60, stale-while-revalidate=30, stale-if-error=10",
        )]);
        assert_eq!(
            time_of_use(200, &fresh, at(0), at(0), at(20)),
            Duration::from_secs(80)
        );
        // Past all of it: nothing left.
        assert_eq!(
            time_of_use(200, &fresh, at(0), at(0), at(500)),
            Duration::ZERO
        );
        let validated = list(&[("Cache-Control", "max-age=0"), ("ETag", "\"v\"")]);
        assert_eq!(
            time_of_use(200, &validated, at(0), at(0), at(0)),
            VALIDATION_GRACE
        );
    }
}
