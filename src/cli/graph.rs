//! The graph: `daemoniq import`, `sparql` and `validate`.

use super::progress::plain_bar;
use anyhow::{Result, bail};
use daemoniq::backends::{self, Embedded};
use daemoniq::config::{BackendConfig, Cli, ImportArgs, SparqlArgs, ValidateArgs};
use daemoniq::import::{self, ImportOutcome, SourceFile};
use daemoniq::ontology::Ontology;
use daemoniq::results::{self, ResultFormat};
use daemoniq::store::{GraphKind, GraphStore, SparqlQuery};
use daemoniq::validate;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Imports building model files into their named graphs.
pub async fn import(cli: &Cli, args: &ImportArgs) -> Result<ExitCode> {
    let store = super::open_store(cli).await?;
    let ontology = super::load(cli, store.as_ref()).await?;
    let root = match &args.root {
        Some(r) => r.clone(),
        None => std::env::current_dir()?,
    };
    let pb = plain_bar(args.files.len());
    let mut outcomes = Vec::new();
    for file in &args.files {
        let source = SourceFile::new(file, &root, GraphKind::Model);
        pb.set_message(source.rel_path.clone());
        outcomes.push(import::import_file(store.as_ref(), Some(&ontology), &source).await?);
        pb.inc(1);
    }
    pb.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&outcomes)?);
    } else {
        for o in &outcomes {
            match o {
                ImportOutcome::Unchanged { path } => println!("unchanged  {path}"),
                ImportOutcome::Loaded {
                    path,
                    triples,
                    replaced,
                } => println!(
                    "{}  {path} ({triples} triples)",
                    if *replaced { "replaced" } else { "loaded  " }
                ),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs one query and writes the result to standard output.
pub async fn sparql(cli: &Cli, args: &SparqlArgs) -> Result<ExitCode> {
    let query = if args.query == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        s
    } else {
        args.query.clone()
    };
    let Some(format) = ResultFormat::parse(&args.format) else {
        bail!(
            "unknown format {:?}; use json, xml, csv, tsv, ttl or nt",
            args.format
        );
    };
    let store = super::open_store(cli).await?;
    super::load(cli, store.as_ref()).await?;
    let output = store
        .query(SparqlQuery {
            timeout: Some(Duration::from_secs_f64(args.timeout.max(0.001))),
            ..SparqlQuery::new(query)
        })
        .await?;
    let bytes = results::serialize(&output, format)?;
    std::io::stdout().write_all(&bytes)?;
    Ok(ExitCode::SUCCESS)
}

/// Validates the store, or only the given files; exits 1 on violations.
pub async fn validate(cli: &Cli, args: &ValidateArgs) -> Result<ExitCode> {
    let (store, ontology): (Arc<dyn GraphStore>, Ontology) = if args.files.is_empty() {
        let store = super::open_store(cli).await?;
        let ontology = super::load(cli, store.as_ref()).await?;
        (store, ontology)
    } else {
        // A scratch store with the ontology and only these files, whatever
        // the configured backends are.
        let store = backends::open_store(&BackendConfig::default(), &Embedded::Memory).await?;
        let mut s = super::sources(cli)?;
        s.graph_dirs = Vec::new();
        let (_, ontology) = s.sync(store.as_ref()).await?;
        let root = std::env::current_dir()?;
        for f in &args.files {
            let source = SourceFile::new(PathBuf::from(f), &root, GraphKind::Model);
            import::import_file(store.as_ref(), Some(&ontology), &source).await?;
        }
        (store, ontology)
    };
    let report = validate::validate(store.as_ref(), &ontology).await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for v in &report.violations {
            println!("{:<28} {}  [{}]", v.rule, v.message, v.source);
        }
        println!(
            "{} sources, {} instances checked: {}",
            report.sources,
            report.instances,
            if report.ok {
                "no violations".to_owned()
            } else {
                format!("{} violations", report.violations.len())
            }
        );
    }
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
