#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| whatwg_fetch_fuzz::recording_file(data));
