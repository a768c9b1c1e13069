//! Sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) through fastembed,
//! with ONNX Runtime loaded dynamically from the set-up assets.
//!
//! One ONNX Runtime environment exists per process ([`ort_environment`]);
//! every [`Embedder`] shares it. Vectors are mean-pooled and L2-normalised,
//! so cosine similarity is a dot product.

use std::path::Path;
use std::sync::{Mutex, OnceLock};

use fastembed::{
    InitOptionsUserDefined, Pooling, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel,
};

use crate::assets::{Assets, MissingAsset};

/// Model id recorded in every payload and in the index.
pub const MODEL_ID: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// Output dimension of the model.
pub const DIMENSION: usize = 384;

/// The model's window in tokens (special tokens included).
pub const MAX_TOKENS: usize = 256;

/// Why embeddings could not be made.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A set-up asset is missing.
    #[error(transparent)]
    Missing(#[from] MissingAsset),
    /// ONNX Runtime could not be loaded.
    #[error(
        "cannot load ONNX Runtime from {path}: {reason}; re-run `bash scripts/setup.sh` to restore it"
    )]
    Runtime {
        /// The shared library.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// The model could not be loaded or run.
    #[error("embedding generation failed: {0}")]
    Model(String),
}

/// How to run the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbedOptions {
    /// ONNX Runtime intra-op threads.
    pub threads: usize,
    /// Texts per model call.
    pub batch_size: usize,
}

impl Default for EmbedOptions {
    fn default() -> Self {
        Self {
            threads: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            batch_size: 1,
        }
    }
}

static ORT: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();

/// The process's ONNX Runtime environment, loaded from `lib` on first use.
/// Later calls return the first environment whatever `lib` they pass.
fn ort_environment(lib: &Path) -> Result<ort::environment::Environment, EmbedError> {
    let loaded = ORT.get_or_init(|| {
        ort::init_from(lib)
            .map_err(|e| e.to_string())?
            .with_name("daemoniq")
            .build()
            .map_err(|e| e.to_string())
    });
    loaded.clone().map_err(|reason| EmbedError::Runtime {
        path: lib.display().to_string(),
        reason,
    })
}

/// The embedding model, ready to run. Cheap to share behind an `Arc`;
/// calls are serialised (ONNX Runtime parallelises inside a call).
pub struct Embedder {
    model: Mutex<TextEmbedding>,
    batch_size: usize,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("model", &MODEL_ID)
            .field("batch_size", &self.batch_size)
            .finish_non_exhaustive()
    }
}

fn read(what: &'static str, path: &Path) -> Result<Vec<u8>, EmbedError> {
    std::fs::read(path).map_err(|_| {
        EmbedError::Missing(MissingAsset {
            what,
            path: path.to_owned(),
        })
    })
}

impl Embedder {
    /// Loads ONNX Runtime and the model from the asset cache.
    pub fn from_assets(assets: &Assets, opts: EmbedOptions) -> Result<Self, EmbedError> {
        let lib = assets.onnxruntime_lib();
        if !lib.is_file() {
            return Err(MissingAsset {
                what: "ONNX Runtime 1.31.1 (libonnxruntime.so)",
                path: lib,
            }
            .into());
        }
        let env = ort_environment(&lib)?;
        let dir = assets.model_dir();
        let files = TokenizerFiles {
            tokenizer_file: read("the model's tokenizer.json", &dir.join("tokenizer.json"))?,
            config_file: read("the model's config.json", &dir.join("config.json"))?,
            special_tokens_map_file: read(
                "the model's special_tokens_map.json",
                &dir.join("special_tokens_map.json"),
            )?,
            tokenizer_config_file: read(
                "the model's tokenizer_config.json",
                &dir.join("tokenizer_config.json"),
            )?,
        };
        let onnx = read("the all-MiniLM-L6-v2 ONNX model", &dir.join("model.onnx"))?;
        let model = UserDefinedEmbeddingModel::new(onnx, files).with_pooling(Pooling::Mean);
        let options = InitOptionsUserDefined::new()
            .with_environment(env)
            .with_max_length(MAX_TOKENS)
            .with_intra_threads(opts.threads.max(1))
            .with_session_config("session.intra_op.allow_spinning", "0");
        let model = TextEmbedding::try_new_from_user_defined(model, options)
            .map_err(|e| EmbedError::Model(e.to_string()))?;
        tracing::info!(
            model = MODEL_ID,
            dimension = DIMENSION,
            threads = opts.threads,
            batch = opts.batch_size,
            "embedding model loaded"
        );
        Ok(Self {
            model: Mutex::new(model),
            batch_size: opts.batch_size.max(1),
        })
    }

    /// Model id.
    pub fn model_id(&self) -> &'static str {
        MODEL_ID
    }

    /// Vector dimension.
    pub fn dimension(&self) -> usize {
        DIMENSION
    }

    /// Embeds texts in batches; blocking (call from `spawn_blocking`).
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut model = self
            .model
            .lock()
            .map_err(|_| EmbedError::Model("a previous embedding call panicked".into()))?;
        // A batch is padded to its longest text, and attention cost grows
        // with the square of the length: batch texts of similar length.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let sorted: Vec<&str> = order.iter().map(|&i| texts[i].as_str()).collect();
        let embedded = model
            .embed(&sorted, Some(self.batch_size))
            .map_err(|e| EmbedError::Model(e.to_string()))?;
        let mut vectors = vec![Vec::new(); texts.len()];
        for (slot, v) in order.into_iter().zip(embedded) {
            vectors[slot] = v;
        }
        if vectors.len() != texts.len() || vectors.iter().any(|v| v.len() != DIMENSION) {
            return Err(EmbedError::Model(format!(
                "model returned {} vectors for {} texts",
                vectors.len(),
                texts.len()
            )));
        }
        Ok(vectors)
    }

    /// Embeds one text.
    pub fn embed_one(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        self.embed(&[text.to_owned()])?
            .pop()
            .ok_or_else(|| EmbedError::Model("no vector returned".into()))
    }
}

/// Cosine similarity of two unit vectors (their dot product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
