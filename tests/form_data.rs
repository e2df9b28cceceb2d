//! FormData (XHR), create an entry (HTML), the multipart/form-data encoding algorithm
//! (HTML) and the multipart/form-data and urlencoded parsers `formData()` uses.

use bytes::Bytes;
use proptest::prelude::*;
use whatwg_fetch::ErrorKind;
use whatwg_fetch::blob::{Blob, File, FilePropertyBag};
use whatwg_fetch::form_data::{BlobValue, FormData, FormDataEntryValue};

fn now_millis() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(since.as_millis()).unwrap()
}

fn file(contents: &[u8], name: &str, r#type: &str, last_modified: i64) -> File {
    File::new(
        [contents],
        name,
        FilePropertyBag {
            r#type: Some(r#type.to_owned()),
            last_modified: Some(last_modified),
            ..Default::default()
        },
    )
}

fn strings(form: &FormData) -> Vec<(&str, &str)> {
    form.iter()
        .map(|(name, value)| (name, value.as_str().unwrap_or("<file>")))
        .collect()
}

/// A string value, or a file's name, type and bytes.
type Comparable = Result<String, (String, String, Vec<u8>)>;

/// Entries with a file's observable parts (name, type, bytes) spelled out; the
/// last-modified time of a parsed file is "now", so it is left out.
fn comparable(form: &FormData) -> Vec<(String, Comparable)> {
    form.iter()
        .map(|(name, value)| {
            let value = match value {
                FormDataEntryValue::String(value) => Ok(value.clone()),
                FormDataEntryValue::File(file) => Err((
                    file.name().to_owned(),
                    file.r#type().to_owned(),
                    file.bytes().to_vec(),
                )),
                FormDataEntryValue::StreamedFile(file) => {
                    panic!("no test form here holds a reader: {file:?}")
                }
                other => panic!("an entry value of a kind these tests do not know: {other:?}"),
            };
            (name.to_owned(), value)
        })
        .collect()
}

fn parse(body: &[u8], boundary: &str) -> whatwg_fetch::Result<FormData> {
    FormData::from_multipart(body, boundary)
}

// --- The FormData interface -------------------------------------------------------------

#[test]
fn a_new_form_is_empty() {
    let form = FormData::new();
    assert!(form.is_empty());
    assert_eq!(form.len(), 0);
    assert_eq!(form.get("a"), None);
    assert!(form.get_all("a").is_empty());
    assert!(!form.has("a"));
    assert_eq!(form.iter().count(), 0);
}

#[test]
fn append_keeps_order_and_repeats() {
    let mut form = FormData::new();
    form.append("a", "1");
    form.append("b", "2");
    form.append("a", "3");
    form.append("", "");
    assert_eq!(form.len(), 4);
    assert_eq!(
        strings(&form),
        [("a", "1"), ("b", "2"), ("a", "3"), ("", "")]
    );
    assert_eq!(form.get("a"), Some(&FormDataEntryValue::String("1".into())));
    let all: Vec<_> = form
        .get_all("a")
        .into_iter()
        .filter_map(FormDataEntryValue::as_str)
        .collect();
    assert_eq!(all, ["1", "3"]);
    assert!(form.has("a") && form.has("") && !form.has("A"));
    assert_eq!(form.keys().collect::<Vec<_>>(), ["a", "b", "a", ""]);
    assert_eq!(
        form.values()
            .filter_map(FormDataEntryValue::as_str)
            .collect::<Vec<_>>(),
        ["1", "2", "3", ""]
    );
}

#[test]
fn names_match_exactly() {
    let mut form = FormData::new();
    form.append("Name", "x");
    form.append("name ", "y");
    assert_eq!(form.get("name"), None);
    assert_eq!(
        form.get("Name").and_then(FormDataEntryValue::as_str),
        Some("x")
    );
}

#[test]
fn delete_removes_every_entry_with_the_name() {
    let mut form: FormData = [("a", "1"), ("b", "2"), ("a", "3")].into_iter().collect();
    form.delete("a");
    assert_eq!(strings(&form), [("b", "2")]);
    form.delete("missing");
    assert_eq!(form.len(), 1);
}

#[test]
fn set_replaces_the_first_entry_and_removes_the_others() {
    let mut form: FormData = [("a", "1"), ("b", "2"), ("a", "3"), ("c", "4")]
        .into_iter()
        .collect();
    form.set("a", "new");
    assert_eq!(strings(&form), [("a", "new"), ("b", "2"), ("c", "4")]);
    form.set("d", "appended");
    assert_eq!(
        strings(&form),
        [("a", "new"), ("b", "2"), ("c", "4"), ("d", "appended")]
    );
}

#[test]
fn set_blob_replaces_a_string_entry_with_a_file() {
    let mut form: FormData = [("x", "1"), ("y", "2"), ("x", "3")].into_iter().collect();
    form.set_blob(
        "x",
        Blob::from_bytes(&b"data"[..], "text/plain"),
        Some("x.txt"),
    );
    assert_eq!(form.len(), 2);
    assert_eq!(form.keys().collect::<Vec<_>>(), ["x", "y"]);
    let file = form.get("x").and_then(FormDataEntryValue::as_file).unwrap();
    assert_eq!(
        (file.name(), file.r#type(), file.text().as_str()),
        ("x.txt", "text/plain", "data")
    );
}

#[test]
fn into_iter_and_from_iter_round_trip() {
    let mut form = FormData::new();
    form.append("a", "1");
    form.append_blob("f", file(b"z", "z.txt", "text/plain", 3), None);
    let entries: Vec<(String, FormDataEntryValue)> = form.clone().into_iter().collect();
    assert_eq!(entries.len(), 2);
    let rebuilt: FormData = entries.into_iter().collect();
    assert_eq!(rebuilt, form);
}

// --- Create an entry -------------------------------------------------------------------

#[test]
fn a_blob_becomes_a_file_named_blob_last_modified_now() {
    let mut form = FormData::new();
    let before = now_millis();
    form.append_blob("b", Blob::from_bytes(&b"abc"[..], "Text/Plain"), None);
    let untyped = Blob::default();
    form.append_blob("untyped", &untyped, None);
    let after = now_millis();
    let b = form.get("b").and_then(FormDataEntryValue::as_file).unwrap();
    assert_eq!(b.name(), "blob");
    assert_eq!(b.r#type(), "text/plain");
    assert_eq!(b.text(), "abc");
    assert!((before..=after).contains(&b.last_modified()));
    let untyped = form
        .get("untyped")
        .and_then(FormDataEntryValue::as_file)
        .unwrap();
    assert_eq!(
        (untyped.name(), untyped.r#type(), untyped.size()),
        ("blob", "", 0)
    );
}

#[test]
fn a_filename_names_a_blob() {
    let mut form = FormData::new();
    form.append_blob(
        "b",
        Blob::from_bytes(&b"abc"[..], "a/b"),
        Some("custom name"),
    );
    form.append_blob("empty", Blob::default(), Some(""));
    let b = form.get("b").and_then(FormDataEntryValue::as_file).unwrap();
    assert_eq!((b.name(), b.r#type()), ("custom name", "a/b"));
    let empty = form
        .get("empty")
        .and_then(FormDataEntryValue::as_file)
        .unwrap();
    assert_eq!(empty.name(), "");
}

#[test]
fn a_file_keeps_its_name_type_and_last_modified() {
    let mut form = FormData::new();
    let original = file(b"contents", "report.csv", "text/csv", 123);
    form.append_blob("f", &original, None);
    assert_eq!(
        form.get("f"),
        Some(&FormDataEntryValue::File(original.clone()))
    );
}

#[test]
fn a_filename_renames_a_file_keeping_type_and_last_modified() {
    let mut form = FormData::new();
    let original = file(b"contents", "report.csv", "text/csv", 123);
    form.append_blob("f", BlobValue::File(original.clone()), Some("renamed.csv"));
    let renamed = form.get("f").and_then(FormDataEntryValue::as_file).unwrap();
    assert_eq!(renamed.name(), "renamed.csv");
    assert_eq!(renamed.r#type(), "text/csv");
    assert_eq!(renamed.last_modified(), 123);
    assert_eq!(renamed.as_blob(), original.as_blob());
    // The original is untouched.
    assert_eq!(original.name(), "report.csv");
}

#[test]
fn blob_values_convert_from_blobs_and_files() {
    let blob = Blob::from_bytes(&b"x"[..], "");
    let f = file(b"y", "y", "", 0);
    assert_eq!(BlobValue::from(&blob), BlobValue::Blob(blob.clone()));
    assert_eq!(BlobValue::from(blob.clone()), BlobValue::Blob(blob));
    assert_eq!(BlobValue::from(&f), BlobValue::File(f.clone()));
    assert_eq!(BlobValue::from(f.clone()), BlobValue::File(f));
}

// --- multipart/form-data encoding ------------------------------------------------------

#[test]
fn multipart_wire_format_of_a_small_form() {
    let mut form = FormData::new();
    form.append("field", "value");
    form.append_blob(
        "upload",
        file(b"\x00binary\xff", "photo.jpg", "image/jpeg", 0),
        None,
    );
    form.append_blob("untyped", Blob::from_bytes(&b"raw"[..], ""), None);
    form.append("empty", "");
    let payload = form.to_multipart_with_boundary("----formdata-0123456789abcdefghijklmn");
    let expected: &[u8] = b"------formdata-0123456789abcdefghijklmn\r\n\
Content-Disposition: form-data; name=\"field\"\r\n\
\r\n\
value\r\n\
------formdata-0123456789abcdefghijklmn\r\n\
Content-Disposition: form-data; name=\"upload\"; filename=\"photo.jpg\"\r\n\
Content-Type: image/jpeg\r\n\
\r\n\
\x00binary\xff\r\n\
------formdata-0123456789abcdefghijklmn\r\n\
Content-Disposition: form-data; name=\"untyped\"; filename=\"blob\"\r\n\
Content-Type: application/octet-stream\r\n\
\r\n\
raw\r\n\
------formdata-0123456789abcdefghijklmn\r\n\
Content-Disposition: form-data; name=\"empty\"\r\n\
\r\n\
\r\n\
------formdata-0123456789abcdefghijklmn--\r\n";
    assert_eq!(payload, expected);
}

#[test]
fn an_empty_form_is_only_the_closing_delimiter() {
    assert_eq!(
        FormData::new().to_multipart_with_boundary("b"),
        &b"--b--\r\n"[..]
    );
    let (payload, boundary) = FormData::new().to_multipart();
    assert_eq!(payload, format!("--{boundary}--\r\n").as_bytes());
    assert!(parse(&payload, &boundary).unwrap().is_empty());
}

#[test]
fn names_and_string_values_get_crlf_newlines() {
    let mut form = FormData::new();
    form.append("a\nb\rc\r\nd", "1\n2\r3\r\n4\n\r5");
    let payload = form.to_multipart_with_boundary("B");
    let expected: &[u8] = b"--B\r\n\
Content-Disposition: form-data; name=\"a%0D%0Ab%0D%0Ac%0D%0Ad\"\r\n\
\r\n\
1\r\n2\r\n3\r\n4\r\n\r\n5\r\n\
--B--\r\n";
    assert_eq!(payload, expected);
}

#[test]
fn names_and_filenames_escape_quotes_and_newlines_only() {
    let mut form = FormData::new();
    form.append_blob(
        "q\"u\\o%te;=",
        file(b"", "f\"i\rl\ne\r\n\\%0A;.txt", "", 0),
        None,
    );
    let payload = form.to_multipart_with_boundary("B");
    let expected: &[u8] = b"--B\r\n\
Content-Disposition: form-data; name=\"q%22u\\o%te;=\"; filename=\"f%22i%0Dl%0Ae%0D%0A\\%0A;.txt\"\r\n\
Content-Type: application/octet-stream\r\n\
\r\n\
\r\n\
--B--\r\n";
    assert_eq!(payload, expected);
}

#[test]
fn non_ascii_names_are_utf8() {
    let mut form = FormData::new();
    form.append("\u{e9}t\u{e9}", "\u{1F980}");
    form.append_blob("f", file(b"", "\u{65E5}\u{672C}.txt", "", 0), None);
    let payload = form.to_multipart_with_boundary("B");
    let text = String::from_utf8(payload.to_vec()).unwrap();
    assert!(text.contains("name=\"\u{e9}t\u{e9}\"\r\n\r\n\u{1F980}\r\n"));
    assert!(text.contains("filename=\"\u{65E5}\u{672C}.txt\"\r\n"));
}

#[test]
fn to_multipart_boundaries_are_fresh_and_valid() {
    let form: FormData = [("a", "1")].into_iter().collect();
    let (first_payload, first) = form.to_multipart();
    let (_, second) = form.to_multipart();
    assert_ne!(first, second);
    for boundary in [&first, &second] {
        assert!((27..=70).contains(&boundary.len()), "{boundary}");
        assert!(
            boundary
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"'-_".contains(&b))
        );
    }
    assert!(first_payload.starts_with(format!("--{first}\r\n").as_bytes()));
    assert!(first_payload.ends_with(format!("--{first}--\r\n").as_bytes()));
}

/// The UTF-8 cases of WPT's html/semantics/forms/form-submission-0/multipart-formdata.window.js
/// (its "formdata event" variant appends to a FormData as here): each is a name, a string or
/// a filename (of an empty `text/plain` file), and the expected name, filename and value on
/// the wire.
#[test]
fn multipart_escaping_matches_wpt() {
    /// (name, value, filename, expected name, expected filename, expected value)
    type Case<'a> = (
        &'a str,
        Option<&'a str>,
        Option<&'a str>,
        &'a str,
        Option<&'a str>,
        &'a str,
    );
    let cases: &[Case<'_>] = &[
        ("basic", Some("test"), None, "basic", None, "test"),
        (
            "basic",
            None,
            Some("file-test.txt"),
            "basic",
            Some("file-test.txt"),
            "",
        ),
        ("a\0b", Some("c"), None, "a\0b", None, "c"),
        ("a", Some("b\0c"), None, "a", None, "b\0c"),
        ("a", None, Some("b\0c"), "a", Some("b\0c"), ""),
        ("a\nb", Some("c"), None, "a%0D%0Ab", None, "c"),
        ("a\rb", Some("c"), None, "a%0D%0Ab", None, "c"),
        ("a\r\nb", Some("c"), None, "a%0D%0Ab", None, "c"),
        ("a\n\rb", Some("c"), None, "a%0D%0A%0D%0Ab", None, "c"),
        ("a", Some("b\nc"), None, "a", None, "b\r\nc"),
        ("a", Some("b\rc"), None, "a", None, "b\r\nc"),
        ("a", Some("b\r\nc"), None, "a", None, "b\r\nc"),
        ("a", Some("b\n\rc"), None, "a", None, "b\r\n\r\nc"),
        ("a", None, Some("b\nc"), "a", Some("b%0Ac"), ""),
        ("a", None, Some("b\rc"), "a", Some("b%0Dc"), ""),
        ("a", None, Some("b\r\nc"), "a", Some("b%0D%0Ac"), ""),
        ("a", None, Some("b\n\rc"), "a", Some("b%0A%0Dc"), ""),
        ("a\"b", Some("c"), None, "a%22b", None, "c"),
        ("a", Some("b\"c"), None, "a", None, "b\"c"),
        ("a", None, Some("b\"c"), "a", Some("b%22c"), ""),
        ("a'b", Some("c"), None, "a'b", None, "c"),
        ("a", Some("b'c"), None, "a", None, "b'c"),
        ("a", None, Some("b'c"), "a", Some("b'c"), ""),
        ("a\\b", Some("c"), None, "a\\b", None, "c"),
        ("a", Some("b\\c"), None, "a", None, "b\\c"),
        ("a", None, Some("b\\c"), "a", Some("b\\c"), ""),
        ("\u{e1}b", Some("\u{e7}"), None, "\u{e1}b", None, "\u{e7}"),
        ("a", None, Some("\u{259}.txt"), "a", Some("\u{259}.txt"), ""),
    ];
    for &(name, value, filename, expected_name, expected_filename, expected_value) in cases {
        let mut form = FormData::new();
        match (value, filename) {
            (Some(value), _) => form.append(name, value),
            (None, Some(filename)) => {
                form.append_blob(name, file(b"", filename, "text/plain", 0), None)
            }
            (None, None) => unreachable!(),
        }
        let boundary = "----formdata-wpt0123456789abcdef";
        let headers = match expected_filename {
            None => format!("Content-Disposition: form-data; name=\"{expected_name}\"\r\n"),
            Some(filename) => format!(
                "Content-Disposition: form-data; name=\"{expected_name}\"; filename=\"{filename}\"\r\n\
                 Content-Type: text/plain\r\n"
            ),
        };
        let expected =
            format!("--{boundary}\r\n{headers}\r\n{expected_value}\r\n--{boundary}--\r\n");
        assert_eq!(
            form.to_multipart_with_boundary(boundary),
            expected.as_bytes(),
            "name {name:?}, value {value:?}, filename {filename:?}"
        );
    }
}

// --- Round trips -----------------------------------------------------------------------

fn round_trip(form: &FormData) -> FormData {
    let (payload, boundary) = form.to_multipart();
    parse(&payload, &boundary)
        .unwrap_or_else(|error| panic!("{error}: {:?}", String::from_utf8_lossy(&payload)))
}

#[test]
fn round_trip_strings_and_files() {
    let all_bytes: Vec<u8> = (0..=255).collect();
    let mut form = FormData::new();
    form.append("plain", "value");
    form.append("", "empty name");
    form.append("empty value", "");
    form.append("crlf", "line 1\r\nline 2\r\n");
    form.append("\u{e9}t\u{e9} \u{1F980}", "\u{65E5}\u{672C}\u{8A9E}");
    form.append("quote\"d", "\"quoted\"");
    form.append("bom", "\u{FEFF}kept");
    form.append_blob(
        "binary",
        file(&all_bytes, "all.bin", "application/octet-stream", 0),
        None,
    );
    form.append_blob("empty", file(b"", "empty.txt", "text/plain", 0), None);
    form.append_blob(
        "quotes",
        file(b"q", "say \"hi\".txt", "text/plain", 0),
        None,
    );
    form.append_blob(
        "newlines",
        file(b"n", "a\rb\nc\r\n.txt", "text/plain", 0),
        None,
    );
    form.append_blob(
        "unicode",
        file(b"u", "\u{65E5}\u{672C} \u{1F980}.txt", "text/plain", 0),
        None,
    );
    form.append_blob("blob", Blob::from_bytes(&b"b"[..], "image/png"), None);
    form.append_blob("untyped", file(b"t", "t", "", 0), None);
    form.append_blob("", file(b"", "", "a/b;c=d", 0), None);
    form.append_blob(
        "tricky",
        file(
            b"--\r\n--boundary\r\n------formdata-\r\n\r\n--\r\r\n\n-",
            "tricky",
            "text/plain",
            0,
        ),
        None,
    );
    form.append("plain", "second value");

    let parsed = round_trip(&form);
    let mut expected = comparable(&form);
    // An empty type goes out as application/octet-stream and comes back as that.
    for (_, value) in &mut expected {
        if let Err((_, r#type, _)) = value {
            if r#type.is_empty() {
                *r#type = "application/octet-stream".into();
            }
        }
    }
    assert_eq!(comparable(&parsed), expected);
}

#[test]
fn round_trip_normalizes_lone_newlines_in_names_and_values() {
    let mut form = FormData::new();
    form.append("a\nb", "x\ry\nz");
    let parsed = round_trip(&form);
    assert_eq!(strings(&parsed), [("a\r\nb", "x\r\ny\r\nz")]);
}

#[test]
fn round_trip_of_a_large_file() {
    let contents: Vec<u8> = (0..1_000_000_u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut form = FormData::new();
    form.append_blob(
        "big",
        file(&contents, "big.bin", "application/x-big", 0),
        None,
    );
    let parsed = round_trip(&form);
    let big = parsed
        .get("big")
        .and_then(FormDataEntryValue::as_file)
        .unwrap();
    assert_eq!(big.bytes(), Bytes::from(contents));
}

// --- The multipart/form-data parser ----------------------------------------------------

#[test]
fn parsed_files_default_to_text_plain_and_now() {
    let body = b"--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n\r\nhello\r\n--B--\r\n";
    let before = now_millis();
    let form = parse(body, "B").unwrap();
    let after = now_millis();
    let f = form.get("f").and_then(FormDataEntryValue::as_file).unwrap();
    assert_eq!(
        (f.name(), f.r#type(), f.text().as_str()),
        ("a.txt", "text/plain", "hello")
    );
    assert!((before..=after).contains(&f.last_modified()));
}

#[test]
fn parsed_file_type_is_the_content_type_as_sent() {
    let body = b"--B\r\ncontent-type:   Text/HTML; charset=UTF-8 \t \r\nContent-Disposition: form-data; name=\"f\"; filename=\"\"\r\n\r\n<p>\r\n--B--\r\n";
    let form = parse(body, "B").unwrap();
    let f = form.get("f").and_then(FormDataEntryValue::as_file).unwrap();
    assert_eq!(f.name(), "");
    // Trailing whitespace is trimmed, nothing is lowercased.
    assert_eq!(f.r#type(), "Text/HTML; charset=UTF-8");
}

#[test]
fn parsed_file_with_a_non_ascii_content_type_is_untyped() {
    let body = b"--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x\"\r\nContent-Type: text/pl\xE0in\r\n\r\nx\r\n--B--\r\n";
    let form = parse(body, "B").unwrap();
    let f = form.get("f").and_then(FormDataEntryValue::as_file).unwrap();
    assert_eq!(f.r#type(), "");
}

#[test]
fn parsed_strings_are_utf8_decoded_without_bom_whatever_the_charset() {
    let body = b"--B\r\nContent-Disposition: form-data; name=\"s\"\r\nContent-Type: text/plain; charset=latin1\r\n\r\n\xEF\xBB\xBFcaf\xC3\xA9 \xE9\r\n--B--\r\n";
    let form = parse(body, "B").unwrap();
    assert_eq!(strings(&form), [("s", "\u{FEFF}caf\u{e9} \u{FFFD}")]);
}

#[test]
fn parser_accepts_header_name_whitespace_case_and_unknown_headers() {
    let body = b"--B\r\nX-Unknown: whatever \xFF\r\n CONTENT-DISPOSITION \t:form-data; name=\"a\"\r\nContent-Transfer-Encoding: 8bit\r\n\r\n1\r\n--B--\r\n";
    assert_eq!(strings(&parse(body, "B").unwrap()), [("a", "1")]);
}

#[test]
fn parser_unescapes_names_and_filenames() {
    let body = b"--B\r\nContent-Disposition: form-data; name=\"a%22b%0D%0Ac%0a\"; filename=\"%22%0A%0D%25\"\r\n\r\n\r\n--B--\r\n";
    let form = parse(body, "B").unwrap();
    let (name, value) = form.iter().next().unwrap();
    assert_eq!(name, "a\"b\r\nc%0a");
    assert_eq!(value.as_file().unwrap().name(), "\"\n\r%25");
}

#[test]
fn parser_takes_the_last_content_disposition() {
    let body = b"--B\r\nContent-Disposition: form-data; name=\"first\"; filename=\"f\"\r\nContent-Disposition: form-data; name=\"second\"\r\n\r\nv\r\n--B--\r\n";
    let form = parse(body, "B").unwrap();
    assert_eq!(strings(&form), [("second", "v")]);
}

#[test]
fn parser_accepts_a_closing_delimiter_without_crlf() {
    let body = b"--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B--";
    assert_eq!(strings(&parse(body, "B").unwrap()), [("a", "1")]);
}

#[test]
fn parser_ignores_a_preamble_and_an_epilogue() {
    // RFC 2046 §5.1.1: anything before the first delimiter line or after the last one.
    let body = b"preamble\r\n--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B--\r\nepilogue";
    assert_eq!(strings(&parse(body, "B").unwrap()), [("a", "1")]);
    assert!(parse(b"preamble\r\n--B--\r\n", "B").unwrap().is_empty());
}

#[test]
fn parser_keeps_boundary_text_not_preceded_by_crlf() {
    let body =
        b"--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx--B\n--B\r--B\r\n--B--\r\n";
    assert_eq!(
        strings(&parse(body, "B").unwrap()),
        [("a", "x--B\n--B\r--B")]
    );
}

#[test]
fn parser_keeps_empty_parts_and_repeated_names() {
    let body = b"--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n\r\n--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n2\r\n--B--\r\n";
    assert_eq!(strings(&parse(body, "B").unwrap()), [("a", ""), ("a", "2")]);
}

#[test]
fn parser_matches_a_non_ascii_boundary_as_utf8() {
    let body = "--\u{e9}\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--\u{e9}--\r\n";
    assert_eq!(
        strings(&parse(body.as_bytes(), "\u{e9}").unwrap()),
        [("a", "1")]
    );
}

#[test]
fn parser_failures_are_type_errors() {
    let cases: &[(&str, &[u8])] = &[
        ("empty body", b""),
        ("no closing delimiter", b"--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n"),
        ("body never ends", b"--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1"),
        ("truncated closing delimiter", b"--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B-"),
        ("boundary only inside a line", b"preamble --B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n"),
        ("wrong boundary", b"--C\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--C--\r\n"),
        ("no CRLF after the boundary", b"--B Content-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B--\r\n"),
        ("headers never end", b"--B\r\nContent-Disposition: form-data; name=\"a\"\r\n"),
        ("missing Content-Disposition", b"--B\r\nContent-Type: text/plain\r\n\r\n1\r\n--B--\r\n"),
        ("no headers", b"--B\r\n\r\n1\r\n--B--\r\n"),
        ("not form-data", b"--B\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\n1\r\n--B--\r\n"),
        ("unquoted name", b"--B\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--B--\r\n"),
        ("unterminated name", b"--B\r\nContent-Disposition: form-data; name=\"a\r\n\r\n1\r\n--B--\r\n"),
        ("unterminated filename", b"--B\r\nContent-Disposition: form-data; name=\"a\"; filename=\"f\r\n\r\n1\r\n--B--\r\n"),
        ("extra parameter", b"--B\r\nContent-Disposition: form-data; name=\"a\"; x=y\r\n\r\n1\r\n--B--\r\n"),
        ("header without colon", b"--B\r\nContent-Disposition form-data; name=\"a\"\r\n\r\n1\r\n--B--\r\n"),
        ("empty header name", b"--B\r\n: x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B--\r\n"),
        ("non-token header name", b"--B\r\nBad Name: x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B--\r\n"),
        ("bare LF header line", b"--B\r\nContent-Disposition: form-data; name=\"a\"\nX: y\r\n\r\n1\r\n--B--\r\n"),
        ("bare LF line endings", b"--B\nContent-Disposition: form-data; name=\"a\"\n\n1\n--B--\n"),
    ];
    for (what, body) in cases {
        match parse(body, "B") {
            Ok(form) => panic!("{what}: parsed as {form:?}"),
            Err(error) => assert_eq!(error.kind(), ErrorKind::TypeError, "{what}"),
        }
    }
}

// --- application/x-www-form-urlencoded -------------------------------------------------

#[test]
fn urlencoded_parse_decodes_pairs_in_order() {
    let form = FormData::from_urlencoded(b"a=1&b=two+words&a=%26%3D%25&&c&=v&d=&%E2%82%AC=%FF");
    assert_eq!(
        strings(&form),
        [
            ("a", "1"),
            ("b", "two words"),
            ("a", "&=%"),
            ("c", ""),
            ("", "v"),
            ("d", ""),
            ("\u{20AC}", "\u{FFFD}")
        ]
    );
}

#[test]
fn urlencoded_parse_of_nothing_is_empty() {
    assert!(FormData::from_urlencoded(b"").is_empty());
    assert!(FormData::from_urlencoded(b"&&&").is_empty());
}

// --- Properties --------------------------------------------------------------------------

fn boundary_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..8),
        proptest::collection::vec(
            prop_oneof![Just(b'-'), Just(b'\r'), Just(b'\n'), Just(b'B')],
            0..4
        ),
        Just(b"B".to_vec()),
    ]
}

fn body_strategy(boundary: Vec<u8>) -> impl Strategy<Value = (Vec<u8>, Vec<u8>)> {
    // Bodies built from pieces of well-formed payloads reach deeper into the parser than
    // uniform random bytes.
    let mut delimiter = b"--".to_vec();
    delimiter.extend_from_slice(&boundary);
    let piece = prop_oneof![
        Just(delimiter.clone()),
        Just(b"\r\n".to_vec()),
        Just(b"--".to_vec()),
        Just(b"Content-Disposition: form-data; name=\"".to_vec()),
        Just(b"\"; filename=\"".to_vec()),
        Just(b"Content-Type: ".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"%0".to_vec()),
        Just(b":".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..6),
    ];
    (
        Just(boundary),
        proptest::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat()),
    )
}

proptest! {
    #[test]
    fn multipart_parser_never_panics_on_random_bytes(
        body in proptest::collection::vec(any::<u8>(), 0..512),
        boundary in boundary_strategy(),
    ) {
        let boundary = String::from_utf8_lossy(&boundary).into_owned();
        if let Err(error) = FormData::from_multipart(&body, &boundary) {
            prop_assert_eq!(error.kind(), ErrorKind::TypeError);
        }
    }

    #[test]
    fn multipart_parser_never_panics_on_near_payloads(
        (boundary, body) in boundary_strategy().prop_flat_map(body_strategy),
    ) {
        let boundary = String::from_utf8_lossy(&boundary).into_owned();
        if let Err(error) = FormData::from_multipart(&body, &boundary) {
            prop_assert_eq!(error.kind(), ErrorKind::TypeError);
        }
    }

    #[test]
    fn multipart_round_trips_any_entries(
        entries in proptest::collection::vec(
            (
                "[^\r\n%]{0,12}",
                prop_oneof![
                    "[^\r\n]{0,24}".prop_map(Ok),
                    ("[^%]{0,12}", "[a-z]{0,8}(/[a-z0-9.+-]{1,8})?", proptest::collection::vec(any::<u8>(), 0..64))
                        .prop_map(Err),
                ],
            ),
            0..8,
        ),
    ) {
        let mut form = FormData::new();
        for (name, value) in &entries {
            match value {
                Ok(value) => form.append(name, value),
                Err((filename, r#type, bytes)) => form.append_blob(
                    name,
                    Blob::from_bytes(bytes.clone(), r#type),
                    Some(filename),
                ),
            }
        }
        let (payload, boundary) = form.to_multipart();
        let parsed = FormData::from_multipart(&payload, &boundary);
        prop_assert!(parsed.is_ok(), "{:?}", parsed);
        let parsed = parsed.unwrap();
        let mut expected = comparable(&form);
        for (_, value) in &mut expected {
            if let Err((_, r#type, _)) = value {
                if r#type.is_empty() {
                    *r#type = "application/octet-stream".into();
                }
            }
        }
        prop_assert_eq!(comparable(&parsed), expected);
    }
}

#[test]
fn every_way_of_reading_an_entry_gives_the_file_it_holds() {
    let mut form = FormData::new();
    let original = file(b"contents", "report.csv", "text/csv", 123);
    form.append("title", "Q3");
    form.append_blob("f", &original, None);
    form.append_blob("b", Blob::from_bytes(&b"abc"[..], ""), None);
    let held = FormDataEntryValue::File(original.clone());
    assert_eq!(form.get("f"), Some(&held));
    assert_eq!(form.get_all("f"), [&held]);
    let iterated: Vec<_> = form.iter().filter(|(name, _)| *name == "f").collect();
    assert_eq!(iterated, [("f", &held)]);
    // A Blob's entry holds one File, made when it was added: every read gives that
    // File, with the same last-modified time, however much later.
    let first = form.get("b").cloned();
    std::thread::sleep(std::time::Duration::from_millis(5));
    assert_eq!(form.get("b").cloned(), first);
    assert_eq!(form.get_all("b").first().copied().cloned(), first);
    let owned: Vec<_> = form.clone().into_iter().map(|(_, value)| value).collect();
    assert_eq!(
        owned,
        [FormDataEntryValue::from("Q3"), held, first.unwrap()]
    );
}
