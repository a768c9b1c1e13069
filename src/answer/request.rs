//! Step 1 of the pipeline: the request limits (docs/ARCHITECTURE.md § Request limits):
//! `query` 1–500 characters after trimming, `selected_text` 10–5000,
//! `top_k` 1–20 (default 5), `session_id` a UUID.

use super::{ChatRequest, RequestError};

const QUERY_MAX: usize = 500;
const SELECTED_MIN: usize = 10;
const SELECTED_MAX: usize = 5000;
const TOP_K_MAX: usize = 20;
const TOP_K_DEFAULT: usize = 5;

/// A request within its limits.
#[derive(Debug, Clone)]
pub struct Request {
    /// The question, trimmed.
    pub query: String,
    /// The selected text, trimmed.
    pub selected: Option<String>,
    /// Chunks to retrieve.
    pub top_k: usize,
    /// The client's session id.
    pub session_id: Option<String>,
}

fn invalid(field: &'static str, reason: String) -> RequestError {
    RequestError { field, reason }
}

/// Checks a request against the limits.
pub fn validate(req: ChatRequest) -> Result<Request, RequestError> {
    let query = req.query.trim().to_owned();
    let n = query.chars().count();
    if n == 0 || n > QUERY_MAX {
        return Err(invalid(
            "query",
            format!("must be 1-{QUERY_MAX} characters after trimming, got {n}"),
        ));
    }
    let selected = match req.selected_text {
        Some(t) => {
            let n = t.trim().chars().count();
            if !(SELECTED_MIN..=SELECTED_MAX).contains(&n) {
                return Err(invalid(
                    "selected_text",
                    format!("must be {SELECTED_MIN}-{SELECTED_MAX} characters, got {n}"),
                ));
            }
            Some(t.trim().to_owned())
        }
        None => None,
    };
    let top_k = req.top_k.unwrap_or(TOP_K_DEFAULT);
    if !(1..=TOP_K_MAX).contains(&top_k) {
        return Err(invalid(
            "top_k",
            format!("must be 1-{TOP_K_MAX}, got {top_k}"),
        ));
    }
    if let Some(s) = &req.session_id
        && uuid::Uuid::parse_str(s).is_err()
    {
        return Err(invalid("session_id", "must be a UUID".to_owned()));
    }
    Ok(Request {
        query,
        selected,
        top_k,
        session_id: req.session_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(query: &str) -> ChatRequest {
        ChatRequest {
            query: query.into(),
            ..ChatRequest::default()
        }
    }

    #[test]
    fn request_limits_of_seed_003() {
        assert!(validate(req("  what feeds VAV-2-14  ")).is_ok());
        assert!(validate(req("   ")).is_err());
        assert!(validate(req(&"x".repeat(501))).is_err());
        assert!(validate(req(&"x".repeat(500))).is_ok());
        let mut r = req("q");
        r.selected_text = Some("too short".into());
        assert!(validate(r).is_err());
        let mut r = req("q");
        r.top_k = Some(0);
        assert!(validate(r).is_err());
        let mut r = req("q");
        r.top_k = Some(21);
        assert!(validate(r).is_err());
        let mut r = req("q");
        r.session_id = Some("not-a-uuid".into());
        assert_eq!(validate(r).err().map(|e| e.field), Some("session_id"));
        let mut r = req("q");
        r.session_id = Some(uuid::Uuid::new_v4().to_string());
        assert!(validate(r).is_ok());
    }
}
