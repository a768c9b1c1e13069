//! PDF text extraction (lopdf) over untrusted bytes: any input gives text
//! or an error, never a panic, a hang or unbounded memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let _ = daemoniq::ingest::extract(Path::new("fuzz.pdf"), data);
});
