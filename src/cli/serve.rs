//! `daemoniq serve`.

use anyhow::{Context, Result};
use daemoniq::config::{Cli, ServeArgs};
use daemoniq::{AppParts, AppState, Snapshot};
use std::process::ExitCode;
use std::sync::Arc;

/// Loads the sources, opens the backends and serves the HTTP API until
/// Ctrl-C or SIGTERM.
pub async fn serve(cli: &Cli, args: &ServeArgs) -> Result<ExitCode> {
    let store = super::open_store(cli).await?;
    let ontology = super::load(cli, store.as_ref()).await?;
    let docs = super::open_docs(cli, Arc::clone(&store)).await?;
    let snapshot = Snapshot::build(store.as_ref(), ontology).await?;
    let mut answer = cli.answer.clone();
    if answer.audit_log.is_none() && !cli.memory {
        answer.audit_log = Some(cli.data_dir.join("audit.jsonl"));
    }
    let state = AppState::open(AppParts {
        store,
        snapshot,
        http: args.http.clone(),
        docs: Some(Arc::new(docs)),
        answer,
    })?;
    let listener = tokio::net::TcpListener::bind(args.bind)
        .await
        .with_context(|| format!("cannot listen on {}", args.bind))?;
    tracing::info!(addr = %listener.local_addr()?, "serving");
    eprintln!("daemoniq listening on http://{}", listener.local_addr()?);
    daemoniq::serve(listener, state, shutdown_signal()).await?;
    Ok(ExitCode::SUCCESS)
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
