//! A remote SPARQL 1.1 endpoint as the graph store: Oxigraph server, Apache
//! Jena Fuseki or a clustered triple store, spoken to over the standard
//! SPARQL 1.1 Protocol (query and update URLs, optional basic auth).
//!
//! It behaves like the embedded store:
//!
//! * Queries are parsed here first, so a syntax error, an update sent as a
//!   query or a `SERVICE` call is refused before anything is sent.
//! * A query without `FROM` and without protocol graphs sees the union of
//!   every graph, as in the embedded store. The protocol has no portable
//!   "union default graph" switch, so the union is spelt out: every graph
//!   recorded in the meta graph (plus the meta graph itself) goes into
//!   `default-graph-uri` and `named-graph-uri`. The list is cached for
//!   [`GRAPH_LIST_TTL`] and dropped after every write of this process. A
//!   server whose default graph already is the union
//!   ([`RemoteSettings::server_union`]) gets such queries without a dataset.
//! * Replacing a graph is one SPARQL Update request (drop the graph, drop its
//!   meta record, insert both), which the server applies atomically.
//! * Transient failures (connection refused or reset, HTTP 429 and 5xx) are
//!   retried with exponential backoff; what still fails is
//!   [`StoreError::Storage`], which the API answers with 503.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::model::{TermRef, TripleRef};
use oxigraph::sparql::results::{
    QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput,
};
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use spargebra::SparqlParser;
use tokio::sync::RwLock;

use super::term::{collect_solutions, collect_triples, is_safe_iri, named_node};
use super::{
    GraphStore, QueryOutput, SourceRecord, SparqlQuery, StoreError, StoreResult, TermExt, Triple,
};
use crate::vocab::{self, META_GRAPH};

/// How long the list of graphs that make up the union default graph is
/// reused before it is read again (writes of this process drop it at once).
pub const GRAPH_LIST_TTL: Duration = Duration::from_secs(1);

/// Largest error body quoted in an error message.
const ERROR_BODY_CHARS: usize = 500;

/// Where the remote store is and how to talk to it.
#[derive(Clone)]
pub struct RemoteSettings {
    /// SPARQL 1.1 query endpoint (e.g. `http://host:7878/query`).
    pub query_url: String,
    /// SPARQL 1.1 update endpoint (e.g. `http://host:7878/update`).
    pub update_url: String,
    /// Basic auth user.
    pub user: Option<String>,
    /// Basic auth password (never logged).
    pub password: Option<String>,
    /// Time limit of a request that carries none of its own.
    pub timeout: Duration,
    /// Retries of a transient failure.
    pub retries: usize,
    /// The server's default graph is already the union of all its graphs
    /// (Oxigraph `serve --union-default-graph`, Fuseki
    /// `tdb2:unionDefaultGraph true`): a query without `FROM` or protocol
    /// graphs goes without a dataset instead of listing every graph.
    pub server_union: bool,
}

impl std::fmt::Debug for RemoteSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteSettings")
            .field("query_url", &self.query_url)
            .field("update_url", &self.update_url)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .field("server_union", &self.server_union)
            .finish()
    }
}

/// The graph store behind a SPARQL 1.1 endpoint.
pub struct RemoteStore {
    http: reqwest::Client,
    settings: RemoteSettings,
    graphs: RwLock<Option<(Instant, Arc<Vec<String>>)>>,
}

impl std::fmt::Debug for RemoteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteStore")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// What the query returns, decided from its parsed form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Solutions,
    Boolean,
    Graph,
}

type Attempt = crate::retry::Attempt<StoreError>;

fn fatal(error: StoreError) -> Attempt {
    Attempt {
        transient: false,
        error,
    }
}

impl RemoteStore {
    /// Connects and checks that the query endpoint answers (`ASK {}`).
    pub async fn connect(settings: RemoteSettings) -> StoreResult<Self> {
        for (what, url) in [
            ("--sparql-query-url", &settings.query_url),
            ("--sparql-update-url", &settings.update_url),
        ] {
            let parsed = reqwest::Url::parse(url)
                .map_err(|e| StoreError::Storage(format!("{what} {url} is not a URL: {e}")))?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(StoreError::Storage(format!(
                    "{what} {url} must be an http(s) URL"
                )));
            }
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| StoreError::Storage(format!("cannot build the HTTP client: {e}")))?;
        let store = Self {
            http,
            settings,
            graphs: RwLock::new(None),
        };
        store.query(SparqlQuery::new("ASK {}")).await.map_err(|e| {
            StoreError::Storage(format!(
                "the SPARQL endpoint {} does not answer: {e}",
                store.settings.query_url
            ))
        })?;
        tracing::info!(
            query_url = %store.settings.query_url,
            update_url = %store.settings.update_url,
            auth = store.settings.user.is_some(),
            "connected to the remote SPARQL store"
        );
        Ok(store)
    }

    /// The settings (the password stays inside).
    pub fn settings(&self) -> &RemoteSettings {
        &self.settings
    }

    /// Sends one request, retrying transient failures, and returns the body.
    async fn send(
        &self,
        url: &str,
        content_type: &'static str,
        accept: &'static str,
        body: String,
        timeout: Duration,
    ) -> StoreResult<Vec<u8>> {
        let attempt = || async {
            let mut request = self
                .http
                .post(url)
                .header(CONTENT_TYPE, content_type)
                .header(ACCEPT, accept)
                .timeout(timeout)
                .body(body.clone());
            if let Some(user) = &self.settings.user {
                request = request.basic_auth(user, self.settings.password.as_deref());
            }
            let response = request
                .send()
                .await
                .map_err(|e| transport(e, url, timeout))?;
            let status = response.status();
            let bytes = response
                .bytes()
                .await
                .map_err(|e| transport(e, url, timeout))?;
            if status.is_success() {
                return Ok(bytes.to_vec());
            }
            let text = String::from_utf8_lossy(&bytes);
            let text: String = text.trim().chars().take(ERROR_BODY_CHARS).collect();
            let transient = status.is_server_error() || status.as_u16() == 429;
            let error = if transient {
                StoreError::Storage(format!("{url} answered {status}: {text}"))
            } else if matches!(status.as_u16(), 401 | 403) {
                StoreError::Storage(format!(
                    "{url} refused the credentials ({status}); check --sparql-user/--sparql-password"
                ))
            } else {
                // Shown to API clients (400 QUERY_FAILED): the store's own
                // words, not its address.
                StoreError::Evaluation(format!("the SPARQL store answered {status}: {text}"))
            };
            Err(Attempt { transient, error })
        };
        crate::retry::retrying(self.settings.retries, url, attempt).await
    }

    /// Sends a SPARQL Update and drops the cached graph list.
    async fn update(&self, update: String) -> StoreResult<()> {
        let started = Instant::now();
        let bytes = update.len();
        let result = self
            .send(
                &self.settings.update_url,
                "application/sparql-update",
                "*/*",
                update,
                self.settings.timeout,
            )
            .await;
        *self.graphs.write().await = None;
        result?;
        tracing::debug!(
            bytes,
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "SPARQL update applied"
        );
        Ok(())
    }

    /// Every graph DaemonIQ has written (from the meta graph) and the meta
    /// graph: the union default graph.
    async fn graph_list(&self) -> StoreResult<Arc<Vec<String>>> {
        if let Some((at, graphs)) = self.graphs.read().await.as_ref()
            && at.elapsed() < GRAPH_LIST_TTL
        {
            return Ok(Arc::clone(graphs));
        }
        let query = format!(
            "SELECT DISTINCT ?g WHERE {{ GRAPH <{META_GRAPH}> {{ ?g a <{}> }} }}",
            vocab::dq("Source")
        );
        let rows = self
            .run(
                &query,
                Form::Solutions,
                &[],
                &[],
                self.settings.timeout,
                None,
            )
            .await?
            .into_rows();
        let mut graphs: Vec<String> = rows
            .iter()
            .filter_map(|r| r.get("g").and_then(TermExt::as_iri).map(str::to_owned))
            .collect();
        graphs.push(META_GRAPH.to_owned());
        graphs.sort();
        graphs.dedup();
        let graphs = Arc::new(graphs);
        *self.graphs.write().await = Some((Instant::now(), Arc::clone(&graphs)));
        Ok(graphs)
    }

    /// Sends a parsed query with its protocol dataset and reads the results.
    async fn run(
        &self,
        query: &str,
        form: Form,
        default_graphs: &[String],
        named_graphs: &[String],
        timeout: Duration,
        max_rows: Option<usize>,
    ) -> StoreResult<QueryOutput> {
        let body = {
            let mut body = form_urlencoded::Serializer::new(String::new());
            body.append_pair("query", query);
            for g in default_graphs {
                body.append_pair("default-graph-uri", g);
            }
            for g in named_graphs {
                body.append_pair("named-graph-uri", g);
            }
            body.finish()
        };
        let accept = match form {
            Form::Solutions | Form::Boolean => "application/sparql-results+json",
            Form::Graph => "application/n-triples",
        };
        let bytes = self
            .send(
                &self.settings.query_url,
                "application/x-www-form-urlencoded",
                accept,
                body,
                timeout,
            )
            .await?;
        parse_results(&bytes, form, max_rows.unwrap_or(usize::MAX))
    }
}

fn transport(e: reqwest::Error, url: &str, timeout: Duration) -> Attempt {
    if e.is_timeout() {
        return fatal(StoreError::Timeout(timeout));
    }
    // Connection refused or reset, DNS, a body cut short: the server may be
    // restarting, so these are worth another try.
    Attempt {
        transient: true,
        error: StoreError::Storage(format!("cannot reach {url}: {e}")),
    }
}

/// The graphs a query names itself (`FROM`, `FROM NAMED`).
type OwnDataset = (Vec<String>, Vec<String>);

/// Parses the query here: its result form and the dataset it names itself
/// (`FROM`, `FROM NAMED`), if any. Updates and `SERVICE` are refused.
fn prepare(query: &str) -> StoreResult<(Form, Option<OwnDataset>)> {
    let parsed = match SparqlParser::new().parse_query(query) {
        Ok(parsed) => parsed,
        Err(error) => {
            return Err(if super::is_update(query) {
                StoreError::UpdateRefused
            } else {
                StoreError::Syntax(error.to_string())
            });
        }
    };
    if let Some(service) = service_call(&parsed.to_sse()) {
        return Err(StoreError::ServiceRefused(service));
    }
    let (form, dataset) = match &parsed {
        spargebra::Query::Select { dataset, .. } => (Form::Solutions, dataset),
        spargebra::Query::Ask { dataset, .. } => (Form::Boolean, dataset),
        spargebra::Query::Construct { dataset, .. }
        | spargebra::Query::Describe { dataset, .. } => (Form::Graph, dataset),
    };
    let iris = |nodes: &[oxigraph::model::NamedNode]| {
        nodes
            .iter()
            .map(|n| n.as_str().to_owned())
            .collect::<Vec<_>>()
    };
    let own = dataset.as_ref().map(|d| {
        (
            iris(&d.default),
            d.named.as_deref().map(iris).unwrap_or_default(),
        )
    });
    Ok((form, own))
}

/// The first `SERVICE` call in a query's S-expression form, with its name.
/// String literals are skipped, so a literal that spells "(service" is not
/// taken for one.
fn service_call(sse: &str) -> Option<String> {
    const KEY: &str = "(service ";
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in sse.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        } else if sse[i..].starts_with(KEY) {
            let rest = sse[i + KEY.len()..].trim_start();
            let rest = rest.strip_prefix("silent ").unwrap_or(rest);
            let name: String = rest
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != ')')
                .collect();
            return Some(name);
        }
    }
    None
}

fn parse_results(bytes: &[u8], form: Form, max: usize) -> StoreResult<QueryOutput> {
    let bad = |e: &dyn std::fmt::Display| {
        StoreError::Evaluation(format!(
            "the SPARQL endpoint sent results that do not parse: {e}"
        ))
    };
    match form {
        Form::Solutions | Form::Boolean => {
            let parsed = QueryResultsParser::from_format(QueryResultsFormat::Json)
                .for_slice(bytes)
                .map_err(|e| bad(&e))?;
            match parsed {
                SliceQueryResultsParserOutput::Boolean(b) => Ok(QueryOutput::Boolean(b)),
                SliceQueryResultsParserOutput::Solutions(solutions) => {
                    let variables = solutions.variables().to_vec();
                    collect_solutions(&variables, solutions, max, |e| bad(&e))
                }
            }
        }
        Form::Graph => collect_triples(
            RdfParser::from_format(RdfFormat::NTriples).for_slice(bytes),
            max,
            |e| bad(&e),
        ),
    }
}

/// Refuses an IRI that would break out of `<...>` in the update text.
/// IRIs are checked where they enter DaemonIQ; this keeps a slip there
/// from turning into SPARQL injection against the store.
fn checked_iri(iri: &str) -> StoreResult<()> {
    if is_safe_iri(iri) {
        Ok(())
    } else {
        Err(StoreError::InvalidRdf(format!(
            "<{iri}> is not a usable IRI"
        )))
    }
}

fn checked_triple(t: TripleRef<'_>) -> StoreResult<()> {
    if let oxigraph::model::NamedOrBlankNodeRef::NamedNode(s) = t.subject {
        checked_iri(s.as_str())?;
    }
    checked_iri(t.predicate.as_str())?;
    match t.object {
        TermRef::NamedNode(o) => checked_iri(o.as_str()),
        TermRef::Literal(l) => checked_iri(l.datatype().as_str()),
        _ => Ok(()),
    }
}

/// `INSERT DATA` blocks of `triples` in `graph`, in N-Triples syntax.
fn quad_data(out: &mut String, graph: &str, triples: &[Triple]) -> StoreResult<()> {
    use std::fmt::Write as _;
    let graph_node = named_node(graph)?;
    let _ = writeln!(out, "GRAPH {graph_node} {{");
    for t in triples {
        checked_triple(t.as_ref())?;
        // A triple prints as an N-Triples triple.
        let _ = writeln!(out, "  {t} .");
    }
    out.push_str("}\n");
    Ok(())
}

fn checked_graph(graph: &str) -> StoreResult<&str> {
    if is_safe_iri(graph) {
        Ok(graph)
    } else {
        Err(StoreError::InvalidRdf(format!(
            "{graph} cannot be used as a graph name"
        )))
    }
}

#[async_trait]
impl GraphStore for RemoteStore {
    async fn query(&self, query: SparqlQuery) -> StoreResult<QueryOutput> {
        let (form, own_dataset) = prepare(&query.query)?;
        let started = Instant::now();
        let timeout = query.timeout.unwrap_or(self.settings.timeout);
        let plain = query.default_graphs.is_empty() && query.named_graphs.is_empty();
        let (defaults, named) = match own_dataset {
            // The query's own FROM / FROM NAMED, repeated as protocol graphs:
            // a server that forces a union default graph (Oxigraph
            // `--union-default-graph`) would otherwise override FROM.
            Some(own) if plain => own,
            _ if plain && self.settings.server_union => (Vec::new(), Vec::new()),
            own => {
                // Protocol graphs given by the caller win over FROM; a half
                // the caller left out keeps the query's own, or else is the
                // union, spelt out.
                let (own_defaults, own_named) = match own {
                    Some((d, n)) => (Some(d), Some(n)),
                    None => (None, None),
                };
                let need_all = (query.default_graphs.is_empty() && own_defaults.is_none())
                    || (query.named_graphs.is_empty() && own_named.is_none());
                let all = if need_all {
                    Some(self.graph_list().await?)
                } else {
                    None
                };
                let pick = |given: &[String], own: Option<Vec<String>>| -> Vec<String> {
                    if !given.is_empty() {
                        given.to_vec()
                    } else if let Some(own) = own {
                        own
                    } else {
                        all.as_ref().map(|a| a.as_ref().clone()).unwrap_or_default()
                    }
                };
                (
                    pick(&query.default_graphs, own_defaults),
                    pick(&query.named_graphs, own_named),
                )
            }
        };
        let output = self
            .run(
                &query.query,
                form,
                &defaults,
                &named,
                timeout,
                query.max_rows,
            )
            .await?;
        tracing::trace!(
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "remote SPARQL query answered"
        );
        Ok(output)
    }

    async fn replace_graph(&self, record: SourceRecord, triples: Vec<Triple>) -> StoreResult<()> {
        let graph = checked_graph(&record.graph)?.to_owned();
        let mut update = format!(
            "DROP SILENT GRAPH <{graph}> ;\n\
             DELETE WHERE {{ GRAPH <{META_GRAPH}> {{ <{graph}> ?p ?o }} }} ;\n\
             INSERT DATA {{\n"
        );
        quad_data(&mut update, &graph, &triples)?;
        let graph_node = named_node(&graph)?;
        quad_data(
            &mut update,
            META_GRAPH,
            &super::meta_triples(&graph_node, &record),
        )?;
        update.push_str("}\n");
        self.update(update).await?;
        tracing::debug!(graph = %graph, triples = triples.len(), "remote graph replaced");
        Ok(())
    }

    async fn remove_graph(&self, graph: &str) -> StoreResult<()> {
        let graph = checked_graph(graph)?;
        self.update(format!(
            "DROP SILENT GRAPH <{graph}> ;\n\
             DELETE WHERE {{ GRAPH <{META_GRAPH}> {{ <{graph}> ?p ?o }} }}"
        ))
        .await
    }

    async fn sources(&self) -> StoreResult<Vec<SourceRecord>> {
        super::read_sources(self).await
    }

    async fn len(&self) -> StoreResult<usize> {
        // Everything DaemonIQ writes lives in named graphs.
        let output = self
            .run(
                "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
                Form::Solutions,
                &[],
                &[],
                self.settings.timeout,
                None,
            )
            .await?;
        output
            .into_rows()
            .first()
            .and_then(|r| r.get("n"))
            .and_then(|t| t.value().parse().ok())
            .ok_or_else(|| StoreError::Evaluation("the quad count is not a number".into()))
    }

    fn backend(&self) -> &'static str {
        "sparql-remote"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepare_reads_form_and_dataset() {
        assert_eq!(
            prepare("SELECT * WHERE { ?s ?p ?o }").unwrap(),
            (Form::Solutions, None)
        );
        assert_eq!(prepare("ASK { ?s ?p ?o }").unwrap(), (Form::Boolean, None));
        assert_eq!(
            prepare("CONSTRUCT WHERE { ?s ?p ?o }").unwrap(),
            (Form::Graph, None)
        );
        assert_eq!(
            prepare("SELECT * FROM <urn:g> FROM NAMED <urn:n> WHERE { ?s ?p ?o }").unwrap(),
            (
                Form::Solutions,
                Some((vec!["urn:g".to_owned()], vec!["urn:n".to_owned()]))
            )
        );
    }

    #[test]
    fn prepare_refuses_updates_service_and_bad_syntax() {
        assert!(matches!(
            prepare("INSERT DATA { <urn:a> <urn:b> <urn:c> }"),
            Err(StoreError::UpdateRefused)
        ));
        assert!(matches!(
            prepare("SELECT * WHERE { ?s ?p ?o"),
            Err(StoreError::Syntax(_))
        ));
        match prepare(
            "SELECT * WHERE { ?s ?p ?o FILTER EXISTS { SERVICE SILENT <http://x.example/sparql> { ?s ?p ?o } } }",
        ) {
            Err(StoreError::ServiceRefused(name)) => {
                assert_eq!(name, "<http://x.example/sparql>")
            }
            other => panic!("expected ServiceRefused, got {other:?}"),
        }
        // A literal that spells the keyword is not a SERVICE call.
        assert!(prepare("SELECT * WHERE { ?s ?p \"(service <urn:x>\" }").is_ok());
    }

    #[test]
    fn insert_data_escapes_literals() {
        use crate::store::term::{iri, string};
        let mut out = String::new();
        let t = Triple::new(iri("urn:s"), iri("urn:p"), string("a \"quoted\"\nline"));
        quad_data(&mut out, "urn:g", &[t]).unwrap();
        assert!(
            out.contains(r#"<urn:s> <urn:p> "a \"quoted\"\nline" ."#),
            "{out}"
        );
        let bad = Triple::new(iri("urn:s"), iri("not an iri"), string("x"));
        assert!(quad_data(&mut out, "urn:g", &[bad]).is_err());
    }
}
