//! A process killed with SIGKILL anywhere in an ingest or delete leaves
//! each document either wholly visible or not at all after a restart.

use crate::common;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn daemoniq(data: &Path, docs: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_daemoniq"));
    cmd.current_dir(common::root())
        .arg("--data-dir")
        .arg(data)
        .arg("--docs-root")
        .arg(docs)
        .arg("--ort-threads")
        .arg("1")
        .env_remove("DAEMONIQ_FAILPOINT")
        .env("DAEMONIQ_LOG", "warn");
    cmd
}

/// `documents --json` after a restart (which reconciles first).
fn listing(data: &Path, docs: &Path) -> (Vec<Value>, u64) {
    let out = daemoniq(data, docs)
        .args(["documents", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    (
        v["documents"].as_array().unwrap().clone(),
        v["index_points"].as_u64().unwrap(),
    )
}

/// Every listed document has all its chunks as points, and the index holds
/// nothing else.
fn assert_whole(data: &Path, docs: &Path) -> Vec<Value> {
    let (list, points) = listing(data, docs);
    let mut total = 0;
    for d in &list {
        assert_eq!(d["chunks"], d["points"], "half-visible document: {d}");
        assert!(d["chunks"].as_u64().unwrap() > 0);
        total += d["points"].as_u64().unwrap();
    }
    assert_eq!(
        points, total,
        "points outside committed documents: {list:?}"
    );
    list
}

/// Runs `args` with a fail point, waits until it is reached, kills -9.
fn kill_at(data: &Path, docs: &Path, failpoint: &str, args: &[&str]) {
    let mut child = daemoniq(data, docs)
        .env("DAEMONIQ_FAILPOINT", failpoint)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let marker = format!("DAEMONIQ_FAILPOINT {failpoint} reached");
    let mut reached = false;
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap();
        if line.contains(&marker) {
            reached = true;
            break;
        }
    }
    assert!(reached, "fail point {failpoint} never reached");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
}

fn sha_of(list: &[Value], source_ref: &str) -> Option<String> {
    list.iter()
        .find(|d| d["source_ref"] == source_ref)
        .map(|d| d["source_sha"].as_str().unwrap().to_owned())
}

#[test]
fn sigkill_mid_ingest_or_delete_leaves_whole_documents_or_none() {
    let data = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    let corpus = common::root().join("golden/corpus");
    for f in [
        "northfield_soo_ahu.md",
        "northfield_soo_vav.md",
        "yorkland_om_notes.md",
    ] {
        std::fs::copy(corpus.join(f), docs.path().join(f)).unwrap();
    }
    let (d, p) = (data.path(), docs.path());
    let ahu = p.join("northfield_soo_ahu.md");
    let vav = p.join("northfield_soo_vav.md");
    let om = p.join("yorkland_om_notes.md");
    let path = |x: &Path| x.display().to_string();

    // A committed first version of the AHU sequence.
    let ok = daemoniq(d, p)
        .args(["ingest", &path(&ahu)])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let v1 = sha_of(&assert_whole(d, p), "northfield_soo_ahu.md").unwrap();

    // Killed after the new version's points are written, before its graph
    // commit: the old version is still the whole document; VAV never started.
    let mut text = std::fs::read_to_string(&ahu).unwrap();
    text.push_str("\n\n## Revision\n\nAHU-1 minimum outdoor air damper position is 15 %.\n");
    std::fs::write(&ahu, &text).unwrap();
    kill_at(
        d,
        p,
        "before_graph_commit",
        &["ingest", &path(&ahu), &path(&vav)],
    );
    let list = assert_whole(d, p);
    assert_eq!(sha_of(&list, "northfield_soo_ahu.md"), Some(v1.clone()));
    assert_eq!(sha_of(&list, "northfield_soo_vav.md"), None);

    // Killed right after the graph commit, before the old points are
    // dropped: the new version is the whole document.
    kill_at(d, p, "after_graph_commit", &["ingest", &path(&ahu)]);
    let list = assert_whole(d, p);
    let v2 = sha_of(&list, "northfield_soo_ahu.md").unwrap();
    assert_ne!(v2, v1);

    // Killed at arbitrary moments of a multi-file ingest.
    for delay_ms in [200u64, 900, 2500] {
        let mut child = daemoniq(d, p)
            .args(["ingest", &path(&vav), &path(&om)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(delay_ms) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        child.wait().unwrap();
        assert_whole(d, p);
    }

    // A clean run completes what the killed ones did not.
    let ok = daemoniq(d, p)
        .args(["ingest", &path(&ahu), &path(&vav), &path(&om)])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert_eq!(assert_whole(d, p).len(), 3);

    // Killed between the graph delete and the point delete: gone entirely.
    kill_at(
        d,
        p,
        "after_graph_delete",
        &["delete", "northfield_soo_vav.md"],
    );
    let list = assert_whole(d, p);
    assert_eq!(list.len(), 2);
    assert_eq!(sha_of(&list, "northfield_soo_vav.md"), None);
}
