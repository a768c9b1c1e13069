//! The `daemoniq` binary: parse the command line, start tracing, run.

use anyhow::{Context, Result, bail};
use clap::Parser;
use daemoniq::config::{
    AskArgs, Cli, Command, DeleteArgs, DocumentsArgs, EvalArgs, ImportArgs, IngestArgs, LogFormat,
    MigrateArgs, SparqlArgs, ValidateArgs,
};
use daemoniq::eval;
use daemoniq::ground::Grounder;
use daemoniq::import::{self, ImportOutcome, SourceFile};
use daemoniq::ingest::{DocOptions, DocService, DocStatus, document};
use daemoniq::results::{self, ResultFormat};
use daemoniq::store::{EmbeddedStore, GraphKind, GraphStore, RemoteStore, SparqlQuery};
use daemoniq::vector::migrate::copy_index;
use daemoniq::vector::{EdgeIndex, QdrantIndex};
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

/// The graph store: a remote SPARQL store when its URLs are set, else
/// Oxigraph in the process (on disk, or in memory with `--memory`).
async fn open_store(cli: &Cli) -> Result<Arc<dyn GraphStore>> {
    if let Some(remote) = cli.backends.sparql() {
        return Ok(Arc::new(
            RemoteStore::connect(remote)
                .await
                .context("cannot use the remote SPARQL store")?,
        ));
    }
    Ok(if cli.memory {
        Arc::new(EmbeddedStore::in_memory()?)
    } else {
        Arc::new(
            EmbeddedStore::open(&cli.data_dir.join("graph"))
                .context("is another daemoniq process using this --data-dir?")?,
        )
    })
}

fn assets(cli: &Cli) -> Assets {
    Assets::new(
        cli.assets_dir
            .clone()
            .unwrap_or_else(daemoniq::config::default_assets_dir),
    )
}

/// Opens the embedding model and vector index (a Qdrant server when
/// `--qdrant-url` is set, else `<data-dir>/vectors`, or a scratch directory
/// with `--memory`) and removes leftovers of a crash.
async fn open_docs(cli: &Cli, store: Arc<dyn GraphStore>) -> Result<DocService> {
    let index_dir = (!cli.memory).then(|| cli.data_dir.join("vectors"));
    let report_dir = cli
        .index
        .report_dir
        .clone()
        .unwrap_or_else(|| cli.data_dir.clone());
    let docs = match cli.backends.qdrant() {
        Some(qdrant) => {
            DocService::open_qdrant(&cli.index, store, &assets(cli), qdrant, report_dir).await?
        }
        None => {
            DocService::open(
                &cli.index,
                store,
                &assets(cli),
                index_dir.as_deref(),
                report_dir,
            )
            .await?
        }
    };
    let reconciled = docs.ingestor().reconcile().await?;
    if reconciled.points_removed > 0 {
        tracing::warn!(
            points = reconciled.points_removed,
            sources = reconciled.sources.len(),
            "removed vector points of documents an interrupted run left uncommitted"
        );
    }
    Ok(docs)
}

fn sources(cli: &Cli) -> Result<Sources> {
    Ok(Sources {
        assets: assets(cli),
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
            let store = open_store(&cli).await?;
            let ontology = load(&cli, store.as_ref()).await?;
            let docs = open_docs(&cli, Arc::clone(&store)).await?;
            let state = AppState::new(store, ontology, args.http.clone()).await?;
            state.set_docs(Arc::new(docs));
            let mut answer = cli.answer.clone();
            if answer.audit_log.is_none() && !cli.memory {
                answer.audit_log = Some(cli.data_dir.join("audit.jsonl"));
            }
            state
                .set_answer_config(answer)
                .context("cannot open the audit log")?;
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
        Command::Ingest(args) => ingest_cmd(&cli, args).await,
        Command::Delete(args) => delete_cmd(&cli, args).await,
        Command::Ask(args) => ask_cmd(&cli, args).await,
        Command::Documents(args) => documents_cmd(&cli, args).await,
        Command::Eval(args) => eval_cmd(&cli, args).await,
        Command::Migrate(args) => migrate_cmd(&cli, args).await,
    }
}

async fn ingest_cmd(cli: &Cli, args: &IngestArgs) -> Result<ExitCode> {
    let store = open_store(cli).await?;
    let ontology = load(cli, store.as_ref()).await?;
    let grounder = Grounder::load(store.as_ref(), &ontology).await?;
    let docs = open_docs(cli, Arc::clone(&store)).await?;
    let files = docs
        .collect(&args.paths)
        .context("cannot list the documents to ingest")?;
    let pb = ProgressBar::new(files.len() as u64);
    pb.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let opts = DocOptions {
        domain: args.domain.clone(),
        source_type: args.source_type.clone(),
        doc_version: args.doc_version.clone(),
    };
    let inputs = docs.inputs(&files);
    let report = docs
        .ingest(&grounder, inputs, &opts, &|d| {
            pb.set_message(d.source_ref.clone());
            pb.inc(1);
        })
        .await?;
    pb.finish_and_clear();
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "report": report,
                "errors": report.errors,
            }))?
        );
    } else {
        for d in &report.documents {
            let status = match d.status {
                DocStatus::Indexed => "indexed  ",
                DocStatus::Replaced => "replaced ",
                DocStatus::Unchanged => "unchanged",
                DocStatus::Failed => "FAILED   ",
            };
            println!(
                "{status} {}  {} chunks ({} skipped, {} duplicates)  {}",
                d.source_id,
                d.chunks,
                d.chunks_skipped,
                d.duplicates.len(),
                d.source_ref
            );
        }
        for e in &report.errors {
            match e.chunk {
                Some(c) => println!("error     {} chunk {c}: {}", e.file, e.reason),
                None => println!("error     {}: {}", e.file, e.reason),
            }
        }
        let c = &report.counts;
        println!(
            "{} documents: {} indexed, {} replaced, {} unchanged, {} failed; {} chunks written, \
             {} points in the index; reports in {}",
            c.documents,
            c.indexed,
            c.replaced,
            c.unchanged,
            c.failed,
            c.chunks_written,
            c.index_points,
            docs.report_dir().display()
        );
    }
    Ok(if report.counts.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

async fn ask_cmd(cli: &Cli, args: &AskArgs) -> Result<ExitCode> {
    let store = open_store(cli).await?;
    let ontology = load(cli, store.as_ref()).await?;
    let docs = open_docs(cli, Arc::clone(&store)).await?;
    let state = AppState::new(store, ontology, Default::default()).await?;
    state.set_docs(Arc::new(docs));
    state
        .set_answer_config(cli.answer.clone())
        .context("cannot open the audit log")?;
    let req = daemoniq::answer::ChatRequest {
        query: args.question.clone(),
        selected_text: args.selected_text.clone(),
        top_k: Some(args.top_k),
        session_id: None,
    };
    let resp = match daemoniq::answer::chat(&state, req).await {
        Ok(r) => r,
        Err(e) => bail!("{e}"),
    };
    if args.json {
        let (_, _, mut v) = daemoniq::http::chat_envelope(&resp);
        if !args.trace
            && let Some(o) = v.as_object_mut()
        {
            o.remove("trace");
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        if let Some(e) = &resp.error {
            bail!("{e}");
        }
        if let Some(a) = &resp.answer {
            println!("{}\n", a.answer);
            for (i, e) in a.evidence.iter().enumerate() {
                println!(
                    "[{}] {}  {}",
                    i + 1,
                    e.file_paths.join(", "),
                    e.graph_ids
                        .iter()
                        .take(6)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(" ")
                );
            }
            println!("\ntimestamp:   {}", a.timestamp);
            println!("limitations: {}", a.limitations);
            println!("next step:   {}", a.next_step);
        }
        if let Some(r) = &resp.refusal {
            println!("refused ({:?}): {}", r.refusal_type, r.reason);
        }
        if args.trace {
            println!("\n{}", serde_json::to_string_pretty(&resp.trace)?);
        }
    }
    Ok(match resp.status {
        daemoniq::answer::Status::Success => ExitCode::SUCCESS,
        daemoniq::answer::Status::Refused => ExitCode::from(3),
        daemoniq::answer::Status::Error => ExitCode::from(1),
    })
}

async fn delete_cmd(cli: &Cli, args: &DeleteArgs) -> Result<ExitCode> {
    let store = open_store(cli).await?;
    load(cli, store.as_ref()).await?;
    let docs = open_docs(cli, Arc::clone(&store)).await?;
    let mut missing = 0;
    for d in &args.documents {
        let id = if d.len() == 16 && d.chars().all(|c| c.is_ascii_hexdigit()) {
            d.clone()
        } else {
            document::source_id(d)
        };
        match docs.ingestor().delete(&id).await? {
            Some(points) => println!("deleted {id} ({points} points)  {d}"),
            None => {
                println!("no such document: {d}");
                missing += 1;
            }
        }
    }
    Ok(if missing > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

async fn documents_cmd(cli: &Cli, args: &DocumentsArgs) -> Result<ExitCode> {
    let store = open_store(cli).await?;
    load(cli, store.as_ref()).await?;
    let docs = open_docs(cli, Arc::clone(&store)).await?;
    let list = docs.ingestor().documents().await?;
    let index_points = docs.ingestor().index().count().await?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "documents": list,
                "index_points": index_points,
            }))?
        );
    } else {
        for d in &list {
            println!(
                "{}  {:>4} chunks  {:>4} points  {:<9} {}",
                d.source_id, d.chunks, d.points, d.source_type, d.source_ref
            );
        }
        println!(
            "{} documents, {index_points} points in the index",
            list.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn bar(len: usize) -> ProgressBar {
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}

async fn eval_cmd(cli: &Cli, args: &EvalArgs) -> Result<ExitCode> {
    let mut plan = eval::Plan::load(&args.golden, args.gates.as_deref())?;
    plan.only(&args.sets)?;
    let (target, ingest) = match &args.url {
        Some(url) => (
            eval::Target::Remote(eval::Remote::connect(url).await?),
            None,
        ),
        None => {
            plan.skip_absent_files_roots();
            for s in &plan.skipped {
                eprintln!(
                    "\n*** SKIPPED {} ({} questions): {}\n*** Only the other golden files are \
                     evaluated; the skipped questions do not count as passed.\n",
                    s.path, s.questions, s.reason
                );
            }
            let docs = plan.documents()?;
            let mut sources = sources(cli)?;
            sources.root = plan.root.clone();
            let pb = bar(docs.len());
            let (state, ingest) =
                eval::target::in_process(&sources, &cli.index, &cli.backends, &docs, &pb).await?;
            pb.finish_and_clear();
            state
                .set_answer_config(cli.answer.clone())
                .context("cannot open the audit log")?;
            (eval::Target::InProcess(state), Some(ingest))
        }
    };
    let pb = bar(0);
    let report = eval::evaluate(&target, &plan, ingest, &pb).await?;
    pb.finish_and_clear();
    let dir = cli
        .index
        .report_dir
        .clone()
        .unwrap_or_else(|| cli.data_dir.clone());
    let (json, md) = report.write(&dir)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        eprint!("{}", report.summary());
    } else {
        print!("{}", report.summary());
    }
    eprintln!("reports: {} and {}", md.display(), json.display());
    Ok(if report.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

async fn migrate_cmd(cli: &Cli, args: &MigrateArgs) -> Result<ExitCode> {
    let dir = cli.data_dir.join("vectors");
    let Some(model) = EdgeIndex::recorded_model(&dir)? else {
        bail!(
            "there is no embedded vector index in {}; ingest documents first",
            dir.display()
        );
    };
    let from = EdgeIndex::open(&dir, model.clone())
        .context("is a daemoniq server using this --data-dir?")?;
    let to = QdrantIndex::open(cli.backends.qdrant_at(&args.to_qdrant), model).await?;
    let pb = ProgressBar::new_spinner();
    let report = copy_index(&from, &to, &|source, n| {
        pb.set_message(format!("{source}: {n} points"));
        pb.tick();
    })
    .await?;
    pb.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "copied {} points of {} documents from {} to {}; the collection now holds {} points",
            report.points,
            report.sources,
            dir.display(),
            to.location(),
            report.target_points
        );
    }
    Ok(ExitCode::SUCCESS)
}

async fn import_cmd(cli: &Cli, args: &ImportArgs) -> Result<ExitCode> {
    let store = open_store(cli).await?;
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
    let store = open_store(cli).await?;
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
        let store = open_store(cli).await?;
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
