//! Copying an index to another backend without re-embedding: every point
//! goes over with its id, vector and payload, source by source, and the
//! target is checked to hold the same ids afterwards.

use serde::Serialize;

use super::{ChunkPoint, VectorError, VectorIndex, VectorResult};

/// What one copy did.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CopyReport {
    /// Sources copied.
    pub sources: usize,
    /// Points copied.
    pub points: usize,
    /// Points in the target after the copy.
    pub target_points: usize,
}

/// Copies every point of `from` into `to` (an upsert: running it again
/// changes nothing). Both must be built for the same model and dimension.
pub async fn copy_index(
    from: &dyn VectorIndex,
    to: &dyn VectorIndex,
    progress: &(dyn Fn(&str, usize) + Send + Sync),
) -> VectorResult<CopyReport> {
    if from.model() != to.model() {
        let (f, t) = (from.model(), to.model());
        return Err(VectorError::ModelMismatch {
            location: format!("the {} target", to.backend()),
            found_model: t.model.clone(),
            found_dimension: t.dimension,
            expected_model: f.model.clone(),
            expected_dimension: f.dimension,
        });
    }
    let sources = from.sources().await?;
    let mut points = 0;
    for source_id in sources.keys() {
        let stored = from.points_of(source_id, true).await?;
        let n = stored.len();
        let batch = stored
            .into_iter()
            .map(|p| {
                let vector = p.vector.ok_or_else(|| {
                    VectorError::Backend(format!("point {} came back without its vector", p.id))
                })?;
                Ok(ChunkPoint {
                    id: p.id,
                    vector,
                    payload: p.payload,
                })
            })
            .collect::<VectorResult<Vec<_>>>()?;
        let ids: Vec<_> = batch.iter().map(|p| p.id).collect();
        to.upsert(batch).await?;
        let mut copied: Vec<_> = to
            .points_of(source_id, false)
            .await?
            .into_iter()
            .map(|p| p.id)
            .collect();
        copied.sort();
        let mut want = ids;
        want.sort();
        if !want.iter().all(|id| copied.binary_search(id).is_ok()) {
            return Err(VectorError::Backend(format!(
                "after the copy the target lacks points of {source_id}"
            )));
        }
        points += n;
        tracing::info!(source_id = %source_id, points = n, "copied source");
        progress(source_id, n);
    }
    let target_points = to.count().await?;
    Ok(CopyReport {
        sources: sources.len(),
        points,
        target_points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::contract::{axis, payload};
    use crate::vector::{EdgeIndex, IndexModel, Search};
    use uuid::Uuid;

    fn model(dimension: usize) -> IndexModel {
        IndexModel {
            model: "test-model".into(),
            dimension,
        }
    }

    #[tokio::test]
    async fn copies_vectors_and_payloads_and_is_idempotent() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let from = EdgeIndex::open(a.path(), model(8)).unwrap();
        let to = EdgeIndex::open(b.path(), model(8)).unwrap();
        let points: Vec<ChunkPoint> = (0..5)
            .map(|i| ChunkPoint {
                id: Uuid::new_v4(),
                vector: axis(8, i),
                payload: payload(if i < 3 { "doc-a" } else { "doc-b" }, i),
            })
            .collect();
        from.upsert(points.clone()).await.unwrap();
        let report = copy_index(&from, &to, &|_, _| {}).await.unwrap();
        assert_eq!(
            report,
            CopyReport {
                sources: 2,
                points: 5,
                target_points: 5
            }
        );
        // Same neighbours, same scores, same payloads: nothing re-embedded.
        for p in &points {
            let search = || Search {
                vector: p.vector.clone(),
                limit: 1,
                filter: None,
                exclude_source_id: None,
            };
            let x = from.search(search()).await.unwrap();
            let y = to.search(search()).await.unwrap();
            assert_eq!(x[0].id, y[0].id);
            assert_eq!(x[0].payload, y[0].payload);
            assert!((x[0].score - y[0].score).abs() < 1e-6);
        }
        let again = copy_index(&from, &to, &|_, _| {}).await.unwrap();
        assert_eq!(again.target_points, 5);
    }

    #[tokio::test]
    async fn refuses_a_target_of_another_model() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let from = EdgeIndex::open(a.path(), model(8)).unwrap();
        let to = EdgeIndex::open(b.path(), model(16)).unwrap();
        assert!(matches!(
            copy_index(&from, &to, &|_, _| {}).await,
            Err(VectorError::ModelMismatch { .. })
        ));
    }
}
