//! The `daemoniq` binary: validate, import, sparql, and missing assets.

use crate::common;
use std::process::Command;

fn daemoniq() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_daemoniq"));
    cmd.current_dir(common::root());
    cmd.env("DAEMONIQ_ASSETS", common::assets().dir());
    cmd.env("DAEMONIQ_LOG", "warn");
    cmd
}

#[test]
fn validate_passes_on_the_campus_and_fails_on_the_broken_fixture() {
    let ok = daemoniq()
        .args(["--memory", "validate", "--json"])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&ok.stdout).unwrap();
    assert_eq!(report["ok"], true);

    let bad = daemoniq()
        .args(["validate", "--json", "tests/fixtures/brick/broken.ttl"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&bad.stdout).unwrap();
    let expected: Vec<serde_json::Value> = serde_json::from_slice(
        &std::fs::read(common::fixture("brick/broken.expected.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        report["violations"].as_array().unwrap().len(),
        expected.len()
    );
}

#[test]
fn import_then_sparql_on_a_data_dir() {
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().to_str().unwrap();
    let out = daemoniq()
        .args([
            "--data-dir",
            dir,
            "import",
            "--json",
            "tests/fixtures/brick/small_building.ttl",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outcomes: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcomes[0]["outcome"], "loaded");
    let again = daemoniq()
        .args([
            "--data-dir",
            dir,
            "import",
            "--json",
            "tests/fixtures/brick/small_building.ttl",
        ])
        .output()
        .unwrap();
    let outcomes: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(outcomes[0]["outcome"], "unchanged");

    let csv = daemoniq()
        .args([
            "--data-dir",
            dir,
            "sparql",
            "--format",
            "csv",
            "SELECT ?l WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l ; <https://daemoniq.io/ns/core#sourcePath> \"tests/fixtures/brick/small_building.ttl\" } ORDER BY ?l LIMIT 3",
        ])
        .output()
        .unwrap();
    assert!(
        csv.status.success(),
        "{}",
        String::from_utf8_lossy(&csv.stderr)
    );
    let text = String::from_utf8(csv.stdout).unwrap();
    assert!(text.starts_with("l\r\n"), "{text}");
    assert_eq!(text.lines().count(), 4, "{text}");

    let bad = daemoniq()
        .args(["--data-dir", dir, "sparql", "SELECT WHERE {"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("SPARQL syntax error"));
}

#[test]
fn missing_assets_name_the_command_to_run() {
    let out = daemoniq()
        .env("DAEMONIQ_ASSETS", "/nonexistent/daemoniq-assets")
        .args(["--memory", "validate"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bash scripts/setup.sh"), "{err}");
    assert!(err.contains("/nonexistent/daemoniq-assets"), "{err}");
}

#[test]
fn serving_beyond_loopback_without_a_key_refuses_to_start() {
    let out = daemoniq()
        .args(["--memory", "serve", "--bind", "0.0.0.0:0"])
        .env_remove("DAEMONIQ_API_KEY")
        .env_remove("DAEMONIQ_INSECURE_NO_AUTH")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--api-key"), "{err}");
    assert!(err.contains("--insecure-no-auth"), "{err}");
}

/// Reads a child's stderr on a thread, line by line, into a shared buffer.
fn collect(stderr: std::process::ChildStderr) -> std::sync::Arc<std::sync::Mutex<String>> {
    use std::io::BufRead;
    let buf = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let sink = std::sync::Arc::clone(&buf);
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let mut b = sink.lock().unwrap();
            b.push_str(&line);
            b.push('\n');
        }
    });
    buf
}

#[tokio::test]
async fn keys_stay_out_of_the_logs_and_the_audit_log() {
    const FULL: &str = "full-key-never-to-be-logged";
    const READ: &str = "read-key-never-to-be-logged";
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let mut child = daemoniq()
        .args([
            "--memory",
            "--log",
            "debug",
            "serve",
            "--bind",
            "127.0.0.1:0",
        ])
        .arg("--audit-log")
        .arg(&audit)
        // The in-memory vector index's scratch directory goes in the
        // test's own: the server is killed with SIGKILL below, which
        // leaves no chance to remove it.
        .env("TMPDIR", dir.path())
        .env("DAEMONIQ_API_KEY", FULL)
        .env("DAEMONIQ_READ_ONLY_API_KEY", READ)
        .env("DAEMONIQ_LOG", "debug")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let log = collect(child.stderr.take().unwrap());
    let base = {
        let start = std::time::Instant::now();
        loop {
            let text = log.lock().unwrap().clone();
            if let Some(rest) = text.split("daemoniq listening on ").nth(1) {
                break rest.lines().next().unwrap().trim().to_owned();
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(120),
                "the server did not start:\n{text}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    };
    let c = reqwest::Client::new();
    let chat = serde_json::json!({"query": "what ahu feeds vav-2-14?"});
    for (i, key) in [FULL, READ, "a-wrong-key-that-is-long-enough"]
        .iter()
        .enumerate()
    {
        let _ = c
            .post(format!("{base}/chat"))
            .bearer_auth(key)
            .header("x-request-id", format!("follow-me-{i}"))
            .json(&chat)
            .send()
            .await
            .unwrap();
        let _ = c
            .post(format!("{base}/ingest"))
            .header("api-key", *key)
            .json(&serde_json::json!({"paths": ["x.md"]}))
            .send()
            .await
            .unwrap();
    }
    let _ = child.kill();
    let _ = child.wait();
    let text = log.lock().unwrap().clone();
    assert!(
        text.contains("request refused"),
        "no refusal was logged:\n{text}"
    );
    let audit = std::fs::read_to_string(&audit).unwrap_or_default();
    assert!(audit.lines().count() >= 2, "no audit lines: {audit}");
    // The request id is in the audit line and the request's log lines.
    assert!(audit.contains("\"follow-me-0\""), "{audit}");
    assert!(text.contains("follow-me-0"), "{text}");
    assert!(
        text.contains("follow-me-2"),
        "the refusal's log line has no request id"
    );
    for key in [FULL, READ, "a-wrong-key-that-is-long-enough"] {
        assert!(!text.contains(key), "a key is in the log");
        assert!(!audit.contains(key), "a key is in the audit log");
    }
}
