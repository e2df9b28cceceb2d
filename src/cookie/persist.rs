//! Saving a [`CookieStore`] and loading it again: a JSON document of this crate's own
//! (versioned), and the Netscape `cookies.txt` format that curl and wget read and write.
//!
//! A loaded cookie is held to the same rules as one a server sets: the size limits, no
//! control characters in a name or value nor a space or tab at either end of one, the store's [`CookieLimits`]; an expired one is
//! dropped. A document that breaks them is an error that names the cookie (JSON) or the
//! line (`cookies.txt`) and the field.

use std::io::{BufRead, Read, Write};

use serde_json::{Map, Value, json};

use super::{
    Cookie, CookieLimits, CookieStore, MAX_ATTRIBUTE_VALUE_BYTES, MAX_NAME_VALUE_BYTES, SameSite,
    now,
};
use crate::error::{Error, Result};
use crate::infra::trim_http_tab_or_space;

/// The version of the JSON document [`CookieStore::save_json`] writes; a document of a later
/// version is refused rather than read wrongly.
const JSON_VERSION: u64 = 1;

/// The most bytes one cookie takes in the JSON document, at the size limits and with
/// every byte written as an escape (`\u0001`, six bytes) or an array element (`255,`,
/// four): a name and value of 4,096 bytes, a domain and a path of 1,024, the other fields
/// and room for the whitespace of a document formatted for reading.
const MAX_JSON_BYTES_PER_COOKIE: u64 = 40 * 1024;

/// The longest line of a `cookies.txt` file: a cookie at the size limits (a name and
/// value of 4,096 bytes, a domain and a path of 1,024) and its other fields fit several
/// times over. A longer line is refused before it is held whole.
const MAX_NETSCAPE_LINE: usize = 64 * 1024;

impl CookieStore {
    /// Writes every cookie the store holds, session cookies (those without `Max-Age` or
    /// `Expires`) included, as a JSON document; expired cookies are left out. Read it back
    /// with [`CookieStore::load_json`]: a client built from the loaded store sends what this
    /// one would have sent, the login cookie of a site that set one without an expiry
    /// included. A session cookie stays one in the loaded store (it still has no
    /// expiry-time). [`CookieStore::save_json_persistent_only`] writes what a browser keeps
    /// across a restart instead.
    ///
    /// The document is `{"version": 1, "cookies": [...]}`; each cookie has `name`, `value`,
    /// `domain`, `host_only`, `path`, `expires` (seconds since the Unix epoch, `null` for a
    /// session cookie), `creation` and `last_access` (the store's orders of creation and
    /// use, for the `Cookie` header's order and for eviction), `secure`, `http_only`,
    /// `same_site` (`"strict"`, `"lax"`, `"none"` or `"default"`) and `persistent`. A name or
    /// value that is not UTF-8 is an array of its bytes.
    ///
    /// ```
    /// use url::Url;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"id=1; Max-Age=3600");
    /// store.set_cookie_from_header(&url, b"session=2");
    /// let mut file = Vec::new();
    /// store.save_json(&mut file)?;
    /// let loaded = CookieStore::load_json(&file[..])?;
    /// assert_eq!(loaded.len(), store.len());
    /// assert_eq!(loaded.cookie_header_for(&url).as_deref(), Some(&b"id=1; session=2"[..]));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// A `TypeError` when `writer` fails, with the I/O error as its source.
    pub fn save_json(&self, writer: impl Write) -> Result<()> {
        self.write_json(writer, true)
    }

    /// **Drops session cookies.** Writes only the store's persistent cookies (those with
    /// an expiry-time, from `Max-Age` or `Expires`) as the JSON document of
    /// [`CookieStore::save_json`], as a browser keeps cookies across a restart: a session
    /// cookie ends with its session, and most login cookies are session cookies, so a
    /// store loaded from this document is usually logged out. Use it to mimic a browser
    /// that was closed and opened again; use [`CookieStore::save_json`] to carry a session
    /// over.
    ///
    /// ```
    /// use url::Url;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"id=1; Max-Age=3600");
    /// store.set_cookie_from_header(&url, b"session=2");
    /// let mut file = Vec::new();
    /// store.save_json_persistent_only(&mut file)?;
    /// let loaded = CookieStore::load_json(&file[..])?;
    /// // The session cookie is gone.
    /// assert_eq!((store.len(), loaded.len()), (2, 1));
    /// assert_eq!(loaded.cookie_header_for(&url).as_deref(), Some(&b"id=1"[..]));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// A `TypeError` when `writer` fails, with the I/O error as its source.
    pub fn save_json_persistent_only(&self, writer: impl Write) -> Result<()> {
        self.write_json(writer, false)
    }

    /// The same as [`CookieStore::save_json`], which now keeps session cookies too.
    ///
    /// # Errors
    /// A `TypeError` when `writer` fails, with the I/O error as its source.
    #[deprecated(
        note = "`save_json` now saves session cookies too; call it instead, or \
                `save_json_persistent_only` to leave them out"
    )]
    pub fn save_json_with_session_cookies(&self, writer: impl Write) -> Result<()> {
        self.save_json(writer)
    }

    fn write_json(&self, writer: impl Write, session_cookies: bool) -> Result<()> {
        let now = now();
        let mut cookies: Vec<Cookie> = {
            let mut jar = self.jar();
            jar.evict_expired(now);
            jar.groups
                .values()
                .flatten()
                .filter(|cookie| session_cookies || cookie.expiry_time.is_some())
                .cloned()
                .collect()
        };
        cookies.sort_by_key(|cookie| cookie.creation_time);
        let cookies: Vec<Value> = cookies.iter().map(cookie_to_json).collect();
        let document = json!({ "version": JSON_VERSION, "cookies": cookies });
        serde_json::to_writer_pretty(writer, &document)
            .map_err(|error| Error::type_error("writing the cookie jar failed").with_source(error))
    }

    /// A store with the default limits holding the cookies of a JSON document that
    /// [`CookieStore::save_json`] wrote: see [`CookieStore::load_json_with_limits`].
    ///
    /// ```
    /// use url::Url;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// let store = CookieStore::default();
    /// store.set_cookie_from_header(&Url::parse("https://a.example/")?, b"id=1; Max-Age=3600");
    /// let mut file = Vec::new();
    /// store.save_json(&mut file)?;
    /// // The next run: the same cookies, sent as before.
    /// let loaded = CookieStore::load_json(&file[..])?;
    /// assert_eq!(loaded.cookie_header_for(&Url::parse("https://a.example/")?).as_deref(), Some(&b"id=1"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`CookieStore::load_json_with_limits`].
    pub fn load_json(reader: impl Read) -> Result<CookieStore> {
        CookieStore::load_json_with_limits(reader, CookieLimits::default())
    }

    /// A store keeping to `limits` holding the cookies of a JSON document that
    /// [`CookieStore::save_json`] wrote. Expired cookies are dropped; past the limits the
    /// least recently used make room, as when a server sets them, so a document of 10,000
    /// cookies loads at most [`CookieLimits::max_total`] of them.
    ///
    /// ```
    /// use url::Url;
    /// use whatwg_fetch::cookie::{CookieLimits, CookieStore};
    ///
    /// let store = CookieStore::default();
    /// for name in ["a", "b", "c"] {
    ///     store.set_cookie_from_header(&Url::parse("https://a.example/")?, format!("{name}=1").as_bytes());
    /// }
    /// let mut file = Vec::new();
    /// store.save_json(&mut file)?;
    /// // Into a smaller store: the least recently used make room.
    /// let limits = CookieLimits { max_total: 2, purge_total_to: 2, ..CookieLimits::default() };
    /// assert_eq!(CookieStore::load_json_with_limits(&file[..], limits)?.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A `TypeError` that says what and where: JSON that does not parse (with its line and
    /// column), a `version` this crate does not know, or a cookie with a missing or wrong
    /// field (`cookies[3].domain: ...`), one over the size limits, with a control
    /// character in its name or value, or a space or tab at either end of one; a cookie (or another value of the document) over
    /// 40 KiB, more than one at the size limits takes, refused once that much of it is
    /// read. The document is read as it is parsed, its cookies stored a few thousand at a
    /// time: what loading holds is bounded by the limits, not by the document's length.
    pub fn load_json_with_limits(reader: impl Read, limits: CookieLimits) -> Result<CookieStore> {
        use serde::de::DeserializeSeed as _;
        let store = CookieStore::with_limits(limits);
        let budget = std::cell::Cell::new(MAX_JSON_BYTES_PER_COOKIE);
        let refused = std::cell::RefCell::new(None);
        let document = Document {
            store: &store,
            budget: &budget,
            refused: &refused,
        };
        let mut deserializer = serde_json::Deserializer::from_reader(Budgeted {
            reader,
            budget: &budget,
        });
        let read = document
            .deserialize(&mut deserializer)
            .and_then(|version| deserializer.end().map(|()| version));
        // What the document says wrongly, as this module words it, before how serde failed.
        if let Some(error) = refused.into_inner() {
            return Err(error);
        }
        let version = read.map_err(|error| {
            if budget.get() == 0 {
                return Error::type_error(format!(
                    "cookie jar: a value (a cookie, or a field of the document) is over \
                     {MAX_JSON_BYTES_PER_COOKIE} bytes, more than a cookie at the size \
                     limits takes"
                ));
            }
            Error::type_error("cookie jar is not valid JSON").with_detail(error.to_string())
        })?;
        match version {
            Some(Value::Number(number)) if number.as_u64() == Some(JSON_VERSION) => Ok(store),
            Some(Value::Number(number)) if number.as_u64().is_some() => {
                Err(Error::type_error(format!(
                    "cookie jar: version {number} is not known (this crate reads version \
                     {JSON_VERSION})"
                )))
            }
            _ => Err(Error::type_error(
                "cookie jar: `version` is missing or not a number",
            )),
        }
    }

    /// A store with the default limits holding the cookies of a Netscape `cookies.txt`
    /// file, as curl (`--cookie-jar`), wget and browser extensions write it: one cookie a
    /// line, seven fields separated by tabs (domain, whether subdomains match `TRUE`/`FALSE`,
    /// path, secure `TRUE`/`FALSE`, expiry in seconds since the Unix epoch with `0` for a
    /// session cookie, name, value); a domain prefixed `#HttpOnly_` is an `HttpOnly`
    /// cookie; other lines starting with `#`, and blank ones, are comments. Cookies are
    /// created in the order of the file. Expired cookies are dropped, and the store's
    /// limits apply as for [`CookieStore::load_json_with_limits`].
    ///
    /// ```
    /// use url::Url;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// let file = "# Netscape HTTP Cookie File\n\
    ///             .example.com\tTRUE\t/\tFALSE\t0\tlang\ten\n\
    ///             #HttpOnly_www.example.com\tFALSE\t/\tTRUE\t4102444800\tid\t42\n";
    /// let store = CookieStore::load_netscape(file.as_bytes())?;
    /// let url = Url::parse("https://www.example.com/").unwrap();
    /// assert_eq!(store.cookie_header_for(&url).as_deref(), Some(&b"lang=en; id=42"[..]));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// A `TypeError` naming the line and the field that is wrong (`cookies.txt line 3:
    /// expiry ...`), or a line longer than 64 KiB (refused once that much of it is read),
    /// or with the I/O error as its source when `reader` fails.
    pub fn load_netscape(reader: impl BufRead) -> Result<CookieStore> {
        CookieStore::load_netscape_with_limits(reader, CookieLimits::default())
    }

    /// As [`CookieStore::load_netscape`], into a store keeping to `limits`.
    ///
    /// ```
    /// use whatwg_fetch::cookie::{CookieLimits, CookieStore};
    ///
    /// let file = ".example.com\tTRUE\t/\tFALSE\t0\ta\t1\n.example.com\tTRUE\t/\tFALSE\t0\tb\t2\n";
    /// let limits = CookieLimits { max_total: 1, purge_total_to: 1, ..CookieLimits::default() };
    /// // The later line is the more recent cookie: it is the one kept.
    /// let store = CookieStore::load_netscape_with_limits(file.as_bytes(), limits)?;
    /// assert_eq!(store.len(), 1);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`CookieStore::load_netscape`].
    pub fn load_netscape_with_limits(
        reader: impl BufRead,
        limits: CookieLimits,
    ) -> Result<CookieStore> {
        let store = CookieStore::with_limits(limits);
        // Stored a batch at a time, in the order of the file (the order of creation and
        // of use alike): a file of more cookies than the store keeps is never held whole.
        let batch = store.limits.max_total.clamp(1, 4096);
        let mut loaded = Vec::new();
        let mut line = Vec::new();
        let mut reader = reader;
        for number in 1usize.. {
            line.clear();
            // One byte past the limit, to tell a line of the limit from a longer one.
            let most = u64::try_from(MAX_NETSCAPE_LINE)
                .unwrap_or(u64::MAX)
                .saturating_add(1);
            let read = (&mut reader)
                .take(most)
                .read_until(b'\n', &mut line)
                .map_err(|error| {
                    Error::type_error(format!("reading cookies.txt failed at line {number}"))
                        .with_source(error)
                })?;
            if read == 0 {
                break;
            }
            if line.last() == Some(&b'\n') {
                line.pop();
            } else if line.len() > MAX_NETSCAPE_LINE {
                return Err(Error::type_error(format!(
                    "cookies.txt line {number}: longer than {MAX_NETSCAPE_LINE} bytes"
                )));
            }
            let text = line.strip_suffix(b"\r").unwrap_or(&line);
            let creation = u64::try_from(number).unwrap_or(u64::MAX);
            if let Some(cookie) = netscape_line(text, creation).map_err(|message| {
                Error::type_error(format!("cookies.txt line {number}: {message}"))
            })? {
                loaded.push(cookie);
                if loaded.len() >= batch {
                    store.insert_loaded(std::mem::take(&mut loaded));
                }
            }
        }
        store.insert_loaded(loaded);
        Ok(store)
    }

    /// Stores loaded cookies, least recently used first, so that past the limits those are
    /// the ones that make room; the jar's clocks continue after the loaded ones.
    fn insert_loaded(&self, mut cookies: Vec<Cookie>) {
        let now = now();
        cookies.sort_by_key(Cookie::access_order);
        let mut jar = self.jar();
        for cookie in cookies {
            jar.next_creation_time = jar.next_creation_time.max(cookie.creation_time);
            jar.access_clock = jar.access_clock.max(cookie.last_access_time);
            jar.store(cookie, now, &self.limits);
        }
    }
}

/// A reader that gives at most `budget` bytes, then fails, which the caller tells apart by
/// the budget being 0; the parser sets the budget again at each cookie.
struct Budgeted<'a, R> {
    reader: R,
    budget: &'a std::cell::Cell<u64>,
}

impl<R: Read> Read for Budgeted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.budget.get();
        if left == 0 {
            return Err(std::io::Error::other(
                "a value of the cookie jar is over its size limit",
            ));
        }
        let most = usize::try_from(left).unwrap_or(usize::MAX).min(buf.len());
        let read = self.reader.read(buf.get_mut(..most).unwrap_or_default())?;
        self.budget
            .set(left.saturating_sub(u64::try_from(read).unwrap_or(u64::MAX)));
        Ok(read)
    }
}

/// The JSON document of [`CookieStore::save_json`], read as it is parsed: its cookies go to
/// `store` a batch at a time; it gives the `version` field, which the caller checks (it may
/// come after the cookies: `save_json` writes the fields in the order of their names).
struct Document<'a> {
    store: &'a CookieStore,
    budget: &'a std::cell::Cell<u64>,
    /// Why the document was refused, in this module's words, when it was.
    refused: &'a std::cell::RefCell<Option<Error>>,
}

impl Document<'_> {
    /// Refuses the document with `message`; `E` is what stops serde.
    fn refuse<E: serde::de::Error>(&self, message: impl Into<std::borrow::Cow<'static, str>>) -> E {
        let message = message.into();
        let stop = E::custom(&message);
        self.refused.replace(Some(Error::type_error(message)));
        stop
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Document<'_> {
    type Value = Option<Value>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<Option<Value>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Document<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a cookie jar: {\"version\": 1, \"cookies\": [...]}")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Option<Value>, A::Error> {
        let mut version = None;
        let mut cookies = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "version" => version = Some(map.next_value::<Value>()?),
                "cookies" => {
                    map.next_value_seed(Cookies {
                        store: self.store,
                        budget: self.budget,
                        refused: self.refused,
                    })?;
                    cookies = true;
                }
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            self.budget.set(MAX_JSON_BYTES_PER_COOKIE);
        }
        if !cookies {
            return Err(self.refuse("cookie jar: `cookies` is missing or not an array"));
        }
        Ok(version)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        _: A,
    ) -> std::result::Result<Option<Value>, A::Error> {
        Err(self.refuse("cookie jar: the document is not a JSON object"))
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> std::result::Result<Option<Value>, E> {
        Err(self.refuse("cookie jar: the document is not a JSON object"))
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> std::result::Result<Option<Value>, E> {
        Err(self.refuse("cookie jar: the document is not a JSON object"))
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> std::result::Result<Option<Value>, E> {
        Err(self.refuse("cookie jar: the document is not a JSON object"))
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> std::result::Result<Option<Value>, E> {
        Err(self.refuse("cookie jar: the document is not a JSON object"))
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> std::result::Result<Option<Value>, E> {
        Err(self.refuse("cookie jar: the document is not a JSON object"))
    }

    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Option<Value>, E> {
        Err(self.refuse("cookie jar: the document is not a JSON object"))
    }
}

/// The `cookies` array of the document, stored a batch at a time as it is parsed.
struct Cookies<'a> {
    store: &'a CookieStore,
    budget: &'a std::cell::Cell<u64>,
    refused: &'a std::cell::RefCell<Option<Error>>,
}

impl<'de> serde::de::DeserializeSeed<'de> for Cookies<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Cookies<'_> {
    fn not_an_array<E: serde::de::Error>(&self) -> E {
        let message = "cookie jar: `cookies` is missing or not an array";
        self.refused.replace(Some(Error::type_error(message)));
        E::custom(message)
    }
}

impl<'de> serde::de::Visitor<'de> for Cookies<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of cookies")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<(), A::Error> {
        // Stored a batch at a time: least recently used first within each, and the store's
        // limits then keep the most recently used of all, whatever the document's order.
        let batch = self.store.limits.max_total.clamp(1, 4096);
        let mut loaded = Vec::new();
        let mut index = 0usize;
        loop {
            self.budget.set(MAX_JSON_BYTES_PER_COOKIE);
            let Some(value) = seq.next_element::<Value>()? else {
                break;
            };
            match cookie_from_json(&value) {
                Ok(cookie) => loaded.push(cookie),
                Err(message) => {
                    let message = format!("cookie jar: cookies[{index}]{message}");
                    let stop = serde::de::Error::custom(&message);
                    self.refused.replace(Some(Error::type_error(message)));
                    return Err(stop);
                }
            }
            if loaded.len() >= batch {
                self.store.insert_loaded(std::mem::take(&mut loaded));
            }
            index = index.saturating_add(1);
        }
        self.store.insert_loaded(loaded);
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, _: A) -> std::result::Result<(), A::Error> {
        Err(self.not_an_array())
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> std::result::Result<(), E> {
        Err(self.not_an_array())
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> std::result::Result<(), E> {
        Err(self.not_an_array())
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> std::result::Result<(), E> {
        Err(self.not_an_array())
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> std::result::Result<(), E> {
        Err(self.not_an_array())
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> std::result::Result<(), E> {
        Err(self.not_an_array())
    }

    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<(), E> {
        Err(self.not_an_array())
    }
}

pub(super) fn cookie_to_json(cookie: &Cookie) -> Value {
    let bytes = |bytes: &[u8]| match std::str::from_utf8(bytes) {
        Ok(text) => Value::from(text),
        Err(_) => Value::from(bytes.to_vec()),
    };
    json!({
        "name": bytes(&cookie.name),
        "value": bytes(&cookie.value),
        "domain": cookie.domain,
        "host_only": cookie.host_only,
        "path": bytes(&cookie.path),
        "expires": cookie.expiry_time,
        "creation": cookie.creation_time,
        "last_access": cookie.last_access_time,
        "secure": cookie.secure_only,
        "http_only": cookie.http_only,
        "same_site": match cookie.same_site {
            SameSite::Strict => "strict",
            SameSite::Lax => "lax",
            SameSite::None => "none",
            SameSite::Default => "default",
        },
        "persistent": cookie.expiry_time.is_some(),
    })
}

/// A cookie of the JSON document, or the error's field and reason (`.domain: ...`).
pub(super) fn cookie_from_json(value: &Value) -> std::result::Result<Cookie, String> {
    let object = value
        .as_object()
        .ok_or_else(|| String::from(": not a JSON object"))?;
    let field = |name: &str| object.get(name).ok_or_else(|| format!(".{name}: missing"));
    let boolean = |name: &str| {
        field(name)?
            .as_bool()
            .ok_or_else(|| format!(".{name}: not true or false"))
    };
    let number = |name: &str| {
        field(name)?
            .as_u64()
            .ok_or_else(|| format!(".{name}: not a whole number"))
    };
    let name = bytes_field(object, "name")?;
    let value = bytes_field(object, "value")?;
    let path = bytes_field(object, "path")?;
    let domain = field("domain")?
        .as_str()
        .ok_or_else(|| String::from(".domain: not a string"))?
        .to_ascii_lowercase();
    let persistent = boolean("persistent")?;
    let expiry_time = match field("expires")? {
        Value::Null => None,
        expires => Some(
            expires
                .as_i64()
                .ok_or_else(|| String::from(".expires: not a whole number or null"))?,
        ),
    };
    if persistent != expiry_time.is_some() {
        return Err(String::from(
            ".persistent: true needs an `expires` time and false needs null",
        ));
    }
    let same_site = match field("same_site")?.as_str() {
        Some("strict") => SameSite::Strict,
        Some("lax") => SameSite::Lax,
        Some("none") => SameSite::None,
        Some("default") => SameSite::Default,
        _ => {
            return Err(String::from(
                ".same_site: not \"strict\", \"lax\", \"none\" or \"default\"",
            ));
        }
    };
    let cookie = Cookie {
        name,
        value,
        expiry_time,
        domain,
        path,
        creation_time: number("creation")?,
        last_access_time: number("last_access")?,
        secure_only: boolean("secure")?,
        http_only: boolean("http_only")?,
        host_only: boolean("host_only")?,
        same_site,
    };
    check_cookie(&cookie).map_err(|message| format!(".{message}"))?;
    Ok(cookie)
}

/// A field holding a string, or an array of bytes for one that is not UTF-8.
fn bytes_field(object: &Map<String, Value>, name: &str) -> std::result::Result<Vec<u8>, String> {
    match object.get(name) {
        Some(Value::String(text)) => Ok(text.as_bytes().to_vec()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_u64()
                    .and_then(|byte| u8::try_from(byte).ok())
                    .ok_or_else(|| format!(".{name}: an array of bytes holds {item}"))
            })
            .collect(),
        Some(_) => Err(format!(".{name}: not a string or an array of bytes")),
        None => Err(format!(".{name}: missing")),
    }
}

/// Whether a loaded cookie keeps the rules a cookie a server sets keeps (the size limits
/// of RFC 6265bis §5.6, no control characters, a domain and a path), so that the
/// store's bounds and the validity of its `Cookie` headers hold; the error names the field.
fn check_cookie(cookie: &Cookie) -> std::result::Result<(), String> {
    let is_ctl = |&b: &u8| (b < 0x20 && b != b'\t') || b == 0x7F;
    if cookie.name.is_empty() {
        return Err(String::from("name: empty"));
    }
    if cookie.name.len().saturating_add(cookie.value.len()) > MAX_NAME_VALUE_BYTES {
        return Err(format!(
            "value: name and value are over {MAX_NAME_VALUE_BYTES} bytes"
        ));
    }
    if cookie.name.iter().any(is_ctl) || cookie.name.contains(&b'=') {
        return Err(String::from("name: holds a control character or `=`"));
    }
    if cookie.value.iter().any(is_ctl) {
        return Err(String::from("value: holds a control character"));
    }
    // A server's name and value lose their leading and trailing spaces and tabs (§5.6
    // step 4), and the `Cookie` header, a header value, can neither begin nor end with one.
    let padded = |bytes: &[u8]| trim_http_tab_or_space(bytes).len() != bytes.len();
    if padded(&cookie.name) {
        return Err(String::from("name: begins or ends with a space or a tab"));
    }
    if padded(&cookie.value) {
        return Err(String::from("value: begins or ends with a space or a tab"));
    }
    if cookie.domain.is_empty() || cookie.domain.len() > MAX_ATTRIBUTE_VALUE_BYTES {
        return Err(format!(
            "domain: empty or over {MAX_ATTRIBUTE_VALUE_BYTES} bytes"
        ));
    }
    if cookie
        .domain
        .bytes()
        .any(|b| b.is_ascii_control() || b == b' ')
    {
        return Err(String::from("domain: holds a control character or a space"));
    }
    if cookie.path.first() != Some(&b'/') || cookie.path.len() > MAX_ATTRIBUTE_VALUE_BYTES {
        return Err(format!(
            "path: does not start with `/` or is over {MAX_ATTRIBUTE_VALUE_BYTES} bytes"
        ));
    }
    if cookie.path.iter().any(is_ctl) {
        return Err(String::from("path: holds a control character"));
    }
    Ok(())
}

/// One line of a Netscape `cookies.txt` file: a cookie, `None` for a comment or a blank
/// line, or the error's field and reason.
fn netscape_line(line: &[u8], creation: u64) -> std::result::Result<Option<Cookie>, String> {
    let (http_only, line) = match line.strip_prefix(b"#HttpOnly_") {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    if (!http_only && line.first() == Some(&b'#')) || line.trim_ascii().is_empty() {
        return Ok(None);
    }
    let fields: Vec<&[u8]> = line.split(|&b| b == b'\t').collect();
    let [
        domain,
        include_subdomains,
        path,
        secure,
        expiry,
        name,
        value,
    ] = fields[..]
    else {
        return Err(format!(
            "{} tab-separated fields where 7 are needed (domain, include subdomains, path, \
             secure, expiry, name, value)",
            fields.len()
        ));
    };
    let flag = |field: &str, text: &[u8]| {
        if text.eq_ignore_ascii_case(b"TRUE") {
            Ok(true)
        } else if text.eq_ignore_ascii_case(b"FALSE") {
            Ok(false)
        } else {
            Err(format!(
                "{field}: {:?} is not TRUE or FALSE",
                String::from_utf8_lossy(text)
            ))
        }
    };
    let include_subdomains = flag("include subdomains", include_subdomains)?;
    let secure = flag("secure", secure)?;
    let expiry: i64 = std::str::from_utf8(expiry)
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .ok_or_else(|| {
            format!(
                "expiry: {:?} is not a number of seconds",
                String::from_utf8_lossy(expiry)
            )
        })?;
    let domain = std::str::from_utf8(domain)
        .map_err(|_| String::from("domain: not UTF-8"))?
        .to_ascii_lowercase();
    // curl writes a leading "." for a cookie that subdomains get.
    let domain = domain.strip_prefix('.').unwrap_or(&domain).to_owned();
    let cookie = Cookie {
        name: name.to_vec(),
        value: value.to_vec(),
        // curl writes 0 for a session cookie.
        expiry_time: (expiry != 0).then_some(expiry),
        domain,
        path: path.to_vec(),
        creation_time: creation,
        last_access_time: creation,
        secure_only: secure,
        http_only,
        host_only: !include_subdomains,
        same_site: SameSite::Default,
    };
    check_cookie(&cookie)?;
    Ok(Some(cookie))
}

#[cfg(test)]
mod tests {
    use url::Url;

    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn every_field_survives_a_round_trip() {
        let store = CookieStore::default();
        let https = url("https://www.example.com/a/b");
        store.set_cookie_from_header(
            &https,
            b"a=1; Max-Age=3600; Domain=example.com; Path=/a; Secure; HttpOnly; SameSite=Lax",
        );
        store.set_cookie_from_header(&https, b"b=2; Max-Age=3600");
        store.set_cookie_from_header(&https, "c=\u{e9}t\u{e9}; Max-Age=60".as_bytes());
        store.set_cookie_from_header(&https, b"d=\xff\xfe; Max-Age=60");
        let _ = store.cookie_header_for(&url("https://www.example.com/a/"));
        let mut saved = Vec::new();
        store.save_json(&mut saved).unwrap();
        let loaded = CookieStore::load_json(&saved[..]).unwrap();
        assert_eq!(loaded.cookies_by_creation(), store.cookies_by_creation());
        // And the clocks go on after the loaded ones.
        loaded.set_cookie_from_header(&https, b"e=5; Max-Age=60");
        let cookies = loaded.cookies_by_creation();
        let newest = cookies.last().unwrap();
        assert_eq!(newest.name, b"e");
        assert!(
            store
                .cookies_by_creation()
                .iter()
                .all(|c| c.creation_time < newest.creation_time
                    && c.last_access_time < newest.last_access_time)
        );
    }

    #[test]
    fn a_later_version_and_wrong_fields_are_errors_that_say_where() {
        let error = CookieStore::load_json(&br#"{"version": 2, "cookies": []}"#[..]).unwrap_err();
        assert!(error.message().contains("version 2"), "{error}");
        let cookie = r#"{"version": 1, "cookies": [{"name": "a", "value": "1",
            "domain": "example.com", "host_only": true, "path": "/", "expires": 4102444800,
            "creation": 1, "last_access": 1, "secure": "yes", "http_only": false,
            "same_site": "lax", "persistent": true}]}"#;
        let error = CookieStore::load_json(cookie.as_bytes()).unwrap_err();
        assert!(error.message().contains("cookies[0].secure"), "{error}");
        let control = cookie
            .replace("\"secure\": \"yes\"", "\"secure\": true")
            .replace("\"value\": \"1\"", "\"value\": \"1\\r\\nX: y\"");
        let error = CookieStore::load_json(control.as_bytes()).unwrap_err();
        assert!(error.message().contains("cookies[0].value"), "{error}");
        let padded = cookie
            .replace("\"secure\": \"yes\"", "\"secure\": true")
            .replace("\"name\": \"a\"", "\"name\": \"\\ta\"");
        let error = CookieStore::load_json(padded.as_bytes()).unwrap_err();
        assert!(
            error
                .message()
                .contains("cookies[0].name: begins or ends with a space or a tab"),
            "{error}"
        );
    }

    #[test]
    fn netscape_lines_read_as_curl_writes_them() {
        let file = b"# Netscape HTTP Cookie File\n\
            \n\
            .example.com\tTRUE\t/\tFALSE\t0\tlang\ten\r\n\
            #HttpOnly_www.example.com\tFALSE\t/a\tTRUE\t4102444800\tid\t42\n\
            old.example.com\tFALSE\t/\tFALSE\t1\tgone\tx\n";
        let store = CookieStore::load_netscape(&file[..]).unwrap();
        let cookies = store.cookies_by_creation();
        assert_eq!(cookies.len(), 2, "the expired cookie is dropped");
        let lang = &cookies[0];
        assert_eq!(
            (lang.domain.as_str(), lang.host_only, lang.expiry_time),
            ("example.com", false, None)
        );
        let id = &cookies[1];
        assert_eq!(
            (
                id.domain.as_str(),
                id.host_only,
                id.http_only,
                id.secure_only,
                id.path.as_slice()
            ),
            ("www.example.com", true, true, true, &b"/a"[..])
        );
        let error =
            CookieStore::load_netscape(&b"# c\nexample.com\tTRUE\t/\tFALSE\tsoon\ta\tb\n"[..])
                .unwrap_err();
        assert!(error.message().contains("line 2: expiry"), "{error}");
        // A value no server could set (§5.6 trims it), which would end the `Cookie` header
        // with a space: the line is named.
        let error =
            CookieStore::load_netscape(&b"# c\n.co.uk\tTRUE\t/\tFALSE\t0\tsuper\tcookie \n"[..])
                .unwrap_err();
        assert!(
            error
                .message()
                .contains("line 2: value: begins or ends with a space"),
            "{error}"
        );
        let error = CookieStore::load_netscape(&b"example.com\tTRUE\t/\n"[..]).unwrap_err();
        assert!(
            error.message().contains("line 1: 3 tab-separated"),
            "{error}"
        );
    }
}
