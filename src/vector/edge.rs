//! Qdrant Edge backend of [`super::VectorIndex`] (in progress).
