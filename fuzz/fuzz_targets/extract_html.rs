//! HTML text extraction (scraper) over untrusted bytes, UTF-8 decoding
//! included.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let _ = daemoniq::ingest::extract(Path::new("fuzz.html"), data);
});
