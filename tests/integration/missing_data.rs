//! Missing data fails a test in CI and skips it elsewhere
//! (`tests/common/data.rs`). The CI flag is passed in, so these tests do not
//! depend on, or change, the process environment.

use crate::common::{self, data};
use std::path::Path;

/// A repository root with nothing beside it: its `../shared/data` is absent.
fn lone_root(scratch: &Path) -> std::path::PathBuf {
    let root = scratch.join("repo");
    std::fs::create_dir(&root).unwrap();
    root
}

#[test]
#[should_panic(
    expected = "shared/data is absent (the shared data); in CI (CI=true) a test whose data is missing fails"
)]
fn a_missing_shared_data_directory_fails_in_ci() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = data::shared_data_path(&lone_root(scratch.path()), "");
    data::require(&dir, "the shared data", true);
}

#[test]
#[should_panic(expected = "docs/pdf/x.pdf is absent")]
fn a_missing_file_under_the_shared_data_fails_in_ci() {
    let scratch = tempfile::tempdir().unwrap();
    let path = data::shared_data_path(&lone_root(scratch.path()), "docs/pdf/x.pdf");
    data::require(&path, "a G36 PDF", true);
}

#[test]
fn a_missing_shared_data_directory_is_skipped_outside_ci() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = data::shared_data_path(&lone_root(scratch.path()), "");
    let mut said = Vec::new();
    assert_eq!(
        data::require_to(&dir, "the shared data", false, &mut said),
        None
    );
    let said = String::from_utf8(said).unwrap();
    assert!(said.starts_with("SKIPPED "), "{said}");
    assert!(
        said.contains("shared/data is absent (the shared data); it did not run"),
        "{said}"
    );
}

#[test]
fn data_that_is_there_is_given_in_ci_and_outside() {
    let fixtures = common::fixture("brick");
    for ci in [true, false] {
        let mut said = Vec::new();
        assert_eq!(
            data::require_to(&fixtures, "fixtures", ci, &mut said).as_deref(),
            Some(fixtures.as_path())
        );
        assert!(said.is_empty());
    }
}

#[test]
fn ci_means_true_or_1() {
    for v in ["true", "TRUE", "True", "1", " true\n"] {
        assert!(data::is_ci_value(Some(v)), "{v:?}");
    }
    for v in [
        None,
        Some(""),
        Some("0"),
        Some("false"),
        Some("no"),
        Some("yes"),
    ] {
        assert!(!data::is_ci_value(v), "{v:?}");
    }
}
