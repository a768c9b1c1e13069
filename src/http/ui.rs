//! The web UI's files: the project's own (`ui/`, compiled into the binary,
//! or read from `--ui-dir` while working on them) under `/ui/`, and the
//! third-party browser libraries from the asset cache under `/ui/vendor/`.
//! `/` redirects to `/ui/`. These routes need no key (the API calls the page
//! makes do) and are not API operations, so the OpenAPI document leaves
//! them out.

use super::SharedState;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use rust_embed::RustEmbed;
use sha2::{Digest, Sha256};
use std::path::{Component, Path as FsPath};
use tower_http::compression::CompressionLayer;

/// The project's own UI files.
#[derive(RustEmbed)]
#[folder = "ui/"]
struct OwnFiles;

/// The third-party files `scripts/setup.sh` puts in the asset cache's
/// `ui-vendor/`; nothing else there is served.
pub const VENDOR_FILES: [&str; 4] = [
    "cytoscape.min.js",
    "cytoscape-dagre.js",
    "yasqe.min.js",
    "yasqe.min.css",
];

/// Scripts from this server only, no inline script, no other origin;
/// inline styles are allowed because the editor and the drawing library
/// set them.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
     font-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; \
     form-action 'self'";

/// The UI routes.
pub fn router() -> Router<SharedState> {
    Router::new()
        .route("/", get(|| async { Redirect::to("/ui/") }))
        .route("/ui", get(|| async { Redirect::to("/ui/") }))
        .route("/ui/", get(index))
        .route("/ui/vendor/{file}", get(vendor))
        .route("/ui/{*path}", get(own))
        .layer(CompressionLayer::new())
}

/// The vendor files missing from `dir` (all of them when there is none).
pub fn missing_vendor_files(dir: Option<&FsPath>) -> Vec<&'static str> {
    VENDOR_FILES
        .into_iter()
        .filter(|f| !dir.is_some_and(|d| d.join(f).is_file()))
        .collect()
}

async fn index(State(state): State<SharedState>, headers: HeaderMap) -> Response {
    own_file(&state, "index.html", &headers).await
}

async fn own(
    State(state): State<SharedState>,
    Path(path): Path<String>,
    headers: HeaderMap,
) -> Response {
    own_file(&state, &path, &headers).await
}

/// A relative path with no `..`, root or prefix: one that stays inside the
/// directory it is joined to.
fn is_plain_relative(path: &str) -> bool {
    !path.is_empty()
        && FsPath::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

async fn own_file(state: &SharedState, path: &str, headers: &HeaderMap) -> Response {
    if !is_plain_relative(path) {
        return not_found(path);
    }
    let bytes = match &state.http.ui_dir {
        Some(dir) => tokio::fs::read(dir.join(path)).await.ok(),
        None => OwnFiles::get(path).map(|f| f.data.into_owned()),
    };
    match bytes {
        Some(bytes) => file_response(path, bytes, headers),
        None => not_found(path),
    }
}

async fn vendor(
    State(state): State<SharedState>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(name) = VENDOR_FILES.into_iter().find(|f| *f == file) else {
        return not_found(&format!("vendor/{file}"));
    };
    let bytes = match &state.http.ui_vendor_dir {
        Some(dir) => tokio::fs::read(dir.join(name)).await.ok(),
        None => None,
    };
    match bytes {
        Some(bytes) => file_response(name, bytes, &headers),
        None => (
            StatusCode::NOT_FOUND,
            security_headers(),
            format!(
                "{name} is not installed: run `bash scripts/setup.sh` to fetch the web UI's libraries"
            ),
        )
            .into_response(),
    }
}

fn not_found(path: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        security_headers(),
        format!("no UI file {path:?}"),
    )
        .into_response()
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn security_headers() -> [(header::HeaderName, HeaderValue); 4] {
    [
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        (
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ),
        (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
    ]
}

/// The file with its type, an ETag (its sha256) and the security headers;
/// 304 when the browser already has it. Browsers revalidate every time
/// (`no-cache`), so a new build is picked up at once.
fn file_response(path: &str, bytes: Vec<u8>, headers: &HeaderMap) -> Response {
    let etag = format!("\"{}\"", hex::encode(&Sha256::digest(&bytes)[..16]));
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    let etag = HeaderValue::from_str(&etag).expect("hex is a valid header value");
    let common = (
        security_headers(),
        [
            (header::ETAG, etag),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
    );
    if fresh {
        return (StatusCode::NOT_MODIFIED, common).into_response();
    }
    (
        common,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(content_type(path)),
        )],
        bytes,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_paths_are_served() {
        assert!(is_plain_relative("index.html"));
        assert!(is_plain_relative("js/app.js"));
        assert!(!is_plain_relative("../Cargo.toml"));
        assert!(!is_plain_relative("js/../../x"));
        assert!(!is_plain_relative("/etc/passwd"));
        assert!(!is_plain_relative(""));
    }

    #[test]
    fn the_index_is_compiled_in() {
        let index = OwnFiles::get("index.html").expect("ui/index.html is embedded");
        let text = String::from_utf8_lossy(&index.data);
        assert!(text.contains("<script"), "{text}");
        assert!(
            !text.contains("<script>"),
            "no inline script: the CSP would block it"
        );
    }
}
