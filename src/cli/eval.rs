//! `daemoniq eval`: the golden questions and the CI gates.

use super::progress::bar;
use anyhow::Result;
use daemoniq::config::{Cli, EvalArgs};
use daemoniq::eval;
use std::process::ExitCode;

fn announce_skips(plan: &eval::Plan) {
    for s in &plan.skipped {
        eprintln!(
            "\n*** SKIPPED {} ({} questions): {}\n*** Only the other golden files are \
             evaluated; the skipped questions do not count as passed.\n",
            s.path, s.questions, s.reason
        );
    }
}

/// Evaluates in this process (or against `--url`), writes the JSON and
/// Markdown reports, and exits 1 when a gate fails.
pub async fn eval(cli: &Cli, args: &EvalArgs) -> Result<ExitCode> {
    let mut plan = eval::Plan::load(&args.golden, args.gates.as_deref())?;
    plan.only(&args.sets)?;
    let (target, ingest, models) = match &args.url {
        Some(url) => {
            plan.skip_model_based();
            announce_skips(&plan);
            (
                Some(eval::Target::Remote(eval::Remote::connect(url).await?)),
                None,
                None,
            )
        }
        None => {
            plan.skip_absent_files_roots();
            announce_skips(&plan);
            let mut sources = super::sources(cli)?;
            sources.root = plan.root.clone();
            let models = plan
                .files
                .iter()
                .any(|f| !f.models.is_empty())
                .then(|| eval::ModelRuns {
                    sources: sources.clone(),
                    backends: cli.backends.clone(),
                    answer: cli.answer.clone(),
                });
            if plan.files.iter().any(|f| f.models.is_empty()) {
                let docs = plan.documents()?;
                let pb = bar(docs.len());
                let (state, ingest) = eval::target::in_process(
                    &sources,
                    &cli.index,
                    &cli.backends,
                    cli.answer.clone(),
                    &docs,
                    &pb,
                )
                .await?;
                pb.finish_and_clear();
                (Some(eval::Target::InProcess(state)), Some(ingest), models)
            } else {
                (None, None, models)
            }
        }
    };
    let pb = bar(0);
    let report = eval::evaluate(target.as_ref(), &plan, ingest, models.as_ref(), &pb).await?;
    pb.finish_and_clear();
    let (json, md) = report.write(&super::report_dir(cli))?;
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
