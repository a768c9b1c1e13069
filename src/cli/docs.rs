//! Documents: `daemoniq ingest`, `documents`, `delete` and `migrate`.

use super::progress::bar;
use anyhow::{Context, Result, bail};
use daemoniq::config::{Cli, DeleteArgs, DocumentsArgs, IngestArgs, MigrateArgs};
use daemoniq::ground::Grounder;
use daemoniq::ingest::{DocOptions, DocStatus, document};
use daemoniq::vector::migrate::copy_index;
use daemoniq::vector::{EdgeIndex, QdrantIndex};
use indicatif::ProgressBar;
use std::process::ExitCode;
use std::sync::Arc;

/// Ingests files and directories; exits 1 when a document failed.
pub async fn ingest(cli: &Cli, args: &IngestArgs) -> Result<ExitCode> {
    let store = super::open_store(cli).await?;
    let ontology = super::load(cli, store.as_ref()).await?;
    let grounder = Grounder::load(store.as_ref(), &ontology).await?;
    let docs = super::open_docs(cli, Arc::clone(&store)).await?;
    let files = docs
        .collect(&args.paths)
        .context("cannot list the documents to ingest")?;
    let pb = bar(files.len());
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

/// Deletes documents by `source_id` or path; exits 1 when one is missing.
pub async fn delete(cli: &Cli, args: &DeleteArgs) -> Result<ExitCode> {
    let store = super::open_store(cli).await?;
    super::load(cli, store.as_ref()).await?;
    let docs = super::open_docs(cli, Arc::clone(&store)).await?;
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

/// Lists the ingested documents.
pub async fn documents(cli: &Cli, args: &DocumentsArgs) -> Result<ExitCode> {
    let store = super::open_store(cli).await?;
    super::load(cli, store.as_ref()).await?;
    let docs = super::open_docs(cli, Arc::clone(&store)).await?;
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

/// Copies the embedded vector index to a Qdrant server collection.
pub async fn migrate(cli: &Cli, args: &MigrateArgs) -> Result<ExitCode> {
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
