//! The registry's integration tests, one binary (each test binary links the whole tree, and
//! cargo runs test binaries one after another): the HTTP API (`api`), OIDC tokens (`oidc`),
//! the OpenAPI document (`openapi`), the web pages (`web`) and what the
//! servers hold against misbehaving clients (`servers`), over real sockets on
//! 127.0.0.1, with the harness in `support`.

#[path = "../support/mod.rs"]
mod support;

mod api;
mod oidc;
mod openapi;
mod servers;
mod web;
