//! Retrying the calls of the remote backends (SPARQL store, Qdrant): one
//! schedule and one loop, so both treat a transient failure alike.

use std::future::Future;
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};

/// One failed attempt: whether trying again may help, and the error.
pub(crate) struct Attempt<E> {
    /// A passing fault (connection refused, 5xx, unavailable …).
    pub transient: bool,
    /// What went wrong.
    pub error: E,
}

/// The retry schedule for a transient failure: exponential from 100 ms, at
/// most 2 s apart, jittered, `retries` times.
pub fn schedule(retries: usize) -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(2))
        .with_max_times(retries)
        .with_jitter()
}

/// Runs `call` until it succeeds, fails for good, or `retries` transient
/// failures have been retried; each retry is logged with `what`.
pub(crate) async fn retrying<T, E, F, Fut>(retries: usize, what: &str, call: F) -> Result<T, E>
where
    E: std::fmt::Display,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Attempt<E>>>,
{
    call.retry(schedule(retries))
        .when(|a: &Attempt<E>| a.transient)
        .notify(|a: &Attempt<E>, wait: Duration| {
            tracing::warn!(what, error = %a.error, ?wait, "remote backend call failed; retrying");
        })
        .await
        .map_err(|a| a.error)
}
