//! `/sparql` request decoding over untrusted parts: the URL query string,
//! the content type and the body, then the shape check that parses the
//! query. The first byte picks GET or a POST content type; the rest is
//! split at the first newline into query string and body.
#![no_main]

use daemoniq::http::sparql;
use libfuzzer_sys::fuzz_target;

const CONTENT_TYPES: [Option<&str>; 5] = [
    None,
    Some("application/x-www-form-urlencoded"),
    Some("application/sparql-query"),
    Some("application/sparql-update; charset=utf-8"),
    Some("text/plain"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (raw, body) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let post = CONTENT_TYPES[usize::from(pick) % CONTENT_TYPES.len()].map(|ct| (ct, body));
    let _ = sparql::decode(raw, post);
});
