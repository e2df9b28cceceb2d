//! [Authentication entries](https://fetch.spec.whatwg.org/#authentication-entries), for
//! HTTP Digest authentication ([RFC 7616](https://www.rfc-editor.org/rfc/rfc7616)): what
//! HTTP-network-or-cache fetch's step 15 keeps of a `401`'s challenge, so that step 8.21.2
//! answers it, on the authentication fetch and on the requests after it to the same
//! protection space (RFC 7616 §3.6), each with the next `nc`.
//!
//! An entry is the spec's tuple of username, password and realm, with the origin it is for
//! and the Digest session on the realm's last challenge. A client keeps at most
//! [`MAX_ENTRIES`], the oldest dropped first. The store is read only for a request with
//! credentials for Digest ([`RequestBuilder::digest_auth`](crate::RequestBuilder::digest_auth)):
//! a request without takes no lock.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;

use crate::infra::digest::{Challenge, DigestChallenge, DigestCredentials, DigestSession};
use crate::request::Request;

/// The most authentication entries a client keeps.
pub(crate) const MAX_ENTRIES: usize = 64;

/// A client's authentication entries.
#[derive(Debug, Default)]
pub(crate) struct AuthenticationEntries {
    entries: Mutex<VecDeque<Entry>>,
}

/// One authentication entry: credentials, the origin, and the realm's challenge.
#[derive(Debug)]
struct Entry {
    origin: url::Origin,
    credentials: Arc<DigestCredentials>,
    session: DigestSession,
}

impl Entry {
    fn is_for(&self, origin: &url::Origin, credentials: &DigestCredentials) -> bool {
        self.origin == *origin && *self.credentials == *credentials
    }
}

impl AuthenticationEntries {
    /// The `Authorization` value of the authentication entry for `http_request` and its
    /// `credentials`, if there is one (the realm challenged last on its current URL's
    /// origin), its `nc` counted. `None` also when the entry cannot answer this request
    /// (a challenge that asks for `auth-int` only, and a body that is not in memory).
    pub(crate) fn authorization_value(
        &self,
        http_request: &Request,
        credentials: &DigestCredentials,
    ) -> Option<Bytes> {
        let url = http_request.current_url();
        let origin = url.origin();
        let uri = &url[url::Position::BeforePath..url::Position::AfterQuery];
        // The body, for `auth-int`: in memory, or none at all (empty).
        let body: Option<&[u8]> = match &http_request.body {
            None => Some(b""),
            Some(body) => body.source().map(|bytes| &bytes[..]),
        };
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = entries
            .iter_mut()
            .rev()
            .find(|entry| entry.is_for(&origin, credentials))?;
        let value = entry
            .session
            .authorize(credentials, &http_request.method, uri, body)?;
        Some(Bytes::from(value))
    }

    /// Keeps `challenge`, from a `401` to a request to `origin`, as the authentication
    /// entry of its realm and `credentials`, in place of the one there was.
    pub(crate) fn set(
        &self,
        origin: url::Origin,
        credentials: Arc<DigestCredentials>,
        challenge: DigestChallenge,
    ) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.retain(|entry| {
            !(entry.is_for(&origin, &credentials)
                && entry.session.challenge().realm == challenge.realm)
        });
        if entries.len() >= MAX_ENTRIES {
            entries.pop_front();
        }
        entries.push_back(Entry {
            origin,
            credentials,
            session: DigestSession::new(challenge),
        });
    }

    /// Drops the entries of `origin` and `credentials`: the server refused them.
    pub(crate) fn remove(&self, origin: &url::Origin, credentials: &DigestCredentials) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.retain(|entry| !entry.is_for(origin, credentials));
    }

    /// How many entries there are.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// The strongest `Digest` challenge of a `401`'s `WWW-Authenticate` fields (`values`), or
/// `None` when there is none this client answers, or the fields are over a limit or not
/// the grammar of RFC 9110 §11.
pub(crate) fn digest_challenge<'a>(
    values: impl IntoIterator<Item = &'a [u8]>,
) -> Option<DigestChallenge> {
    let challenges: Vec<Challenge> = crate::infra::digest::parse_challenges(values).ok()?;
    DigestChallenge::strongest(&challenges)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(username: &str) -> Arc<DigestCredentials> {
        Arc::new(DigestCredentials {
            username: username.into(),
            password: "p".into(),
        })
    }

    fn challenge(realm: &str) -> DigestChallenge {
        let value = format!("Digest realm={realm}, nonce=n, qop=auth");
        digest_challenge([value.as_bytes()]).unwrap()
    }

    #[test]
    fn entries_are_per_origin_realm_and_credentials_and_bounded() {
        let entries = AuthenticationEntries::default();
        let url = url::Url::parse("http://a.example/x?y").unwrap();
        let request = Request::from_url(url.clone());
        let ada = credentials("ada");
        assert_eq!(entries.authorization_value(&request, &ada), None);
        entries.set(url.origin(), Arc::clone(&ada), challenge("one"));
        let first = entries.authorization_value(&request, &ada).unwrap();
        let first = std::str::from_utf8(&first).unwrap();
        assert!(
            first.contains("uri=\"/x?y\"") && first.contains("nc=00000001"),
            "{first}"
        );
        let second = entries.authorization_value(&request, &ada).unwrap();
        assert!(
            std::str::from_utf8(&second)
                .unwrap()
                .contains("nc=00000002")
        );
        // Other credentials, another origin: none.
        assert_eq!(
            entries.authorization_value(&request, &credentials("bob")),
            None
        );
        let other = Request::from_url(url::Url::parse("http://b.example/").unwrap());
        assert_eq!(entries.authorization_value(&other, &ada), None);
        // The same realm again replaces the entry, and its count starts over.
        entries.set(url.origin(), Arc::clone(&ada), challenge("one"));
        assert_eq!(entries.len(), 1);
        let again = entries.authorization_value(&request, &ada).unwrap();
        assert!(std::str::from_utf8(&again).unwrap().contains("nc=00000001"));
        for i in 0..MAX_ENTRIES + 5 {
            entries.set(url.origin(), Arc::clone(&ada), challenge(&format!("r{i}")));
        }
        assert_eq!(entries.len(), MAX_ENTRIES);
        entries.remove(&url.origin(), &ada);
        assert_eq!(entries.len(), 0);
    }

    #[test]
    fn garbled_or_basic_only_challenges_give_none() {
        assert_eq!(digest_challenge([&b"Basic realm=x"[..]]), None);
        assert_eq!(digest_challenge([&b"Digest realm=\"x"[..]]), None);
        assert_eq!(digest_challenge([&[b'x'; 9000][..]]), None);
    }
}
