//! `daemoniq ask`: one question through the `/chat` pipeline.

use anyhow::{Result, bail};
use daemoniq::answer::{self, ChatRequest, Status};
use daemoniq::config::{AskArgs, Cli, HttpConfig};
use daemoniq::http::chat::envelope;
use daemoniq::http::error::ApiError;
use daemoniq::{AppParts, AppState, Snapshot};
use std::process::ExitCode;
use std::sync::Arc;

/// Answers the question; exits 0 on an answer, 3 on an abstention, 1 on a
/// server fault with `--json` (without it, a fault is an error).
pub async fn ask(cli: &Cli, args: &AskArgs) -> Result<ExitCode> {
    let store = super::open_store(cli).await?;
    let ontology = super::load(cli, store.as_ref()).await?;
    let docs = super::open_docs(cli, Arc::clone(&store)).await?;
    let snapshot = Snapshot::build(store.as_ref(), ontology).await?;
    let state = AppState::open(AppParts {
        store,
        snapshot,
        http: HttpConfig::default(),
        docs: Some(Arc::new(docs)),
        answer: cli.answer.clone(),
    })?;
    let req = ChatRequest {
        query: args.question.clone(),
        selected_text: args.selected_text.clone(),
        top_k: Some(args.top_k),
        session_id: None,
        request_id: None,
    };
    let resp = match answer::chat(&state, req).await {
        Ok(r) => r,
        Err(e) => bail!("{e}"),
    };
    if let Some(fault) = &resp.error {
        tracing::error!(error = %fault, "answering failed");
    }
    if args.json {
        let mut v = serde_json::to_value(envelope(&resp).1)?;
        if !args.trace
            && let Some(o) = v.as_object_mut()
        {
            o.remove("trace");
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        if let Some(fault) = &resp.error {
            bail!("{}", ApiError::from(fault).message);
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
        Status::Success => ExitCode::SUCCESS,
        Status::Refused => ExitCode::from(3),
        Status::Error => ExitCode::from(1),
    })
}
