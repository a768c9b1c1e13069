//! Integration tests: one binary, a module per area.
#![allow(clippy::unwrap_used)]

#[path = "../common/mod.rs"]
mod common;

mod auth;
mod chat;
mod cli;
mod crash;
mod eval;
mod explore;
mod fuzz_regressions;
mod g36_answers;
mod ground;
mod import;
mod ingest;
mod missing_data;
mod openapi;
mod remote_store;
mod remote_vectors;
mod schema_api;
mod schemas;
mod sparql;
mod store;
mod topology;
mod validate;
