//! The committed OpenAPI document, served at `/openapi.json`.

pub const DOCUMENT: &str = include_str!("../openapi/openapi.json");
