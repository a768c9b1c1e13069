//! `GET /openapi.json`: the OpenAPI 3.1 document of the HTTP API, generated
//! from the code — the handlers' `#[utoipa::path]` attributes and the wire
//! types' `ToSchema` derives — and finished from the code that decides the
//! rest:
//!
//! - the contracts in `schemas/` (the error body, the answer, the chunk
//!   payload) replace the schemas derived for the types they govern, their
//!   `$defs` becoming components, so the document cannot drift from them
//!   (and a test checks that the types and the contracts name the same
//!   properties);
//! - a property serde flattens into a struct is merged into that struct's
//!   schema, and every object the server writes is closed
//!   (`additionalProperties: false`): a property the document does not name
//!   is drift;
//! - the guard's refusals per operation, from the guard's own rules
//!   ([`guard::access`], [`guard::limited_group`], [`guard::pooled`]):
//!   security and 401 `UNAUTHORIZED` / 403 `FORBIDDEN` when keys are set,
//!   429 `RATE_LIMIT_EXCEEDED` when a rate limit is, 503 `OVERLOADED` with
//!   `Retry-After`; 500 `INTERNAL` everywhere (a handler that panics,
//!   [`super::catch_panic`]); `x-request-id` on every response.
//!
//! The document describes the server as configured (keys, rate limit,
//! `--metrics-public`), and is built once per configuration.

use super::SharedState;
use super::error::{ApiError, ErrorCode};
use super::guard::{self, Access};
use crate::config::HttpConfig;
use axum::extract::State;
use axum::http::{Method, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use std::sync::OnceLock;
use utoipa::OpenApi;

/// The contracts in `schemas/` and the component each one is.
const CONTRACTS: [(&str, &str); 3] = [
    ("ApiError", include_str!("../../schemas/error.schema.json")),
    ("Answer", crate::answer::contract::SCHEMA_TEXT),
    (
        "ChunkPayload",
        include_str!("../../schemas/chunk_payload.schema.json"),
    ),
];

/// Schemas left open: `/sparql` ignores form fields it does not know, as
/// the SPARQL 1.1 Protocol lets it.
const OPEN: [&str; 1] = ["SparqlForm"];

#[derive(OpenApi)]
#[openapi(
    info(
        title = "DaemonIQ",
        description = "Knowledge-graph-first GraphRAG server for building automation: SPARQL, the Brick / Haystack / Yorkland schema, the equipment topology, documents, grounding and answers. Every error body is `schemas/error.schema.json`."
    ),
    paths(
        super::health::health,
        serve,
        super::sparql::get_query,
        super::sparql::post_query,
        super::schema::classes,
        super::schema::class,
        super::schema::tags,
        super::topology::node,
        super::topology::upstream,
        super::topology::downstream,
        super::topology::subgraph,
        super::explore::search,
        super::explore::node_card,
        super::explore::ui_config,
        super::documents::ingest,
        super::documents::list,
        super::documents::delete,
        super::ground::ground,
        super::chat::chat,
        super::chat::retrieve,
        super::metrics::metrics,
    ),
    components(schemas(ApiError)),
    tags(
        (name = "service", description = "Liveness, metrics, this document"),
        (name = "sparql", description = "The SPARQL 1.1 Protocol query operation, read-only"),
        (name = "schema", description = "The class hierarchy and the Haystack tags"),
        (name = "topology", description = "Equipment nodes, what feeds what"),
        (name = "explore", description = "Search, node cards and what the web UI needs"),
        (name = "documents", description = "Ingest, list and delete documents"),
        (name = "answers", description = "Grounding, retrieval and answers"),
    )
)]
struct ApiDoc;

/// The form-encoded body of `POST /sparql`, as `sparql::decode` reads it
/// pair by pair (it is never deserialised whole).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct SparqlForm {
    /// The SPARQL query.
    #[schema(
        example = "SELECT ?s ?label WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label } LIMIT 5"
    )]
    query: String,
    /// A graph of the default graph (repeatable).
    #[schema(rename = "default-graph-uri")]
    default_graph_uri: Option<Vec<String>>,
    /// A named graph of the dataset (repeatable).
    #[schema(rename = "named-graph-uri")]
    named_graph_uri: Option<Vec<String>>,
}

/// SPARQL 1.1 Query Results JSON, as Oxigraph writes it: `head` with
/// `results` (SELECT) or `boolean` (ASK).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct SparqlJsonResults {
    /// `vars`, the projected variables (SELECT), and `link`.
    #[schema(value_type = Object)]
    head: (),
    /// `bindings`: one object per solution (SELECT).
    #[schema(value_type = Option<Object>)]
    results: (),
    /// The answer (ASK).
    boolean: Option<bool>,
}

/// This document.
#[utoipa::path(
    get,
    path = "/openapi.json",
    tag = "service",
    operation_id = "openapi",
    responses(
        (status = 200, description = "The OpenAPI 3.1 document of this server as configured", body = Object, content_type = "application/json"),
    )
)]
pub(super) async fn serve(State(state): State<SharedState>) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        json_text(&state.http),
    )
        .into_response()
}

/// What of the configuration the document depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// `--api-key` is set: every route but the public ones needs a key.
    pub keys: bool,
    /// `--rate-limit-rps` is above 0.
    pub rate_limited: bool,
    /// `--metrics-public`.
    pub metrics_public: bool,
}

impl Options {
    /// The options of a server configured by `http`.
    pub fn of(http: &HttpConfig) -> Self {
        Self {
            keys: http.api_key.is_some(),
            rate_limited: http.rate_limit_rps > 0.0,
            metrics_public: http.metrics_public,
        }
    }

    fn index(self) -> usize {
        usize::from(self.keys)
            | usize::from(self.rate_limited) << 1
            | usize::from(self.metrics_public) << 2
    }
}

/// The document for a server configured by `http`, as JSON text (built
/// once per configuration).
pub fn json_text(http: &HttpConfig) -> &'static str {
    static BUILT: [OnceLock<String>; 8] = [const { OnceLock::new() }; 8];
    let options = Options::of(http);
    BUILT[options.index()].get_or_init(|| document(options).to_string())
}

/// The document for a server with `options`.
pub fn document(options: Options) -> Value {
    let mut doc =
        serde_json::to_value(ApiDoc::openapi()).expect("utoipa's OpenApi serialises to JSON");
    let schemas = doc["components"]["schemas"]
        .as_object_mut()
        .expect("the derived document has component schemas");
    flatten(schemas);
    for (name, schema) in schemas.iter_mut() {
        if !OPEN.contains(&name.as_str()) {
            close(schema);
        }
    }
    for (name, text) in CONTRACTS {
        for (key, schema) in contract(name, text) {
            let replaced = schemas.insert(key.clone(), schema);
            assert!(
                key == name || replaced.is_none(),
                "a $defs entry of the {name} contract is named like a derived schema: {key}"
            );
        }
    }
    refusals(&mut doc, options);
    prune(&mut doc);
    doc
}

/// A contract from `schemas/` as components: the schema under `name`, each
/// of its `$defs` (or draft-07 `definitions`) under its own name, the refs
/// between them pointed at the components.
fn contract(name: &str, text: &str) -> Vec<(String, Value)> {
    let mut schema: Value = serde_json::from_str(text).expect("the contracts in schemas/ are JSON");
    let root = schema
        .as_object_mut()
        .expect("a contract in schemas/ is a JSON object");
    // `$id` would change the base the refs resolve against; `$schema` is
    // the document's (`jsonSchemaDialect`, 2020-12 by default in 3.1).
    root.remove("$id");
    root.remove("$schema");
    let mut defs = Map::new();
    for keyword in ["$defs", "definitions"] {
        if let Some(Value::Object(d)) = root.remove(keyword) {
            defs.extend(d);
        }
    }
    let mut out = vec![(name.to_owned(), schema)];
    out.extend(defs);
    for (_, schema) in &mut out {
        rewrite_refs(schema, name);
    }
    out
}

/// Points a contract's internal refs (`#`, `#/$defs/X`,
/// `#/definitions/X`) at the components.
fn rewrite_refs(value: &mut Value, root: &str) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get_mut("$ref") {
                let target = match r.as_str() {
                    "#" => Some(root),
                    other => other
                        .strip_prefix("#/$defs/")
                        .or_else(|| other.strip_prefix("#/definitions/")),
                };
                if let Some(target) = target {
                    *r = format!("#/components/schemas/{target}");
                }
            }
            map.values_mut().for_each(|v| rewrite_refs(v, root));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite_refs(v, root)),
        _ => {}
    }
}

/// Merges each `allOf` of objects (utoipa's rendering of `#[serde(flatten)]`)
/// into one object, as serde writes it, so that it can be closed.
fn flatten(schemas: &mut Map<String, Value>) {
    let names: Vec<String> = schemas.keys().cloned().collect();
    for name in names {
        let Some(Value::Array(parts)) = schemas[&name].get("allOf").cloned() else {
            continue;
        };
        let mut properties = Map::new();
        let mut required = Vec::new();
        for part in &parts {
            let part = match part.get("$ref").and_then(Value::as_str) {
                Some(r) => &schemas[r.trim_start_matches("#/components/schemas/")],
                None => part,
            };
            assert_eq!(
                part.get("type").and_then(Value::as_str),
                Some("object"),
                "{name} flattens a part that is not an object"
            );
            if let Some(Value::Object(p)) = part.get("properties") {
                properties.extend(p.clone());
            }
            if let Some(Value::Array(r)) = part.get("required") {
                required.extend(r.iter().cloned());
            }
        }
        let schema = schemas[&name]
            .as_object_mut()
            .expect("a component schema is an object");
        schema.remove("allOf");
        schema.insert("type".into(), json!("object"));
        schema.insert("required".into(), Value::Array(required));
        schema.insert("properties".into(), Value::Object(properties));
    }
}

/// Closes every object schema with named properties: the server writes
/// exactly the fields of its types, and takes exactly those it reads
/// (`deny_unknown_fields`).
fn close(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if map.contains_key("properties") && !map.contains_key("additionalProperties") {
        map.insert("additionalProperties".into(), Value::Bool(false));
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties.values_mut().for_each(close);
    }
    for keyword in ["items", "additionalProperties"] {
        if let Some(inner) = map.get_mut(keyword) {
            close(inner);
        }
    }
    for keyword in ["oneOf", "anyOf", "allOf"] {
        if let Some(Value::Array(parts)) = map.get_mut(keyword) {
            parts.iter_mut().for_each(close);
        }
    }
}

/// Drops the components nothing refers to (the schemas derived for the
/// types a contract replaced).
fn prune(doc: &mut Value) {
    let mut reachable = std::collections::BTreeSet::new();
    let mut pending = Vec::new();
    refs(&doc["paths"], &mut pending);
    while let Some(name) = pending.pop() {
        if reachable.insert(name.clone()) {
            refs(&doc["components"]["schemas"][&name], &mut pending);
        }
    }
    if let Some(Value::Object(schemas)) = doc["components"].get_mut("schemas") {
        schemas.retain(|name, _| reachable.contains(name));
    }
}

/// The component schemas `value` refers to.
fn refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                out.push(name.to_owned());
            }
            map.values().for_each(|v| refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

/// The error body's schema, by reference.
fn error_body() -> Value {
    json!({ "$ref": "#/components/schemas/ApiError" })
}

/// Adds what the guard and the layers around the routes answer to every
/// operation: security and the refusals of the guard, 500 for a handler
/// that panicked, `x-request-id` on every response, `Retry-After` on every
/// 429 (and on a 503 that may pass on a retry).
fn refusals(doc: &mut Value, options: Options) {
    doc["components"]["headers"] = json!({
        "RequestId": {
            "description": "The request's id: the client's own when it sent a plain one (letters, digits, `-_.:`, at most 128 characters), else a new UUID",
            "required": true,
            "schema": { "type": "string", "minLength": 1, "maxLength": 128 }
        },
        "RetryAfter": {
            "description": "Seconds after which a retry may succeed",
            "required": true,
            "schema": { "type": "integer", "minimum": 0 }
        },
        "RetryAfterWhenRetryable": {
            "description": "Seconds after which a retry may succeed, when one may (an overloaded server, a store or index that was down, a query that timed out; not a server that runs without a document index)",
            "required": false,
            "schema": { "type": "integer", "minimum": 0 }
        },
        "WwwAuthenticate": {
            "description": "`Bearer`",
            "required": true,
            "schema": { "type": "string", "const": "Bearer" }
        }
    });
    if options.keys {
        doc["components"]["securitySchemes"] = json!({
            "bearer": {
                "type": "http",
                "scheme": "bearer",
                "description": "`Authorization: Bearer KEY`: `--api-key` opens every route, `--read-only-api-key` every read"
            },
            "api_key": {
                "type": "apiKey",
                "in": "header",
                "name": "api-key",
                "description": "`api-key: KEY`, the same keys as `bearer`"
            }
        });
    }
    let Some(Value::Object(paths)) = doc.get_mut("paths") else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Value::Object(item) = item else { continue };
        for (method, operation) in item.iter_mut() {
            let Ok(method) = method.to_ascii_uppercase().parse::<Method>() else {
                continue;
            };
            refuse(operation, &method, path, options);
        }
    }
}

/// One operation's share of [`refusals`].
fn refuse(operation: &mut Value, method: &Method, path: &str, options: Options) {
    let access = guard::access(method, path, options.metrics_public);
    if options.keys && access != Access::Public {
        operation["security"] = json!([{ "bearer": [] }, { "api_key": [] }]);
        add_error(
            operation,
            ErrorCode::Unauthorized,
            "`UNAUTHORIZED`: no API key, or one this server does not know",
        );
        if access == Access::Write {
            add_error(
                operation,
                ErrorCode::Forbidden,
                "`FORBIDDEN`: the read-only key cannot write; use the full key",
            );
        }
    }
    if options.rate_limited && guard::limited_group(path).is_some() {
        add_error(
            operation,
            ErrorCode::RateLimitExceeded,
            "`RATE_LIMIT_EXCEEDED`: over `--rate-limit-rps` for this client and route; `retry_after` says when to try again",
        );
    }
    if guard::pooled(path).is_some() {
        add_error(
            operation,
            ErrorCode::Overloaded,
            "`OVERLOADED`: too much work queued; shed at once",
        );
    }
    add_error(
        operation,
        ErrorCode::Internal,
        "`INTERNAL`: a handler failed (the detail is in the server log)",
    );
    let Some(Value::Object(responses)) = operation.get_mut("responses") else {
        return;
    };
    for (status, response) in responses.iter_mut() {
        let headers = response
            .as_object_mut()
            .expect("a response is an object")
            .entry("headers")
            .or_insert_with(|| json!({}));
        headers["x-request-id"] = json!({ "$ref": "#/components/headers/RequestId" });
        match status.as_str() {
            "429" => headers["retry-after"] = json!({ "$ref": "#/components/headers/RetryAfter" }),
            "503" => {
                headers["retry-after"] =
                    json!({ "$ref": "#/components/headers/RetryAfterWhenRetryable" });
            }
            _ => {}
        }
        if status == "401" {
            headers["www-authenticate"] = json!({ "$ref": "#/components/headers/WwwAuthenticate" });
        }
    }
}

/// Adds the error body `code` answers with to an operation's responses: a
/// new response, or the error body beside the body the status already
/// has (`oneOf`), the description extended.
fn add_error(operation: &mut Value, code: ErrorCode, description: &str) {
    let status = code.status().as_u16().to_string();
    let responses = operation
        .as_object_mut()
        .expect("an operation is an object")
        .entry("responses")
        .or_insert_with(|| json!({}));
    let Some(existing) = responses.get_mut(&status) else {
        responses[&status] = json!({
            "description": description,
            "content": { "application/json": { "schema": error_body() } }
        });
        return;
    };
    let text = existing["description"].as_str().unwrap_or_default();
    existing["description"] = json!(format!("{text}; or {description}"));
    let schema = &mut existing["content"]["application/json"]["schema"];
    if schema.is_null() {
        *schema = error_body();
    } else if *schema != error_body()
        && !schema["oneOf"]
            .as_array()
            .is_some_and(|o| o.contains(&error_body()))
    {
        *schema = json!({ "oneOf": [schema.take(), error_body()] });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A property's schema, through arrays and nullable `oneOf`s, its ref
    /// followed in `components`.
    fn follow<'a>(components: &'a Value, schema: &'a Value) -> &'a Value {
        if let Some(items) = schema.get("items") {
            return follow(components, items);
        }
        if let Some(Value::Array(parts)) = schema.get("oneOf")
            && let [a, b] = parts.as_slice()
            && (a["type"] == "null" || b["type"] == "null")
        {
            return follow(components, if a["type"] == "null" { b } else { a });
        }
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
        {
            Some(name) => follow(components, &components[name]),
            None => schema,
        }
    }

    /// Asserts that a derived schema and a contract name the same
    /// properties, at every level where both describe objects.
    fn same_properties(derived: (&Value, &Value), contract: (&Value, &Value), at: &str) {
        let d = follow(derived.0, derived.1);
        let c = follow(contract.0, contract.1);
        let (Some(dp), Some(cp)) = (
            d.get("properties").and_then(Value::as_object),
            c.get("properties").and_then(Value::as_object),
        ) else {
            return;
        };
        let names = |m: &Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
        let (mut dn, mut cn) = (names(dp), names(cp));
        dn.sort();
        cn.sort();
        assert_eq!(
            dn, cn,
            "{at}: the type and the contract name other properties"
        );
        for name in dn {
            same_properties(
                (derived.0, &dp[&name]),
                (contract.0, &cp[&name]),
                &format!("{at}.{name}"),
            );
        }
    }

    #[test]
    fn the_types_a_contract_replaces_name_its_properties() {
        let derived = serde_json::to_value(ApiDoc::openapi()).unwrap();
        let derived = &derived["components"]["schemas"];
        for (name, text) in CONTRACTS {
            let contract = Value::Object(contract(name, text).into_iter().collect());
            assert!(derived[name].is_object(), "{name} is not derived");
            same_properties(
                (derived, &derived[name]),
                (&contract, &contract[name]),
                name,
            );
        }
    }

    #[test]
    fn a_contract_becomes_components_with_its_refs_rewritten() {
        let parts = contract("Answer", crate::answer::contract::SCHEMA_TEXT);
        let names: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Answer", "evidenceItem"]);
        let answer = &parts[0].1;
        assert!(answer.get("definitions").is_none() && answer.get("$schema").is_none());
        assert_eq!(
            answer["properties"]["evidence"]["items"]["$ref"],
            "#/components/schemas/evidenceItem"
        );
        let mut recursive = json!({"$ref": "#", "x": {"$ref": "#/$defs/Y"}});
        rewrite_refs(&mut recursive, "X");
        assert_eq!(
            recursive,
            json!({"$ref": "#/components/schemas/X", "x": {"$ref": "#/components/schemas/Y"}})
        );
    }

    #[test]
    fn each_configuration_has_its_own_document() {
        let mut seen = std::collections::BTreeSet::new();
        for keys in [false, true] {
            for rate_limited in [false, true] {
                for metrics_public in [false, true] {
                    let o = Options {
                        keys,
                        rate_limited,
                        metrics_public,
                    };
                    assert!(seen.insert(o.index()));
                    assert!(o.index() < 8);
                }
            }
        }
    }
}
