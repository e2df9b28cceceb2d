//! An [`AltSvcCache`] in a file: [`AltSvcCache::save`] and [`AltSvcCache::load`], in
//! curl's alt-svc cache format (<https://curl.se/docs/alt-svc.html>), so that a cache
//! outlives its process and curl (`--alt-svc FILE`) and this crate can read each other's.
//!
//! One alternative a line, a line a record of nine fields separated by spaces, `#` lines
//! comments:
//!
//! ```text
//! h1 example.com 443 h3 example.com 443 "20261205 10:00:00" 0 0
//! ```
//!
//! The origin's protocol (`h1`, `h2` or `h3`: the one the `Alt-Svc` came over), host and
//! port; the alternative's protocol (its ALPN name), host and port; when the alternative
//! stops being fresh, in UTC; its `persist`; a priority (curl writes 0). An IPv6 address
//! is written in brackets. The cache keeps no origin protocol: it writes `h1`, which every
//! curl looks up, and reads any.
//!
//! Limits, against a file that is not what it should be: a line of more than
//! [`MAX_LINE_LEN`] bytes is skipped, as is a line that is not a record (a host that is
//! not a host, a port of 0, a protocol of more than 64 bytes or not a token, a date that
//! is not one); at most [`MAX_CACHED_ORIGINS`] origins are read, and
//! [`MAX_ALTERNATIVES`] alternatives of each; at most [`MAX_FILE_LEN`] bytes are read in
//! all, the rest left unread. Expired alternatives are skipped; a date past 2^31 seconds
//! from now counts as that far away.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::{self, BufRead, Read, Write};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::alt_svc::{
    AltSvc, AltSvcCache, Alternative, MAX_ALTERNATIVES, MAX_CACHED_ORIGINS, MAX_DELTA_SECONDS,
    MAX_HOST_LEN, MAX_PROTOCOL_ID_LEN, OriginKey,
};
use crate::infra::{civil_from_days, days_from_civil, days_in_month};

/// The longest line read: 4,095 bytes, curl's `MAX_ALTSVC_LINE`. A record of two hosts of
/// 255 bytes and two protocols of 64 takes under 700.
pub(crate) const MAX_LINE_LEN: usize = 4_095;

/// The most bytes read of one file: 65,536,000 (62.5 MiB), room for a line of the
/// longest length for each alternative the cache can hold ([`MAX_CACHED_ORIGINS`] ×
/// [`MAX_ALTERNATIVES`]). What [`AltSvcCache::save`] writes takes a sixth of it at most
/// (a record is under 700 bytes). Past it the input is left unread: without a bound, a
/// file that does not end (a FIFO, a device, a file something keeps appending to) would
/// be read for ever, though nothing past the limits above is kept of it.
pub(crate) const MAX_FILE_LEN: u64 =
    (MAX_CACHED_ORIGINS * MAX_ALTERNATIVES * (MAX_LINE_LEN + 1)) as u64;

/// What a saved cache starts with.
const HEADER: &str = "# Alternative services (RFC 7838), in curl's alt-svc cache format: \
                      https://curl.se/docs/alt-svc.html\n";

impl AltSvcCache {
    /// Writes the alternatives still fresh of each origin to `writer`, in curl's
    /// alt-svc cache format (see [`load`](AltSvcCache::load)), one line each, the origins
    /// in order of host and port, each origin's alternatives most preferred first; an
    /// alternative the format cannot hold, whose protocol is not a token (`http/1.1`) or
    /// whose host is not a host, is left out. Which protocols failed lately (broken, in
    /// back-off) is not written: it says something of the network of now, not of the
    /// next run's.
    ///
    /// # Errors
    /// What writing to `writer` returned.
    ///
    /// ```
    /// let cache = whatwg_fetch::net::AltSvcCache::new();
    /// let mut file = Vec::new();
    /// cache.save(&mut file)?;
    /// assert!(String::from_utf8(file)?.starts_with("# Alternative services"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn save(&self, mut writer: impl Write) -> io::Result<()> {
        let (now, wall) = (Instant::now(), SystemTime::now());
        let mut origins = self.fresh(now);
        origins.sort_by(|(a, _), (b, _)| (a.host(), a.port()).cmp(&(b.host(), b.port())));
        let mut text = String::from(HEADER);
        for (origin, alternatives) in &origins {
            for alternative in alternatives {
                let host = alternative.host.as_deref().unwrap_or(origin.host());
                // Only what `load` reads back: a token for the protocol, a host for the
                // host. An `Alt-Svc` protocol-id is percent-decoded (RFC 7838 §3) to any
                // octets, and a resolver's HTTPS record names its target as it likes:
                // written as they are, a space or a line break would end this record and
                // start one of the peer's own, for any origin (the protocol-id
                // `x%0Ah1%20bank.example%20443%20h3` makes the rest of the line an
                // alternative of bank.example).
                if !crate::infra::is_token(alternative.protocol.as_bytes())
                    || parse_host(host).is_none()
                {
                    continue;
                }
                let expiry = wall.checked_add(alternative.max_age).unwrap_or(wall);
                text.push_str(&format!(
                    "h1 {} {} {} {} {} \"{}\" {} 0\n",
                    bracketed(origin.host()),
                    origin.port(),
                    alternative.protocol,
                    bracketed(host),
                    alternative.port,
                    format_date(expiry),
                    u8::from(alternative.persist),
                ));
            }
        }
        writer.write_all(text.as_bytes())?;
        writer.flush()
    }

    /// A cache of the alternatives `reader` holds, in curl's alt-svc cache format: what
    /// [`save`](AltSvcCache::save) writes, and curl's `--alt-svc` file. A line that is
    /// not a record is skipped, as curl skips it, and so are expired alternatives; the
    /// module's documentation says what a record is and the limits of what is read. At
    /// most 62.5 MiB of `reader` is read, which is room for more than the cache keeps;
    /// the rest of a longer input is left unread.
    ///
    /// # Errors
    /// What reading from `reader` returned.
    ///
    /// ```
    /// use whatwg_fetch::net::AltSvcCache;
    ///
    /// let file = "# written by curl\n\
    ///             h2 example.com 443 h3 example.com 443 \"99991231 23:59:59\" 0 0\n\
    ///             not a record\n";
    /// let cache = AltSvcCache::load(file.as_bytes())?;
    /// assert_eq!(cache.len(), 1);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn load(reader: impl BufRead) -> io::Result<AltSvcCache> {
        let (now, wall) = (Instant::now(), SystemTime::now());
        // Every read below, a long line's skipped rest included, counts against it.
        let mut reader = reader.take(MAX_FILE_LEN);
        // Each origin's alternatives in the order read, the origins in the order first seen.
        let mut origins: Vec<(OriginKey, Vec<Alternative>)> = Vec::new();
        let mut index: HashMap<OriginKey, usize> = HashMap::new();
        let mut line = Vec::new();
        loop {
            line.clear();
            let read = (&mut reader)
                .take(
                    u64::try_from(MAX_LINE_LEN)
                        .unwrap_or(u64::MAX)
                        .saturating_add(1),
                )
                .read_until(b'\n', &mut line)?;
            if read == 0 {
                break;
            }
            if line.last() != Some(&b'\n') && line.len() > MAX_LINE_LEN {
                // Too long: skipped to its end.
                skip_line(&mut reader)?;
                continue;
            }
            let Some((origin, alternative)) = parse_record(&line, wall) else {
                continue;
            };
            let slot = match index.entry(origin) {
                Entry::Occupied(entry) => *entry.get(),
                Entry::Vacant(entry) => {
                    if origins.len() >= MAX_CACHED_ORIGINS {
                        continue;
                    }
                    origins.push((entry.key().clone(), Vec::new()));
                    *entry.insert(origins.len().saturating_sub(1))
                }
            };
            if let Some((_, alternatives)) = origins.get_mut(slot) {
                if alternatives.len() < MAX_ALTERNATIVES {
                    alternatives.push(alternative);
                }
            }
        }
        let cache = AltSvcCache::new();
        for (origin, alternatives) in origins {
            cache.set(&origin, "", AltSvc::Entries(alternatives), now);
        }
        Ok(cache)
    }
}

/// Reads past the rest of a line.
fn skip_line(reader: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|&byte| byte == b'\n') {
            Some(newline) => {
                reader.consume(newline.saturating_add(1));
                return Ok(());
            }
            None => {
                let length = buffer.len();
                reader.consume(length);
            }
        }
    }
}

/// The origin and the alternative of one line, its freshness counted from `wall`; `None`
/// for a comment, a blank line, a line that is not a record, or an expired alternative.
fn parse_record(line: &[u8], wall: SystemTime) -> Option<(OriginKey, Alternative)> {
    let line = std::str::from_utf8(line).ok()?.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let mut fields = line.split_ascii_whitespace();
    let _origin_protocol = fields.next()?;
    let origin_host = unbracketed(&parse_host(fields.next()?)?).to_owned();
    let origin_port = parse_port(fields.next()?)?;
    let protocol = fields.next()?;
    if protocol.is_empty()
        || protocol.len() > MAX_PROTOCOL_ID_LEN
        || !crate::infra::is_token(protocol.as_bytes())
    {
        return None;
    }
    let host = parse_host(fields.next()?)?;
    let port = parse_port(fields.next()?)?;
    let date = fields.next()?.strip_prefix('"')?;
    let time = fields.next()?.strip_suffix('"')?;
    let expiry = parse_date(date, time)?;
    let persist = match fields.next()? {
        "0" => false,
        "1" => true,
        _ => return None,
    };
    let _priority: u32 = fields.next()?.parse().ok()?;
    if fields.next().is_some() {
        return None;
    }
    let max_age = expiry
        .duration_since(wall)
        .ok()?
        .min(Duration::from_secs(MAX_DELTA_SECONDS));
    let origin = OriginKey::new("https", &origin_host, origin_port);
    // The origin's own host is kept as none, as a field value naming no host is.
    let host = (unbracketed(&host) != origin.host()).then_some(host);
    Some((
        origin,
        Alternative {
            protocol: protocol.to_owned(),
            host,
            port,
            max_age,
            persist,
        },
    ))
}

/// A host as a URL's host is parsed (lowercase, IDNA to ASCII, an IP address checked),
/// an IPv6 address in brackets, written with or without them; `None` if it is not one or
/// is longer than [`MAX_HOST_LEN`].
fn parse_host(host: &str) -> Option<String> {
    if host.len() > MAX_HOST_LEN {
        return None;
    }
    let parsed = if host.contains(':') && !host.starts_with('[') {
        url::Host::parse(&format!("[{host}]"))
    } else {
        url::Host::parse(host)
    };
    let host = parsed.ok()?.to_string();
    (host.len() <= MAX_HOST_LEN).then_some(host)
}

/// A port of 1 to 65535.
fn parse_port(port: &str) -> Option<u16> {
    port.parse().ok().filter(|&port| port != 0)
}

/// `host` without the brackets of an IPv6 address.
fn unbracketed(host: &str) -> &str {
    host.strip_prefix('[')
        .and_then(|host| host.strip_suffix(']'))
        .unwrap_or(host)
}

/// `host` with an IPv6 address in brackets, as the file writes it.
fn bracketed(host: &str) -> String {
    match host.contains(':') && !host.starts_with('[') {
        true => format!("[{host}]"),
        false => host.to_owned(),
    }
}

/// `time` as curl writes it, in UTC: `20261205 10:00:00`.
fn format_date(time: SystemTime) -> String {
    // To the nearest second: a date read and written again stays the same.
    let seconds = time
        .checked_add(Duration::from_millis(500))
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |since| {
            i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
        });
    let (days, of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}{month:02}{day:02} {:02}:{:02}:{:02}",
        of_day / 3_600,
        of_day % 3_600 / 60,
        of_day % 60
    )
}

/// The time of `date` (`YYYYMMDD`) and `time` (`HH:MM:SS`), in UTC; `None` if they are
/// not a date and a time of day, or the date is before 1970.
fn parse_date(date: &str, time: &str) -> Option<SystemTime> {
    let digits = |text: &str| -> Option<i64> {
        (!text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit()))
            .then(|| text.parse().ok())
            .flatten()
    };
    if date.len() != 8 || time.len() != 8 {
        return None;
    }
    let year = digits(date.get(..4)?)?;
    let month = u32::try_from(digits(date.get(4..6)?)?).ok()?;
    let day = u32::try_from(digits(date.get(6..)?)?).ok()?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut clock = time.split(':');
    let hour = digits(clock.next()?).filter(|&hour| hour < 24)?;
    let minute = digits(clock.next()?).filter(|&minute| minute < 60)?;
    let second = digits(clock.next()?).filter(|&second| second < 60)?;
    if clock.next().is_some() {
        return None;
    }
    let days = days_from_civil(year, i64::from(month), i64::from(day));
    let seconds = days
        .checked_mul(86_400)?
        .checked_add(hour * 3_600 + minute * 60 + second)?;
    UNIX_EPOCH.checked_add(Duration::from_secs(u64::try_from(seconds).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `then` over and over, `len` bytes in all, counting what was read of it.
    struct Endless {
        then: &'static [u8],
        at: usize,
        served: u64,
        len: u64,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let rest = &self.then[self.at..];
            let left = usize::try_from(self.len - self.served).unwrap_or(usize::MAX);
            let n = rest.len().min(buf.len()).min(left);
            buf[..n].copy_from_slice(&rest[..n]);
            self.at = (self.at + n) % self.then.len();
            self.served += n as u64;
            Ok(n)
        }
    }

    #[test]
    fn an_input_that_does_not_end_is_read_only_to_the_limit() {
        let record = "h1 example.com 443 h3 example.com 443 \"99991231 23:59:59\" 0 0\n";
        let comment: &'static [u8] = format!("# {}\n", "c".repeat(1_000)).leak().as_bytes();
        let long: &'static [u8] = "x".repeat(4_096).leak().as_bytes();
        // Comment lines without end after a record, and one line without end, too long to
        // keep, whose rest is skipped: four times the limit of either is there to read.
        for then in [comment, long] {
            let mut reader = io::BufReader::new(record.as_bytes().chain(Endless {
                then,
                at: 0,
                served: 0,
                len: 4 * MAX_FILE_LEN,
            }));
            let cache = AltSvcCache::load(&mut reader).unwrap();
            let served = reader.get_ref().get_ref().1.served;
            // What was read, and at most one buffer's worth read ahead of it.
            assert!(served <= MAX_FILE_LEN + 8 * 1024, "{served} bytes read");
            assert_eq!(cache.len(), 1);
        }
    }

    #[test]
    fn what_the_format_cannot_hold_is_not_written() {
        let now = Instant::now();
        let cache = AltSvcCache::new();
        // A protocol-id that decodes to a line break and the start of a record of another
        // origin, which the rest of its line would complete.
        let value = b"x%0Ah1%20bank.example%20443%20h3=\"evil.example:443\", h3=\":443\"";
        let announced = super::super::alt_svc::parse_alt_svc(value).unwrap();
        cache.set(
            &OriginKey::new("https", "a.example", 443),
            "",
            announced,
            now,
        );
        // A resolver's HTTPS record whose target is not a host, to the same end.
        let target = |host: &str| Alternative {
            protocol: "h3".to_owned(),
            host: Some(host.to_owned()),
            port: 443,
            max_age: Duration::from_secs(3_600),
            persist: false,
        };
        cache.note_https_records(
            &OriginKey::new("https", "c.example", 443),
            vec![
                target("x\nh1 bank.example 443 h3 evil.example"),
                target("d.example"),
            ],
            Duration::from_secs(60),
            now,
        );
        let mut saved = Vec::new();
        cache.save(&mut saved).unwrap();
        let saved = String::from_utf8(saved).unwrap();
        let records: Vec<&str> = saved.lines().skip(1).collect();
        assert_eq!(records.len(), 2, "{saved}");
        assert!(
            records[0].starts_with("h1 a.example 443 h3 a.example 443 "),
            "{saved}"
        );
        assert!(
            records[1].starts_with("h1 c.example 443 h3 d.example 443 "),
            "{saved}"
        );
        assert_eq!(AltSvcCache::load(saved.as_bytes()).unwrap().len(), 2);
    }

    #[test]
    fn dates_are_written_and_read_as_curl_does() {
        let time = UNIX_EPOCH + Duration::from_secs(1_797_072_000);
        assert_eq!(format_date(time), "20261212 10:40:00");
        assert_eq!(parse_date("20261212", "10:40:00"), Some(time));
        assert_eq!(parse_date("20260230", "10:40:00"), None);
        assert_eq!(parse_date("20261212", "24:00:00"), None);
        assert_eq!(parse_date("2026121", "10:40:000"), None);
        assert_eq!(parse_date("+0261212", "10:40:00"), None);
        assert_eq!(parse_date("19691231", "23:59:59"), None);
    }
}
