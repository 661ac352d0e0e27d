//! The registry's integration tests, one binary (each test binary links the whole tree, and
//! cargo runs test binaries one after another): the HTTP API (`api`), OIDC tokens (`oidc`),
//! the OpenAPI document (`openapi`) and the web pages (`web`), over real sockets on
//! 127.0.0.1, with the harness in `support`.

#[path = "../support/mod.rs"]
mod support;

mod api;
mod oidc;
mod openapi;
mod web;
