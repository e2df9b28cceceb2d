//! `data_url`: `data:` URLs, through the public
//! [`data:` URL processor](whatwg_fetch::data_url::data_url_processor) and through
//! `fetch()`, and forgiving-base64.
//!
//! The input (lossily UTF-8) follows `data:`. Checked: `fetch()` succeeds exactly when
//! the processor does, with the processor's body and its MIME type as `Content-Type`;
//! the MIME type round-trips; forgiving-base64 decodes what it encodes, and what it
//! decodes encodes to something that decodes the same.

use std::sync::OnceLock;

use url::Url;
use whatwg_fetch::data_url::{
    data_url_processor, forgiving_base64_decode, forgiving_base64_encode,
};
use whatwg_fetch::mime::MimeType;
use whatwg_fetch::{Client, ErrorKind, RequestInit};

use crate::{MAX_INPUT, block_on};

fn client() -> &'static Client {
    static CLIENT: OnceLock<Client> = OnceLock::new();
    CLIENT.get_or_init(|| Client::builder().build().expect("a client"))
}

/// The `data_url` target.
pub fn data_url(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let text = String::from_utf8_lossy(data);

    let encoded = forgiving_base64_encode(data);
    assert_eq!(
        forgiving_base64_decode(&encoded).as_deref(),
        Some(data),
        "forgiving-base64 does not decode what it encodes"
    );
    if let Some(decoded) = forgiving_base64_decode(&text) {
        let again = forgiving_base64_encode(&decoded);
        assert_eq!(forgiving_base64_decode(&again), Some(decoded));
    }

    let Ok(url) = Url::parse(&format!("data:{text}")) else {
        return;
    };
    let processed = data_url_processor(&url);
    // `new Request()` throws on a URL with credentials (`data://user@host/,x` has them)
    // before any fetching.
    let processed_by_fetch = if url.username().is_empty() && url.password().is_none() {
        processed.clone()
    } else {
        None
    };
    if let Some(processed) = &processed {
        let serialized = processed.mime_type.serialize();
        assert_eq!(
            MimeType::parse(&serialized).as_ref(),
            Some(&processed.mime_type),
            "a data: URL's MIME type does not round-trip"
        );
    }

    let fetched = block_on(async {
        let mut response = client().fetch(url.as_str(), RequestInit::default()).await?;
        let content_type = response.headers().get_bytes("content-type")?;
        let body = response.bytes().await?;
        Ok::<_, whatwg_fetch::Error>((response.status(), content_type, body))
    });
    match (&processed_by_fetch, fetched) {
        (Some(processed), Ok((status, content_type, body))) => {
            assert_eq!(status, 200);
            assert_eq!(
                content_type.as_deref(),
                Some(&processed.mime_type.serialize_to_bytes()[..]),
                "fetch() and the processor disagree on the MIME type"
            );
            assert!(
                body == processed.body,
                "fetch() and the processor disagree on the body"
            );
        }
        (None, Err(error)) => assert_eq!(error.kind(), ErrorKind::TypeError),
        (Some(_), Err(error)) => panic!("fetch() failed where the processor did not: {error}"),
        (None, Ok(_)) => panic!("fetch() succeeded where the processor failed"),
    }
}
