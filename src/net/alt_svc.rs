//! HTTP Alternative Services ([RFC 7838](https://www.rfc-editor.org/rfc/rfc7838)): the
//! `Alt-Svc` response header field, by which an origin names other places (and
//! protocols) it can be reached at, and the cache of what origins advertised. It is how
//! a client learns that an `https:` origin speaks HTTP/3 (`h3`) on UDP.
//!
//! [`parse_alt_svc`] reads one field value (§3); an [`AltSvcCache`] keeps, per origin
//! and partition, the alternatives of the last field value received (§3.1: a new one
//! "invalidates and replaces all cached alternative services for that origin"), each
//! until its `ma` runs out, and which protocols failed lately ([`AltSvcCache::mark_broken`]),
//! with the exponential back-off Chrome uses before trying a broken alternative again.
//!
//! What the caller does, as RFC 7838 leaves it to the client:
//! - §2.1 and §9.2: use an alternative only for an `https:` origin, and only over a
//!   connection whose certificate is valid for the origin's host;
//! - §3.1: take the response's age (`Age`) off each `max_age` before
//!   [`AltSvcCache::set`], as the freshness it gives is counted "since the response was
//!   generated";
//! - §9.1 ("Changing Ports"): whoever can inject a field value and listen on the port it
//!   names can hijack the origin. As Chrome does, an origin on a port below 1024 (which
//!   only a privileged user can listen on) is not taken to an alternative on a port of
//!   1024 or above (which any user of a shared server can): [`AltSvcCache::set`] leaves
//!   such alternatives out, of a field value and of a saved cache file alike;
//! - §3.1: forget the alternatives not advertised with `persist=1` when the network
//!   changes. The client observes no network change, so `persist` is parsed and has no
//!   effect: an alternative is kept until its `ma` runs out or the origin replaces it.
//!
//! The transport reads the field from responses over TCP and over the alternative
//! itself, and sends `Alt-Used` (§5) with each request to an alternative.
//!
//! Left out: the HTTP/2 `ALTSVC` frame (§4).
//!
//! Limits, against a hostile server: a field value longer than [`MAX_FIELD_VALUE_LEN`]
//! is ignored; at most [`MAX_ALTERNATIVES`] alternatives are kept of one; a protocol-id
//! longer than [`MAX_PROTOCOL_ID_LEN`] or a host longer than [`MAX_HOST_LEN`] makes its
//! alternative invalid; the cache holds at most [`MAX_CACHED_ORIGINS`] origins.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The longest `Alt-Svc` field value read: 4 KiB. A longer one is ignored whole.
pub(crate) const MAX_FIELD_VALUE_LEN: usize = 4 * 1024;

/// The most alternatives kept of one field value (the first ones, the server's
/// preferred: "the order of the values reflects the server's preference", §3), and of
/// one origin in the cache.
pub(crate) const MAX_ALTERNATIVES: usize = 16;

/// The longest protocol-id, as it is written in the field value (percent-encoded):
/// 64 bytes. ALPN names in use are a few bytes (`h3`, `h2`, `http/1.1`).
pub(crate) const MAX_PROTOCOL_ID_LEN: usize = 64;

/// The longest alternative host, as written and once normalized: 255 bytes, the longest
/// DNS name (RFC 1035 §2.3.4).
pub(crate) const MAX_HOST_LEN: usize = 255;

/// The most (origin, partition) pairs an [`AltSvcCache`] holds; past it, the least
/// recently used is forgotten.
pub(crate) const MAX_CACHED_ORIGINS: usize = 1_000;

/// The lowest port any user may listen on (RFC 6335 §6: the system ports are 0–1023).
/// An origin below it is not taken to an alternative at or above it (§9.1; Chrome's
/// `kUnrestrictedPort`).
pub(crate) const UNRESTRICTED_PORT: u16 = 1024;

/// Whether an origin on `origin_port` may be reached at an alternative on `port`: not
/// from a port only a privileged user listens on to one anyone may (see
/// [`UNRESTRICTED_PORT`]).
pub(crate) fn may_change_port(origin_port: u16, port: u16) -> bool {
    origin_port >= UNRESTRICTED_PORT || port < UNRESTRICTED_PORT
}

/// `ma`'s default: "If omitted, its default value is 86400 (24 hours)" (§3.1).
pub(crate) const DEFAULT_MAX_AGE: Duration = Duration::from_secs(86_400);

/// The largest `ma` kept: 2^31 seconds. RFC 9111 §1.2.2 (delta-seconds): "If a cache
/// receives a delta-seconds value greater than the greatest integer it can represent,
/// or if any of its subsequent calculations overflows, the cache MUST consider the value
/// to be 2147483648 (2^31) or the greatest positive integer it can conveniently
/// represent." (`crate::infra::MAX_DELTA_SECONDS`, written again here: this file uses
/// nothing of the crate, so that the fuzz target compiles it alone.)
pub(crate) const MAX_DELTA_SECONDS: u64 = 1 << 31;

/// How long after asking for an origin's HTTPS records (RFC 9460) and finding none, or
/// no answer, they are asked for again: five minutes.
pub(crate) const HTTPS_RECORDS_RETRY: Duration = Duration::from_secs(5 * 60);

/// The shortest time HTTPS records are kept, whatever their TTL: 30 seconds, so that a
/// record of TTL 0 still serves the request that asked for it, and a name server
/// handing out small TTLs is not asked before every request.
pub(crate) const MIN_HTTPS_RECORDS_TTL: Duration = Duration::from_secs(30);

/// How long a protocol stays broken the first time it is marked so: five minutes,
/// Chrome's `kDefaultBrokenAlternativeProtocolDelay`
/// (`net/http/broken_alternative_services.cc`).
pub(crate) const INITIAL_BROKEN_DELAY: Duration = Duration::from_secs(5 * 60);

/// The longest a protocol stays broken: 48 hours, Chrome's
/// `kMaxBrokenAlternativeProtocolDelay` (two days).
pub(crate) const MAX_BROKEN_DELAY: Duration = Duration::from_secs(48 * 60 * 60);

/// The most protocols noted broken per origin: the caller marks only the ones it tries.
const MAX_BROKEN_PROTOCOLS: usize = 16;

/// A parsed `Alt-Svc` field value (RFC 7838 §3): `Alt-Svc = clear / 1#alt-value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum AltSvc {
    /// `clear`: "the origin requests all alternatives for that origin to be
    /// invalidated" (§3).
    Clear,
    /// The valid alternatives, most preferred first: at least one, at most
    /// [`MAX_ALTERNATIVES`].
    Entries(Vec<Alternative>),
}

/// One alternative service (RFC 7838 §3: `alt-value = alternative *( OWS ";" OWS
/// parameter )`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Alternative {
    /// The ALPN protocol name, percent-decoded: `h3` for HTTP/3.
    pub(crate) protocol: String,
    /// The alternative's host, normalized as a URL's host is (lowercase, IDNA to ASCII,
    /// an IPv6 address in brackets); `None` when the alt-authority names none: "the
    /// same host" as the origin.
    pub(crate) host: Option<String>,
    /// The alternative's port: never 0.
    pub(crate) port: u16,
    /// `ma`: how long the alternative is fresh, from when the response was generated;
    /// [`DEFAULT_MAX_AGE`] when absent, at most 2^31 seconds.
    pub(crate) max_age: Duration,
    /// `persist=1`: the alternative is not to be cleared on a network change (§3.1).
    pub(crate) persist: bool,
}

/// Parses an `Alt-Svc` field value per [RFC 7838
/// §3](https://www.rfc-editor.org/rfc/rfc7838#section-3):
///
/// ```text
/// Alt-Svc       = clear / 1#alt-value
/// clear         = %s"clear"; "clear", case-sensitive
/// alt-value     = alternative *( OWS ";" OWS parameter )
/// alternative   = protocol-id "=" alt-authority
/// protocol-id   = token ; percent-encoded ALPN protocol name
/// alt-authority = quoted-string ; containing [ uri-host ] ":" port
/// parameter     = token "=" ( token / quoted-string )
/// ```
///
/// Several `Alt-Svc` field lines are one value joined with commas (RFC 9110 §5.3); the
/// length limit applies to the joined value.
///
/// Returns `None` when the field value is to be ignored: longer than
/// [`MAX_FIELD_VALUE_LEN`], or without one valid alternative. An invalid alt-value is
/// skipped and the others are kept. Chrome (quiche's
/// `SpdyAltSvcWireFormat::ParseHeaderFieldValue`) ignores the whole field value at the
/// first malformed alt-value instead; Firefox (`AltSvcMapping::ProcessHeader`) goes on
/// past an entry it cannot use, as this does, so that one alternative written in a form
/// this parser does not know costs the server only that alternative.
pub(crate) fn parse_alt_svc(value: &[u8]) -> Option<AltSvc> {
    if value.len() > MAX_FIELD_VALUE_LEN {
        return None;
    }
    let mut alternatives = Vec::new();
    for member in ListMembers::new(value) {
        let member = trim_ows(member);
        // RFC 9110 §5.6.1.2: "a recipient MUST parse and ignore a reasonable number of
        // empty list elements".
        if member.is_empty() {
            continue;
        }
        // §3: "A field value containing the special value "clear" indicates that the
        // origin requests all alternatives for that origin to be invalidated (including
        // those specified in the same response, in case of an invalid reply containing
        // both "clear" and alternative services)." So `clear` anywhere in the list wins.
        if member == b"clear" {
            return Some(AltSvc::Clear);
        }
        // Past the limit, the rest is still read for a `clear`, but not kept.
        if alternatives.len() >= MAX_ALTERNATIVES {
            continue;
        }
        if let Some(alternative) = parse_alt_value(member) {
            alternatives.push(alternative);
        }
    }
    if alternatives.is_empty() {
        None
    } else {
        Some(AltSvc::Entries(alternatives))
    }
}

/// Parses one `alt-value` (`alternative *( OWS ";" OWS parameter )`), already cut from
/// its list and trimmed of whitespace. `None` if it is invalid.
fn parse_alt_value(alt_value: &[u8]) -> Option<Alternative> {
    // alternative = protocol-id "=" alt-authority
    let (protocol_id, rest) = split_token(alt_value);
    let protocol = parse_protocol_id(protocol_id)?;
    let rest = rest.strip_prefix(b"=")?;
    let (alt_authority, rest) = parse_quoted_string(rest)?;
    let (host, port) = parse_alt_authority(&alt_authority)?;
    let (max_age, persist) = parse_parameters(rest)?;
    Some(Alternative {
        protocol,
        host,
        port,
        max_age,
        persist,
    })
}

/// Decodes a `protocol-id` (§3): "ALPN protocol names are octet sequences with no
/// additional constraints on format. Octets not allowed in tokens ([RFC7230], Section
/// 3.2.6) MUST be percent-encoded as per Section 2.1 of [RFC3986]. Consequently, the
/// octet representing the percent character "%" (hex 25) MUST be percent-encoded as
/// well."
///
/// `None` if it is empty, longer than [`MAX_PROTOCOL_ID_LEN`], holds a `%` not followed
/// by two hex digits, or decodes to something other than UTF-8 (which no protocol this
/// crate speaks is).
///
/// §3 also asks senders not to encode token characters other than `%`, and to write
/// hex digits in uppercase, "with these constraints, recipients can apply simple string
/// comparison"; an id that breaks them is decoded all the same (`h%33` is `h3`), as
/// Chrome does, since it names the same octets.
fn parse_protocol_id(protocol_id: &[u8]) -> Option<String> {
    if protocol_id.is_empty() || protocol_id.len() > MAX_PROTOCOL_ID_LEN {
        return None;
    }
    let mut decoded = Vec::with_capacity(protocol_id.len());
    let mut bytes = protocol_id.iter();
    while let Some(&byte) = bytes.next() {
        if byte != b'%' {
            decoded.push(byte);
            continue;
        }
        let high = bytes.next().copied().and_then(hex_digit)?;
        let low = bytes.next().copied().and_then(hex_digit)?;
        decoded.push((high << 4) | low);
    }
    String::from_utf8(decoded).ok()
}

/// Parses the content of an `alt-authority` (§3): "The "alt-authority" component
/// consists of an OPTIONAL uri-host ("host" in Section 3.2.2 of [RFC3986]), a colon
/// (":"), and a port number."
///
/// The host, if any, is parsed as a URL's host is (`url::Host::parse`): lowercased,
/// IDNA to ASCII, an IP address checked; one that does not parse, or longer than
/// [`MAX_HOST_LEN`], makes the alternative invalid. So is a port that is empty, not a
/// number, 0 or above 65535.
fn parse_alt_authority(alt_authority: &[u8]) -> Option<(Option<String>, u16)> {
    // The port follows the last colon: an IPv6 host has colons of its own, inside its
    // brackets.
    let colon = alt_authority.iter().rposition(|&byte| byte == b':')?;
    let (host, colon_and_port) = alt_authority.split_at_checked(colon)?;
    let port = parse_port(colon_and_port.strip_prefix(b":")?)?;
    if host.is_empty() {
        return Some((None, port));
    }
    if host.len() > MAX_HOST_LEN {
        return None;
    }
    let host = std::str::from_utf8(host).ok()?;
    let host = url::Host::parse(host).ok()?.to_string();
    if host.len() > MAX_HOST_LEN {
        return None;
    }
    Some((Some(host), port))
}

/// Parses a `port` (RFC 3986 §3.2.3, `*DIGIT`) that can be connected to: one or more
/// digits, of a number from 1 to 65535 (leading zeros allowed).
fn parse_port(port: &[u8]) -> Option<u16> {
    if port.is_empty() || !port.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut value: u16 = 0;
    for &digit in port {
        value = value
            .checked_mul(10)?
            .checked_add(u16::from(digit.wrapping_sub(b'0')))?;
    }
    (value != 0).then_some(value)
}

/// Parses the parameters after an `alternative`: `*( OWS ";" OWS parameter )`, with
/// `parameter = token "=" ( token / quoted-string )`. Returns `ma` and `persist`; `None`
/// if the parameters are not well formed, or `ma` is not a delta-seconds.
///
/// §3: "This specification defines two parameters: "ma" and "persist", defined in
/// Section 3.1. Unknown parameters MUST be ignored. That is, the values (alt-value) they
/// occur in MUST be processed as if the unknown parameter was not present." And "all
/// field elements that allow "quoted-string" syntax MUST be processed as per Section
/// 3.2.6 of [RFC7230]": `ma="60"` is `ma=60`.
///
/// Leniencies, as in Chrome: whitespace around a parameter's `=`, an empty parameter (a
/// `;` with nothing after it), and parameter names in any case. When a parameter comes
/// twice, the first counts, as RFC 9111 §4.2.1 has for a cache directive given twice.
fn parse_parameters(mut rest: &[u8]) -> Option<(Duration, bool)> {
    let mut max_age = None;
    let mut persist = false;
    loop {
        // OWS ";" OWS
        rest = trim_start_ows(rest);
        let Some(after_semicolon) = rest.strip_prefix(b";") else {
            // Anything but a `;` or the end after an alternative or a parameter is not an
            // alt-value.
            return rest
                .is_empty()
                .then(|| (max_age.unwrap_or(DEFAULT_MAX_AGE), persist));
        };
        rest = trim_start_ows(after_semicolon);
        if rest.is_empty() || rest.starts_with(b";") {
            continue;
        }
        // parameter = token "=" ( token / quoted-string )
        let (name, after_name) = split_token(rest);
        if name.is_empty() {
            return None;
        }
        let after_equals = trim_start_ows(trim_start_ows(after_name).strip_prefix(b"=")?);
        let (value, after_value): (Cow<'_, [u8]>, &[u8]) = if after_equals.starts_with(b"\"") {
            let (value, after_value) = parse_quoted_string(after_equals)?;
            (Cow::Owned(value), after_value)
        } else {
            let (value, after_value) = split_token(after_equals);
            if value.is_empty() {
                return None;
            }
            (Cow::Borrowed(value), after_value)
        };
        rest = after_value;
        if name.eq_ignore_ascii_case(b"ma") {
            // §3.1: "ma = delta-seconds; see [RFC7234], Section 1.2.1". "The delta-seconds
            // value indicates the number of seconds since the response was generated the
            // alternative service is considered fresh for."
            if max_age.is_none() {
                max_age = Some(Duration::from_secs(parse_delta_seconds(&value)?));
            }
        } else if name.eq_ignore_ascii_case(b"persist") {
            // §3.1: "This specification only defines a single value for "persist".
            // Clients MUST ignore "persist" parameters with values other than "1"."
            if *value == *b"1" {
                persist = true;
            }
        }
    }
}

/// Parses a `delta-seconds` (RFC 9111 §1.2.2, `1*DIGIT`), saturating at 2^31 as that
/// section asks of a value too large.
fn parse_delta_seconds(value: &[u8]) -> Option<u64> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut seconds: u64 = 0;
    for &digit in value {
        seconds = seconds
            .saturating_mul(10)
            .saturating_add(u64::from(digit.wrapping_sub(b'0')))
            .min(MAX_DELTA_SECONDS);
    }
    Some(seconds)
}

/// Parses a `quoted-string` at the start of `input` (RFC 9110 §5.6.4, RFC 7230 §3.2.6):
///
/// ```text
/// quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE
/// qdtext        = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
/// quoted-pair   = "\" ( HTAB / SP / VCHAR / obs-text )
/// ```
///
/// Returns its content, each quoted-pair replaced by the octet it quotes, and what
/// follows the closing quote; `None` if `input` does not start with one well-formed
/// quoted-string.
fn parse_quoted_string(input: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let mut rest = input.strip_prefix(b"\"")?;
    let mut content = Vec::new();
    loop {
        let (&byte, after) = rest.split_first()?;
        rest = after;
        match byte {
            b'"' => return Some((content, rest)),
            b'\\' => {
                let (&quoted, after) = rest.split_first()?;
                if !(quoted == b'\t' || quoted == b' ' || is_vchar_or_obs_text(quoted)) {
                    return None;
                }
                content.push(quoted);
                rest = after;
            }
            b'\t' | b' ' => content.push(byte),
            _ if is_vchar_or_obs_text(byte) => content.push(byte),
            _ => return None,
        }
    }
}

/// The members of a comma-separated list (`#rule`, RFC 9110 §5.6.1), split at the
/// commas outside quoted-strings, untrimmed. A quoted-string left open runs to the end
/// of the value (its member is then invalid).
struct ListMembers<'a> {
    /// What is left to split; `None` once the last member has been yielded.
    rest: Option<&'a [u8]>,
}

impl<'a> ListMembers<'a> {
    /// The members of `value`.
    fn new(value: &'a [u8]) -> ListMembers<'a> {
        ListMembers { rest: Some(value) }
    }
}

impl<'a> Iterator for ListMembers<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.rest?;
        let mut in_quotes = false;
        let mut escaped = false;
        let comma = rest.iter().position(|&byte| {
            if escaped {
                escaped = false;
            } else if in_quotes {
                match byte {
                    b'\\' => escaped = true,
                    b'"' => in_quotes = false,
                    _ => {}
                }
            } else if byte == b'"' {
                in_quotes = true;
            } else if byte == b',' {
                return true;
            }
            false
        });
        let Some((member, comma_and_rest)) = comma.and_then(|comma| rest.split_at_checked(comma))
        else {
            // The last member.
            self.rest = None;
            return Some(rest);
        };
        self.rest = comma_and_rest.get(1..);
        Some(member)
    }
}

/// `input` split after its leading `token` characters (RFC 9110 §5.6.2: `token =
/// 1*tchar`): the token (empty if there is none) and what follows it.
fn split_token(input: &[u8]) -> (&[u8], &[u8]) {
    let end = input
        .iter()
        .position(|&byte| !is_tchar(byte))
        .unwrap_or(input.len());
    input.split_at_checked(end).unwrap_or((input, &[]))
}

/// `tchar` (RFC 9110 §5.6.2): an ASCII letter or digit, or one of ``!#$%&'*+-.^_`|~``.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// `VCHAR` (`%x21-7E`) or `obs-text` (`%x80-FF`), RFC 9110 §5.5.
fn is_vchar_or_obs_text(byte: u8) -> bool {
    matches!(byte, 0x21..=0x7E | 0x80..=0xFF)
}

/// The value of a hex digit, either case.
fn hex_digit(byte: u8) -> Option<u8> {
    char::from(byte)
        .to_digit(16)
        .and_then(|digit| u8::try_from(digit).ok())
}

/// `input` without its leading `OWS` (`*( SP / HTAB )`, RFC 9110 §5.6.3).
fn trim_start_ows(input: &[u8]) -> &[u8] {
    let start = input
        .iter()
        .position(|&byte| byte != b' ' && byte != b'\t')
        .unwrap_or(input.len());
    input.get(start..).unwrap_or_default()
}

/// `input` without its leading and trailing `OWS`.
fn trim_ows(input: &[u8]) -> &[u8] {
    let input = trim_start_ows(input);
    let end = input
        .iter()
        .rposition(|&byte| byte != b' ' && byte != b'\t')
        .map_or(0, |last| last.saturating_add(1));
    input.get(..end).unwrap_or_default()
}

/// An origin as the cache keys it: scheme, host and port, in lowercase, the port
/// explicit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct OriginKey {
    /// The scheme, lowercase: `https`.
    scheme: String,
    /// The host, lowercase, as the URL writes it (an IPv6 address in brackets).
    host: String,
    /// The port, the scheme's default when the URL has none.
    port: u16,
}

impl OriginKey {
    /// The origin (`scheme`, `host`, `port`), lowercased.
    pub(crate) fn new(scheme: &str, host: &str, port: u16) -> OriginKey {
        OriginKey {
            scheme: scheme.to_ascii_lowercase(),
            host: host.to_ascii_lowercase(),
            port,
        }
    }

    /// The origin's host: where an alternative without a host of its own is.
    pub(crate) fn host(&self) -> &str {
        &self.host
    }

    /// The origin's port.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }
}

/// The alternative services origins advertised (RFC 7838's `Alt-Svc`, such as
/// `h3=":443"`), per origin and partition (the partition key keeps what one top-level
/// site learned from another's fetches), and the protocols that lately failed: what tells
/// a client with the `http3` feature that an origin speaks HTTP/3.
///
/// Each client has one of its own, in memory. To share one between clients, or keep it
/// from one run to the next (so that the first request of a run goes over HTTP/3
/// already), give the client one with
/// [`ClientBuilder::alt_svc_cache`](crate::ClientBuilder::alt_svc_cache), and
/// [`save`](AltSvcCache::save) and [`load`](AltSvcCache::load) it: in curl's alt-svc
/// cache file format, so that curl and this crate can share the file.
///
/// ```
/// use std::sync::Arc;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::net::AltSvcCache;
///
/// # fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let path = std::env::temp_dir().join("alt-svc-example.txt");
/// let cache = match std::fs::File::open(&path) {
///     Ok(file) => AltSvcCache::load(std::io::BufReader::new(file))?,
///     Err(_) => AltSvcCache::new(),
/// };
/// let cache = Arc::new(cache);
/// let client = Client::builder().alt_svc_cache(Arc::clone(&cache)).build()?;
/// // … requests …
/// cache.save(std::fs::File::create(&path)?)?;
/// # Ok(())
/// # }
/// # run().unwrap();
/// ```
///
/// Thread-safe: every method takes `&self` and holds an internal lock only while it
/// runs. The crate's own methods take the time as a parameter, so that tests choose the
/// clock.
///
/// At most 1,000 (origin, partition) pairs are kept: a new one beyond
/// that evicts the least recently used (set, looked up with a result, or marked), as
/// Chrome keeps its alternative services in a most-recently-used cache. The soonest to
/// expire would be a worse choice: an attacker's origins advertising the longest `ma`
/// would push out every origin the user actually visits.
#[derive(Debug, Default)]
pub struct AltSvcCache {
    /// The cached origins, behind the lock.
    state: Mutex<CacheState>,
}

/// What an [`AltSvcCache`]'s lock guards.
#[derive(Debug, Default)]
struct CacheState {
    /// Origin → partition → what is known of that origin there. Two levels so that a
    /// lookup by `&OriginKey` and `&str` allocates nothing.
    origins: HashMap<OriginKey, HashMap<String, CachedOrigin>>,
    /// How many (origin, partition) pairs `origins` holds.
    len: usize,
    /// A counter bumped at each use, for least-recently-used eviction.
    clock: u64,
    /// Origin → when its HTTPS records (RFC 9460) may be asked for again: at most
    /// [`MAX_CACHED_ORIGINS`] of them.
    https_records_asked: HashMap<OriginKey, Instant>,
}

/// What the cache knows of one origin in one partition.
#[derive(Debug)]
struct CachedOrigin {
    /// The alternatives of the last field value received, most preferred first, at most
    /// [`MAX_ALTERNATIVES`]; expired ones are dropped as they are found.
    alternatives: Vec<CachedAlternative>,
    /// The protocols marked broken and not marked working since, at most
    /// [`MAX_BROKEN_PROTOCOLS`]. Kept apart from `alternatives`, so that a server
    /// advertising an alternative again on every response does not reset its back-off.
    broken: Vec<BrokenProtocol>,
    /// `CacheState::clock` when this was last used.
    last_used: u64,
}

/// An alternative in the cache.
#[derive(Debug)]
struct CachedAlternative {
    /// The ALPN protocol name.
    protocol: String,
    /// The alternative's host; `None` for the origin's.
    host: Option<String>,
    /// The alternative's port.
    port: u16,
    /// When it stops being fresh: when it was set, plus its `ma`.
    expiry: Instant,
    /// `persist=1`.
    persist: bool,
}

/// A protocol that failed for an origin, and its back-off.
#[derive(Debug)]
struct BrokenProtocol {
    /// The ALPN protocol name.
    protocol: String,
    /// How many times it has been marked broken since it last worked.
    count: u32,
    /// Until when it is not to be used.
    until: Instant,
}

impl CachedOrigin {
    /// Nothing known yet, used at `clock`.
    fn new(clock: u64) -> CachedOrigin {
        CachedOrigin {
            alternatives: Vec::new(),
            broken: Vec::new(),
            last_used: clock,
        }
    }

    /// Whether there is nothing left worth keeping.
    fn is_empty(&self) -> bool {
        self.alternatives.is_empty() && self.broken.is_empty()
    }
}

/// How long a protocol marked broken for the `count + 1`-th time since it last worked
/// stays so: [`INITIAL_BROKEN_DELAY`] the first time, doubling each time after it, at
/// most [`MAX_BROKEN_DELAY`] (5 minutes, 10, 20, … 42 hours 40 minutes, then 48 hours
/// from the 11th time on). This is Chrome's `ComputeBrokenAlternativeServiceExpirationDelay`
/// with exponential back-off on the initial delay.
fn broken_delay(count: u32) -> Duration {
    // 5 minutes × 2^10 is past the cap already, so the shift never needs to be larger.
    let factor = 1u32 << count.min(10);
    INITIAL_BROKEN_DELAY
        .checked_mul(factor)
        .map_or(MAX_BROKEN_DELAY, |delay| delay.min(MAX_BROKEN_DELAY))
}

impl AltSvcCache {
    /// An empty cache.
    ///
    /// ```
    /// let cache = whatwg_fetch::net::AltSvcCache::new();
    /// assert!(cache.is_empty());
    /// ```
    pub fn new() -> AltSvcCache {
        AltSvcCache::default()
    }

    /// How many origins the cache knows something of: alternatives (fresh or not yet
    /// found expired) or a protocol marked broken. At most 1,000: past that, the least
    /// recently used is forgotten.
    ///
    /// ```
    /// let cache = whatwg_fetch::net::AltSvcCache::new();
    /// assert_eq!(cache.len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.state().len
    }

    /// Whether the cache knows nothing of any origin.
    ///
    /// ```
    /// let cache = whatwg_fetch::net::AltSvcCache::new();
    /// assert!(cache.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets every origin's alternatives and broken protocols, as when the network
    /// changed: requests go over TCP until origins announce their alternatives again.
    ///
    /// ```
    /// let cache = whatwg_fetch::net::AltSvcCache::new();
    /// cache.clear();
    /// assert!(cache.is_empty());
    /// ```
    pub fn clear(&self) {
        let mut state = self.state();
        state.origins.clear();
        state.len = 0;
        state.https_records_asked.clear();
    }

    /// The alternatives still fresh at `now` of each origin in the unpartitioned
    /// partition (`""`), most preferred first, each with what is left of its freshness
    /// as its `max_age`: what [`AltSvcCache::set`] at `now` would make again.
    pub(crate) fn fresh(&self, now: Instant) -> Vec<(OriginKey, Vec<Alternative>)> {
        let state = self.state();
        state
            .origins
            .iter()
            .filter_map(|(origin, partitions)| {
                let alternatives: Vec<Alternative> = partitions
                    .get("")?
                    .alternatives
                    .iter()
                    .filter(|alternative| alternative.expiry > now)
                    .map(|alternative| Alternative {
                        protocol: alternative.protocol.clone(),
                        host: alternative.host.clone(),
                        port: alternative.port,
                        max_age: alternative.expiry.saturating_duration_since(now),
                        persist: alternative.persist,
                    })
                    .collect();
                (!alternatives.is_empty()).then(|| (origin.clone(), alternatives))
            })
            .collect()
    }

    /// The state, behind its lock.
    fn state(&self) -> MutexGuard<'_, CacheState> {
        // Plain bookkeeping, consistent between statements: a poisoned lock is usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes the `Alt-Svc` field value `alt_svc` received at `now` from `origin` in
    /// `partition`. §3.1: "When an Alt-Svc response header field is received from an
    /// origin, its value invalidates and replaces all cached alternative services for
    /// that origin." [`AltSvc::Clear`] leaves none. Each alternative is kept until `now`
    /// plus its `max_age` (one with a `max_age` of 0 is not kept), and at most
    /// [`MAX_ALTERNATIVES`] of them. Which protocols are broken is kept as it was. An
    /// alternative on a port the origin's may not change to ([`may_change_port`]) is left
    /// out, as Chrome leaves it.
    pub(crate) fn set(&self, origin: &OriginKey, partition: &str, alt_svc: AltSvc, now: Instant) {
        let alternatives: Vec<CachedAlternative> = match alt_svc {
            AltSvc::Clear => Vec::new(),
            AltSvc::Entries(entries) => entries
                .into_iter()
                .filter(|alternative| may_change_port(origin.port(), alternative.port))
                .take(MAX_ALTERNATIVES)
                .filter_map(|alternative| {
                    let expiry = now.checked_add(alternative.max_age)?;
                    (expiry > now).then_some(CachedAlternative {
                        protocol: alternative.protocol,
                        host: alternative.host,
                        port: alternative.port,
                        expiry,
                        persist: alternative.persist,
                    })
                })
                .collect(),
        };
        let mut state = self.state();
        if alternatives.is_empty() {
            state.update_existing(origin, partition, |cached| cached.alternatives.clear());
            return;
        }
        state.update(origin, partition, |cached| {
            cached.alternatives = alternatives;
        });
    }

    /// The alternative to use for a request to `origin` in `partition` over `protocol`
    /// at `now`: the host and port of the first (most preferred) alternative of that
    /// protocol still fresh, the host being the origin's when the alternative names
    /// none. `None` if there is no such alternative, or `protocol` is broken for the
    /// origin (see [`AltSvcCache::mark_broken`]).
    pub(crate) fn lookup(
        &self,
        origin: &OriginKey,
        partition: &str,
        protocol: &str,
        now: Instant,
    ) -> Option<(String, u16)> {
        let mut state = self.state();
        let clock = state.tick();
        let partitions = state.origins.get_mut(origin)?;
        let cached = partitions.get_mut(partition)?;
        cached
            .alternatives
            .retain(|alternative| alternative.expiry > now);
        let found = if cached
            .broken
            .iter()
            .any(|broken| broken.protocol == protocol && broken.until > now)
        {
            None
        } else {
            cached
                .alternatives
                .iter()
                .find(|alternative| alternative.protocol == protocol)
                .map(|alternative| {
                    let host = alternative.host.as_deref().unwrap_or(origin.host());
                    (host.to_owned(), alternative.port)
                })
        };
        if found.is_some() {
            cached.last_used = clock;
        }
        if cached.is_empty() {
            state.remove(origin, partition);
        }
        found
    }

    /// Notes that connecting to `origin` in `partition` over `protocol` at `now` failed:
    /// [`AltSvcCache::lookup`] gives no alternative of that protocol for a while,
    /// [`INITIAL_BROKEN_DELAY`] the first time, twice as long each time after it, up to
    /// [`MAX_BROKEN_DELAY`], until [`AltSvcCache::mark_working`] starts it over.
    ///
    /// A mark while the protocol is still broken changes nothing: it is the same failure
    /// seen by another request already under way. (Chrome counts such a mark towards the
    /// next back-off, and so doubles it for every request that was in flight.)
    pub(crate) fn mark_broken(
        &self,
        origin: &OriginKey,
        partition: &str,
        protocol: &str,
        now: Instant,
    ) {
        self.state().update(origin, partition, |cached| {
            let position = cached
                .broken
                .iter()
                .position(|broken| broken.protocol == protocol);
            let Some(broken) = position.and_then(|position| cached.broken.get_mut(position)) else {
                if cached.broken.len() >= MAX_BROKEN_PROTOCOLS {
                    cached.broken.remove(0);
                }
                if let Some(until) = now.checked_add(broken_delay(0)) {
                    cached.broken.push(BrokenProtocol {
                        protocol: protocol.to_owned(),
                        count: 1,
                        until,
                    });
                }
                return;
            };
            if broken.until > now {
                return;
            }
            if let Some(until) = now.checked_add(broken_delay(broken.count)) {
                broken.until = until;
                broken.count = broken.count.saturating_add(1);
            }
        });
    }

    /// Whether to ask for `origin`'s HTTPS records at `now`: `true` if they were not asked
    /// for within the last [`HTTPS_RECORDS_RETRY`] (or the TTL
    /// [`note_https_records`](Self::note_https_records) was given), and then not again
    /// until that has passed, so that the requests of one origin ask once between them.
    pub(crate) fn ask_https_records(&self, origin: &OriginKey, now: Instant) -> bool {
        let mut state = self.state();
        let asked = &mut state.https_records_asked;
        if asked.get(origin).is_some_and(|until| *until > now) {
            return false;
        }
        if asked.len() >= MAX_CACHED_ORIGINS && !asked.contains_key(origin) {
            asked.retain(|_, until| *until > now);
            // All of them still current: the one due soonest goes.
            if asked.len() >= MAX_CACHED_ORIGINS {
                let soonest = asked
                    .iter()
                    .min_by_key(|(_, until)| **until)
                    .map(|(origin, _)| origin.clone());
                if let Some(soonest) = soonest {
                    asked.remove(&soonest);
                }
            }
        }
        let until = now.checked_add(HTTPS_RECORDS_RETRY).unwrap_or(now);
        asked.insert(origin.clone(), until);
        true
    }

    /// Notes the alternatives `origin`'s HTTPS records gave at `now` (RFC 9460 §9: an
    /// HTTPS record "may be used as an alternative service"), unless the origin
    /// announced alternatives of its own meanwhile (an `Alt-Svc` field value, which
    /// speaks for the origin itself, wins); and that the records are not to be asked for
    /// again before `ask_again`, their TTL (at least [`MIN_HTTPS_RECORDS_TTL`]).
    pub(crate) fn note_https_records(
        &self,
        origin: &OriginKey,
        alternatives: Vec<Alternative>,
        ask_again: Duration,
        now: Instant,
    ) {
        let mut state = self.state();
        let ask_again = ask_again.max(MIN_HTTPS_RECORDS_TTL);
        if let Some(until) = state.https_records_asked.get_mut(origin) {
            *until = now.checked_add(ask_again).unwrap_or(now);
        }
        let alternatives: Vec<CachedAlternative> = alternatives
            .into_iter()
            .take(MAX_ALTERNATIVES)
            .filter_map(|alternative| {
                Some(CachedAlternative {
                    expiry: now.checked_add(alternative.max_age)?,
                    protocol: alternative.protocol,
                    host: alternative.host,
                    port: alternative.port,
                    persist: alternative.persist,
                })
            })
            .collect();
        if alternatives.is_empty() {
            return;
        }
        state.update(origin, "", |cached| {
            if cached.alternatives.is_empty() {
                cached.alternatives = alternatives;
            }
        });
    }

    /// Notes that `protocol` worked for `origin` in `partition`: it is no longer broken,
    /// and the next failure is treated as the first.
    pub(crate) fn mark_working(&self, origin: &OriginKey, partition: &str, protocol: &str) {
        self.state().update_existing(origin, partition, |cached| {
            cached.broken.retain(|broken| broken.protocol != protocol);
        });
    }
}

impl CacheState {
    /// The clock's next reading.
    fn tick(&mut self) -> u64 {
        self.clock = self.clock.wrapping_add(1);
        self.clock
    }

    /// Runs `change` on what is known of `origin` in `partition`, made if there is
    /// nothing yet (evicting the least recently used pair at the cap), and marks it used;
    /// forgets it if nothing is left.
    fn update(
        &mut self,
        origin: &OriginKey,
        partition: &str,
        change: impl FnOnce(&mut CachedOrigin),
    ) {
        let clock = self.tick();
        let known = self
            .origins
            .get(origin)
            .is_some_and(|partitions| partitions.contains_key(partition));
        if !known {
            if self.len >= MAX_CACHED_ORIGINS {
                self.evict_least_recently_used();
            }
            self.origins
                .entry(origin.clone())
                .or_default()
                .insert(partition.to_owned(), CachedOrigin::new(clock));
            self.len = self.len.saturating_add(1);
        }
        let mut empty = false;
        if let Some(cached) = self
            .origins
            .get_mut(origin)
            .and_then(|partitions| partitions.get_mut(partition))
        {
            change(cached);
            cached.last_used = clock;
            empty = cached.is_empty();
        }
        if empty {
            self.remove(origin, partition);
        }
    }

    /// Runs `change` on what is known of `origin` in `partition`, if anything, without
    /// marking it used; forgets it if nothing is left.
    fn update_existing(
        &mut self,
        origin: &OriginKey,
        partition: &str,
        change: impl FnOnce(&mut CachedOrigin),
    ) {
        let Some(cached) = self
            .origins
            .get_mut(origin)
            .and_then(|partitions| partitions.get_mut(partition))
        else {
            return;
        };
        change(cached);
        if cached.is_empty() {
            self.remove(origin, partition);
        }
    }

    /// Forgets `origin` in `partition`.
    fn remove(&mut self, origin: &OriginKey, partition: &str) {
        let Some(partitions) = self.origins.get_mut(origin) else {
            return;
        };
        if partitions.remove(partition).is_some() {
            self.len = self.len.saturating_sub(1);
        }
        if partitions.is_empty() {
            self.origins.remove(origin);
        }
    }

    /// Forgets the (origin, partition) pair used least recently. A scan of at most
    /// [`MAX_CACHED_ORIGINS`] pairs, only when a new one arrives at the cap.
    fn evict_least_recently_used(&mut self) {
        let oldest = self
            .origins
            .iter()
            .flat_map(|(origin, partitions)| {
                partitions
                    .iter()
                    .map(move |(partition, cached)| (cached.last_used, origin, partition))
            })
            .min_by_key(|(last_used, _, _)| *last_used)
            .map(|(_, origin, partition)| (origin.clone(), partition.clone()));
        if let Some((origin, partition)) = oldest {
            self.remove(&origin, &partition);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cache.set` of the field value `value` received from `origin` in `partition`.
    fn announce(
        cache: &AltSvcCache,
        origin: &OriginKey,
        partition: &str,
        value: &str,
        now: Instant,
    ) {
        cache.set(origin, partition, AltSvc::Entries(entries(value)), now);
    }

    /// The alternatives of `value`, which must parse to some.
    fn entries(value: &str) -> Vec<Alternative> {
        match parse_alt_svc(value.as_bytes()) {
            Some(AltSvc::Entries(entries)) => entries,
            other => panic!("{value:?} parsed to {other:?}"),
        }
    }

    /// An alternative with the default parameters.
    fn alternative(protocol: &str, host: Option<&str>, port: u16) -> Alternative {
        Alternative {
            protocol: protocol.to_owned(),
            host: host.map(str::to_owned),
            port,
            max_age: DEFAULT_MAX_AGE,
            persist: false,
        }
    }

    /// An alternative of `protocol` on `port`, fresh for `max_age` seconds.
    fn fresh_for(protocol: &str, port: u16, max_age: u64) -> Alternative {
        Alternative {
            max_age: Duration::from_secs(max_age),
            ..alternative(protocol, None, port)
        }
    }

    fn origin(host: &str) -> OriginKey {
        OriginKey::new("https", host, 443)
    }

    const MINUTE: Duration = Duration::from_secs(60);
    const HOUR: Duration = Duration::from_secs(60 * 60);

    #[test]
    fn the_rfc_examples_parse() {
        // §3: "This indicates the "h2" protocol ([RFC7540]) on the same host using the
        // indicated port 8000."
        assert_eq!(entries(r#"h2=":8000""#), [alternative("h2", None, 8000)]);
        // "This indicates the "h2" protocol on the host "new.example.org", running on
        // port 80."
        assert_eq!(
            entries(r#"h2="new.example.org:80""#),
            [alternative("h2", Some("new.example.org"), 80)]
        );
        // §3: "Alt-Svc: h2="alt.example.com:8000", h2=":443"", in order of preference.
        assert_eq!(
            entries(r#"h2="alt.example.com:8000", h2=":443""#),
            [
                alternative("h2", Some("alt.example.com"), 8000),
                alternative("h2", None, 443)
            ]
        );
        // §3.1: "Alt-Svc: h2=":443"; ma=3600" and "Alt-Svc: h2=":443"; ma=2592000;
        // persist=1".
        assert_eq!(
            entries(r#"h2=":443"; ma=3600"#),
            [fresh_for("h2", 443, 3600)]
        );
        assert_eq!(
            entries(r#"h2=":443"; ma=2592000; persist=1"#),
            [Alternative {
                persist: true,
                ..fresh_for("h2", 443, 2_592_000)
            }]
        );
        assert_eq!(parse_alt_svc(b"clear"), Some(AltSvc::Clear));
    }

    #[test]
    fn protocol_ids_are_percent_decoded() {
        // `/`, `=` and `:` are not token characters; `#` is.
        assert_eq!(
            entries(r#"http%2F1.1=":80""#),
            [alternative("http/1.1", None, 80)]
        );
        assert_eq!(
            entries(r#"w%3Dx%3Ay#z=":80""#),
            [alternative("w=x:y#z", None, 80)]
        );
        assert_eq!(
            entries(r#"w%3D%3Dx="example.com:443""#),
            [alternative("w==x", Some("example.com"), 443)]
        );
        assert_eq!(entries(r#"x%25y=":1""#), [alternative("x%y", None, 1)]);
        // Lowercase hex and needlessly encoded token characters name the same octets.
        assert_eq!(entries(r#"h%33=":443""#), [alternative("h3", None, 443)]);
        assert_eq!(entries(r#"w%3d=":443""#), [alternative("w=", None, 443)]);
        // A `%` without two hex digits, or octets that are not UTF-8, are invalid.
        for value in [
            r#"h%3=":443""#,
            r#"h%=":443""#,
            r#"h%G3=":443""#,
            r#"%FF=":443""#,
        ] {
            assert_eq!(parse_alt_svc(value.as_bytes()), None, "{value}");
        }
    }

    #[test]
    fn whitespace_around_list_members_and_parameters_is_allowed() {
        let expected = [Alternative {
            persist: true,
            ..fresh_for("h3", 443, 60)
        }];
        for value in [
            r#"h3=":443";ma=60;persist=1"#,
            "  h3=\":443\"\t;\tma=60 ;  persist=1  ",
            r#"h3=":443" ; ma = 60 ; persist = 1"#,
            r#",, h3=":443"; ma=60; persist=1 ,"#,
            r#"h3=":443"; ma=60; persist=1;"#,
            r#"h3=":443";; ma=60;;persist=1"#,
        ] {
            assert_eq!(entries(value), expected, "{value:?}");
        }
        // No whitespace within an `alternative`: `protocol-id "=" alt-authority`.
        assert_eq!(parse_alt_svc(br#"h3 =":443""#), None);
        assert_eq!(parse_alt_svc(br#"h3= ":443""#), None);
    }

    #[test]
    fn quoted_strings_are_unescaped() {
        assert_eq!(
            entries(r#"h3="ex\ample.com:4\43""#),
            [alternative("h3", Some("example.com"), 443)]
        );
        // Parameter values may be quoted strings, with commas inside.
        assert_eq!(entries(r#"h3=":443"; ma="60""#), [fresh_for("h3", 443, 60)]);
        assert_eq!(
            entries(r#"h3=":443"; v="1,2", h2=":444""#),
            [alternative("h3", None, 443), alternative("h2", None, 444)]
        );
        assert!(entries(r#"h3=":443"; persist="1""#)[0].persist);
        // A quoted-pair of a control character, and a control character, are invalid.
        assert_eq!(parse_alt_svc(b"h3=\":4\\\x0143\""), None);
        assert_eq!(parse_alt_svc(b"h3=\":4\x0043\""), None);
    }

    #[test]
    fn hosts_are_normalized_as_url_hosts() {
        assert_eq!(
            entries(r#"h3="Alt.Example.COM:443""#)[0].host.as_deref(),
            Some("alt.example.com")
        );
        assert_eq!(
            entries(r#"h3="[2001:DB8::1]:443""#)[0].host.as_deref(),
            Some("[2001:db8::1]")
        );
        assert_eq!(
            entries(r#"h3="192.0.2.1:443""#)[0].host.as_deref(),
            Some("192.0.2.1")
        );
        assert_eq!(
            entries("h3=\"b\u{fc}cher.example:443\"")[0].host.as_deref(),
            Some("xn--bcher-kva.example")
        );
        // Not a host: an unbracketed IPv6 address, a space, a path.
        for value in [
            r#"h3="::1:443""#,
            r#"h3="a b:443""#,
            r#"h3="a/b:443""#,
            r#"h3="[::1:443""#,
        ] {
            assert_eq!(parse_alt_svc(value.as_bytes()), None, "{value}");
        }
    }

    #[test]
    fn parameters_are_read_and_unknown_ones_ignored() {
        assert_eq!(
            entries(r#"h3=":443"; foo=bar; ma=10; baz="q;u,x""#),
            [fresh_for("h3", 443, 10)]
        );
        // Names in any case; the first `ma` counts.
        assert_eq!(
            entries(r#"h3=":443"; MA=5; ma=7"#),
            [fresh_for("h3", 443, 5)]
        );
        // `persist` other than 1 is ignored, not an error.
        assert_eq!(
            entries(r#"h3=":443"; persist=0"#),
            [alternative("h3", None, 443)]
        );
        // `ma=0` parses (and is never cached).
        assert_eq!(entries(r#"h3=":443"; ma=0"#), [fresh_for("h3", 443, 0)]);
        // A too large `ma` is 2^31 seconds.
        assert_eq!(
            entries(r#"h3=":443"; ma=99999999999999999999999999"#)[0].max_age,
            Duration::from_secs(1 << 31)
        );
    }

    #[test]
    fn an_invalid_alt_value_is_skipped_and_the_others_kept() {
        for invalid in [
            "h3",                     // no alt-authority
            "h3=:443",                // not quoted
            r#"h3=":""#,              // no port
            r#"h3="example.com""#,    // no colon
            r#"h3=":0""#,             // port 0
            r#"h3=":65536""#,         // port too large
            r#"h3=":44a""#,           // port not a number
            r#"h3=":+443""#,          // port with a sign
            r#"=":443""#,             // no protocol-id
            r#"h3=":443" x"#,         // no `;` before a parameter
            r#"h3=":443"; ma"#,       // parameter without a value
            r#"h3=":443"; ma="#,      // empty value
            r#"h3=":443"; ma=-1"#,    // not delta-seconds
            r#"h3=":443"; ma=1.5"#,   // not delta-seconds
            r#"h3=":443"; =1"#,       // no parameter name
            r#"h3=":443"; ma="60"x"#, // junk after a quoted value
            r#"h"3"=":443""#,         // a quote in the protocol-id
            "Clear",                  // `clear` is case-sensitive
        ] {
            let value = format!(r#"h2=":1", {invalid}, h2=":2""#);
            assert_eq!(
                entries(&value),
                [alternative("h2", None, 1), alternative("h2", None, 2)],
                "{value}"
            );
        }
        // A quoted-string left open swallows the rest of the field value.
        assert_eq!(
            entries(r#"h2=":1", h3=":443, h2=":2""#),
            [alternative("h2", None, 1)]
        );
        // Nothing valid: the field value is ignored.
        assert_eq!(parse_alt_svc(b""), None);
        assert_eq!(parse_alt_svc(b" , ,"), None);
        assert_eq!(parse_alt_svc(b"h3, h2=443"), None);
    }

    #[test]
    fn clear_anywhere_in_the_list_clears() {
        assert_eq!(parse_alt_svc(b"  clear "), Some(AltSvc::Clear));
        assert_eq!(parse_alt_svc(br#"h3=":443", clear"#), Some(AltSvc::Clear));
        assert_eq!(parse_alt_svc(br#"clear, h3=":443""#), Some(AltSvc::Clear));
        // Inside a quoted string it is not a list member.
        assert_eq!(
            entries(r#"h3=":443"; x=", clear""#),
            [alternative("h3", None, 443)]
        );
    }

    #[test]
    fn a_field_value_over_4_kib_is_ignored() {
        let padding = " ".repeat(MAX_FIELD_VALUE_LEN - r#"h3=":443""#.len());
        let at_limit = format!(r#"h3=":443"{padding}"#);
        assert_eq!(at_limit.len(), MAX_FIELD_VALUE_LEN);
        assert_eq!(entries(&at_limit), [alternative("h3", None, 443)]);
        let over = format!("{at_limit} ");
        assert_eq!(parse_alt_svc(over.as_bytes()), None);
        assert_eq!(
            parse_alt_svc(format!("{padding}{padding}clear").as_bytes()),
            None
        );
    }

    #[test]
    fn at_most_16_alternatives_are_kept() {
        let value = (1..=20)
            .map(|port| format!(r#"h3=":{port}""#))
            .collect::<Vec<_>>()
            .join(", ");
        let kept = entries(&value);
        assert_eq!(kept.len(), MAX_ALTERNATIVES);
        assert_eq!(kept.last().map(|alternative| alternative.port), Some(16));
        // Invalid ones do not count towards the limit.
        let value = format!("junk, junk, {value}");
        assert_eq!(entries(&value).len(), MAX_ALTERNATIVES);
        // A `clear` past the limit still clears.
        let value = format!("{value}, clear");
        assert_eq!(parse_alt_svc(value.as_bytes()), Some(AltSvc::Clear));
    }

    #[test]
    fn long_protocol_ids_and_hosts_are_invalid() {
        let id = "a".repeat(MAX_PROTOCOL_ID_LEN);
        assert_eq!(entries(&format!(r#"{id}=":1""#))[0].protocol, id);
        assert_eq!(parse_alt_svc(format!(r#"{id}a=":1""#).as_bytes()), None);
        // The limit is on the protocol-id as written.
        let encoded = "%41".repeat(22);
        assert_eq!(parse_alt_svc(format!(r#"{encoded}=":1""#).as_bytes()), None);

        let label = "a".repeat(63);
        let host = format!("{label}.{label}.{label}.{}", "a".repeat(63));
        assert_eq!(host.len(), MAX_HOST_LEN);
        assert_eq!(
            entries(&format!(r#"h3="{host}:1""#))[0].host.as_deref(),
            Some(host.as_str())
        );
        assert_eq!(parse_alt_svc(format!(r#"h3="a{host}:1""#).as_bytes()), None);
    }

    #[test]
    fn the_cache_gives_the_first_fresh_alternative_of_the_protocol() {
        let cache = AltSvcCache::new();
        let now = Instant::now();
        let example = origin("example.com");
        assert_eq!(cache.lookup(&example, "", "h3", now), None);
        announce(
            &cache,
            &example,
            "",
            r#"h2=":843", h3="alt.example.net:843"; ma=60, h3=":443"; ma=3600"#,
            now,
        );
        assert_eq!(
            cache.lookup(&example, "", "h3", now),
            Some(("alt.example.net".to_owned(), 843))
        );
        assert_eq!(
            cache.lookup(&example, "", "h2", now),
            Some(("example.com".to_owned(), 843))
        );
        assert_eq!(cache.lookup(&example, "", "h3-29", now), None);
        // The first expires after 60 seconds; then the second is used.
        assert_eq!(
            cache.lookup(&example, "", "h3", now + MINUTE),
            Some(("example.com".to_owned(), 443))
        );
        assert_eq!(cache.lookup(&example, "", "h3", now + HOUR), None);
        assert!(cache.lookup(&example, "", "h2", now + HOUR).is_some());
        assert_eq!(cache.lookup(&example, "", "h2", now + 24 * HOUR), None);
        // Everything expired: the origin is forgotten.
        assert_eq!(cache.state().len, 0);
    }

    #[test]
    fn an_origin_on_a_system_port_is_not_taken_to_a_port_any_user_can_listen_on() {
        // RFC 7838 §9.1, as Chrome keeps it: a user of a shared server who can answer with
        // a field value (`/~user/` pages) and listen on a port of 1024 or above could
        // otherwise take the origin over.
        let cache = AltSvcCache::new();
        let now = Instant::now();
        let example = origin("example.com");
        announce(
            &cache,
            &example,
            "",
            r#"h3=":8443", h3="other.example:1024", h2=":1023", h3=":443""#,
            now,
        );
        assert_eq!(
            cache.lookup(&example, "", "h3", now),
            Some(("example.com".to_owned(), 443))
        );
        assert_eq!(
            cache.lookup(&example, "", "h2", now),
            Some(("example.com".to_owned(), 1023))
        );
        // Only such alternatives: none is kept, and the field value still replaces what
        // was cached.
        announce(&cache, &example, "", r#"h3=":8443""#, now);
        assert_eq!(cache.lookup(&example, "", "h3", now), None);
        assert_eq!(cache.state().len, 0);
        // An origin on a port of 1024 or above may name any port.
        let high = OriginKey::new("https", "example.com", 8443);
        announce(&cache, &high, "", r#"h3=":9443", h3=":443""#, now);
        assert_eq!(
            cache.lookup(&high, "", "h3", now),
            Some(("example.com".to_owned(), 9443))
        );
    }

    #[test]
    fn the_cache_keys_by_origin_and_partition() {
        let cache = AltSvcCache::new();
        let now = Instant::now();
        let example = origin("example.com");
        announce(&cache, &example, "https://a.example", r#"h3=":443""#, now);
        assert!(
            cache
                .lookup(&example, "https://a.example", "h3", now)
                .is_some()
        );
        assert_eq!(cache.lookup(&example, "https://b.example", "h3", now), None);
        assert_eq!(
            cache.lookup(&origin("other.example"), "https://a.example", "h3", now),
            None
        );
        assert_eq!(
            cache.lookup(
                &OriginKey::new("https", "example.com", 8443),
                "https://a.example",
                "h3",
                now
            ),
            None
        );
        // The same origin whatever the case of its host.
        assert!(
            cache
                .lookup(&origin("EXAMPLE.com"), "https://a.example", "h3", now)
                .is_some()
        );
        assert_eq!(OriginKey::new("HTTPS", "Example.COM", 443), example);
    }

    #[test]
    fn a_new_field_value_replaces_the_alternatives_and_clear_removes_them() {
        let cache = AltSvcCache::new();
        let now = Instant::now();
        let example = origin("example.com");
        announce(&cache, &example, "", r#"h3=":443""#, now);
        announce(&cache, &example, "", r#"h2=":443""#, now);
        assert_eq!(cache.lookup(&example, "", "h3", now), None);
        assert!(cache.lookup(&example, "", "h2", now).is_some());
        announce(&cache, &example, "", r#"h3=":443""#, now);
        cache.set(&example, "", AltSvc::Clear, now);
        assert_eq!(cache.lookup(&example, "", "h3", now), None);
        assert_eq!(cache.state().len, 0);
        // `ma=0` alone is as good as `clear`.
        announce(&cache, &example, "", r#"h3=":443""#, now);
        announce(&cache, &example, "", r#"h3=":443"; ma=0"#, now);
        assert_eq!(cache.lookup(&example, "", "h3", now), None);
        assert_eq!(cache.state().len, 0);
    }

    #[test]
    fn at_most_16_alternatives_are_cached_per_origin() {
        let cache = AltSvcCache::new();
        let now = Instant::now();
        let example = origin("example.com");
        let many = (1..=20)
            .map(|port| fresh_for("h2", port, 60))
            .chain([fresh_for("h3", 443, 60)]);
        cache.set(&example, "", AltSvc::Entries(many.collect()), now);
        assert_eq!(cache.lookup(&example, "", "h3", now), None);
        assert_eq!(
            cache.state().origins[&example][""].alternatives.len(),
            MAX_ALTERNATIVES
        );
    }

    #[test]
    fn broken_protocols_back_off_exponentially_up_to_48_hours() {
        assert_eq!(broken_delay(0), 5 * MINUTE);
        assert_eq!(broken_delay(1), 10 * MINUTE);
        assert_eq!(broken_delay(2), 20 * MINUTE);
        assert_eq!(broken_delay(9), 2560 * MINUTE);
        assert_eq!(broken_delay(10), 48 * HOUR);
        assert_eq!(broken_delay(u32::MAX), 48 * HOUR);

        let cache = AltSvcCache::new();
        let start = Instant::now();
        let example = origin("example.com");
        announce(
            &cache,
            &example,
            "",
            r#"h3=":443"; ma=31536000, h2=":443"; ma=31536000"#,
            start,
        );
        let mut now = start;
        for expected in [5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 2880, 2880] {
            let delay = expected * MINUTE;
            cache.mark_broken(&example, "", "h3", now);
            assert_eq!(cache.lookup(&example, "", "h3", now), None);
            assert_eq!(
                cache.lookup(&example, "", "h3", now + delay - Duration::from_secs(1)),
                None
            );
            // Other protocols are not affected.
            assert!(cache.lookup(&example, "", "h2", now).is_some());
            now += delay;
            assert!(
                cache.lookup(&example, "", "h3", now).is_some(),
                "after {expected} minutes"
            );
        }
    }

    #[test]
    fn a_mark_while_broken_does_not_count_and_working_resets_the_back_off() {
        let cache = AltSvcCache::new();
        let now = Instant::now();
        let example = origin("example.com");
        announce(&cache, &example, "", r#"h3=":443"; ma=31536000"#, now);
        cache.mark_broken(&example, "", "h3", now);
        cache.mark_broken(&example, "", "h3", now + MINUTE);
        assert!(cache.lookup(&example, "", "h3", now + 5 * MINUTE).is_some());
        // The second failure after it works again: 10 minutes.
        let now = now + 5 * MINUTE;
        cache.mark_broken(&example, "", "h3", now);
        assert_eq!(cache.lookup(&example, "", "h3", now + 9 * MINUTE), None);
        let now = now + 10 * MINUTE;
        assert!(cache.lookup(&example, "", "h3", now).is_some());
        cache.mark_working(&example, "", "h3");
        cache.mark_broken(&example, "", "h3", now);
        assert!(cache.lookup(&example, "", "h3", now + 5 * MINUTE).is_some());
    }

    #[test]
    fn https_records_are_asked_for_once_per_retry_and_then_per_ttl() {
        let cache = AltSvcCache::new();
        let origin = origin("example.com");
        let now = Instant::now();
        assert!(cache.ask_https_records(&origin, now));
        assert!(!cache.ask_https_records(&origin, now));
        // None found: asked again after the retry delay.
        assert!(
            !cache.ask_https_records(&origin, now + HTTPS_RECORDS_RETRY - Duration::from_secs(1))
        );
        let later = now + HTTPS_RECORDS_RETRY;
        assert!(cache.ask_https_records(&origin, later));
        // Found, with a TTL of an hour: kept as an alternative, and asked for after it.
        let hour = Duration::from_secs(3600);
        cache.note_https_records(&origin, vec![fresh_for("h3", 8443, 3600)], hour, later);
        assert_eq!(
            cache.lookup(&origin, "", "h3", later),
            Some(("example.com".to_owned(), 8443))
        );
        assert!(!cache.ask_https_records(&origin, later + HTTPS_RECORDS_RETRY));
        assert!(cache.ask_https_records(&origin, later + hour));
        // A TTL under the floor counts as the floor.
        cache.note_https_records(&origin, Vec::new(), Duration::ZERO, later);
        assert!(!cache.ask_https_records(
            &origin,
            later + MIN_HTTPS_RECORDS_TTL - Duration::from_secs(1)
        ));
        assert!(cache.ask_https_records(&origin, later + MIN_HTTPS_RECORDS_TTL));
    }

    #[test]
    fn the_origins_own_alt_svc_wins_over_its_https_records() {
        let cache = AltSvcCache::new();
        let origin = origin("example.com");
        let now = Instant::now();
        cache.set(
            &origin,
            "",
            AltSvc::Entries(vec![fresh_for("h3", 443, 3600)]),
            now,
        );
        assert!(cache.ask_https_records(&origin, now));
        cache.note_https_records(
            &origin,
            vec![fresh_for("h3", 8443, 3600)],
            Duration::from_secs(3600),
            now,
        );
        assert_eq!(
            cache.lookup(&origin, "", "h3", now),
            Some(("example.com".to_owned(), 443))
        );
    }

    #[test]
    fn at_most_1000_origins_are_remembered_as_asked() {
        let cache = AltSvcCache::new();
        let now = Instant::now();
        for n in 0..MAX_CACHED_ORIGINS + 500 {
            assert!(cache.ask_https_records(&origin(&format!("o{n}.example")), now));
        }
        assert_eq!(cache.state().https_records_asked.len(), MAX_CACHED_ORIGINS);
        cache.clear();
        assert!(cache.state().https_records_asked.is_empty());
    }

    #[test]
    fn a_new_advertisement_does_not_reset_the_back_off() {
        let cache = AltSvcCache::new();
        let now = Instant::now();
        let example = origin("example.com");
        cache.mark_broken(&example, "", "h3", now);
        announce(&cache, &example, "", r#"h3=":443""#, now);
        assert_eq!(cache.lookup(&example, "", "h3", now), None);
        cache.set(&example, "", AltSvc::Clear, now);
        announce(&cache, &example, "", r#"h3=":443""#, now);
        assert_eq!(cache.lookup(&example, "", "h3", now + 4 * MINUTE), None);
        assert!(cache.lookup(&example, "", "h3", now + 5 * MINUTE).is_some());
    }

    #[test]
    fn the_least_recently_used_origin_is_evicted_past_1000() {
        let cache = AltSvcCache::new();
        let now = Instant::now();
        let h3 = || AltSvc::Entries(vec![fresh_for("h3", 443, 86_400)]);
        for n in 0..MAX_CACHED_ORIGINS {
            cache.set(&origin(&format!("{n}.example")), "", h3(), now);
        }
        assert_eq!(cache.state().len, MAX_CACHED_ORIGINS);
        // Using the first makes the second the least recently used.
        assert!(cache.lookup(&origin("0.example"), "", "h3", now).is_some());
        cache.set(&origin("new.example"), "", h3(), now);
        assert_eq!(cache.state().len, MAX_CACHED_ORIGINS);
        assert!(
            cache
                .lookup(&origin("new.example"), "", "h3", now)
                .is_some()
        );
        assert!(cache.lookup(&origin("0.example"), "", "h3", now).is_some());
        assert_eq!(cache.lookup(&origin("1.example"), "", "h3", now), None);
        assert!(cache.lookup(&origin("2.example"), "", "h3", now).is_some());
        // Partitions count as origins of their own.
        cache.set(&origin("0.example"), "other", h3(), now);
        assert_eq!(cache.state().len, MAX_CACHED_ORIGINS);
        assert_eq!(cache.lookup(&origin("3.example"), "", "h3", now), None);
    }

    #[test]
    fn a_poisoned_lock_is_still_used() {
        let cache = std::sync::Arc::new(AltSvcCache::new());
        let poisoner = std::sync::Arc::clone(&cache);
        let _ = std::thread::spawn(move || {
            let _guard = poisoner.state();
            panic!("poison the lock");
        })
        .join();
        let now = Instant::now();
        announce(&cache, &origin("example.com"), "", r#"h3=":443""#, now);
        assert!(
            cache
                .lookup(&origin("example.com"), "", "h3", now)
                .is_some()
        );
    }
}
