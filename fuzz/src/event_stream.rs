//! `event_stream`: the `text/event-stream` parser (HTML's "interpret the event stream").
//!
//! The input is the stream's bytes; its first byte picks the sizes the bytes are fed in
//! (1 to 16, cycling). Checked: the events, the last event ID and the reconnection time
//! are the same however the bytes are cut, and the same as a reference parser written
//! from the standard's prose over the whole stream decoded as UTF-8 at once (so decoding
//! line by line changes nothing); with a line limit of 64 bytes, a stream fails exactly
//! when a line (counted in bytes, BOM aside) is longer than that.

use std::time::Duration;

use whatwg_fetch::event_stream::{EventStreamLimits, EventStreamParser};

use crate::MAX_INPUT;

/// An event as (type, data, last event ID).
type Dispatched = (String, String, String);

/// What a parse gives: its events, last event ID, reconnection time, and whether it failed.
type Outcome = (Vec<Dispatched>, String, Option<Duration>, bool);

pub fn event_stream(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let whole = parse(data, &[data.len().max(1)], EventStreamLimits::default());
    let step = data.first().map_or(1, |b| usize::from(b % 16) + 1);
    let sizes: Vec<usize> = (0..16).map(|i| (step + i) % 16 + 1).collect();
    let cut = parse(data, &sizes, EventStreamLimits::default());
    assert_eq!(whole, cut, "cutting the stream changed what it parses to");
    assert_eq!(
        whole,
        reference(data),
        "the parser and the reference disagree"
    );

    let limits = EventStreamLimits::default().max_line_length(64);
    let limited = parse(data, &sizes, limits);
    let long_line = lines_in_bytes(data).any(|len| len > 64);
    assert_eq!(
        limited.3, long_line,
        "a line over the limit and the failure disagree"
    );
    if !long_line {
        assert_eq!(limited, whole);
    }
}

/// `data` fed in pieces of `sizes` (cycling), every event taken as it is ready.
fn parse(data: &[u8], sizes: &[usize], limits: EventStreamLimits) -> Outcome {
    let mut parser = EventStreamParser::with_limits(limits);
    let mut events = Vec::new();
    let mut rest = data;
    let mut failed = false;
    for &size in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, after) = rest.split_at(size.min(rest.len()));
        rest = after;
        if parser.feed(chunk).is_err() {
            failed = true;
            break;
        }
        loop {
            match parser.try_next_event() {
                Ok(Some(e)) => events.push((
                    e.r#type().to_owned(),
                    e.data().to_owned(),
                    e.last_event_id().to_owned(),
                )),
                Ok(None) => break,
                Err(_) => {
                    failed = true;
                    break;
                }
            }
        }
        if failed {
            break;
        }
    }
    parser.finish();
    (
        events,
        parser.last_event_id().to_owned(),
        parser.reconnection_time(),
        failed,
    )
}

/// The byte length of every line with an end, and of the last one without: a line that
/// has not ended yet counts against the limit too. The stream's leading BOM is no part of
/// its first line.
fn lines_in_bytes(data: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let mut lengths = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < data.len() {
        if data[i] == b'\r' || data[i] == b'\n' {
            lengths.push(i - start);
            if data[i] == b'\r' && data.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            start = i + 1;
        }
        i += 1;
    }
    lengths.push(data.len() - start);
    lengths.into_iter()
}

/// The standard's prose, over the whole stream decoded at once.
fn reference(data: &[u8]) -> Outcome {
    let text = String::from_utf8_lossy(data);
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let (mut data_buffer, mut event_type, mut id_buffer) =
        (String::new(), String::new(), String::new());
    let mut last_event_id = String::new();
    let mut retry = None;
    let mut events = Vec::new();
    let mut rest = text;
    // Only lines with an end are processed; what follows the last end is discarded.
    while let Some(end) = rest.find(['\r', '\n']) {
        let line = &rest[..end];
        let skip = if rest[end..].starts_with("\r\n") {
            2
        } else {
            1
        };
        rest = &rest[end + skip..];
        if line.is_empty() {
            last_event_id.clone_from(&id_buffer);
            if data_buffer.is_empty() {
                event_type.clear();
                continue;
            }
            if data_buffer.ends_with('\n') {
                data_buffer.pop();
            }
            let r#type = if event_type.is_empty() {
                "message".to_owned()
            } else {
                std::mem::take(&mut event_type)
            };
            events.push((
                r#type,
                std::mem::take(&mut data_buffer),
                last_event_id.clone(),
            ));
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => event_type = value.to_owned(),
            "data" => {
                data_buffer.push_str(value);
                data_buffer.push('\n');
            }
            "id" if !value.contains('\0') => id_buffer = value.to_owned(),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                retry = Some(Duration::from_millis(value.parse().unwrap_or(u64::MAX)));
            }
            _ => {}
        }
    }
    (events, last_event_id, retry, false)
}
