//! Blob and File, against the File API: construction, type normalization, slicing, reading.

mod common;

use bytes::Bytes;
use whatwg_fetch::blob::{
    Blob, BlobPart, BlobPropertyBag, Endings, File, FilePropertyBag, convert_line_endings_to_native,
};

fn typed(r#type: &str) -> BlobPropertyBag {
    BlobPropertyBag {
        r#type: Some(r#type.to_owned()),
        ..Default::default()
    }
}

fn now_millis() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(since.as_millis()).unwrap()
}

#[test]
fn a_blob_without_parts_is_empty_and_untyped() {
    let blob = Blob::new(Vec::<BlobPart>::new(), BlobPropertyBag::default());
    assert_eq!(blob.size(), 0);
    assert_eq!(blob.r#type(), "");
    assert_eq!(blob.text(), "");
    assert_eq!(blob, Blob::default());
}

#[test]
fn every_kind_of_part_contributes_its_bytes_in_order() {
    let inner = Blob::new(["inner"], typed("text/x-ignored"));
    let file = File::new(["file"], "f.txt", FilePropertyBag::default());
    let parts = vec![
        BlobPart::from("str;"),
        BlobPart::from(String::from("string;")),
        BlobPart::from(vec![0_u8, 255]),
        BlobPart::from(&b"slice"[..]),
        BlobPart::from(Bytes::from_static(b"bytes")),
        BlobPart::from(&inner),
        BlobPart::from(inner.clone()),
        BlobPart::from(&file),
        BlobPart::from(file),
    ];
    let blob = Blob::new(parts, BlobPropertyBag::default());
    assert_eq!(
        blob.as_bytes(),
        b"str;string;\x00\xffslicebytesinnerinnerfilefile"
    );
    assert_eq!(blob.size(), 41);
    // The parts' types do not carry over.
    assert_eq!(blob.r#type(), "");
}

#[test]
fn text_parts_are_utf8_encoded() {
    let blob = Blob::new(["h\u{e9}llo \u{1F980}"], BlobPropertyBag::default());
    assert_eq!(blob.as_bytes(), "h\u{e9}llo \u{1F980}".as_bytes());
    assert_eq!(blob.size(), 11);
}

#[test]
fn type_is_parsed_and_serialized_as_a_mime_type() {
    // Type, subtype and parameter names are lowercased; parameter values keep their case.
    assert_eq!(
        Blob::new(["x"], typed("TEXT/Plain;Charset=UTF-8")).r#type(),
        "text/plain;charset=UTF-8"
    );
    assert_eq!(
        Blob::new(["x"], typed(" text/html ; charset=\"gbk\"")).r#type(),
        "text/html;charset=gbk"
    );
    // A string that is not a MIME type becomes the empty string.
    assert_eq!(Blob::new(["x"], typed(" not a mime type ~")).r#type(), "");
    assert_eq!(Blob::new(["x"], typed("a")).r#type(), "");
    assert_eq!(Blob::from_bytes(Bytes::new(), "A/B").r#type(), "a/b");
    assert_eq!(Blob::from_bytes(Bytes::new(), "A/B").content_type(), "a/b");
}

#[test]
fn invalid_mime_types_become_empty() {
    for bad in [
        "text/pl\u{e0}in",
        "text/plain\u{0}",
        "\u{212A}/x",
        "\u{1F980}",
        "text/",
        "/plain",
        "te(xt/plain",
    ] {
        assert_eq!(Blob::new(["x"], typed(bad)).r#type(), "", "type {bad:?}");
        assert_eq!(
            Blob::from_bytes(Bytes::new(), bad).r#type(),
            "",
            "type {bad:?}"
        );
        let file = File::new(
            ["x"],
            "n",
            FilePropertyBag {
                r#type: Some(bad.to_owned()),
                ..Default::default()
            },
        );
        assert_eq!(file.r#type(), "", "type {bad:?}");
    }
}

/// Every `{input, output}` case of a MIME Sniffing vector file, through the `Blob` and `File`
/// constructors and `slice()`: the type is the parsed and serialized MIME type, or `""`.
fn run_mime_type_vectors_through_blobs(path: &str) -> usize {
    let mut count = 0;
    for case in common::wpt_json(path)
        .as_array()
        .expect("an array of cases")
    {
        let Some(input) = case["input"].as_str() else {
            continue; // a comment string
        };
        let expected = case["output"].as_str().unwrap_or("");
        assert_eq!(
            Blob::new(["x"], typed(input)).r#type(),
            expected,
            "Blob {input:?}"
        );
        let file = File::new(
            ["x"],
            "n",
            FilePropertyBag {
                r#type: Some(input.to_owned()),
                ..Default::default()
            },
        );
        assert_eq!(file.r#type(), expected, "File {input:?}");
        let slice = Blob::default().slice(None, None, Some(input));
        assert_eq!(slice.r#type(), expected, "slice {input:?}");
        count += 1;
    }
    count
}

#[test]
fn mime_types_json_through_blob_and_file() {
    let count =
        run_mime_type_vectors_through_blobs("mimesniff/mime-types/resources/mime-types.json");
    assert_eq!(count, 74);
}

#[test]
fn generated_mime_types_json_through_blob_and_file() {
    let count = run_mime_type_vectors_through_blobs(
        "mimesniff/mime-types/resources/generated-mime-types.json",
    );
    assert_eq!(count, 881);
}

#[test]
fn transparent_endings_keep_newlines() {
    let blob = Blob::new(["a\rb\nc\r\nd"], BlobPropertyBag::default());
    assert_eq!(blob.as_bytes(), b"a\rb\nc\r\nd");
}

#[test]
fn native_endings_convert_text_parts_only() {
    let native = if cfg!(windows) { "\r\n" } else { "\n" };
    let options = BlobPropertyBag {
        r#type: None,
        endings: Endings::Native,
    };
    let blob = Blob::new(
        [
            BlobPart::from("\ra\r\nb\n\n\r\rc\r"),
            BlobPart::from(&b"\r\n"[..]),
        ],
        options,
    );
    let expected = format!("{n}a{n}b{n}{n}{n}{n}c{n}\r\n", n = native);
    assert_eq!(blob.as_bytes(), expected.as_bytes());
}

#[test]
fn convert_line_endings_to_native_edge_cases() {
    let n = if cfg!(windows) { "\r\n" } else { "\n" };
    assert_eq!(convert_line_endings_to_native(""), "");
    assert_eq!(convert_line_endings_to_native("abc"), "abc");
    assert_eq!(convert_line_endings_to_native("\r"), n);
    assert_eq!(convert_line_endings_to_native("\n\r"), format!("{n}{n}"));
    assert_eq!(
        convert_line_endings_to_native("\r\n\r\n"),
        format!("{n}{n}")
    );
    assert_eq!(
        convert_line_endings_to_native("\u{e9}\r\u{1F980}"),
        format!("\u{e9}{n}\u{1F980}")
    );
}

#[test]
fn slice_normalizes_indices_like_the_spec() {
    let blob = Blob::from_bytes(&b"0123456789"[..], "text/plain");
    let cases: &[(Option<i64>, Option<i64>, &str)] = &[
        (None, None, "0123456789"),
        (Some(0), None, "0123456789"),
        (Some(3), None, "3456789"),
        (Some(3), Some(5), "34"),
        (Some(-3), None, "789"),
        (Some(-3), Some(-1), "78"),
        (Some(2), Some(-2), "234567"),
        (Some(-100), Some(2), "01"),
        (Some(-100), Some(-100), ""),
        (Some(5), Some(3), ""),
        (Some(-1), Some(-3), ""),
        (Some(5), Some(5), ""),
        (Some(10), None, ""),
        (Some(11), Some(20), ""),
        (Some(0), Some(100), "0123456789"),
        (None, Some(-9), "0"),
        (None, Some(0), ""),
        (Some(i64::MIN), Some(i64::MAX), "0123456789"),
        (Some(i64::MAX), Some(i64::MIN), ""),
        (Some(i64::MIN), Some(i64::MIN), ""),
        (Some(-10), Some(10), "0123456789"),
    ];
    for &(start, end, expected) in cases {
        let slice = blob.slice(start, end, None);
        assert_eq!(slice.text(), expected, "slice({start:?}, {end:?})");
        assert_eq!(
            slice.size(),
            expected.len() as u64,
            "slice({start:?}, {end:?})"
        );
    }
}

#[test]
fn slice_of_a_slice_is_relative_to_the_slice() {
    let blob = Blob::from_bytes(&b"0123456789"[..], "");
    let middle = blob.slice(Some(2), Some(8), None);
    assert_eq!(middle.slice(Some(1), Some(-1), None).text(), "3456");
    assert_eq!(middle.slice(Some(-2), None, None).text(), "67");
    assert_eq!(middle.slice(Some(100), None, None).size(), 0);
}

#[test]
fn slice_type_follows_its_own_argument_only() {
    let blob = Blob::from_bytes(&b"abc"[..], "text/plain");
    // No contentType: the empty string, not the blob's type.
    assert_eq!(blob.slice(None, None, None).r#type(), "");
    assert_eq!(blob.slice(None, None, Some("")).r#type(), "");
    assert_eq!(
        blob.slice(None, None, Some("Image/PNG")).r#type(),
        "image/png"
    );
    assert_eq!(blob.slice(None, None, Some("image/p\u{f1}g")).r#type(), "");
    assert_eq!(blob.slice(None, None, Some("a/b\u{1}")).r#type(), "");
    assert_eq!(blob.slice(None, None, Some("not a type")).r#type(), "");
}

#[test]
fn slicing_a_file_gives_a_blob() {
    let file = File::new(["hello world"], "h.txt", FilePropertyBag::default());
    let slice: Blob = file.slice(Some(6), None, Some("text/plain"));
    assert_eq!(slice.text(), "world");
    assert_eq!(slice.r#type(), "text/plain");
}

#[test]
fn slices_share_the_bytes() {
    let blob = Blob::from_bytes(vec![7_u8; 1024], "");
    let slice = blob.slice(Some(512), None, None);
    assert_eq!(slice.as_bytes().as_ptr(), blob.as_bytes()[512..].as_ptr());
}

#[test]
fn text_is_utf8_decode() {
    let text = |bytes: &[u8]| Blob::from_bytes(Bytes::copy_from_slice(bytes), "").text();
    assert_eq!(text(b"plain"), "plain");
    // A leading BOM is dropped; a later one is kept.
    assert_eq!(text(b"\xEF\xBB\xBFa\xEF\xBB\xBF"), "a\u{FEFF}");
    // Each maximal subpart of an invalid sequence becomes one U+FFFD.
    assert_eq!(text(b"a\xF0\x9F\x98b"), "a\u{FFFD}b");
    assert_eq!(text(b"\xC0\x80"), "\u{FFFD}\u{FFFD}");
    assert_eq!(text(b"\xED\xA0\x80"), "\u{FFFD}\u{FFFD}\u{FFFD}");
    assert_eq!(text(b"\xFF\xFE"), "\u{FFFD}\u{FFFD}");
    // An incomplete BOM is not a BOM.
    assert_eq!(text(b"\xEF\xBB"), "\u{FFFD}");
}

#[test]
fn bytes_returns_the_contents() {
    let all: Vec<u8> = (0..=255).collect();
    let blob = Blob::new([all.clone()], BlobPropertyBag::default());
    assert_eq!(&blob.bytes()[..], &all[..]);
    assert_eq!(blob.size(), 256);
}

#[test]
fn file_keeps_name_type_and_last_modified() {
    let file = File::new(
        [BlobPart::from("a"), BlobPart::from(vec![b'b'])],
        "na\"me\r\n.txt",
        FilePropertyBag {
            r#type: Some("Text/HTML".into()),
            endings: Endings::Transparent,
            last_modified: Some(-42),
        },
    );
    assert_eq!(file.name(), "na\"me\r\n.txt");
    assert_eq!(file.r#type(), "text/html");
    assert_eq!(file.last_modified(), -42);
    assert_eq!(file.size(), 2);
    assert_eq!(file.text(), "ab");
    assert_eq!(file.as_blob().text(), "ab");
}

#[test]
fn file_last_modified_defaults_to_now() {
    let before = now_millis();
    let file = File::new(["x"], "", FilePropertyBag::default());
    let after = now_millis();
    assert!((before..=after).contains(&file.last_modified()));
    assert_eq!(file.name(), "");
    assert_eq!(file.r#type(), "");
}

#[test]
fn file_endings_apply_to_text_parts() {
    let n = if cfg!(windows) { "\r\n" } else { "\n" };
    let file = File::new(
        ["a\r\nb"],
        "f",
        FilePropertyBag {
            endings: Endings::Native,
            ..Default::default()
        },
    );
    assert_eq!(file.text(), format!("a{n}b"));
}

#[test]
fn a_file_converts_into_its_blob() {
    let file = File::new(
        ["data"],
        "d.bin",
        FilePropertyBag {
            r#type: Some("a/b".into()),
            ..Default::default()
        },
    );
    let from_ref: Blob = (&file).into();
    let blob: Blob = file.clone().into();
    assert_eq!(blob, from_ref);
    assert_eq!(blob.r#type(), "a/b");
    assert_eq!(blob.text(), "data");
    assert_eq!(file.into_blob(), blob);
}

#[test]
fn file_from_blob_keeps_everything_as_given() {
    let blob = Blob::from_bytes(&b"z"[..], "x/y");
    let file = File::from_blob(blob.clone(), "z", 7);
    assert_eq!(file.as_blob(), &blob);
    assert_eq!((file.name(), file.last_modified()), ("z", 7));
}

#[test]
fn blob_and_file_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Blob>();
    assert_send_sync::<File>();
    assert_send_sync::<BlobPart>();
}

/// A blob type whose parameter value holds U+00E9, which the MIME type parser keeps (it is an
/// HTTP quoted-string token code point).
const LATIN_1_TYPE: &str = "text/plain;x=\"\u{e9}\"";
/// [`LATIN_1_TYPE`], isomorphic encoded: one byte per code point.
const LATIN_1_TYPE_BYTES: &[u8] = b"text/plain;x=\"\xe9\"";

/// `future`'s output, or a panic after ten seconds.
async fn bounded<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(std::time::Duration::from_secs(10), future)
        .await
        .expect("timed out")
}

#[tokio::test]
async fn a_blob_body_sends_its_type_isomorphic_encoded_and_reads_back_the_same_type() {
    let blob = Blob::from_bytes(&b"x"[..], LATIN_1_TYPE);
    assert_eq!(blob.r#type(), LATIN_1_TYPE);
    let init = whatwg_fetch::RequestInit {
        method: Some("POST".into()),
        body: Some(blob.into()),
        ..Default::default()
    };
    let mut request = whatwg_fetch::Request::new("https://example.com/", init).unwrap();
    let content_type = request.headers().get_bytes("content-type").unwrap();
    assert_eq!(content_type.as_deref(), Some(LATIN_1_TYPE_BYTES));
    assert_eq!(
        bounded(request.blob()).await.unwrap().r#type(),
        LATIN_1_TYPE
    );
}

#[tokio::test]
async fn a_blob_url_response_carries_the_blob_type_isomorphic_encoded() {
    let client = whatwg_fetch::Client::builder().build().unwrap();
    let environment = client.environment();
    let url = environment.blob_url_store().create_object_url(
        environment,
        Blob::from_bytes(&b"blob body"[..], LATIN_1_TYPE),
    );
    let ranged = whatwg_fetch::RequestInit {
        headers: Some(whatwg_fetch::HeadersInit::from(vec![("Range", "bytes=5-")])),
        ..Default::default()
    };
    // The whole blob, then a range of it.
    for init in [whatwg_fetch::RequestInit::default(), ranged] {
        let mut response = bounded(client.fetch(url.as_str(), init)).await.unwrap();
        let content_type = response.headers().get_bytes("content-type").unwrap();
        assert_eq!(content_type.as_deref(), Some(LATIN_1_TYPE_BYTES));
        assert_eq!(
            bounded(response.blob()).await.unwrap().r#type(),
            LATIN_1_TYPE
        );
    }
}
