//! `form_data`: `multipart/form-data` and `application/x-www-form-urlencoded` parsing.
//!
//! The first line is the boundary; the rest is the body. The body goes to
//! [`FormData::from_multipart`] with that boundary and to a [`Response`]'s `formData()`
//! with `Content-Type: multipart/form-data; boundary=<first line>` (so the boundary also
//! goes through the MIME type parser, quoted or not); the whole input goes to
//! [`FormData::from_urlencoded`] and to `formData()` as `application/x-www-form-urlencoded`.
//!
//! Checked: what parses as multipart serializes to a payload that parses back to a form
//! that serializes the same; the urlencoded parser agrees with the `url` crate's
//! (both are the URL Standard's `application/x-www-form-urlencoded` parser).

use whatwg_fetch::{FormData, FormDataEntryValue, HeadersInit, Response, ResponseInit};

use crate::{MAX_INPUT, block_on};

/// `formData()` of a response with `body` and `content_type`.
fn response_form_data(body: &[u8], content_type: &[u8]) -> Option<FormData> {
    let init = ResponseInit {
        headers: Some(HeadersInit::from(vec![(
            &b"Content-Type"[..],
            content_type,
        )])),
        ..Default::default()
    };
    let mut response = Response::new(Some(body.to_vec().into()), init).ok()?;
    block_on(response.form_data()).ok()
}

/// Every entry of `form`, read through the accessors.
fn visit(form: &FormData) {
    for (name, value) in form.iter() {
        assert!(form.has(name), "an entry {name:?} that has() does not find");
        match value {
            FormDataEntryValue::String(_) => {}
            FormDataEntryValue::File(file) => {
                let _ = (file.name(), file.as_blob().r#type(), file.as_blob().size());
            }
            // A parsed form holds no reader.
            FormDataEntryValue::StreamedFile(file) => {
                panic!("a parsed form holds a StreamedFile {file:?}")
            }
            other => panic!("a parsed form holds an entry value of a new kind: {other:?}"),
        }
    }
}

fn check_multipart(form: &FormData) {
    visit(form);
    let (payload, boundary) = form.to_multipart();
    let again = match FormData::from_multipart(&payload, &boundary) {
        Ok(again) => again,
        Err(error) => panic!(
            "a serialized form does not parse back: {error}\nboundary {boundary:?}\npayload {:?}",
            String::from_utf8_lossy(&payload)
        ),
    };
    assert_eq!(again.len(), form.len(), "entries lost in a round trip");
    let payload_again = again.to_multipart_with_boundary(&boundary);
    assert!(
        payload == payload_again,
        "a parsed form serializes differently:\n{:?}\n{:?}",
        String::from_utf8_lossy(&payload),
        String::from_utf8_lossy(&payload_again)
    );
}

/// The `form_data` target.
pub fn form_data(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let (boundary, body) = match data.iter().position(|&b| b == b'\n') {
        Some(at) => (
            data.get(..at).unwrap_or_default(),
            data.get(at + 1..).unwrap_or_default(),
        ),
        None => (data, &[][..]),
    };
    let boundary = boundary.strip_suffix(b"\r").unwrap_or(boundary);

    if let Ok(boundary) = std::str::from_utf8(boundary) {
        if let Ok(form) = FormData::from_multipart(body, boundary) {
            check_multipart(&form);
        }
    }
    let mut content_type = b"multipart/form-data; boundary=".to_vec();
    content_type.extend_from_slice(boundary);
    if let Some(form) = response_form_data(body, &content_type) {
        check_multipart(&form);
    }

    let form = FormData::from_urlencoded(data);
    visit(&form);
    let expected: Vec<(String, String)> = url::form_urlencoded::parse(data)
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect();
    let got: Vec<(String, String)> = form
        .iter()
        .map(|(name, value)| {
            (
                name.to_owned(),
                value.as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        got, expected,
        "the urlencoded parser disagrees with the url crate's"
    );
    if let Some(via_response) =
        response_form_data(data, b"application/x-www-form-urlencoded;charset=UTF-8")
    {
        assert!(
            via_response == form,
            "formData() and from_urlencoded disagree"
        );
    }
}
