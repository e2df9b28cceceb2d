//! A saved alternative-services cache (curl's alt-svc file format) through
//! `AltSvcCache::load`, and what `save` writes of it. The whole input is one file.
//!
//! Checked beyond "no panic": at most 1,000 origins are read; what `save` writes is
//! lines of at most 4,095 bytes, each read back as a record, and reading it back and
//! writing it again gives as many records.

use whatwg_fetch::net::AltSvcCache;

/// Loads `data` as an alt-svc cache file and checks what comes out.
pub fn alt_svc_file(data: &[u8]) {
    let cache = AltSvcCache::load(data).expect("reading from a slice does not fail");
    assert!(cache.len() <= 1_000, "{} origins", cache.len());
    let mut saved = Vec::new();
    cache
        .save(&mut saved)
        .expect("writing to a Vec does not fail");
    let text = String::from_utf8(saved).expect("saved as UTF-8");
    let records: Vec<&str> = text.lines().filter(|line| !line.starts_with('#')).collect();
    for record in &records {
        assert!(record.len() <= 4_095, "a line of {} bytes", record.len());
        assert_eq!(record.split(' ').count(), 10, "{record:?}");
    }
    let again = AltSvcCache::load(text.as_bytes()).expect("reading from a slice does not fail");
    assert_eq!(again.len(), cache.len(), "{text}");
    let mut resaved = Vec::new();
    again
        .save(&mut resaved)
        .expect("writing to a Vec does not fail");
    let resaved = String::from_utf8(resaved).expect("saved as UTF-8");
    let count = resaved
        .lines()
        .filter(|line| !line.starts_with('#'))
        .count();
    assert_eq!(count, records.len(), "{text}\n---\n{resaved}");
}
