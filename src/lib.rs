//! paiju (牌局): a REST server for Chinese regional card games.

pub mod accounts;
pub mod api_types;
pub mod audit;
pub mod auth;
pub mod config;
pub mod cursor;
pub mod db;
pub mod error;
pub mod fds;
pub mod idempotency;
pub mod leaderboards;
pub mod ledger;
pub mod matches;
pub mod metrics;
pub mod notices;
pub mod openapi;
pub mod pglocal;
pub mod players;
pub mod routes;
pub mod startup;
pub mod telemetry;
pub mod tournaments;
