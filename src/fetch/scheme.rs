//! [Scheme fetch](https://fetch.spec.whatwg.org/#scheme-fetch): `about:`, `blob:`, `data:`,
//! `file:` and the HTTP(S) schemes.

use bytes::Bytes;

use super::{FetchParams, http, is_http_scheme, network_error};
use crate::blob::slice_blob;
use crate::body::{BodyInit, extract_body};
use crate::error::NetworkError;
use crate::headers::{
    HeaderList, Headers, HeadersGuard, build_a_content_range, parse_single_range_header_value,
};
use crate::infra::isomorphic_encode;
use crate::response::Response;

/// A new response with `status`, `status_message`, `header_list` and `body`, as scheme
/// fetch makes them.
fn new_response(
    status: u16,
    status_message: &'static str,
    header_list: HeaderList,
    body: Option<crate::body::Body>,
) -> Response {
    let headers = Headers::from_header_list(header_list, HeadersGuard::Immutable);
    Response::from_network(status, status_message, headers, body, Vec::new())
}

/// [Scheme fetch](https://fetch.spec.whatwg.org/#scheme-fetch).
pub(crate) async fn scheme_fetch(fetch_params: &mut FetchParams<'_>) -> Response {
    // Step 1. If fetchParams is canceled, then return the appropriate network error.
    // (Cancellation drops this future instead.)
    // Step 2. Let request be fetchParams's request.
    let request = &fetch_params.request;
    let url = request.current_url();
    // Step 3. Switch on request's current URL's scheme and run the associated steps:
    match url.scheme() {
        "about" => {
            // If request's current URL's path is the string "blank", then return a new
            // response whose status message is `OK`, header list is « (`Content-Type`,
            // `text/html;charset=utf-8`) », and body is the empty byte sequence as a body.
            if url.path() == "blank" {
                let mut header_list = HeaderList::new();
                header_list.append("Content-Type", "text/html;charset=utf-8");
                return new_response(200, "OK", header_list, Some(crate::body::Body::empty()));
            }
            // URLs such as "about:config" are handled during navigation and result in a
            // network error in the context of fetching.
            network_error(NetworkError::UnsupportedScheme(format!(
                "about:{}",
                url.path()
            )))
        }
        "blob" => blob_fetch(fetch_params),
        "data" => {
            // Step 1. Let dataURLStruct be the result of running the data: URL processor on
            // request's current URL.
            // Step 2. If dataURLStruct is failure, then return a network error.
            let Some(data_url) = crate::data_url::data_url_processor(url) else {
                return network_error(NetworkError::InvalidDataUrl);
            };
            // Step 3. Let mimeType be dataURLStruct's MIME type, serialized.
            let mime_type = data_url.mime_type.serialize_to_bytes();
            // Step 4. Return a new response whose status message is `OK`, header list is
            // « (`Content-Type`, mimeType) », and body is dataURLStruct's body as a body.
            let mut header_list = HeaderList::new();
            header_list.append("Content-Type", mime_type);
            let body = crate::body::Body::from_bytes(data_url.body);
            new_response(200, "OK", header_list, Some(body))
        }
        "file" => file_fetch(fetch_params).await,
        // HTTP(S) scheme: Return the result of running HTTP fetch given fetchParams.
        scheme if is_http_scheme(scheme) => http::http_fetch(fetch_params, false).await,
        // Step 4. Return a network error.
        scheme => network_error(NetworkError::UnsupportedScheme(scheme.to_owned())),
    }
}

/// The `"blob"` branch of [scheme fetch](https://fetch.spec.whatwg.org/#scheme-fetch).
fn blob_fetch(fetch_params: &FetchParams<'_>) -> Response {
    let request = &fetch_params.request;
    // Step 1. Let blobURLEntry be request's current URL's blob URL entry.
    let blob_url_entry = request
        .client
        .blob_url_store()
        .resolve(request.current_url());
    // Step 2. If request's method is not `GET` or blobURLEntry is null, then return a
    // network error.
    // Steps 3–6. Obtain a blob object given blobURLEntry (the entry holds the blob).
    // Step 7. If blob is not a Blob object, then return a network error.
    let blob = match blob_url_entry {
        Some(blob) if request.method == "GET" => blob,
        _ => return network_error(NetworkError::InvalidBlobUrl),
    };
    // Step 8. Let response be a new response.
    // Step 9. Let fullLength be blob's size.
    let full_length = blob.size();
    // Step 10. Let serializedFullLength be fullLength, serialized and isomorphic encoded.
    let serialized_full_length = full_length.to_string();
    // Step 11. Let type be blob's type.
    let r#type = blob.r#type().to_owned();
    // Step 12. If request's header list does not contain `Range`:
    let Some(range_header) = request.headers.header_list().get("range") else {
        // Step 12.1. Let bodyWithType be the result of safely extracting blob.
        // Step 12.3. Set response's body to bodyWithType's body.
        let body = match extract_body(BodyInit::Blob(blob), false) {
            Ok(extracted) => extracted.body,
            Err(error) => return Response::network_error(error),
        };
        // Step 12.4. Set response's header list to « (`Content-Length`,
        // serializedFullLength), (`Content-Type`, type) ».
        let mut header_list = HeaderList::new();
        header_list.append("Content-Length", serialized_full_length);
        header_list.append("Content-Type", isomorphic_encode(&r#type));
        // Step 12.2. Set response's status message to `OK`.
        return new_response(200, "OK", header_list, Some(body));
    };
    // Step 13. Otherwise:
    // Step 13.2. Let rangeHeader be the result of getting `Range` from request's header
    // list.
    // Step 13.3. Let rangeValue be the result of parsing a single range header value given
    // rangeHeader and true.
    // Step 13.4. If rangeValue is failure, then return a network error.
    let Some((range_start, range_end)) = parse_single_range_header_value(&range_header, true)
    else {
        return network_error(NetworkError::Blocked(
            "invalid Range for a blob: URL".into(),
        ));
    };
    // Step 13.5. Let (rangeStart, rangeEnd) be rangeValue.
    let (range_start, range_end) = match (range_start, range_end) {
        // Step 13.6. If rangeStart is null: set rangeStart to fullLength − rangeEnd; set
        // rangeEnd to rangeStart + rangeEnd − 1.
        (None, Some(suffix)) => {
            let start = full_length.saturating_sub(suffix);
            let Some(end) = (start + suffix.min(full_length)).checked_sub(1) else {
                return network_error(NetworkError::Blocked("empty Range for a blob: URL".into()));
            };
            (start, end)
        }
        (None, None) => {
            return network_error(NetworkError::Blocked(
                "invalid Range for a blob: URL".into(),
            ));
        }
        // Step 13.7. Otherwise:
        (Some(start), end) => {
            // Step 13.7.1. If rangeStart is greater than or equal to fullLength, then
            // return a network error.
            if start >= full_length {
                return network_error(NetworkError::Blocked(
                    "Range starts past the end of the blob".into(),
                ));
            }
            // Step 13.7.2. If rangeEnd is null or rangeEnd is greater than or equal to
            // fullLength, then set rangeEnd to fullLength − 1.
            let end = match end {
                Some(end) if end < full_length => end,
                _ => full_length - 1,
            };
            (start, end)
        }
    };
    // Step 13.8. Let slicedBlob be the result of invoking slice blob given blob,
    // rangeStart, rangeEnd + 1, and type.
    let (Ok(start), Ok(end)) = (i64::try_from(range_start), i64::try_from(range_end + 1)) else {
        return network_error(NetworkError::Blocked("Range out of bounds".into()));
    };
    let sliced_blob = slice_blob(&blob, Some(start), Some(end), Some(&r#type));
    // Step 13.10. Let serializedSlicedLength be slicedBlob's size, serialized and
    // isomorphic encoded.
    let serialized_sliced_length = sliced_blob.size().to_string();
    // Step 13.9. Let slicedBodyWithType be the result of safely extracting slicedBlob.
    let body = sliced_blob.stream();
    // Step 13.11. Let contentRange be the result of invoking build a content range given
    // rangeStart, rangeEnd, and fullLength.
    let content_range = build_a_content_range(range_start, range_end, full_length);
    // Steps 13.12–13.14. Set response's status to 206, its status message to `Partial
    // Content`, and its header list to « (`Content-Length`, serializedSlicedLength),
    // (`Content-Type`, type), (`Content-Range`, contentRange) ».
    let mut header_list = HeaderList::new();
    header_list.append("Content-Length", serialized_sliced_length);
    header_list.append("Content-Type", isomorphic_encode(&r#type));
    header_list.append("Content-Range", content_range);
    let mut response = new_response(206, "Partial Content", header_list, Some(body));
    // Step 13.1. Set response's range-requested flag.
    response.range_requested = true;
    response
}

/// The `"file"` branch of [scheme fetch](https://fetch.spec.whatwg.org/#scheme-fetch):
/// "left as an exercise for the reader". Here a `GET` reads the file when the client
/// allows `file:` URLs; anything else is a network error.
async fn file_fetch(fetch_params: &FetchParams<'_>) -> Response {
    let request = &fetch_params.request;
    if !fetch_params.context.allow_file_urls || request.method != "GET" {
        return network_error(NetworkError::File(None));
    }
    let Ok(path) = request.current_url().to_file_path() else {
        return network_error(NetworkError::File(None));
    };
    match tokio::fs::read(&path).await {
        Ok(bytes) => {
            let mut header_list = HeaderList::new();
            header_list.append("Content-Length", bytes.len().to_string());
            let body = crate::body::Body::from_bytes(Bytes::from(bytes));
            new_response(200, "OK", header_list, Some(body))
        }
        Err(error) => network_error(NetworkError::File(Some(error))),
    }
}
