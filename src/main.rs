//! The `daemoniq` binary: parse the command line, start tracing, run.

use anyhow::{Context, Result, bail};
use clap::Parser;
use daemoniq::config::{Cli, Command, ImportArgs, LogFormat, SparqlArgs, ValidateArgs};
use daemoniq::import::{self, ImportOutcome, SourceFile};
use daemoniq::results::{self, ResultFormat};
use daemoniq::store::{EmbeddedStore, GraphKind, GraphStore, SparqlQuery};
use daemoniq::{AppState, Sources, assets::Assets, ontology::Ontology, validate};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

fn init_tracing(cli: &Cli) {
    let filter = tracing_subscriber::EnvFilter::try_new(&cli.log)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match cli.log_format {
        LogFormat::Json => builder.json().init(),
        LogFormat::Text => builder.init(),
    }
}

fn open_store(cli: &Cli) -> Result<Arc<dyn GraphStore>> {
    Ok(if cli.memory {
        Arc::new(EmbeddedStore::in_memory()?)
    } else {
        Arc::new(
            EmbeddedStore::open(&cli.data_dir.join("graph"))
                .context("is another daemoniq process using this --data-dir?")?,
        )
    })
}

fn sources(cli: &Cli) -> Result<Sources> {
    Ok(Sources {
        assets: Assets::new(
            cli.assets_dir
                .clone()
                .unwrap_or_else(daemoniq::config::default_assets_dir),
        ),
        ontology_dir: cli.ontology_dir.clone(),
        graph_dirs: cli.graph_dirs.clone(),
        root: std::env::current_dir()?,
    })
}

fn spinner(msg: &str) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    pb.set_message(msg.to_owned());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

async fn load(cli: &Cli, store: &dyn GraphStore) -> Result<Ontology> {
    let pb = spinner("loading ontology and building models");
    let (outcomes, ontology) = sources(cli)?.sync(store).await?;
    let loaded = outcomes
        .iter()
        .filter(|o| matches!(o, ImportOutcome::Loaded { .. }))
        .count();
    pb.finish_and_clear();
    tracing::info!(
        loaded,
        unchanged = outcomes.len() - loaded,
        "sources in sync"
    );
    Ok(ontology)
}

async fn run(cli: Cli) -> Result<ExitCode> {
    match &cli.command {
        Command::Serve(args) => {
            let store = open_store(&cli)?;
            let ontology = load(&cli, store.as_ref()).await?;
            let state = AppState::new(store, ontology, args.http.clone()).await?;
            let listener = tokio::net::TcpListener::bind(args.bind)
                .await
                .with_context(|| format!("cannot listen on {}", args.bind))?;
            tracing::info!(addr = %listener.local_addr()?, "serving");
            eprintln!("daemoniq listening on http://{}", listener.local_addr()?);
            daemoniq::serve(listener, state, shutdown_signal()).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Import(args) => import_cmd(&cli, args).await,
        Command::Sparql(args) => sparql_cmd(&cli, args).await,
        Command::Validate(args) => validate_cmd(&cli, args).await,
    }
}

async fn import_cmd(cli: &Cli, args: &ImportArgs) -> Result<ExitCode> {
    let store = open_store(cli)?;
    let ontology = load(cli, store.as_ref()).await?;
    let root = match &args.root {
        Some(r) => r.clone(),
        None => std::env::current_dir()?,
    };
    let pb = ProgressBar::new(args.files.len() as u64);
    pb.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
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

async fn sparql_cmd(cli: &Cli, args: &SparqlArgs) -> Result<ExitCode> {
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
    let store = open_store(cli)?;
    load(cli, store.as_ref()).await?;
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

async fn validate_cmd(cli: &Cli, args: &ValidateArgs) -> Result<ExitCode> {
    let (store, ontology): (Arc<dyn GraphStore>, Ontology) = if args.files.is_empty() {
        let store = open_store(cli)?;
        let ontology = load(cli, store.as_ref()).await?;
        (store, ontology)
    } else {
        let store: Arc<dyn GraphStore> = Arc::new(EmbeddedStore::in_memory()?);
        let mut s = sources(cli)?;
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

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { () = ctrl_c => {}, () = term => {} }
    tracing::info!("shutting down");
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing(&cli);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
