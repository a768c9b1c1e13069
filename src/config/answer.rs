//! `AnswerConfig`: the query pipeline's weights and thresholds.

use clap::Args;
use std::path::PathBuf;

/// Query pipeline weights and thresholds. All of them are configuration,
/// none a literal in the pipeline.
#[derive(Debug, Args, Clone, PartialEq)]
pub struct AnswerConfig {
    /// Grounding confidence at or above which vector search is filtered by
    /// the grounded concepts.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_GROUNDED_MIN_CONF",
        default_value_t = AnswerConfig::GROUNDED_MIN_CONF
    )]
    pub grounded_min_conf: f64,

    /// Haystack equipment kinds too generic to filter on (comma list).
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_GENERIC_EQUIP",
        value_delimiter = ',',
        default_value = AnswerConfig::GENERIC_EQUIP
    )]
    pub generic_equip: Vec<String>,

    /// Filtered search fetches `top_k` times this many candidates.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_FILTER_FETCH_FACTOR",
        default_value_t = AnswerConfig::FILTER_FETCH_FACTOR
    )]
    pub filter_fetch_factor: usize,

    /// Rerank boost when a chunk's `equip` overlaps the question's.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_BOOST_EQUIP",
        default_value_t = AnswerConfig::BOOST_EQUIP
    )]
    pub boost_equip: f32,

    /// Rerank boost when a chunk's `brick_equip` overlaps the question's.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_BOOST_BRICK",
        default_value_t = AnswerConfig::BOOST_BRICK
    )]
    pub boost_brick: f32,

    /// Rerank boost when a chunk's `ptags` overlap the question's.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_BOOST_PTAGS",
        default_value_t = AnswerConfig::BOOST_PTAGS
    )]
    pub boost_ptags: f32,

    /// Rerank boost when a chunk links to an instance or product the graph
    /// step found.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_BOOST_GRAPH",
        default_value_t = AnswerConfig::BOOST_GRAPH
    )]
    pub boost_graph: f32,

    /// Weight of the lexical (BM25) ranking against the dense one (weight
    /// 1) in the reciprocal rank fusion; 0 searches by vectors alone.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_LEXICAL_WEIGHT",
        default_value_t = AnswerConfig::LEXICAL_WEIGHT
    )]
    pub lexical_weight: f32,

    /// The `k` of reciprocal rank fusion: a chunk at rank r of a ranking
    /// scores weight / (k + r).
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_RRF_K",
        default_value_t = AnswerConfig::RRF_K
    )]
    pub rrf_k: f32,

    /// Rerank boost when the question names a chunk's document (a word of
    /// its path, e.g. "per g36", "the service log").
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_BOOST_DOCUMENT",
        default_value_t = AnswerConfig::BOOST_DOCUMENT
    )]
    pub boost_document: f32,

    /// Rerank boost when a chunk names every operating mode the question
    /// names ("during cooldown": a chunk that says "Cool-down modes").
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_BOOST_MODE",
        default_value_t = AnswerConfig::BOOST_MODE
    )]
    pub boost_mode: f32,

    /// Best chunk similarity below which documents are not relevant.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_MIN_RELEVANCE",
        default_value_t = AnswerConfig::MIN_RELEVANCE
    )]
    pub min_relevance: f32,

    /// Confidence (1 − mean cosine distance of the chunks used) below which
    /// a document answer abstains.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_MIN_CONFIDENCE",
        default_value_t = AnswerConfig::MIN_CONFIDENCE
    )]
    pub min_confidence: f32,

    /// Share of the question's content words the quoted sentences must
    /// hold for a document (or selected-text) answer; below it the
    /// pipeline abstains.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_MIN_COVERAGE",
        default_value_t = AnswerConfig::MIN_COVERAGE
    )]
    pub min_coverage: f32,

    /// Most chunks that reach synthesis.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_MAX_CONTEXT_CHUNKS",
        default_value_t = AnswerConfig::MAX_CONTEXT_CHUNKS
    )]
    pub max_context_chunks: usize,

    /// Hops of topology expansion around the entities a question names.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_EXPAND_DEPTH",
        default_value_t = AnswerConfig::EXPAND_DEPTH
    )]
    pub expand_depth: usize,

    /// Append one JSON line per question here (request id, sanitized query,
    /// retrieval set ids, status, refusal type, latency; never answer or
    /// chunk text). `serve` defaults to `<data-dir>/audit.jsonl`.
    #[arg(long, global = true, env = "DAEMONIQ_AUDIT_LOG")]
    pub audit_log: Option<PathBuf>,
}

/// The defaults: the flags' and [`Default`]'s single source.
impl AnswerConfig {
    /// `--grounded-min-conf`.
    pub const GROUNDED_MIN_CONF: f64 = 0.6;
    /// `--generic-equip`, comma-separated.
    pub const GENERIC_EQUIP: &str = "actuator,meter,sensor,controller,equip";
    /// `--filter-fetch-factor`.
    pub const FILTER_FETCH_FACTOR: usize = 4;
    /// `--boost-equip`.
    pub const BOOST_EQUIP: f32 = 1.5;
    /// `--boost-brick`.
    pub const BOOST_BRICK: f32 = 1.3;
    /// `--boost-ptags`.
    pub const BOOST_PTAGS: f32 = 1.2;
    /// `--boost-graph`.
    pub const BOOST_GRAPH: f32 = 1.25;
    /// `--boost-document`.
    pub const BOOST_DOCUMENT: f32 = 1.5;
    /// `--boost-mode`.
    pub const BOOST_MODE: f32 = 1.25;
    /// `--lexical-weight`.
    pub const LEXICAL_WEIGHT: f32 = 1.0;
    /// `--rrf-k`.
    pub const RRF_K: f32 = 60.0;
    /// `--min-relevance`.
    pub const MIN_RELEVANCE: f32 = 0.4;
    /// `--min-confidence`.
    pub const MIN_CONFIDENCE: f32 = 0.5;
    /// `--min-coverage`.
    pub const MIN_COVERAGE: f32 = 0.6;
    /// `--max-context-chunks`.
    pub const MAX_CONTEXT_CHUNKS: usize = 10;
    /// `--expand-depth`.
    pub const EXPAND_DEPTH: usize = 1;
}

impl Default for AnswerConfig {
    fn default() -> Self {
        Self {
            grounded_min_conf: Self::GROUNDED_MIN_CONF,
            generic_equip: super::list(Self::GENERIC_EQUIP),
            filter_fetch_factor: Self::FILTER_FETCH_FACTOR,
            boost_equip: Self::BOOST_EQUIP,
            boost_brick: Self::BOOST_BRICK,
            boost_ptags: Self::BOOST_PTAGS,
            boost_graph: Self::BOOST_GRAPH,
            boost_document: Self::BOOST_DOCUMENT,
            boost_mode: Self::BOOST_MODE,
            lexical_weight: Self::LEXICAL_WEIGHT,
            rrf_k: Self::RRF_K,
            min_relevance: Self::MIN_RELEVANCE,
            min_confidence: Self::MIN_CONFIDENCE,
            min_coverage: Self::MIN_COVERAGE,
            max_context_chunks: Self::MAX_CONTEXT_CHUNKS,
            expand_depth: Self::EXPAND_DEPTH,
            audit_log: None,
        }
    }
}
