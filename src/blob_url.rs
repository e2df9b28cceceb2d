//! The [blob URL store](https://w3c.github.io/FileAPI/#BlobURLStore) of the File API:
//! `blob:` URLs that name a [`Blob`], created and revoked by the [`Environment`] that owns
//! the store, and resolved by fetching a `blob:` URL.
//!
//! ```
//! # tokio_test::block_on(async {
//! use whatwg_fetch::{Blob, Client};
//!
//! let client = Client::new();
//! let environment = client.environment();
//! let url = environment.blob_url_store().create_object_url(environment, Blob::from_bytes(&b"from memory"[..], "text/plain"));
//! assert_eq!(client.get(url.as_str()).send().await?.text().await?, "from memory");
//! # Ok::<(), whatwg_fetch::Error>(())
//! # }).unwrap();
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use url::Url;

use crate::blob::Blob;
use crate::environment::Environment;

/// A [blob URL store](https://w3c.github.io/FileAPI/#BlobURLStore): a map from `blob:` URLs
/// to the blobs they name. Cheap to clone; clones share one store.
///
/// ```
/// use whatwg_fetch::{Blob, Environment};
///
/// let environment = Environment::browser("https://app.example/".parse()?);
/// let url = environment.blob_url_store().create_object_url(&environment, Blob::from_bytes("hi", "text/plain"));
/// assert!(url.starts_with("blob:https://app.example/"));
/// assert!(environment.blob_url_store().resolve(&url.parse()?).is_some());
/// environment.blob_url_store().revoke_object_url(&url);
/// assert!(environment.blob_url_store().resolve(&url.parse()?).is_none());
/// # Ok::<(), url::ParseError>(())
/// ```
#[derive(Clone, Default)]
pub struct BlobUrlStore {
    entries: Arc<Mutex<HashMap<String, Blob>>>,
}

impl BlobUrlStore {
    fn entries(&self) -> MutexGuard<'_, HashMap<String, Blob>> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// [`URL.createObjectURL(blob)`](https://w3c.github.io/FileAPI/#dfn-createObjectURL):
    /// [add an entry](https://w3c.github.io/FileAPI/#add-an-entry) for `blob` and return its
    /// new `blob:` URL, made with `environment`'s origin.
    ///
    /// ```
    /// use whatwg_fetch::{Blob, Environment, Url};
    ///
    /// let environment = Environment::browser(Url::parse("https://app.example/")?);
    /// let url = environment.blob_url_store().create_object_url(&environment, Blob::from_bytes(&b"x"[..], ""));
    /// // Named with the environment's origin, and a random UUID.
    /// assert!(url.starts_with("blob:https://app.example/"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_object_url(&self, environment: &Environment, blob: Blob) -> String {
        // Step 1. Let store be the user agent's blob URL store.
        // Step 2. Let url be the result of generating a new blob URL.
        let url = generate_new_blob_url(environment);
        // Step 3. Let entry be a new blob URL entry consisting of object and the current
        // settings object.
        // Step 4. Set store[url] to entry.
        self.entries().insert(url.clone(), blob);
        // Step 5. Return url.
        url
    }

    /// [`URL.revokeObjectURL(url)`](https://w3c.github.io/FileAPI/#dfn-revokeObjectURL):
    /// [remove the entry](https://w3c.github.io/FileAPI/#removeTheEntry) for `url`, if any.
    ///
    /// ```
    /// use whatwg_fetch::{Blob, Environment, Url};
    ///
    /// let environment = Environment::server();
    /// let store = environment.blob_url_store();
    /// let url = store.create_object_url(&environment, Blob::from_bytes(&b"x"[..], ""));
    /// store.revoke_object_url(&url);
    /// assert!(store.resolve(&Url::parse(&url)?).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn revoke_object_url(&self, url: &str) {
        // The URL is compared without its fragment, as resolving does.
        let key = match Url::parse(url) {
            Ok(mut parsed) => {
                parsed.set_fragment(None);
                parsed.to_string()
            }
            Err(_) => return,
        };
        self.entries().remove(&key);
    }

    /// The blob a `blob:` URL names: its
    /// [blob URL entry](https://w3c.github.io/FileAPI/#blob-url-resolve), fragment ignored.
    ///
    /// ```
    /// use whatwg_fetch::{Blob, Environment, Url};
    ///
    /// let environment = Environment::server();
    /// let store = environment.blob_url_store();
    /// let url = store.create_object_url(&environment, Blob::from_bytes(&b"data"[..], "text/plain"));
    /// // A fragment does not matter.
    /// let blob = store.resolve(&Url::parse(&format!("{url}#page=2"))?).expect("still registered");
    /// assert_eq!(blob.text(), "data");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resolve(&self, url: &Url) -> Option<Blob> {
        let mut key = url.clone();
        key.set_fragment(None);
        self.entries().get(key.as_str()).cloned()
    }
}

impl fmt::Debug for BlobUrlStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlobUrlStore")
            .field("entries", &self.entries().len())
            .finish()
    }
}

impl PartialEq for BlobUrlStore {
    /// Two stores are equal when they are the same store.
    fn eq(&self, other: &BlobUrlStore) -> bool {
        Arc::ptr_eq(&self.entries, &other.entries)
    }
}

impl Eq for BlobUrlStore {}

/// [Generate a new blob URL](https://w3c.github.io/FileAPI/#unicodeBlobURL).
fn generate_new_blob_url(environment: &Environment) -> String {
    // Step 1. Let result be the empty string.
    // Step 2. Append the string "blob:" to result.
    let mut result = String::from("blob:");
    // Step 3. Let settings be the current settings object.
    // Step 4. Let origin be settings's origin.
    // Step 5. Let serialized be the ASCII serialization of origin.
    // Step 6. If serialized is "null", set it to an implementation-defined value.
    // Step 7. Append serialized to result.
    match environment.origin() {
        Some(origin) if origin.is_tuple() => result.push_str(&origin.ascii_serialization()),
        _ => result.push_str("null"),
    }
    // Step 8. Append U+0024 SOLIDUS (/) to result.
    result.push('/');
    // Step 9. Generate a UUID as a string and append it to result.
    result.push_str(&uuid_v4());
    // Step 10. Return result.
    result
}

/// A random (version 4) UUID in its string form.
fn uuid_v4() -> String {
    let mut bytes = [0_u8; 16];
    for byte in &mut bytes {
        *byte = fastrand::u8(..);
    }
    bytes[6] = (bytes[6] & 0x0F) | 0x40;
    bytes[8] = (bytes[8] & 0x3F) | 0x80;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4() {
        let uuid = uuid_v4();
        assert_eq!(uuid.len(), 36);
        assert_eq!(uuid.as_bytes()[14], b'4');
        assert_ne!(uuid_v4(), uuid);
    }

    #[test]
    fn server_side_blob_urls_have_a_null_origin() {
        let environment = Environment::server();
        let url = environment
            .blob_url_store()
            .create_object_url(&environment, Blob::default());
        assert!(url.starts_with("blob:null/"), "{url}");
        let parsed = Url::parse(&format!("{url}#fragment")).unwrap();
        assert!(environment.blob_url_store().resolve(&parsed).is_some());
    }
}
