//! `eval_report.md`: written for a person who did not write the goldens.
//! Result first, then the gates with their values per golden file, the
//! categories, the failing questions with their reasons, and all questions.

use super::golden::Expect;
use super::metrics::Metrics;
use super::report::{ALL, EvalReport, QuestionReport, ms, ratio, value};
use std::fmt::Write as _;

/// Text safe inside a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

fn expect(e: Expect) -> &'static str {
    match e {
        Expect::Answer => "answer",
        Expect::Abstain => "abstain",
    }
}

/// Renders the report.
pub fn render(r: &EvalReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# DaemonIQ golden evaluation\n");
    header(&mut s, r);
    gates(&mut s, r);
    sets(&mut s, r);
    categories(&mut s, r);
    ingest(&mut s, r);
    failing(&mut s, r);
    all_questions(&mut s, r);
    s
}

fn header(s: &mut String, r: &EvalReport) {
    if r.passed {
        let _ = writeln!(s, "**Result: PASS** — every enforced gate holds.\n");
    } else if r.questions.is_empty() {
        let _ = writeln!(s, "**Result: FAIL** — no question was evaluated.\n");
    } else {
        let _ = writeln!(
            s,
            "**Result: FAIL** — {} enforced gate(s) fail:\n",
            r.failed_gates.len()
        );
        for g in &r.failed_gates {
            let _ = writeln!(
                s,
                "- `{}` on **{}**: {} (needs {} {})",
                g.metric,
                g.scope,
                value(&g.metric, g.value),
                g.op.as_str(),
                g.threshold
            );
        }
        let _ = writeln!(s);
    }
    let passed = r.questions.iter().filter(|q| q.pass).count();
    let _ = writeln!(
        s,
        "Generated {} by daemoniq {} ({}). {} of {} questions passed every check.\n",
        r.generated_at.format("%Y-%m-%d %H:%M:%S UTC"),
        r.daemoniq_version,
        r.mode,
        passed,
        r.questions.len()
    );
    for sk in &r.skipped {
        let _ = writeln!(
            s,
            "> **SKIPPED: `{}`** ({} questions, none counted as passed): {}\n",
            sk.path, sk.questions, sk.reason
        );
    }
    let _ = writeln!(
        s,
        "Each question was sent to the `/chat` pipeline and its response compared with the \
         golden question (`golden/README.md` explains the fields). A question passes when the \
         response follows the answer contract, answers or abstains as expected, cites graph \
         ids and files that exist, includes every required graph id and file, has every \
         required phrase, and cites PDFs on the expected pages. Wrong refusal types and \
         evidence noise are reported as notes, not failures.\n"
    );
}

fn gates(s: &mut String, r: &EvalReport) {
    let evaluated: Vec<&str> = r.scopes.iter().map(|x| x.scope.as_str()).collect();
    let _ = writeln!(s, "## Gates\n");
    let _ = writeln!(
        s,
        "Every gate of `{}` is computed over all questions, per golden file, and per part of \
         each file (`tuned`: written beside the pipeline; `held_out`: written without looking \
         at it). An enforced gate that fails on any of them fails the run (non-zero exit); the \
         others are reported only. `n/a`: nothing to measure, and the golden file declares \
         the metric does not apply (`not_applicable`), which holds; `none ❌`: nothing to \
         measure and not declared, which fails — there is no free credit.\n",
        r.gates_file
    );
    let mut head = String::from("| metric | gate | enforced |");
    let mut rule = String::from("| --- | --- | --- |");
    for sc in &evaluated {
        let _ = write!(head, " {sc} |");
        rule.push_str(" --- |");
    }
    for sk in &r.skipped {
        let _ = write!(head, " {} |", sk.name);
        rule.push_str(" --- |");
    }
    let _ = writeln!(s, "{head}\n{rule}");
    for g in &r.gate_definitions {
        let mut row = format!(
            "| `{}` | {} {} | {} |",
            g.metric,
            g.op.as_str(),
            g.threshold,
            if g.enforced { "yes" } else { "no" }
        );
        for sc in &evaluated {
            let c = match r.gate(&g.metric, sc) {
                Some(res) if res.value.is_none() && res.not_applicable => "n/a".to_owned(),
                Some(res) if res.value.is_none() => match res.enforced {
                    true => "none ❌ **FAIL**".to_owned(),
                    false => "none ⚠️".to_owned(),
                },
                Some(res) => format!(
                    "{} {}",
                    value(&res.metric, res.value),
                    match (res.pass, res.enforced) {
                        (true, _) => "✅ pass",
                        (false, true) => "❌ **FAIL**",
                        (false, false) => "⚠️ below",
                    }
                ),
                None => "—".to_owned(),
            };
            let _ = write!(row, " {c} |");
        }
        for _ in &r.skipped {
            row.push_str(" skipped |");
        }
        let _ = writeln!(s, "{row}");
    }
    let _ = writeln!(s, "\n### What the gates measure\n");
    for g in &r.gate_definitions {
        let _ = writeln!(
            s,
            "- **`{}`** ({} {}, {}): {} *Why:* {}",
            g.metric,
            g.op.as_str(),
            g.threshold,
            if g.enforced { "enforced" } else { "reported" },
            g.definition,
            g.why
        );
    }
    let _ = writeln!(s);
}

fn sets(s: &mut String, r: &EvalReport) {
    let _ = writeln!(s, "## Golden files\n");
    let _ = writeln!(
        s,
        "| set | file | questions | passed | answered | refused or error | errors | latency p50 / p95 / p99 ms |"
    );
    let _ = writeln!(s, "| --- | --- | --- | --- | --- | --- | --- | --- |");
    for f in &r.files {
        let m = r.scope(&f.name);
        match m {
            Some(m) if f.evaluated => {
                let answered = r
                    .questions
                    .iter()
                    .filter(|q| q.file == f.name && q.score.answered)
                    .count();
                let _ = writeln!(
                    s,
                    "| {} | `{}` | {} | {} | {} | {} | {} | {} / {} / {} |",
                    f.name,
                    f.path,
                    m.questions,
                    m.passed,
                    answered,
                    m.questions - answered,
                    m.errors,
                    ms(m.latency_ms.p50),
                    ms(m.latency_ms.p95),
                    ms(m.latency_ms.p99)
                );
            }
            _ => {
                let _ = writeln!(
                    s,
                    "| {} | `{}` | {} | SKIPPED | | | | |",
                    f.name, f.path, f.questions
                );
            }
        }
    }
    if let Some(m) = r.scope(ALL) {
        let _ = writeln!(
            s,
            "\nOver all: {} answer questions ({} not answered: false refusal rate {}), {} abstain \
             questions ({} answered anyway: abstention accuracy {}).\n",
            m.answer_questions,
            m.false_refusal_rate.num,
            ratio(m.false_refusal_rate.value()),
            m.abstain_questions,
            m.false_answers,
            ratio(m.must_abstain_accuracy.value())
        );
    }
}

fn category_row(name: &str, m: &Metrics) -> String {
    format!(
        "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        m.questions,
        m.passed,
        ratio(m.must_abstain_accuracy.value()),
        m.false_answers,
        m.false_refusal_rate.num,
        ratio(m.evidence_recall.value()),
        ratio(m.evidence_precision.value()),
        ratio(m.file_citation_accuracy.value()),
        ratio(m.answer_contains_accuracy.value()),
        ratio(m.page_label_accuracy.value()),
        ratio(m.conflict_accuracy.value()),
        ratio(m.refusal_type_accuracy.value()),
        ratio(m.schema_compliance.value()),
        ratio(m.citation_validity.value()),
        ms(m.latency_ms.p50),
        ms(m.latency_ms.p95),
    )
}

fn categories(s: &mut String, r: &EvalReport) {
    let _ = writeln!(s, "## Per category\n");
    let _ = writeln!(
        s,
        "Over all evaluated golden files. Abstention: share of abstain questions that \
         abstained; false answers: abstain questions answered; false refusals: answer \
         questions not answered; recall / precision: evidence graph ids against the must / \
         must + may ids; files: required files cited; contains: required phrases in the \
         answers given; pages: PDF page labels; compliance: answer contract and envelope; \
         citations: evidence items whose graph ids and (file, sha) exist.\n"
    );
    let _ = writeln!(
        s,
        "| category | questions | passed | abstention | false answers | false refusals | recall | precision | files | contains | pages | conflict | refusal type | compliance | citations | p50 ms | p95 ms |"
    );
    let _ = writeln!(s, "|{}", " --- |".repeat(17));
    for c in &r.categories {
        let _ = writeln!(s, "{}", category_row(&c.scope, &c.metrics));
    }
    if let Some(m) = r.scope(ALL) {
        let _ = writeln!(s, "{}", category_row("**all**", m));
    }
    let _ = writeln!(s);
}

fn ingest(s: &mut String, r: &EvalReport) {
    let Some(i) = &r.ingest else {
        return;
    };
    let c = &i.counts;
    let _ = writeln!(s, "## Documents ingested for this run\n");
    let _ = writeln!(
        s,
        "{} documents ({} indexed, {} failed), {} chunks written, {} left out, {} points in the \
         scratch index, {:.1} s.\n",
        c.documents,
        c.indexed + c.replaced,
        c.failed,
        c.chunks_written,
        c.chunks_skipped,
        c.index_points,
        i.elapsed_ms / 1000.0
    );
    if !i.errors.is_empty() {
        let _ = writeln!(s, "Not indexed ({}):\n", i.errors.len());
        for e in i.errors.iter().take(30) {
            let _ = match e.chunk {
                Some(n) => writeln!(s, "- `{}` chunk {n}: {}", e.file, e.reason),
                None => writeln!(s, "- `{}`: {}", e.file, e.reason),
            };
        }
        if i.errors.len() > 30 {
            let _ = writeln!(s, "- … {} more in eval_report.json", i.errors.len() - 30);
        }
        let _ = writeln!(s);
    }
}

fn status_of(q: &QuestionReport) -> String {
    match (&q.score.status[..], &q.score.refusal_type) {
        ("refused", Some(t)) => format!("refused ({t})"),
        (st, _) => st.to_owned(),
    }
}

fn failing(s: &mut String, r: &EvalReport) {
    let failing: Vec<&QuestionReport> = r.questions.iter().filter(|q| !q.pass).collect();
    let _ = writeln!(s, "## Failing questions ({})\n", failing.len());
    if failing.is_empty() {
        let _ = writeln!(s, "None.\n");
    }
    for q in failing {
        let _ = writeln!(
            s,
            "### `{}` — {}, expects {} ({})\n",
            q.id,
            q.category,
            expect(q.expect),
            q.file
        );
        let _ = writeln!(s, "> {}\n", cell(&q.question));
        if q.selected_text {
            let _ = writeln!(s, "(asked with selected text)\n");
        }
        let _ = writeln!(s, "- response: {}", status_of(q));
        if let Some(t) = &q.score.answer_text {
            let _ = writeln!(s, "- answer: “{}”", cell(&shorten(t, 300)));
        }
        for f in &q.score.failures {
            let _ = writeln!(s, "- **{}**", cell(f));
        }
        for w in &q.score.warnings {
            let _ = writeln!(s, "- note: {}", cell(w));
        }
        let _ = writeln!(s);
    }
}

fn all_questions(s: &mut String, r: &EvalReport) {
    let _ = writeln!(s, "## All questions\n");
    let _ = writeln!(
        s,
        "| id | set | category | expect | result | response | recall | files | ms | question |"
    );
    let _ = writeln!(s, "|{}", " --- |".repeat(10));
    for q in &r.questions {
        let files = match q.score.files_ok {
            Some(true) => "ok",
            Some(false) => "missing",
            None => "",
        };
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {:.0} | {} |",
            q.id,
            q.file,
            q.category,
            expect(q.expect),
            if q.pass { "pass" } else { "**FAIL**" },
            status_of(q),
            q.score
                .recall
                .map_or_else(String::new, |v| format!("{v:.2}")),
            files,
            q.score.latency_ms,
            cell(&shorten(&q.question, 80))
        );
    }
}
