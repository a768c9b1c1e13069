//! Documents: `POST /ingest`, `GET /api/documents`,
//! `DELETE /api/documents/{source_id}`.

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::header::CONTENT_TYPE;
use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::SharedState;
use super::error::{ApiError, ApiResult, ErrorCode};
use crate::ingest::report::{IndexError, RunReport};
use crate::ingest::{DocOptions, DocService, DocumentInfo, Input};

/// Upload body limit when no document service is attached.
const UPLOAD_LIMIT_DEFAULT: usize = 200 << 20;

/// The body limit of `POST /ingest`: uploads may carry several documents;
/// each is checked against the per-document limit by the pipeline.
pub(super) fn upload_limit(docs: Option<&DocService>) -> usize {
    docs.map_or(UPLOAD_LIMIT_DEFAULT, |d| {
        usize::try_from(d.ingestor().settings().max_bytes.saturating_mul(4)).unwrap_or(usize::MAX)
    })
}

fn service(state: &SharedState) -> ApiResult<Arc<DocService>> {
    state.docs().ok_or_else(|| {
        ApiError::new(
            ErrorCode::IndexUnavailable,
            "this server runs without a document index (embedding model and vector index)",
        )
    })
}

/// The documents an index holds.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(super) struct DocumentsResponse {
    /// How many.
    count: usize,
    /// Each committed document.
    documents: Vec<DocumentInfo>,
}

const UNAVAILABLE: &str = "`INDEX_UNAVAILABLE` (the server runs without a document index, or the index cannot be reached) or `STORE_UNAVAILABLE`";

/// `GET /api/documents`: committed documents with chunk and point counts.
#[utoipa::path(
    get,
    path = "/api/documents",
    tag = "documents",
    responses(
        (status = 200, description = "The ingested documents", body = DocumentsResponse),
        (status = 503, description = UNAVAILABLE, body = crate::http::error::ApiError),
    )
)]
pub(super) async fn list(State(state): State<SharedState>) -> ApiResult<Json<DocumentsResponse>> {
    let docs = service(&state)?;
    let documents = docs.ingestor().documents().await?;
    Ok(Json(DocumentsResponse {
        count: documents.len(),
        documents,
    }))
}

/// A document deleted.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(super) struct DeleteResponse {
    /// The document's id.
    source_id: String,
    /// Always true: an unknown id is a 404.
    deleted: bool,
    /// Vector points removed.
    points_removed: usize,
}

/// `DELETE /api/documents/{source_id}`: removes graph nodes and points.
#[utoipa::path(
    delete,
    path = "/api/documents/{source_id}",
    tag = "documents",
    params(("source_id" = String, Path, description = "The document's id, as listed by `GET /api/documents` (hex digits)", pattern = "^[0-9a-fA-F]{1,64}$")),
    responses(
        (status = 200, description = "The document's points and graph nodes are gone", body = DeleteResponse),
        (status = 400, description = "`VALIDATION_FAILED`: `source_id` is not 1 to 64 hex digits", body = crate::http::error::ApiError),
        (status = 404, description = "`NOT_FOUND`: no document with that id", body = crate::http::error::ApiError),
        (status = 503, description = UNAVAILABLE, body = crate::http::error::ApiError),
    )
)]
pub(super) async fn delete(
    State(state): State<SharedState>,
    Path(source_id): Path<String>,
) -> ApiResult<Json<DeleteResponse>> {
    let docs = service(&state)?;
    if source_id.is_empty()
        || source_id.len() > 64
        || !source_id.chars().all(|c| c.is_ascii_hexdigit())
    {
        return Err(ApiError::invalid(format!(
            "{source_id:?} is not a source_id (16 hex digits, as listed by GET /api/documents)"
        )));
    }
    match docs.ingestor().delete(&source_id).await? {
        Some(points) => Ok(Json(DeleteResponse {
            source_id,
            deleted: true,
            points_removed: points,
        })),
        None => Err(ApiError::not_found(format!(
            "no document with source_id {source_id}"
        ))),
    }
}

/// JSON body of `POST /ingest`: paths under the docs root.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct IngestPaths {
    /// Files or directories, relative to `--docs-root` (absolute paths,
    /// `..` and symlinks out of the root are refused).
    paths: Vec<String>,
    /// Subject domain of the documents (default `hvac`).
    #[serde(default)]
    domain: Option<String>,
    /// Kind of document, e.g. `manual` (default: from the file).
    #[serde(default)]
    source_type: Option<String>,
    /// Version of the documents as given.
    #[serde(default)]
    doc_version: Option<String>,
}

/// The `multipart/form-data` body of `POST /ingest`, as [`from_multipart`]
/// reads it part by part (it is never deserialised whole): every part with
/// a file name is a document, stored as `uploads/<name>`.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct IngestUpload {
    /// One part per document, each with a file name.
    file: Vec<UploadedFile>,
    /// Subject domain of the documents (default `hvac`).
    domain: Option<String>,
    /// Kind of document, e.g. `manual`.
    source_type: Option<String>,
    /// Version of the documents as given.
    doc_version: Option<String>,
}

/// The bytes of one uploaded document.
#[derive(utoipa::ToSchema)]
#[schema(value_type = String, content_media_type = "application/octet-stream")]
#[allow(dead_code)]
struct UploadedFile(Vec<u8>);

/// What an ingest run did.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(super) struct IngestResponse {
    /// The run report (`index_metadata.json`).
    report: RunReport,
    /// The entries of `index_errors.json`.
    errors: Vec<IndexError>,
}

fn doc_options(
    domain: Option<String>,
    source_type: Option<String>,
    doc_version: Option<String>,
) -> DocOptions {
    let d = DocOptions::default();
    DocOptions {
        domain: domain.filter(|s| !s.trim().is_empty()).unwrap_or(d.domain),
        source_type: source_type.filter(|s| !s.trim().is_empty()),
        doc_version: doc_version
            .filter(|s| !s.trim().is_empty())
            .unwrap_or(d.doc_version),
    }
}

/// A safe relative name for an uploaded file: its last path component.
fn upload_ref(file_name: &str) -> Option<String> {
    let name = file_name.rsplit(['/', '\\']).next()?.trim();
    if name.is_empty() || name == "." || name == ".." || name.chars().any(char::is_control) {
        return None;
    }
    Some(format!("uploads/{name}"))
}

/// `POST /ingest`: `multipart/form-data` with one or more `file` parts (and
/// optional `domain`, `source_type`, `doc_version` parts), or JSON
/// `{"paths": [...]}` naming files or directories under the docs root.
#[utoipa::path(
    post,
    path = "/ingest",
    tag = "documents",
    request_body(content(
        (IngestUpload = "multipart/form-data"),
        (IngestPaths = "application/json"),
    )),
    responses(
        (status = 200, description = "The run report; a document that failed is in `errors` and the report, not a failed request", body = IngestResponse),
        (status = 400, description = "`VALIDATION_FAILED`: no documents, a malformed body, an unusable file name, or paths outside the docs root (`details.refused`)", body = crate::http::error::ApiError),
        (status = 413, description = "`PAYLOAD_TOO_LARGE`: the body is over the upload limit", body = crate::http::error::ApiError),
        (status = 415, description = "`UNSUPPORTED_MEDIA_TYPE`: neither `multipart/form-data` nor `application/json`", body = crate::http::error::ApiError),
        (status = 500, description = "`EMBEDDING_FAILED` or `INTERNAL`", body = crate::http::error::ApiError),
        (status = 503, description = UNAVAILABLE, body = crate::http::error::ApiError),
    )
)]
pub(super) async fn ingest(
    State(state): State<SharedState>,
    req: Request,
) -> ApiResult<Json<IngestResponse>> {
    let docs = service(&state)?;
    let content_type = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let (inputs, opts) = if content_type.starts_with("multipart/form-data") {
        from_multipart(req).await?
    } else if content_type.starts_with("application/json") {
        from_paths(&docs, req).await?
    } else {
        return Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!(
                "POST /ingest takes multipart/form-data (file uploads) or application/json \
                 ({{\"paths\": [...]}}), not {content_type:?}"
            ),
        ));
    };
    if inputs.is_empty() {
        return Err(ApiError::invalid("no documents given"));
    }
    let grounder = state.grounder();
    let report = docs.ingest(&grounder, inputs, &opts, &|_| {}).await?;
    state.metrics.ingested(&report.counts);
    Ok(Json(IngestResponse {
        errors: report.errors.clone(),
        report,
    }))
}

async fn from_paths(docs: &DocService, req: Request) -> ApiResult<(Vec<Input>, DocOptions)> {
    let bytes = super::body(
        axum::body::Bytes::from_request(req, &()).await,
        upload_limit(Some(docs)),
    )?;
    let body: IngestPaths = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::invalid(format!("invalid JSON body: {e}")))?;
    let mut resolved = Vec::new();
    let mut refused = Vec::new();
    for p in &body.paths {
        match docs.resolve(p) {
            Ok(path) => resolved.push(path),
            Err(e) => refused.push(json!({"path": p, "reason": e.to_string()})),
        }
    }
    if !refused.is_empty() {
        return Err(
            ApiError::invalid("paths must be relative and inside the docs root")
                .with_details(json!({ "refused": refused })),
        );
    }
    let files = docs
        .collect(&resolved)
        .map_err(|e| ApiError::invalid(format!("cannot list the given paths: {e}")))?;
    Ok((
        docs.inputs(&files),
        doc_options(body.domain, body.source_type, body.doc_version),
    ))
}

async fn from_multipart(req: Request) -> ApiResult<(Vec<Input>, DocOptions)> {
    let mut multipart = Multipart::from_request(req, &())
        .await
        .map_err(|e| ApiError::invalid(format!("invalid multipart body: {}", e.body_text())))?;
    let (mut domain, mut source_type, mut doc_version) = (None, None, None);
    let mut inputs = Vec::new();
    let multipart_err = |e: axum::extract::multipart::MultipartError| {
        if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(ErrorCode::PayloadTooLarge, e.body_text())
        } else {
            ApiError::invalid(format!("invalid multipart body: {}", e.body_text()))
        }
    };
    while let Some(field) = multipart.next_field().await.map_err(multipart_err)? {
        let name = field.name().unwrap_or("").to_owned();
        match (name.as_str(), field.file_name().map(str::to_owned)) {
            (_, Some(file_name)) => {
                let Some(source_ref) = upload_ref(&file_name) else {
                    return Err(ApiError::invalid(format!(
                        "unusable upload file name {file_name:?}"
                    )));
                };
                let bytes = field.bytes().await.map_err(multipart_err)?;
                inputs.push(Input {
                    source_ref,
                    bytes: Ok(bytes.to_vec()),
                    updated_at: Utc::now(),
                });
            }
            ("domain", None) => domain = Some(field.text().await.map_err(multipart_err)?),
            ("source_type", None) => {
                source_type = Some(field.text().await.map_err(multipart_err)?);
            }
            ("doc_version", None) => {
                doc_version = Some(field.text().await.map_err(multipart_err)?);
            }
            (other, None) => {
                return Err(ApiError::invalid(format!(
                    "unknown multipart field {other:?}; send files (with a filename) and \
                     optionally domain, source_type, doc_version"
                )));
            }
        }
    }
    Ok((inputs, doc_options(domain, source_type, doc_version)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_names_lose_their_directories() {
        assert_eq!(upload_ref("a.pdf").as_deref(), Some("uploads/a.pdf"));
        assert_eq!(
            upload_ref("../../etc/passwd").as_deref(),
            Some("uploads/passwd")
        );
        assert_eq!(upload_ref("C:\\x\\y.md").as_deref(), Some("uploads/y.md"));
        assert_eq!(upload_ref(".."), None);
        assert_eq!(upload_ref(""), None);
    }
}
