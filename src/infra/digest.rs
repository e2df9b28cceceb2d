//! HTTP Digest access authentication ([RFC 7616](https://www.rfc-editor.org/rfc/rfc7616)):
//! the challenges of a `WWW-Authenticate` or `Proxy-Authenticate` field
//! ([RFC 9110 §11](https://www.rfc-editor.org/rfc/rfc9110#section-11)), the strongest
//! `Digest` challenge among them, and the `Authorization` or `Proxy-Authorization` value
//! that answers it.
//!
//! The algorithms are SHA-512-256, SHA-256 and MD5 (for old devices), each also in its
//! `-sess` variant; the qualities of protection `auth` and `auth-int` (the latter only for
//! a body in memory), and none, as RFC 2069 servers send; `userhash`; a `username*` in
//! UTF-8 for a name a quoted string cannot carry. A [`DigestSession`] counts its `nc` per
//! nonce.
//!
//! Everything here comes from a peer, so everything is bounded: the fields' length
//! ([`MAX_FIELD_BYTES`]), the number of challenges ([`MAX_CHALLENGES`]) and of parameters
//! of one ([`MAX_PARAMS`]), and each parameter's length ([`MAX_PARAM_BYTES`]): a realm,
//! nonce or opaque value longer is refused. Nothing is indexed or counted unchecked.
//!
//! The file uses nothing of the crate (only `std`, `sha2`, `md-5`, `rand` and
//! `percent-encoding`), so that the fuzz target compiles it as it is.

use std::fmt::{self, Write as _};

/// The most bytes of challenge fields read, all the fields of a response together.
pub(crate) const MAX_FIELD_BYTES: usize = 8 * 1024;
/// The most challenges read from a response's fields.
pub(crate) const MAX_CHALLENGES: usize = 16;
/// The most parameters one challenge may carry.
pub(crate) const MAX_PARAMS: usize = 16;
/// The longest parameter value (a realm, nonce or opaque value) or token68, in bytes.
pub(crate) const MAX_PARAM_BYTES: usize = 1024;

/// A challenge field that is not read: the response is left as it came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ChallengeError {
    /// The fields hold more than [`MAX_FIELD_BYTES`].
    TooLong(usize),
    /// More than [`MAX_CHALLENGES`] challenges.
    TooManyChallenges,
    /// A challenge with more than [`MAX_PARAMS`] parameters.
    TooManyParams,
    /// A parameter value or token68 longer than [`MAX_PARAM_BYTES`].
    ParamTooLong,
    /// A parameter named twice in one challenge (RFC 9110 §11.2).
    DuplicateParam(String),
    /// Not the grammar of RFC 9110 §11: what was expected, at which byte of the field.
    Malformed {
        /// What the grammar expected there.
        expected: &'static str,
        /// The offset in the field value.
        at: usize,
    },
}

impl fmt::Display for ChallengeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChallengeError::TooLong(len) => write!(
                f,
                "the challenge fields are {len} bytes, more than {MAX_FIELD_BYTES}"
            ),
            ChallengeError::TooManyChallenges => {
                write!(f, "more than {MAX_CHALLENGES} challenges")
            }
            ChallengeError::TooManyParams => {
                write!(f, "a challenge with more than {MAX_PARAMS} parameters")
            }
            ChallengeError::ParamTooLong => {
                write!(f, "a parameter longer than {MAX_PARAM_BYTES} bytes")
            }
            ChallengeError::DuplicateParam(name) => {
                write!(f, "the parameter {name:?} twice in one challenge")
            }
            ChallengeError::Malformed { expected, at } => {
                write!(f, "{expected} expected at byte {at} of the challenge")
            }
        }
    }
}

impl std::error::Error for ChallengeError {}

/// One challenge (RFC 9110 §11.1): its scheme and either a token68 or parameters, the
/// scheme and the parameter names in lower case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// The auth-scheme, lower case.
    pub(crate) scheme: String,
    /// The token68, if the challenge has one in place of parameters.
    pub(crate) token68: Option<String>,
    /// The auth-params in order, names lower case, quoted values unescaped.
    pub(crate) params: Vec<(String, String)>,
}

impl Challenge {
    /// The value of the parameter `name` (lower case).
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(param, _)| param == name)
            .map(|(_, value)| value.as_str())
    }
}

/// The challenges of a response's `WWW-Authenticate` or `Proxy-Authenticate` fields,
/// `values` in order: several in one field value, and across fields.
///
/// # Errors
/// A [`ChallengeError`] when the fields are over a limit or are not the grammar.
pub(crate) fn parse_challenges<'a>(
    values: impl IntoIterator<Item = &'a [u8]>,
) -> Result<Vec<Challenge>, ChallengeError> {
    let mut challenges = Vec::new();
    let mut total = 0usize;
    for value in values {
        total = total.saturating_add(value.len());
        if total > MAX_FIELD_BYTES {
            return Err(ChallengeError::TooLong(total));
        }
        Parser {
            input: value,
            pos: 0,
        }
        .challenges(&mut challenges)?;
    }
    Ok(challenges)
}

/// A cursor over one field value.
struct Parser<'a> {
    input: &'a [u8],
    pos: usize,
}

/// RFC 9110 §5.6.2's `tchar`.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// RFC 9110 §11.2's `token68` characters, before its `=` padding.
fn is_token68_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"-._~+/".contains(&byte)
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    fn at_end(&self) -> bool {
        self.pos >= self.input.len()
    }

    fn malformed(&self, expected: &'static str) -> ChallengeError {
        ChallengeError::Malformed {
            expected,
            at: self.pos,
        }
    }

    /// Skips `OWS` (spaces and tabs); whether any was there.
    fn skip_ows(&mut self) -> bool {
        let start = self.pos;
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
        self.pos > start
    }

    /// Skips the empty list elements and separators of RFC 9110 §5.6.1's `#rule`.
    fn skip_separators(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b',')) {
            self.pos += 1;
        }
    }

    /// A token, possibly empty.
    fn token(&mut self) -> &str {
        let start = self.pos;
        while self.peek().is_some_and(is_tchar) {
            self.pos += 1;
        }
        // A token is ASCII.
        std::str::from_utf8(self.input.get(start..self.pos).unwrap_or_default()).unwrap_or("")
    }

    /// Every challenge of the field value, appended to `out`.
    fn challenges(&mut self, out: &mut Vec<Challenge>) -> Result<(), ChallengeError> {
        loop {
            self.skip_separators();
            if self.at_end() {
                return Ok(());
            }
            let scheme = self.token().to_ascii_lowercase();
            if scheme.is_empty() {
                return Err(self.malformed("an auth-scheme"));
            }
            if out.len() >= MAX_CHALLENGES {
                return Err(ChallengeError::TooManyChallenges);
            }
            let mut challenge = Challenge {
                scheme,
                ..Challenge::default()
            };
            let spaced = self.skip_ows();
            if spaced && !self.at_end() && self.peek() != Some(b',') {
                match self.token68() {
                    Some(token68) => challenge.token68 = Some(token68?),
                    None => self.params(&mut challenge)?,
                }
            }
            out.push(challenge);
            self.skip_ows();
            if !self.at_end() && self.peek() != Some(b',') {
                return Err(self.malformed("a comma"));
            }
        }
    }

    /// A token68 that stands alone (followed by the end or a comma), or `None` (and the
    /// cursor where it was) when what follows is a parameter.
    fn token68(&mut self) -> Option<Result<String, ChallengeError>> {
        let start = self.pos;
        while self.peek().is_some_and(is_token68_char) {
            self.pos += 1;
        }
        let chars_end = self.pos;
        while self.peek() == Some(b'=') {
            self.pos += 1;
        }
        let end = self.pos;
        self.skip_ows();
        if chars_end == start || !(self.at_end() || self.peek() == Some(b',')) {
            self.pos = start;
            return None;
        }
        let token68 = self.input.get(start..end).unwrap_or_default();
        if token68.len() > MAX_PARAM_BYTES {
            return Some(Err(ChallengeError::ParamTooLong));
        }
        Some(Ok(String::from_utf8_lossy(token68).into_owned()))
    }

    /// The auth-params of `challenge`, up to the next challenge or the end.
    fn params(&mut self, challenge: &mut Challenge) -> Result<(), ChallengeError> {
        loop {
            let name = self.token().to_ascii_lowercase();
            if name.is_empty() {
                return Err(self.malformed("a parameter name"));
            }
            self.skip_ows();
            if self.peek() != Some(b'=') {
                return Err(self.malformed("'='"));
            }
            self.pos += 1;
            self.skip_ows();
            let value = match self.peek() {
                Some(b'"') => self.quoted_string()?,
                _ => {
                    let token = self.token().to_owned();
                    if token.is_empty() {
                        return Err(self.malformed("a token or a quoted string"));
                    }
                    token
                }
            };
            if value.len() > MAX_PARAM_BYTES {
                return Err(ChallengeError::ParamTooLong);
            }
            if challenge.params.len() >= MAX_PARAMS {
                return Err(ChallengeError::TooManyParams);
            }
            if challenge.param(&name).is_some() {
                return Err(ChallengeError::DuplicateParam(name));
            }
            challenge.params.push((name, value));
            // A comma, then either another parameter of this challenge or the next
            // challenge (a token not followed by `=`).
            self.skip_ows();
            if self.peek() != Some(b',') {
                return Ok(());
            }
            let before = self.pos;
            self.skip_separators();
            if self.at_end() {
                return Ok(());
            }
            let here = self.pos;
            let is_param = !self.token().is_empty() && {
                self.skip_ows();
                self.peek() == Some(b'=')
            };
            self.pos = here;
            if !is_param {
                self.pos = before;
                return Ok(());
            }
        }
    }

    /// RFC 9110 §5.6.4's `quoted-string`, unescaped; at most [`MAX_PARAM_BYTES`].
    fn quoted_string(&mut self) -> Result<String, ChallengeError> {
        // The opening quote.
        self.pos += 1;
        let mut value = Vec::new();
        loop {
            let Some(byte) = self.peek() else {
                return Err(self.malformed("a closing quote"));
            };
            self.pos += 1;
            let byte = match byte {
                b'"' => break,
                b'\\' => match self.peek() {
                    Some(escaped) if escaped == b'\t' || escaped >= 0x20 && escaped != 0x7F => {
                        self.pos += 1;
                        escaped
                    }
                    _ => return Err(self.malformed("a quoted character")),
                },
                b'\t' => byte,
                _ if byte < 0x20 || byte == 0x7F => {
                    return Err(self.malformed("a quoted-string character"));
                }
                _ => byte,
            };
            if value.len() >= MAX_PARAM_BYTES {
                return Err(ChallengeError::ParamTooLong);
            }
            value.push(byte);
        }
        Ok(String::from_utf8_lossy(&value).into_owned())
    }
}

/// A Digest algorithm (RFC 7616 §3.3, and the IANA registry of §6.1), ordered by strength.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Algorithm {
    /// MD5, the default when a challenge names none.
    Md5,
    /// SHA-256.
    Sha256,
    /// SHA-512/256.
    Sha512_256,
}

impl Algorithm {
    /// The algorithm a challenge's `algorithm` names, and whether it is a `-sess` one.
    fn parse(name: &str) -> Option<(Algorithm, bool)> {
        let (base, sess) = match name.len().checked_sub(5) {
            Some(cut) if name.is_char_boundary(cut) => match name.split_at(cut) {
                (base, tail) if tail.eq_ignore_ascii_case("-sess") => (base, true),
                _ => (name, false),
            },
            _ => (name, false),
        };
        let algorithm = match base.to_ascii_uppercase().as_str() {
            "MD5" => Algorithm::Md5,
            "SHA-256" => Algorithm::Sha256,
            "SHA-512-256" => Algorithm::Sha512_256,
            _ => return None,
        };
        Some((algorithm, sess))
    }

    /// The name the `algorithm` parameter gives.
    fn name(self, sess: bool) -> &'static str {
        match (self, sess) {
            (Algorithm::Md5, false) => "MD5",
            (Algorithm::Md5, true) => "MD5-sess",
            (Algorithm::Sha256, false) => "SHA-256",
            (Algorithm::Sha256, true) => "SHA-256-sess",
            (Algorithm::Sha512_256, false) => "SHA-512-256",
            (Algorithm::Sha512_256, true) => "SHA-512-256-sess",
        }
    }

    /// `H(data)`: the digest of `data` in lower-case hexadecimal.
    fn hash(self, data: &[u8]) -> String {
        match self {
            Algorithm::Md5 => hex(<md5::Md5 as md5::Digest>::digest(data).as_slice()),
            Algorithm::Sha256 => hex(<sha2::Sha256 as sha2::Digest>::digest(data).as_slice()),
            Algorithm::Sha512_256 => {
                hex(<sha2::Sha512_256 as sha2::Digest>::digest(data).as_slice())
            }
        }
    }
}

/// `bytes` in lower-case hexadecimal.
fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().saturating_mul(2));
    for byte in bytes {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// A quality of protection (RFC 7616 §3.3's `qop`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Qop {
    /// Authentication only.
    Auth,
    /// Authentication with the integrity of the body.
    AuthInt,
}

/// A `Digest` challenge this client can answer: its parameters as RFC 7616 §3.3 reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DigestChallenge {
    /// `realm`.
    pub(crate) realm: String,
    /// `nonce`.
    pub(crate) nonce: String,
    /// `opaque`, returned unchanged.
    pub(crate) opaque: Option<String>,
    /// `algorithm`, MD5 when absent.
    pub(crate) algorithm: Algorithm,
    /// Whether `algorithm` is a `-sess` variant.
    pub(crate) sess: bool,
    /// Whether `qop` offers `auth`.
    pub(crate) qop_auth: bool,
    /// Whether `qop` offers `auth-int`.
    pub(crate) qop_auth_int: bool,
    /// `stale=true`: the nonce expired, the credentials were right.
    pub(crate) stale: bool,
    /// `userhash=true`: the username is sent hashed.
    pub(crate) userhash: bool,
}

impl DigestChallenge {
    /// The `Digest` challenge `challenge` is, if it is one this client can answer: a realm
    /// and a nonce, an algorithm it knows, and a `qop` (if any) that offers `auth` or
    /// `auth-int`.
    pub(crate) fn from_challenge(challenge: &Challenge) -> Option<DigestChallenge> {
        if challenge.scheme != "digest" {
            return None;
        }
        let realm = challenge.param("realm")?.to_owned();
        let nonce = challenge.param("nonce")?.to_owned();
        // A nonce is sent back in a quoted string: one that holds a quote or backslash
        // would come back escaped, which servers compare unescaped. Such a nonce is
        // refused rather than guessed at.
        if nonce.is_empty() || nonce.contains(['"', '\\']) {
            return None;
        }
        let (algorithm, sess) = match challenge.param("algorithm") {
            Some(name) => Algorithm::parse(name)?,
            None => (Algorithm::Md5, false),
        };
        let (mut qop_auth, mut qop_auth_int) = (false, false);
        if let Some(qop) = challenge.param("qop") {
            for option in qop.split(',') {
                let option = option.trim_matches([' ', '\t']);
                qop_auth |= option.eq_ignore_ascii_case("auth");
                qop_auth_int |= option.eq_ignore_ascii_case("auth-int");
            }
            if !qop_auth && !qop_auth_int {
                return None;
            }
        }
        let is_true = |name| {
            challenge
                .param(name)
                .is_some_and(|value| value.eq_ignore_ascii_case("true"))
        };
        Some(DigestChallenge {
            realm,
            nonce,
            opaque: challenge.param("opaque").map(str::to_owned),
            algorithm,
            sess,
            qop_auth,
            qop_auth_int,
            stale: is_true("stale"),
            userhash: is_true("userhash"),
        })
    }

    /// The strongest `Digest` challenge of `challenges` this client can answer
    /// (SHA-512-256, then SHA-256, then MD5), the first of equals.
    pub(crate) fn strongest(challenges: &[Challenge]) -> Option<DigestChallenge> {
        let mut best: Option<DigestChallenge> = None;
        for challenge in challenges
            .iter()
            .filter_map(DigestChallenge::from_challenge)
        {
            if best
                .as_ref()
                .is_none_or(|best| challenge.algorithm > best.algorithm)
            {
                best = Some(challenge);
            }
        }
        best
    }

    /// The quality of protection to answer with, given the request's body: `auth-int`
    /// when it is offered and the body is in memory (`Some`, empty for no body), else
    /// `auth`; `None` for RFC 2069's no `qop`. `Err` when only `auth-int` is offered and
    /// the body is not in memory.
    fn qop_for(&self, body: Option<&[u8]>) -> Result<Option<Qop>, ()> {
        match (self.qop_auth, self.qop_auth_int, body) {
            (_, true, Some(_)) => Ok(Some(Qop::AuthInt)),
            (true, _, _) => Ok(Some(Qop::Auth)),
            (false, true, None) => Err(()),
            (false, false, _) => Ok(None),
        }
    }
}

/// A username and password for Digest authentication.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct DigestCredentials {
    pub(crate) username: String,
    pub(crate) password: String,
}

impl fmt::Debug for DigestCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DigestCredentials")
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

/// Everything one response value is computed from (RFC 7616 §3.4.1–§3.4.3).
pub(crate) struct Exchange<'a> {
    pub(crate) challenge: &'a DigestChallenge,
    pub(crate) credentials: &'a DigestCredentials,
    pub(crate) cnonce: &'a str,
    pub(crate) nc: u32,
    pub(crate) qop: Option<Qop>,
    pub(crate) method: &'a str,
    pub(crate) uri: &'a str,
    /// The request's body, for `auth-int` (empty for none).
    pub(crate) body: &'a [u8],
}

impl Exchange<'_> {
    /// The `response` parameter (RFC 7616 §3.4.1).
    pub(crate) fn response(&self) -> String {
        let challenge = self.challenge;
        let algorithm = challenge.algorithm;
        let credentials = self.credentials;
        // §3.4.2. A1 = unq(username) ":" unq(realm) ":" passwd, and for a -sess algorithm
        // A1 = H(that) ":" unq(nonce-prime) ":" unq(cnonce-prime).
        let mut ha1 = algorithm.hash(
            format!(
                "{}:{}:{}",
                credentials.username, challenge.realm, credentials.password
            )
            .as_bytes(),
        );
        if challenge.sess {
            ha1 = algorithm.hash(format!("{ha1}:{}:{}", challenge.nonce, self.cnonce).as_bytes());
        }
        // §3.4.3. A2 = Method ":" request-uri, and for auth-int ":" H(entity-body).
        let a2 = match self.qop {
            Some(Qop::AuthInt) => {
                format!("{}:{}:{}", self.method, self.uri, algorithm.hash(self.body))
            }
            _ => format!("{}:{}", self.method, self.uri),
        };
        let ha2 = algorithm.hash(a2.as_bytes());
        // §3.4.1. response = KD(H(A1), unq(nonce) ":" nc ":" unq(cnonce) ":" unq(qop) ":"
        // H(A2)), KD(secret, data) = H(concat(secret, ":", data)); without a qop (RFC
        // 2069), H(H(A1) ":" unq(nonce) ":" H(A2)).
        let data = match self.qop {
            Some(qop) => format!(
                "{ha1}:{}:{:08x}:{}:{}:{ha2}",
                challenge.nonce,
                self.nc,
                self.cnonce,
                qop_name(qop)
            ),
            None => format!("{ha1}:{}:{ha2}", challenge.nonce),
        };
        algorithm.hash(data.as_bytes())
    }

    /// The whole `Authorization` (or `Proxy-Authorization`) value.
    pub(crate) fn authorization(&self) -> String {
        let challenge = self.challenge;
        let mut value = String::from("Digest ");
        let username = &self.credentials.username;
        if challenge.userhash {
            // §3.4.4. username = H(unq(username) ":" unq(realm)).
            let hashed = challenge
                .algorithm
                .hash(format!("{username}:{}", challenge.realm).as_bytes());
            let _ = write!(value, "username=\"{hashed}\"");
        } else if username
            .bytes()
            .all(|byte| (0x20..0x7F).contains(&byte) || byte == b'\t')
        {
            value.push_str("username=");
            push_quoted(&mut value, username);
        } else {
            // §3.4.4: a name a quoted string cannot carry, in RFC 8187's extended form.
            let encoded = percent_encoding::utf8_percent_encode(username, ATTR_CHAR);
            let _ = write!(value, "username*=UTF-8''{encoded}");
        }
        value.push_str(", realm=");
        push_quoted(&mut value, &challenge.realm);
        value.push_str(", uri=");
        push_quoted(&mut value, self.uri);
        let _ = write!(
            value,
            ", algorithm={}, nonce=\"{}\"",
            challenge.algorithm.name(challenge.sess),
            challenge.nonce
        );
        if let Some(qop) = self.qop {
            let _ = write!(
                value,
                ", nc={:08x}, cnonce=\"{}\", qop={}",
                self.nc,
                self.cnonce,
                qop_name(qop)
            );
        }
        let _ = write!(value, ", response=\"{}\"", self.response());
        if let Some(opaque) = &challenge.opaque {
            value.push_str(", opaque=");
            push_quoted(&mut value, opaque);
        }
        if challenge.userhash {
            value.push_str(", userhash=true");
        }
        value
    }
}

/// RFC 8187's `attr-char`: what stays as it is in an extended parameter value.
const ATTR_CHAR: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'!')
    .remove(b'#')
    .remove(b'$')
    .remove(b'&')
    .remove(b'+')
    .remove(b'-')
    .remove(b'.')
    .remove(b'^')
    .remove(b'_')
    .remove(b'`')
    .remove(b'|')
    .remove(b'~');

fn qop_name(qop: Qop) -> &'static str {
    match qop {
        Qop::Auth => "auth",
        Qop::AuthInt => "auth-int",
    }
}

/// Appends `text` as a quoted string, `"` and `\` escaped.
fn push_quoted(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// A fresh client nonce: 128 random bits in hexadecimal.
fn new_cnonce() -> String {
    hex(&rand::random::<[u8; 16]>())
}

/// What is kept of a challenge answered: the challenge, the client nonce, and the count of
/// requests sent with its nonce, so that the next request answers it again before being
/// asked (RFC 7616 §3.6).
#[derive(Clone, Debug)]
pub(crate) struct DigestSession {
    challenge: DigestChallenge,
    cnonce: String,
    /// The `nc` of the last request sent with this nonce.
    nc: u32,
}

impl DigestSession {
    /// A session on `challenge`, no request sent yet.
    pub(crate) fn new(challenge: DigestChallenge) -> DigestSession {
        DigestSession {
            challenge,
            cnonce: new_cnonce(),
            nc: 0,
        }
    }

    /// The challenge answered.
    pub(crate) fn challenge(&self) -> &DigestChallenge {
        &self.challenge
    }

    /// The value that authorizes the next request (`method` to `uri`, with `body` when it
    /// is in memory: empty for none), counted as the next `nc`. `None` when the nonce has
    /// been used 2³²−1 times, or when only `auth-int` is offered and the body is not in
    /// memory.
    pub(crate) fn authorize(
        &mut self,
        credentials: &DigestCredentials,
        method: &str,
        uri: &str,
        body: Option<&[u8]>,
    ) -> Option<String> {
        let qop = self.challenge.qop_for(body).ok()?;
        let nc = self.nc.checked_add(1)?;
        self.nc = nc;
        let exchange = Exchange {
            challenge: &self.challenge,
            credentials,
            cnonce: &self.cnonce,
            nc,
            qop,
            method,
            uri,
            body: body.unwrap_or_default(),
        };
        Some(exchange.authorization())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: &str) -> Result<Vec<Challenge>, ChallengeError> {
        parse_challenges([value.as_bytes()])
    }

    fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn challenges_parse_as_rfc_9110_writes_them() {
        let parsed = parse(
            r#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#,
        )
        .unwrap();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].scheme, "newauth");
        assert_eq!(
            parsed[0].params,
            params(&[
                ("realm", "apps"),
                ("type", "1"),
                ("title", r#"Login to "apps""#)
            ])
        );
        assert_eq!(parsed[1].scheme, "basic");
        assert_eq!(parsed[1].params, params(&[("realm", "simple")]));
        // A token68, schemes alone, names in any case, empty elements, BWS around `=`.
        let parsed =
            parse("Negotiate YII=, , NTLM, DIGEST Realm = \"r\" ,NONCE=n,, Bearer").unwrap();
        let schemes: Vec<&str> = parsed.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["negotiate", "ntlm", "digest", "bearer"]);
        assert_eq!(parsed[0].token68.as_deref(), Some("YII="));
        assert_eq!(parsed[2].params, params(&[("realm", "r"), ("nonce", "n")]));
        // Across fields.
        let parsed = parse_challenges([&b"Basic realm=a"[..], b"Digest realm=b, nonce=c"]).unwrap();
        assert_eq!(parsed.len(), 2);
    }

    #[test]
    fn garbled_and_oversized_challenges_are_refused() {
        for garbled in [
            "=",
            "Digest realm=\"open",
            "Digest realm=\"a\\",
            "Digest realm==x",
            "Digest realm=\"a\"x",
            "Digest realm=\"\u{1}\"",
            "Digest \"x\"",
        ] {
            assert!(
                matches!(parse(garbled), Err(ChallengeError::Malformed { .. })),
                "{garbled:?}: {:?}",
                parse(garbled)
            );
        }
        assert_eq!(
            parse("Digest realm=a, REALM=b"),
            Err(ChallengeError::DuplicateParam("realm".into()))
        );
        let long = format!("Digest nonce=\"{}\"", "n".repeat(MAX_PARAM_BYTES + 1));
        assert_eq!(parse(&long), Err(ChallengeError::ParamTooLong));
        let many = vec!["Basic"; MAX_CHALLENGES + 1].join(", ");
        assert_eq!(parse(&many), Err(ChallengeError::TooManyChallenges));
        let many_params: Vec<String> = (0..=MAX_PARAMS).map(|i| format!("p{i}=v")).collect();
        let many_params = format!("Digest {}", many_params.join(", "));
        assert_eq!(parse(&many_params), Err(ChallengeError::TooManyParams));
        let huge = "a".repeat(MAX_FIELD_BYTES + 1);
        assert_eq!(
            parse(&huge),
            Err(ChallengeError::TooLong(MAX_FIELD_BYTES + 1))
        );
    }

    #[test]
    fn the_strongest_digest_challenge_is_chosen() {
        let parsed = parse(concat!(
            "Basic realm=x, ",
            "Digest realm=r, nonce=a, algorithm=MD5, qop=auth, ",
            "Digest realm=r, nonce=b, algorithm=SHA-512-256, qop=\"auth, auth-int\", ",
            "Digest realm=r, nonce=c, algorithm=SHA-256, qop=auth, ",
            "Digest realm=r, nonce=d, algorithm=SHA-1, qop=auth"
        ))
        .unwrap();
        let chosen = DigestChallenge::strongest(&parsed).unwrap();
        assert_eq!(chosen.nonce, "b");
        assert_eq!(chosen.algorithm, Algorithm::Sha512_256);
        assert!(chosen.qop_auth && chosen.qop_auth_int);
        // Only Basic, an unknown algorithm, an unknown qop: none.
        let parsed = parse(
            "Basic realm=x, Digest realm=r, nonce=d, algorithm=SHA-1, Digest realm=r, nonce=e, qop=x",
        )
        .unwrap();
        assert_eq!(DigestChallenge::strongest(&parsed), None);
        let sess = parse("Digest realm=r, nonce=n, algorithm=sha-256-SESS, stale=TRUE").unwrap();
        let sess = DigestChallenge::strongest(&sess).unwrap();
        assert_eq!(
            (sess.algorithm, sess.sess, sess.stale),
            (Algorithm::Sha256, true, true)
        );
    }

    /// RFC 7616 §3.9.1.
    fn mufasa(algorithm: &str) -> (DigestChallenge, DigestCredentials) {
        let challenge = parse(&format!(
            "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", \
             algorithm={algorithm}, nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", \
             opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""
        ))
        .unwrap();
        let credentials = DigestCredentials {
            username: "Mufasa".into(),
            password: "Circle of Life".into(),
        };
        (DigestChallenge::strongest(&challenge).unwrap(), credentials)
    }

    #[test]
    fn rfc_7616_example_md5_and_sha_256() {
        for (algorithm, expected) in [
            ("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
            (
                "SHA-256",
                "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1",
            ),
        ] {
            let (challenge, credentials) = mufasa(algorithm);
            let exchange = Exchange {
                challenge: &challenge,
                credentials: &credentials,
                cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
                nc: 1,
                qop: Some(Qop::Auth),
                method: "GET",
                uri: "/dir/index.html",
                body: b"",
            };
            assert_eq!(exchange.response(), expected, "{algorithm}");
            assert_eq!(
                exchange.authorization(),
                format!(
                    "Digest username=\"Mufasa\", realm=\"http-auth@example.org\", \
                     uri=\"/dir/index.html\", algorithm={algorithm}, \
                     nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", nc=00000001, \
                     cnonce=\"f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ\", qop=auth, \
                     response=\"{expected}\", \
                     opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""
                )
            );
        }
    }

    /// The printed values of RFC 7616 §3.9.2 are those of SHA-512 cut to its first 256
    /// bits, not of SHA-512/256 (FIPS 180-4 §6.7, with its own initial hash value), which
    /// §3.2 names and servers (curl, Python's `hashlib.new("sha512_256")`) compute: the
    /// example's steps are checked with the cut SHA-512 against its printed values, and
    /// `SHA-512-256` is answered with SHA-512/256.
    #[test]
    fn rfc_7616_example_sha_512_256_with_userhash() {
        let cut_sha512 = |data: &[u8]| {
            let digest = <sha2::Sha512 as sha2::Digest>::digest(data);
            hex(digest.as_slice().get(..32).unwrap())
        };
        let username = "J\u{e4}s\u{f8}n Doe";
        let realm = "api@example.org";
        let nonce = "5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK";
        let cnonce = "NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v";
        let ha1 = cut_sha512(format!("{username}:{realm}:Secret, or not?").as_bytes());
        let ha2 = cut_sha512(b"GET:/doe.json");
        assert_eq!(
            cut_sha512(format!("{ha1}:{nonce}:00000001:{cnonce}:auth:{ha2}").as_bytes()),
            "ae66e67d6b427bd3f120414a82e4acff38e8ecd9101d6c861229025f607a79dd"
        );
        assert_eq!(
            cut_sha512(format!("{username}:{realm}").as_bytes()),
            "488869477bf257147b804c45308cd62ac4e25eb717b12b298c79e62dcea254ec"
        );
        // The same exchange with SHA-512/256.
        let challenge = parse(
            "Digest realm=\"api@example.org\", qop=\"auth\", algorithm=SHA-512-256, \
             nonce=\"5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK\", \
             opaque=\"HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS\", charset=UTF-8, \
             userhash=true",
        )
        .unwrap();
        let challenge = DigestChallenge::strongest(&challenge).unwrap();
        assert!(challenge.userhash);
        let credentials = DigestCredentials {
            username: username.into(),
            password: "Secret, or not?".into(),
        };
        let exchange = Exchange {
            challenge: &challenge,
            credentials: &credentials,
            cnonce,
            nc: 1,
            qop: Some(Qop::Auth),
            method: "GET",
            uri: "/doe.json",
            body: b"",
        };
        assert_eq!(
            exchange.response(),
            "3798d4131c277846293534c3edc11bd8a5e4cdcbff78b05db9d95eeb1cec68a5"
        );
        let value = exchange.authorization();
        assert!(
            value.starts_with(
                "Digest username=\"793263caabb707a56211940d90411ea4a575adeccb7e360aeb624ed06ece9b0b\""
            ),
            "{value}"
        );
        assert!(value.ends_with(", userhash=true"), "{value}");
        // Without userhash, the name goes in its extended form.
        let plain = DigestChallenge {
            userhash: false,
            ..challenge.clone()
        };
        let exchange = Exchange {
            challenge: &plain,
            ..exchange
        };
        assert!(
            exchange
                .authorization()
                .starts_with("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, "),
            "{}",
            exchange.authorization()
        );
    }

    #[test]
    fn sessions_count_nc_and_fall_back_from_auth_int() {
        let (challenge, credentials) = mufasa("SHA-256-sess");
        let mut session = DigestSession::new(challenge);
        let first = session
            .authorize(&credentials, "POST", "/a", Some(b"body"))
            .unwrap();
        assert!(
            first.contains("nc=00000001") && first.contains("qop=auth-int"),
            "{first}"
        );
        assert!(first.contains("algorithm=SHA-256-sess"), "{first}");
        let second = session.authorize(&credentials, "POST", "/a", None).unwrap();
        assert!(
            second.contains("nc=00000002") && second.contains("qop=auth,"),
            "{second}"
        );
        // Only auth-int, and a body not in memory: no answer.
        let only_int = parse("Digest realm=r, nonce=n, qop=auth-int").unwrap();
        let mut session = DigestSession::new(DigestChallenge::strongest(&only_int).unwrap());
        assert_eq!(session.authorize(&credentials, "PUT", "/", None), None);
        assert!(
            session
                .authorize(&credentials, "PUT", "/", Some(b""))
                .is_some()
        );
        // RFC 2069: no qop, no nc or cnonce.
        let old = parse("Digest realm=r, nonce=n").unwrap();
        let mut session = DigestSession::new(DigestChallenge::strongest(&old).unwrap());
        let value = session.authorize(&credentials, "GET", "/", None).unwrap();
        assert!(
            !value.contains("nc=") && value.contains("algorithm=MD5"),
            "{value}"
        );
        // The count stops rather than wrapping.
        session.nc = u32::MAX;
        assert_eq!(session.authorize(&credentials, "GET", "/", None), None);
    }

    #[test]
    fn peer_values_are_escaped_when_sent_back() {
        let parsed = parse(r#"Digest realm="a\"b\\c", nonce=n, opaque="o\"", qop=auth"#).unwrap();
        let mut session = DigestSession::new(DigestChallenge::strongest(&parsed).unwrap());
        let credentials = DigestCredentials {
            username: "us\"er".into(),
            password: "p".into(),
        };
        let value = session.authorize(&credentials, "GET", "/", None).unwrap();
        assert!(value.contains(r#"username="us\"er""#), "{value}");
        assert!(value.contains(r#"realm="a\"b\\c""#), "{value}");
        assert!(value.contains(r#"opaque="o\"""#), "{value}");
        // A nonce that would need escaping is refused.
        let parsed = parse(r#"Digest realm=r, nonce="a\"b""#).unwrap();
        assert_eq!(DigestChallenge::strongest(&parsed), None);
    }
}
