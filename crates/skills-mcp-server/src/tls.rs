//! The TLS provider behind the Streamable HTTP client (the gateway's upstream servers and
//! `skills doctor --probe`).
//!
//! reqwest is built without a crypto provider of its own (its default, aws-lc-rs, is a C
//! library whose build was the largest single unit of ours) and uses the process's default
//! rustls provider; without one it panics when a client is made. [`ensure_provider`] makes
//! ring the default (sqlx and ureq link it already) unless the program chose one first.

/// Installs ring as the process's rustls provider when none is installed yet; a program
/// that installs its own before calling into this crate keeps it.
pub(crate) fn ensure_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Another thread may install one between the check and here: theirs stays, which
        // is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn a_client_can_be_made_once_the_provider_is_ensured() {
        super::ensure_provider();
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
        // What rmcp's transport makes first: this panics without a provider.
        let transport =
            rmcp::transport::StreamableHttpClientTransport::from_uri("http://127.0.0.1:9/mcp");
        drop(transport);
    }
}
