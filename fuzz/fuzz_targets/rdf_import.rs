//! The RDF import path over untrusted bytes; the first byte picks the format
//! the way a file's extension does.
#![no_main]

use daemoniq::import::rdf;
use libfuzzer_sys::fuzz_target;

const EXTENSIONS: [&str; 5] = ["ttl", "nt", "nq", "trig", "rdf"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let ext = EXTENSIONS[usize::from(pick) % EXTENSIONS.len()];
    if let Some(format) = rdf::format_for_extension(ext) {
        let _ = rdf::parse(bytes, format);
    }
});
