//! `daemoniq serve`.

use anyhow::{Context, Result};
use daemoniq::config::{Cli, ServeArgs};
use daemoniq::{AppParts, AppState, Snapshot};
use std::process::ExitCode;
use std::sync::Arc;

/// Loads the sources, opens the backends and serves the HTTP API until
/// Ctrl-C or SIGTERM.
pub async fn serve(cli: &Cli, args: &ServeArgs) -> Result<ExitCode> {
    exposure(args)?;
    let store = super::open_store(cli).await?;
    let ontology = super::load(cli, store.as_ref()).await?;
    let docs = super::open_docs(cli, Arc::clone(&store)).await?;
    let snapshot = Snapshot::build(store.as_ref(), ontology).await?;
    let mut answer = cli.answer.clone();
    if answer.audit_log.is_none() && !cli.memory {
        answer.audit_log = Some(cli.data_dir.join("audit.jsonl"));
    }
    let mut http = args.http.clone();
    http.ui_vendor_dir = Some(super::assets(cli).dir().join("ui-vendor"));
    let state = AppState::open(AppParts {
        store,
        snapshot,
        http,
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

/// Refuses to listen beyond loopback without an API key, unless told to
/// with `--insecure-no-auth` (which is then logged at every start).
fn exposure(args: &ServeArgs) -> Result<()> {
    let ip = args.bind.ip();
    if ip.is_loopback() || args.http.api_key.is_some() {
        return Ok(());
    }
    if args.insecure_no_auth {
        tracing::warn!(
            addr = %args.bind,
            "serving beyond loopback with no API key (--insecure-no-auth): anyone who reaches the port can ingest and delete documents"
        );
        return Ok(());
    }
    anyhow::bail!(
        "refusing to listen on {} without --api-key (DAEMONIQ_API_KEY): anyone who reaches a \
         non-loopback address could ingest and delete documents. Set --api-key (and \
         --read-only-api-key for readers), bind 127.0.0.1, or pass --insecure-no-auth",
        args.bind
    )
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
