//! What the registry's server holds against clients that misbehave: the bearer scheme in
//! any case, hidden and missing skills alike.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use crate::support;

use support::{Backend, Client, Harness};

/// RFC 7235 §2.1: the auth scheme is case-insensitive, so `bearer` and `BEARER` are the
/// same as `Bearer`; an unknown scheme is still refused.
#[test]
fn the_bearer_scheme_is_case_insensitive() {
    let h = Harness::start(&Backend::Sqlite);
    let token = h.token("alice", &[], false);
    let anonymous = Client::anonymous(&h);
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let value = format!("{scheme} {token}");
        let reply = anonymous.get_with("/api/skills", &[("authorization", &value)]);
        assert_eq!(reply.status, 200, "{scheme}: {}", reply.body);
    }
    for refused in [
        format!("Basic {token}"),
        format!("Bearer{token}"),
        "bearer ".to_string(),
    ] {
        let reply = anonymous.get_with("/api/skills", &[("authorization", &refused)]);
        assert_eq!(reply.status, 401, "{refused}: {}", reply.body);
    }
}
