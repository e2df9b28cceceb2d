//! [HTTP Strict Transport Security](https://www.rfc-editor.org/rfc/rfc6797) (RFC 6797): a
//! host that answered over `https:` with `Strict-Transport-Security` is, for the time it
//! asked, only ever fetched over `https:`.
//!
//! Main fetch step 10 upgrades a request's current URL from `http:` to `https:` when its
//! host is a known HSTS host ([`HstsStore::should_upgrade`]); HTTP-network fetch records
//! the header of every response received over `https:` ([`HstsStore::process_header`],
//! RFC 6797 §8.1). The store is in memory and starts empty: there is no preload list.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use url::{Host, Url};

/// The longest a policy is kept: one year.
const MAX_AGE_CAP_SECS: u64 = 365 * 24 * 60 * 60;

/// The known HSTS hosts of one client: host name → when the policy ends, and whether it
/// covers subdomains.
#[derive(Debug, Default)]
pub(crate) struct HstsStore {
    hosts: Mutex<HashMap<String, KnownHost>>,
}

#[derive(Clone, Copy, Debug)]
struct KnownHost {
    expiry: SystemTime,
    include_subdomains: bool,
}

/// A parsed `Strict-Transport-Security` header (RFC 6797 §6.1).
#[derive(Debug, PartialEq, Eq)]
struct Policy {
    max_age: u64,
    include_subdomains: bool,
}

impl HstsStore {
    fn hosts(&self) -> MutexGuard<'_, HashMap<String, KnownHost>> {
        // Plain bookkeeping, consistent between statements: a poisoned lock is usable.
        self.hosts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// [Processing the `Strict-Transport-Security` header](https://www.rfc-editor.org/rfc/rfc6797#section-8.1)
    /// of a response to `url`, received over a secure transport without errors (the caller
    /// only calls this for `https:` responses). `values` are the response's header values,
    /// in order.
    pub(crate) fn process_header<'a>(
        &self,
        url: &Url,
        mut values: impl Iterator<Item = &'a [u8]>,
        now: SystemTime,
    ) {
        // §8.1: the UA processes only the first such header field; one that does not parse
        // is ignored. A host that is an IP address is never noted (§8.1.1).
        let (Some(Host::Domain(host)), Some(value)) = (url.host(), values.next()) else {
            return;
        };
        let Some(policy) = parse_strict_transport_security(value) else {
            return;
        };
        let host = host.strip_suffix('.').unwrap_or(host).to_owned();
        let mut hosts = self.hosts();
        // §8.1.1: a max-age of 0 means the host is no longer a known HSTS host.
        if policy.max_age == 0 {
            hosts.remove(&host);
            return;
        }
        // Otherwise the host is noted (or updated) with the new expiry and
        // includeSubDomains.
        // RFC 6797 §11.2 lets a user agent cap max-age; a year, as Chromium does.
        let max_age = Duration::from_secs(policy.max_age.min(MAX_AGE_CAP_SECS));
        let Some(expiry) = now.checked_add(max_age) else {
            return;
        };
        hosts.insert(
            host,
            KnownHost {
                expiry,
                include_subdomains: policy.include_subdomains,
            },
        );
    }

    /// Whether main fetch step 10 upgrades a request to `url` to `https:`: its scheme is
    /// `http`, its host is a domain whose public suffix is not `localhost`, and the host
    /// is a [known HSTS host](https://www.rfc-editor.org/rfc/rfc6797#section-8.2) (a
    /// congruent match, or a superdomain match with `includeSubDomains`).
    pub(crate) fn should_upgrade(&self, url: &Url, now: SystemTime) -> bool {
        if url.scheme() != "http" {
            return false;
        }
        let Some(Host::Domain(host)) = url.host() else {
            return false;
        };
        let host = host.strip_suffix('.').unwrap_or(host);
        if host == "localhost" || host.ends_with(".localhost") {
            return false;
        }
        let mut hosts = self.hosts();
        if hosts.is_empty() {
            return false;
        }
        // §8.2: compare the host with each known host, label by label: a congruent match
        // (the same host) or a superdomain match (a known host that the host ends with,
        // after a dot) that asserts includeSubDomains. Expired entries are dropped.
        hosts.retain(|_, known| known.expiry > now);
        let mut candidate = Some(host);
        let mut congruent = true;
        while let Some(name) = candidate {
            if let Some(known) = hosts.get(name) {
                if congruent || known.include_subdomains {
                    return true;
                }
            }
            candidate = name.split_once('.').map(|(_, parent)| parent);
            congruent = false;
        }
        false
    }
}

/// Parses a `Strict-Transport-Security` value per the grammar of
/// [RFC 6797 §6.1](https://www.rfc-editor.org/rfc/rfc6797#section-6.1): directives
/// separated by `;`, names case-insensitive, values tokens or quoted strings. Returns
/// `None` when `max-age` is missing or not a number, or when a directive appears twice
/// (§6.1 rule 2: such a header is invalid).
fn parse_strict_transport_security(value: &[u8]) -> Option<Policy> {
    let value = std::str::from_utf8(value).ok()?;
    let mut max_age = None;
    let mut include_subdomains = false;
    let mut seen = Vec::new();
    for directive in value.split(';') {
        let directive = directive.trim_matches([' ', '\t']);
        if directive.is_empty() {
            continue;
        }
        let (name, argument) = match directive.split_once('=') {
            Some((name, argument)) => (name.trim_matches([' ', '\t']), Some(argument)),
            None => (directive, None),
        };
        let name = name.to_ascii_lowercase();
        if seen.contains(&name) {
            return None;
        }
        match name.as_str() {
            "max-age" => {
                let argument = argument?.trim_matches([' ', '\t']);
                let digits = argument
                    .strip_prefix('"')
                    .and_then(|quoted| quoted.strip_suffix('"'))
                    .unwrap_or(argument);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                // A value too large for u64 is as good as forever.
                max_age = Some(digits.parse().unwrap_or(u64::MAX));
            }
            "includesubdomains" if argument.is_none() => include_subdomains = true,
            // Unknown directives are ignored (§6.1 rule 3).
            _ => {}
        }
        seen.push(name);
    }
    Some(Policy {
        max_age: max_age?,
        include_subdomains,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn the_rfc_examples_parse() {
        let parse = |s: &str| parse_strict_transport_security(s.as_bytes());
        assert_eq!(
            parse("max-age=31536000"),
            Some(Policy {
                max_age: 31_536_000,
                include_subdomains: false
            })
        );
        assert_eq!(
            parse("max-age=15768000 ; includeSubDomains"),
            Some(Policy {
                max_age: 15_768_000,
                include_subdomains: true
            })
        );
        assert_eq!(
            parse("MAX-AGE=\"0\"; foo=bar"),
            Some(Policy {
                max_age: 0,
                include_subdomains: false
            })
        );
        assert_eq!(parse("includeSubDomains"), None, "max-age is required");
        assert_eq!(parse("max-age=1; max-age=2"), None, "a repeated directive");
        assert_eq!(parse("max-age=-1"), None);
        assert_eq!(parse("max-age="), None);
        assert_eq!(
            parse("max-age=99999999999999999999999").map(|p| p.max_age),
            Some(u64::MAX)
        );
    }

    #[test]
    fn known_hosts_upgrade_themselves_and_opted_in_subdomains() {
        let store = HstsStore::default();
        let now = SystemTime::now();
        let sts = |store: &HstsStore, host: &str, value: &str| {
            store.process_header(&url(host), [value.as_bytes()].into_iter(), now);
        };
        sts(&store, "https://a.example/", "max-age=60");
        sts(
            &store,
            "https://b.example/",
            "max-age=60; includeSubDomains",
        );
        assert!(store.should_upgrade(&url("http://a.example/x"), now));
        assert!(store.should_upgrade(&url("http://a.example:8080/x"), now));
        assert!(!store.should_upgrade(&url("http://www.a.example/"), now));
        assert!(store.should_upgrade(&url("http://www.b.example/"), now));
        assert!(store.should_upgrade(&url("http://b.example./"), now));
        assert!(!store.should_upgrade(&url("http://xb.example/"), now));
        assert!(!store.should_upgrade(&url("https://a.example/"), now));
        // The policy ends after max-age, or at once with max-age=0.
        let later = now + Duration::from_secs(61);
        assert!(!store.should_upgrade(&url("http://a.example/"), later));
        // A huge max-age is kept for a year.
        sts(&store, "https://e.example/", "max-age=99999999999");
        let year = Duration::from_secs(MAX_AGE_CAP_SECS);
        assert!(store.should_upgrade(
            &url("http://e.example/"),
            now + year - Duration::from_secs(1)
        ));
        assert!(!store.should_upgrade(
            &url("http://e.example/"),
            now + year + Duration::from_secs(1)
        ));
        sts(&store, "https://b.example/", "max-age=0");
        assert!(!store.should_upgrade(&url("http://b.example/"), now));
    }

    #[test]
    fn ip_addresses_localhost_and_bad_headers_are_never_noted() {
        let store = HstsStore::default();
        let now = SystemTime::now();
        for (origin, value) in [
            ("https://127.0.0.1/", "max-age=60"),
            ("https://[::1]/", "max-age=60"),
            ("https://c.example/", "max-age=oops"),
        ] {
            store.process_header(&url(origin), [value.as_bytes()].into_iter(), now);
        }
        assert!(store.hosts().is_empty());
        store.process_header(
            &url("https://localhost/"),
            [&b"max-age=60"[..]].into_iter(),
            now,
        );
        assert!(!store.should_upgrade(&url("http://localhost/"), now));
        // Only the first header counts.
        store.process_header(
            &url("https://d.example/"),
            [&b"max-age=0"[..], &b"max-age=60"[..]].into_iter(),
            now,
        );
        assert!(!store.should_upgrade(&url("http://d.example/"), now));
    }
}
