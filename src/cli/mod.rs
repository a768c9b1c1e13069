//! The `daemoniq` subcommands, one file per group. `main.rs` parses the
//! command line, starts tracing and the runtime, and calls [`run`].
//!
//! Every command opens its backends through [`daemoniq::backends`], so the
//! choice between remote, on-disk and in-memory is made in one place.

mod ask;
mod docs;
mod eval;
mod graph;
mod progress;
mod serve;

use anyhow::Result;
use daemoniq::Sources;
use daemoniq::assets::Assets;
use daemoniq::backends::{self, Embedded};
use daemoniq::config::{Cli, Command};
use daemoniq::import::ImportOutcome;
use daemoniq::ingest::DocService;
use daemoniq::ontology::Ontology;
use daemoniq::store::GraphStore;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Runs the command; the exit code is the command's (`Err` exits with 2).
pub async fn run(cli: Cli) -> Result<ExitCode> {
    match &cli.command {
        Command::Serve(args) => serve::serve(&cli, args).await,
        Command::Import(args) => graph::import(&cli, args).await,
        Command::Sparql(args) => graph::sparql(&cli, args).await,
        Command::Validate(args) => graph::validate(&cli, args).await,
        Command::Ingest(args) => docs::ingest(&cli, args).await,
        Command::Delete(args) => docs::delete(&cli, args).await,
        Command::Ask(args) => ask::ask(&cli, args).await,
        Command::Documents(args) => docs::documents(&cli, args).await,
        Command::Eval(args) => eval::eval(&cli, args).await,
        Command::Migrate(args) => docs::migrate(&cli, args).await,
    }
}

/// Where the embedded backends live: `--data-dir`, or memory with `--memory`.
fn embedded(cli: &Cli) -> Embedded {
    Embedded::new(cli.memory, cli.data_dir.clone())
}

/// Where reports go: `--report-dir`, else the data dir.
fn report_dir(cli: &Cli) -> PathBuf {
    cli.index
        .report_dir
        .clone()
        .unwrap_or_else(|| cli.data_dir.clone())
}

fn assets(cli: &Cli) -> Assets {
    Assets::new(
        cli.assets_dir
            .clone()
            .unwrap_or_else(daemoniq::config::default_assets_dir),
    )
}

fn sources(cli: &Cli) -> Result<Sources> {
    Ok(Sources {
        assets: assets(cli),
        ontology_dir: cli.ontology_dir.clone(),
        graph_dirs: cli.graph_dirs.clone(),
        root: std::env::current_dir()?,
    })
}

/// The graph store the configuration names.
async fn open_store(cli: &Cli) -> Result<Arc<dyn GraphStore>> {
    Ok(backends::open_store(&cli.backends, &embedded(cli)).await?)
}

/// The document service the configuration names, with the leftovers of
/// an interrupted run removed.
async fn open_docs(cli: &Cli, store: Arc<dyn GraphStore>) -> Result<DocService> {
    let docs = backends::open_docs(
        &cli.index,
        &cli.backends,
        &embedded(cli),
        store,
        &assets(cli),
        report_dir(cli),
    )
    .await?;
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

/// Brings the store in line with the ontology and model files.
async fn load(cli: &Cli, store: &dyn GraphStore) -> Result<Ontology> {
    let pb = progress::spinner("loading ontology and building models");
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
