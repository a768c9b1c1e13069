//! What a test does when data it needs is missing: in CI (`CI` is `true` or
//! `1`) it fails; elsewhere it is skipped, and says so where the person
//! running the tests sees it. Shared by the integration tests
//! (`tests/common`) and the library's unit tests (`src/lib.rs` includes this
//! file), so the rule is written once. Standard library only.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Whether a value of the `CI` variable means a CI run: `true` (any case) or `1`.
pub fn is_ci_value(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        let v = v.trim();
        v == "1" || v.eq_ignore_ascii_case("true")
    })
}

/// Whether this test run is a CI run (`CI=true`, as `.ci/run` is started).
pub fn in_ci() -> bool {
    is_ci_value(std::env::var("CI").ok().as_deref())
}

/// A test cannot run because `what` is missing. In CI (`ci`) this panics, so
/// the test fails; elsewhere it writes a SKIPPED line and returns, and the
/// caller returns without running the test.
///
/// The line goes straight to the process's stderr: the test harness captures
/// `eprintln!` and shows it only for failing tests, so a skip written that way
/// would look like a pass.
pub fn missing(what: &str, ci: bool) {
    missing_to(what, ci, &mut std::io::stderr());
}

/// [`missing`], writing the SKIPPED line to `out`.
pub fn missing_to(what: &str, ci: bool, out: &mut dyn Write) {
    let test = std::thread::current()
        .name()
        .unwrap_or("this test")
        .to_owned();
    if ci {
        panic!(
            "{test}: {what}; in CI (CI=true) a test whose data is missing fails instead of skipping"
        );
    }
    let _ = writeln!(
        out,
        "SKIPPED {test}: {what}; it did not run (with CI=true it fails)"
    );
}

/// `path` when it exists; otherwise [`missing`] (`need` says what the path
/// holds), so `None` only outside CI.
pub fn require(path: &Path, need: &str, ci: bool) -> Option<PathBuf> {
    require_to(path, need, ci, &mut std::io::stderr())
}

/// [`require`], writing a SKIPPED line to `out`.
pub fn require_to(path: &Path, need: &str, ci: bool, out: &mut dyn Write) -> Option<PathBuf> {
    if path.exists() {
        Some(path.to_path_buf())
    } else {
        missing_to(&format!("{} is absent ({need})", path.display()), ci, out);
        None
    }
}

/// The shared real-world data directory beside the repository at `root`:
/// `<root>/../shared/data`, or `rel` under it when `rel` is not empty.
pub fn shared_data_path(root: &Path, rel: &str) -> PathBuf {
    let dir = root.join("../shared/data");
    if rel.is_empty() { dir } else { dir.join(rel) }
}

/// `../shared/data` (or `rel` under it) beside this repository, as
/// [`require`] gives it for this run.
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    require(
        &shared_data_path(Path::new(env!("CARGO_MANIFEST_DIR")), rel),
        "the shared real-world data, ../shared/data beside the repository",
        in_ci(),
    )
}
