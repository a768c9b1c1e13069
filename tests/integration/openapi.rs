//! `GET /openapi.json`: the document describes exactly the operations the
//! router serves (`daemoniq::http::ROUTES`), is OpenAPI 3.1 whose refs all
//! resolve, follows the guard (security, 401/403/429 where the guard can
//! refuse), and every response of every route — a success and an error
//! each — conforms to what it declares for that status: the status, the
//! media type, the required headers and, for JSON, the body against the
//! schema. The schemas are closed, so a handler whose response type changes
//! without the document following fails here.

use crate::common;
use crate::common::http::{Reply, call, get, post_json};
use crate::ingest::docs_state_with;
use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use daemoniq::config::{AnswerConfig, HttpConfig};
use daemoniq::http::openapi::{self, Options};
use serde_json::{Value, json};
use std::collections::BTreeSet;

const FULL: &str = "full-key-for-the-openapi-tests";
const READ: &str = "read-key-for-the-openapi-tests";

fn keyed() -> HttpConfig {
    HttpConfig {
        api_key: Some(FULL.parse().unwrap()),
        read_only_api_key: Some(READ.parse().unwrap()),
        ..HttpConfig::default()
    }
}

fn with_key(mut req: Request<Body>, key: &str) -> Request<Body> {
    req.headers_mut().insert(
        header::AUTHORIZATION,
        format!("Bearer {key}").parse().unwrap(),
    );
    req
}

/// The document a router serves.
async fn served(app: &Router) -> Value {
    let reply = call(app, get("/openapi.json")).await;
    assert_eq!(reply.status, StatusCode::OK);
    reply.json()
}

/// Follows a local `$ref` (`#/components/...`) in `doc`.
fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let target = doc
                .pointer(r.strip_prefix('#').unwrap())
                .unwrap_or_else(|| panic!("{r} does not resolve"));
            resolve(doc, target)
        }
        None => value,
    }
}

/// Validates `value` against `schema`, its `#/components/...` refs
/// resolved in `doc`.
fn violations(doc: &Value, schema: &Value, value: &Value) -> Vec<String> {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": doc["components"],
        "allOf": [schema],
    });
    let validator = jsonschema::validator_for(&root).unwrap();
    validator
        .iter_errors(value)
        .map(|e| e.to_string())
        .collect()
}

/// Asserts that `reply` is a response the document declares for `method`
/// on the route `template`: its status, its media type, the headers it
/// marks required and, for JSON, the body against the schema.
fn assert_conforms(doc: &Value, method: &Method, template: &str, reply: &Reply) {
    let operation = &doc["paths"][template][method.as_str().to_ascii_lowercase()];
    assert!(
        operation.is_object(),
        "{method} {template} is not documented"
    );
    let status = reply.status.as_u16().to_string();
    let what = format!(
        "{method} {template} answered {status} {}",
        String::from_utf8_lossy(&reply.body[..reply.body.len().min(300)])
    );
    let response = resolve(doc, &operation["responses"][&status]);
    assert!(response.is_object(), "{what}: the status is not documented");
    let media = reply
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap()
        .trim();
    let content = &response["content"][media];
    assert!(
        content.is_object(),
        "{what}: media type {media:?} not among {:?}",
        response["content"]
            .as_object()
            .map(|c| c.keys().collect::<Vec<_>>())
    );
    for (name, h) in response["headers"].as_object().into_iter().flatten() {
        if resolve(doc, h)["required"] == true {
            assert!(
                reply.headers.contains_key(name.as_str()),
                "{what}: no {name} header"
            );
        }
    }
    if media.ends_with("json") {
        let errors = violations(doc, &content["schema"], &reply.json());
        assert!(errors.is_empty(), "{what}: {errors:?}");
    }
}

/// Requests `req` and asserts the reply conforms and has `want` status.
async fn expect(
    app: &Router,
    doc: &Value,
    template: &str,
    req: Request<Body>,
    want: StatusCode,
) -> Reply {
    let method = req.method().clone();
    let reply = call(app, req).await;
    assert_eq!(
        reply.status,
        want,
        "{method} {template}: {}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_conforms(doc, &method, template, &reply);
    reply
}

#[tokio::test]
async fn the_router_serves_exactly_the_documented_operations() {
    let app = daemoniq::app(common::campus_state().await);
    let doc = served(&app).await;
    let documented: BTreeSet<(String, String)> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .unwrap()
                .keys()
                .map(move |m| (path.clone(), m.to_ascii_uppercase()))
        })
        .collect();
    let routed: BTreeSet<(String, String)> = daemoniq::http::ROUTES
        .iter()
        .map(|r| (r.path.to_owned(), r.method.to_string()))
        .collect();
    assert_eq!(documented, routed);
    assert_eq!(
        routed.len(),
        daemoniq::http::ROUTES.len(),
        "a route is listed twice"
    );
    // The router answers each listed method of a path and refuses the
    // others with 405: the list is what it serves.
    for path in routed.iter().map(|(p, _)| p).collect::<BTreeSet<_>>() {
        let uri = path.replace("{source_id}", "0123456789abcdef");
        for method in [
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ] {
            let listed = routed.contains(&(path.clone(), method.to_string()));
            let reply = call(
                &app,
                Request::builder()
                    .method(method.clone())
                    .uri(&uri)
                    .body(Body::empty())
                    .unwrap(),
            )
            .await;
            assert_eq!(
                reply.status == StatusCode::METHOD_NOT_ALLOWED,
                !listed,
                "{method} {uri}: {} (listed: {listed})",
                reply.status
            );
        }
    }
}

#[tokio::test]
async fn the_document_is_openapi_3_1_and_every_ref_resolves() {
    let doc = served(&daemoniq::app(common::campus_state().await)).await;
    assert!(
        doc["openapi"].as_str().unwrap().starts_with("3.1."),
        "{}",
        doc["openapi"]
    );
    assert!(doc["info"]["title"].is_string() && doc["info"]["version"].is_string());
    fn walk(doc: &Value, v: &Value, seen: &mut usize) {
        match v {
            Value::Object(map) => {
                if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                    let pointer = r
                        .strip_prefix('#')
                        .unwrap_or_else(|| panic!("{r} is not a local ref"));
                    assert!(doc.pointer(pointer).is_some(), "{r} does not resolve");
                    *seen += 1;
                }
                map.values().for_each(|v| walk(doc, v, seen));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(doc, v, seen)),
            _ => {}
        }
    }
    let mut seen = 0;
    walk(&doc, &doc, &mut seen);
    assert!(seen > 50, "only {seen} refs");
    // Every component is a JSON Schema that compiles, and is used.
    for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
        let root = json!({"components": doc["components"], "allOf": [schema]});
        assert!(jsonschema::validator_for(&root).is_ok(), "{name}");
        let needle = format!("\"#/components/schemas/{name}\"");
        assert!(doc.to_string().contains(&needle), "{name} is not used");
    }
    // Every operation says what each response is and which request it is.
    let mut ids = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            assert!(ids.insert(op["operationId"].as_str().unwrap().to_owned()));
            for (status, response) in op["responses"].as_object().unwrap() {
                assert!(
                    response["description"]
                        .as_str()
                        .is_some_and(|d| !d.is_empty()),
                    "{method} {path} {status}"
                );
                assert!(response["headers"]["x-request-id"].is_object());
            }
        }
    }
    // The contracts in schemas/ are the components, verbatim but for their
    // ids and $defs.
    let error: Value =
        serde_json::from_str(include_str!("../../schemas/error.schema.json")).unwrap();
    assert_eq!(
        doc["components"]["schemas"]["ApiError"]["properties"],
        error["properties"]
    );
    let answer: Value =
        serde_json::from_str(include_str!("../../schemas/answer_contract.schema.json")).unwrap();
    assert_eq!(
        doc["components"]["schemas"]["evidenceItem"],
        answer["definitions"]["evidenceItem"]
    );
}

#[tokio::test]
async fn the_document_follows_the_guard() {
    let open = openapi::document(Options {
        keys: false,
        rate_limited: false,
        metrics_public: false,
    });
    assert!(open["components"]["securitySchemes"].is_null());
    let keyed = openapi::document(Options {
        keys: true,
        rate_limited: true,
        metrics_public: false,
    });
    let public_metrics = openapi::document(Options {
        keys: true,
        rate_limited: false,
        metrics_public: true,
    });
    for route in &daemoniq::http::ROUTES {
        let m = route.method.as_str().to_ascii_lowercase();
        let op = |doc: &Value| doc["paths"][route.path][&m].clone();
        let (open_op, keyed_op) = (op(&open), op(&keyed));
        let what = format!("{} {}", route.method, route.path);
        assert!(open_op.get("security").is_none(), "{what}");
        assert!(open_op["responses"]["401"].is_null(), "{what}");
        assert!(open_op["responses"]["429"].is_null(), "{what}");
        let public = matches!(route.path, "/health" | "/openapi.json");
        let write = matches!(route.path, "/ingest" | "/api/documents/{source_id}");
        assert_eq!(keyed_op.get("security").is_none(), public, "{what}");
        assert_eq!(keyed_op["responses"]["401"].is_null(), public, "{what}");
        assert_eq!(
            keyed_op["responses"]["403"]["description"]
                .as_str()
                .is_some_and(|d| d.contains("`FORBIDDEN`")),
            write,
            "{what}"
        );
        let limited = matches!(route.path, "/chat" | "/retrieve" | "/sparql" | "/ingest");
        assert_eq!(!keyed_op["responses"]["429"].is_null(), limited, "{what}");
        let pooled = matches!(route.path, "/chat" | "/retrieve" | "/sparql");
        assert_eq!(
            keyed_op["responses"]["503"]["description"]
                .as_str()
                .is_some_and(|d| d.contains("`OVERLOADED`")),
            pooled,
            "{what}"
        );
        assert!(
            public_metrics["paths"]["/metrics"]["get"]
                .get("security")
                .is_none()
                || route.path != "/metrics"
        );
    }
}

#[tokio::test]
async fn graph_routes_answer_as_documented() {
    let state = common::fresh_campus_state(keyed()).await;
    let app = daemoniq::app(state);
    let doc = served(&app).await;
    let read = |uri: &str| with_key(get(uri), READ);
    let ok = StatusCode::OK;
    let bad = StatusCode::BAD_REQUEST;
    let ex = |t, r, s| expect(&app, &doc, t, r, s);

    ex("/health", get("/health"), ok).await;
    ex("/openapi.json", get("/openapi.json"), ok).await;
    // Every route but the public ones refuses a request without a key.
    let refused = ex(
        "/api/schema/tags",
        get("/api/schema/tags"),
        StatusCode::UNAUTHORIZED,
    )
    .await;
    assert_eq!(refused.json()["code"], "UNAUTHORIZED");
    ex("/metrics", get("/metrics"), StatusCode::UNAUTHORIZED).await;
    ex("/metrics", read("/metrics"), ok).await;

    let select = "/sparql?query=SELECT%20%3Fs%20WHERE%20%7B%3Fs%20a%20%3Fo%7D%20LIMIT%202";
    ex("/sparql", read(select), ok).await;
    let mut csv = read(select);
    csv.headers_mut()
        .insert(header::ACCEPT, "text/csv".parse().unwrap());
    ex("/sparql", csv, ok).await;
    ex("/sparql", read("/sparql?query=ASK%20%7B%7D"), ok).await;
    ex(
        "/sparql",
        read("/sparql?query=CONSTRUCT%20WHERE%20%7B%3Fs%20a%20%3Fo%7D%20LIMIT%201"),
        ok,
    )
    .await;
    ex("/sparql", read("/sparql?query=SELEKT"), bad).await;
    let mut png = read(select);
    png.headers_mut()
        .insert(header::ACCEPT, "image/png".parse().unwrap());
    ex("/sparql", png, StatusCode::NOT_ACCEPTABLE).await;
    let form = |content_type: &str, body: &str| {
        with_key(
            Request::post("/sparql")
                .header(header::CONTENT_TYPE, content_type)
                .body(Body::from(body.to_owned()))
                .unwrap(),
            READ,
        )
    };
    ex(
        "/sparql",
        form("application/x-www-form-urlencoded", "query=ASK%20%7B%7D"),
        ok,
    )
    .await;
    ex("/sparql", form("application/sparql-query", "ASK {}"), ok).await;
    ex(
        "/sparql",
        form("application/sparql-update", "CLEAR ALL"),
        StatusCode::FORBIDDEN,
    )
    .await;
    ex(
        "/sparql",
        form("text/plain", "ASK {}"),
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
    )
    .await;

    ex(
        "/api/schema/classes",
        read("/api/schema/classes?depth=2"),
        ok,
    )
    .await;
    ex(
        "/api/schema/classes",
        read("/api/schema/classes?root=brick:Nope"),
        StatusCode::NOT_FOUND,
    )
    .await;
    ex(
        "/api/schema/classes",
        read("/api/schema/classes?depth=x"),
        bad,
    )
    .await;
    ex(
        "/api/schema/class",
        read("/api/schema/class?iri=brick:AHU"),
        ok,
    )
    .await;
    ex("/api/schema/class", read("/api/schema/class"), bad).await;
    ex("/api/schema/tags", read("/api/schema/tags?q=temp"), ok).await;

    ex(
        "/api/topology/node",
        read("/api/topology/node?id=AHU-1"),
        ok,
    )
    .await;
    ex(
        "/api/topology/node",
        read("/api/topology/node?id=VAV-9-99"),
        StatusCode::NOT_FOUND,
    )
    .await;
    ex(
        "/api/topology/upstream",
        read("/api/topology/upstream?id=VAV-1-01"),
        ok,
    )
    .await;
    ex(
        "/api/topology/upstream",
        read("/api/topology/upstream?id=AHU-1&depth=0"),
        bad,
    )
    .await;
    ex(
        "/api/topology/downstream",
        read("/api/topology/downstream?id=AHU-1&depth=2"),
        ok,
    )
    .await;
    ex(
        "/api/topology/subgraph",
        read("/api/topology/subgraph?id=AHU-1"),
        ok,
    )
    .await;
    ex(
        "/api/topology/subgraph",
        read("/api/topology/subgraph?id=AHU-1&depth=7"),
        bad,
    )
    .await;
    ex("/api/search", read("/api/search?q=vav"), ok).await;
    ex(
        "/api/search",
        read("/api/search?q=vav&kind=class&limit=3"),
        ok,
    )
    .await;
    ex("/api/search", read("/api/search?q=vav&kind=thing"), bad).await;
    ex("/api/search", read("/api/search?q=vav&limit=0"), bad).await;
    ex("/api/node", read("/api/node?id=AHU-1"), ok).await;
    ex("/api/node", read("/api/node?id=brick:VAV"), ok).await;
    ex(
        "/api/node",
        read("/api/node?id=no-such-node"),
        StatusCode::NOT_FOUND,
    )
    .await;
    ex("/api/node", read("/api/node"), bad).await;
    ex("/api/ui/config", read("/api/ui/config"), ok).await;

    let ground = |body: Value| with_key(post_json("/api/ground", &body), READ);
    ex(
        "/api/ground",
        ground(json!({"text": "discharge air temp of AHU-1"})),
        ok,
    )
    .await;
    ex("/api/ground", ground(json!({"text": "  "})), bad).await;
    ex("/api/ground", ground(json!({"text": "x", "extra": 1})), bad).await;

    // Without a document index the document routes say so.
    ex(
        "/api/documents",
        read("/api/documents"),
        StatusCode::SERVICE_UNAVAILABLE,
    )
    .await;
}

#[tokio::test]
async fn document_routes_and_answers_answer_as_documented() {
    let root = tempfile::tempdir().unwrap();
    std::fs::copy(
        common::root().join("golden/corpus/northfield_soo_vav.md"),
        root.path().join("vav.md"),
    )
    .unwrap();
    let (state, _docs, _reports) =
        docs_state_with(root.path(), |_| {}, AnswerConfig::default(), keyed()).await;
    let app = daemoniq::app(state);
    let doc = served(&app).await;
    let ok = StatusCode::OK;
    let bad = StatusCode::BAD_REQUEST;
    let ex = |t, r, s| expect(&app, &doc, t, r, s);
    let full = |r| with_key(r, FULL);
    let read = |r| with_key(r, READ);

    let paths = json!({"paths": ["vav.md"]});
    ex(
        "/ingest",
        read(post_json("/ingest", &paths)),
        StatusCode::FORBIDDEN,
    )
    .await;
    ex("/ingest", full(post_json("/ingest", &paths)), ok).await;
    ex(
        "/ingest",
        full(post_json("/ingest", &json!({"paths": ["../x"]}))),
        bad,
    )
    .await;
    ex(
        "/ingest",
        full(post_json("/ingest", &json!({"files": []}))),
        bad,
    )
    .await;
    let text = full(
        Request::post("/ingest")
            .header(header::CONTENT_TYPE, "text/plain")
            .body(Body::from("vav.md"))
            .unwrap(),
    );
    ex("/ingest", text, StatusCode::UNSUPPORTED_MEDIA_TYPE).await;
    let boundary = "openapi-test-boundary";
    let upload = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"note.md\"\r\n\
         Content-Type: text/markdown\r\n\r\n# VAV-1-01\r\n\r\nThe VAV box VAV-1-01 is fed by AHU-1.\r\n\
         --{boundary}--\r\n"
    );
    let multipart = full(
        Request::post("/ingest")
            .header(
                header::CONTENT_TYPE,
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(Body::from(upload))
            .unwrap(),
    );
    ex("/ingest", multipart, ok).await;

    let listed = ex("/api/documents", read(get("/api/documents")), ok)
        .await
        .json();
    let id = listed["documents"][0]["source_id"]
        .as_str()
        .unwrap()
        .to_owned();

    let chat = |body: Value| read(post_json("/chat", &body));
    let answered = ex("/chat", chat(json!({"query": "What feeds VAV-1-01?"})), ok).await;
    assert_eq!(answered.json()["status"], "success");
    let refused = ex(
        "/chat",
        chat(json!({"query": "What is the boiling point of gold?"})),
        ok,
    )
    .await;
    assert_eq!(refused.json()["status"], "refused");
    ex("/chat", chat(json!({"query": ""})), bad).await;
    ex("/chat", chat(json!({"query": "x", "top_k": 0})), bad).await;
    let retrieve = |body: Value| read(post_json("/retrieve", &body));
    let found = ex(
        "/retrieve",
        retrieve(json!({"query": "VAV-1-01 airflow setpoint"})),
        ok,
    )
    .await;
    assert!(!found.json()["chunks"].as_array().unwrap().is_empty());
    ex(
        "/retrieve",
        retrieve(json!({"query": "x", "session_id": "no"})),
        bad,
    )
    .await;

    let delete = |id: &str| {
        Request::delete(format!("/api/documents/{id}"))
            .body(Body::empty())
            .unwrap()
    };
    let template = "/api/documents/{source_id}";
    ex(template, read(delete(&id)), StatusCode::FORBIDDEN).await;
    ex(template, full(delete(&id)), ok).await;
    ex(template, full(delete(&id)), StatusCode::NOT_FOUND).await;
    ex(template, full(delete("not-hex")), bad).await;
}

#[tokio::test]
async fn a_body_that_drifts_from_the_document_fails_it() {
    let app = daemoniq::app(common::campus_state().await);
    let doc = served(&app).await;
    let body = call(&app, get("/api/topology/node?id=AHU-1")).await.json();
    let schema_of = |path: &str| {
        doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
            .clone()
    };
    let node = schema_of("/api/topology/node");
    assert!(violations(&doc, &node, &body).is_empty());
    // Another route's response type, a field more, a field less: each is
    // drift the document must catch.
    assert!(!violations(&doc, &schema_of("/api/topology/upstream"), &body).is_empty());
    let mut more = body.clone();
    more["node"]["kind"] = json!("equipment");
    assert!(!violations(&doc, &node, &more).is_empty());
    let mut less = body.clone();
    less.as_object_mut().unwrap().remove("edges");
    assert!(!violations(&doc, &node, &less).is_empty());
}
