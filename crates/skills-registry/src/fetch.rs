//! Fetching a registered skill's raw `SKILL.md` without letting a URL reach what it must
//! not (SSRF, the reason seed 001 keeps a list of trusted domains).
//!
//! Every hop is checked: the URL must be `https` to a trusted host (or plain `http` to a
//! loopback host that was trusted with `allow_loopback`), carry no credentials, and every
//! address its host resolves to must be public unless `allow_loopback` is set. The check
//! happens in the resolver, so the connection goes to exactly the addresses that were
//! checked (no second lookup for DNS rebinding to answer differently). Redirects are
//! followed by hand, each one checked like the first. Bodies are capped in size, and the
//! whole exchange in time.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

/// The largest `SKILL.md` a registry accepts.
pub const MAX_SKILL_MD_BYTES: u64 = 1024 * 1024;

/// Redirects followed before giving up.
const MAX_REDIRECTS: usize = 5;

/// What may be fetched, and how much.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FetchPolicy {
    /// Hosts (`HOST` or `HOST:PORT`) trusted beside [`skills_url::TRUSTED_HOSTS`].
    pub trust_hosts: Vec<String>,
    /// Loopback and private addresses are reachable, and plain `http` to loopback hosts.
    pub allow_loopback: bool,
    /// The largest body read.
    pub max_bytes: u64,
    /// The whole exchange, redirects included, per hop.
    pub timeout: Duration,
}

impl Default for FetchPolicy {
    fn default() -> Self {
        Self {
            trust_hosts: Vec::new(),
            allow_loopback: false,
            max_bytes: MAX_SKILL_MD_BYTES,
            timeout: Duration::from_secs(15),
        }
    }
}

/// Why a fetch failed: each says which URL.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL is not one the registry may fetch.
    #[error("{url}: {reason}")]
    Untrusted {
        /// The URL (of the hop that was refused).
        url: String,
        /// Why.
        reason: String,
    },
    /// The host resolved to an address the registry may not reach.
    #[error("{url}: resolves to {address}, a loopback or private address")]
    Blocked {
        /// The URL.
        url: String,
        /// The address refused.
        address: IpAddr,
    },
    /// The server answered with an error status.
    #[error("{url}: HTTP {status}")]
    Status {
        /// The URL.
        url: String,
        /// The status.
        status: u16,
    },
    /// The body is larger than the limit.
    #[error("{url}: larger than {limit} bytes")]
    TooLarge {
        /// The URL.
        url: String,
        /// The limit.
        limit: u64,
    },
    /// More redirects than the limit.
    #[error("{url}: more than {MAX_REDIRECTS} redirects")]
    TooManyRedirects {
        /// The URL first asked for.
        url: String,
    },
    /// The network failed (connection, timeout, TLS).
    #[error("{url}: {message}")]
    Network {
        /// The URL.
        url: String,
        /// What happened.
        message: String,
    },
}

/// A fetched body and the URL it finally came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The bytes.
    pub body: Vec<u8>,
    /// The last URL of the redirect chain.
    pub url: String,
}

/// Whether `ip` is an address anyone on the internet could reach: not loopback, private,
/// link-local, shared (CGNAT), unspecified, multicast, broadcast, documentation or reserved.
#[must_use]
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_documentation()
        || ip.is_multicast()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (b == 18 || b == 19))
        || a >= 240)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments().first().copied().unwrap_or(0);
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        || first == 0x2001 && ip.segments().get(1) == Some(&0x0db8)
        || ip.to_ipv4().is_some_and(|v4| !is_public_v4(v4)))
}

/// The default resolver, refusing non-public addresses unless allowed.
#[derive(Debug)]
struct CheckedResolver {
    allow_loopback: bool,
}

impl Resolver for CheckedResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let addresses = DefaultResolver::default().resolve(uri, config, timeout)?;
        if !self.allow_loopback
            && let Some(bad) = addresses.iter().find(|a: &&SocketAddr| !is_public(a.ip()))
        {
            return Err(ureq::Error::Io(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                Refused(bad.ip()),
            )));
        }
        Ok(addresses)
    }
}

/// The resolver's refusal, recognised again on the way out of ureq.
#[derive(Debug, thiserror::Error)]
#[error("refused address {0}")]
struct Refused(IpAddr);

fn refused(error: &ureq::Error) -> Option<IpAddr> {
    match error {
        ureq::Error::Io(io) => io
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<Refused>())
            .map(|r| r.0),
        _ => None,
    }
}

/// Whether `url` may be fetched under `policy`, or why not.
fn check_url(url: &str, policy: &FetchPolicy) -> Result<(), String> {
    let extra: Vec<&str> = policy.trust_hosts.iter().map(String::as_str).collect();
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("https://") {
        return if skills_url::is_trusted(url, &extra) {
            Ok(())
        } else {
            Err(format!(
                "not a trusted host (trusted: {})",
                skills_url::TRUSTED_HOSTS
                    .iter()
                    .copied()
                    .chain(extra.iter().copied())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        };
    }
    if let Some(rest) = url
        .get("http://".len()..)
        .filter(|_| lower.starts_with("http://"))
    {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let host = host_of(authority);
        let loopback = host.eq_ignore_ascii_case("localhost")
            || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
        if !(policy.allow_loopback && loopback) {
            return Err(
                "plain http is refused (only loopback hosts, with --allow-loopback)".into(),
            );
        }
        // The https form is checked for the host's trust and the URL's form.
        return if skills_url::is_trusted(&format!("https://{rest}"), &extra) {
            Ok(())
        } else {
            Err("not a trusted host (pass --trust-host HOST:PORT)".into())
        };
    }
    Err("only https URLs are fetched".into())
}

/// `scheme://authority` of a URL, lowercased: where a token may be sent.
fn origin_of(url: &str) -> String {
    let lower = url.to_ascii_lowercase();
    let (scheme, rest) = lower.split_once("://").unwrap_or(("", lower.as_str()));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    format!("{scheme}://{authority}")
}

/// The host of an authority (`host:port`, `[v6]:port`).
fn host_of(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default();
    }
    authority.rsplit_once(':').map_or(authority, |(h, _)| h)
}

fn agent(policy: &FetchPolicy) -> ureq::Agent {
    let config = ureq::Agent::config_builder()
        .max_redirects(0)
        .timeout_global(Some(policy.timeout))
        .http_status_as_error(false)
        .user_agent(concat!("skills-registry/", env!("CARGO_PKG_VERSION")))
        .build();
    ureq::Agent::with_parts(
        config,
        DefaultConnector::default(),
        CheckedResolver {
            allow_loopback: policy.allow_loopback,
        },
    )
}

fn network(url: &str, error: &ureq::Error, policy: &FetchPolicy) -> FetchError {
    if let Some(address) = refused(error) {
        return FetchError::Blocked {
            url: url.to_string(),
            address,
        };
    }
    match error {
        ureq::Error::BodyExceedsLimit(_) => FetchError::TooLarge {
            url: url.to_string(),
            limit: policy.max_bytes,
        },
        ureq::Error::Timeout(_) => FetchError::Network {
            url: url.to_string(),
            message: format!("no answer within {} s", policy.timeout.as_secs()),
        },
        other => FetchError::Network {
            url: url.to_string(),
            message: other.to_string(),
        },
    }
}

/// Sends `method` to `url` and follows redirects, each hop checked.
fn exchange(
    url: &str,
    policy: &FetchPolicy,
    head: bool,
    bearer: Option<&str>,
) -> Result<(ureq::http::Response<ureq::Body>, String), FetchError> {
    let agent = agent(policy);
    let origin = origin_of(url);
    let mut current = url.to_string();
    for _ in 0..=MAX_REDIRECTS {
        check_url(&current, policy).map_err(|reason| FetchError::Untrusted {
            url: current.clone(),
            reason,
        })?;
        // The token goes to the origin it is for, never along a redirect to another.
        let token = bearer
            .filter(|_| origin_of(&current) == origin)
            .map(|t| format!("Bearer {t}"));
        let sent = match (head, token) {
            (true, _) => agent.head(&current).call(),
            (false, Some(auth)) => agent.get(&current).header("Authorization", &auth).call(),
            (false, None) => agent.get(&current).call(),
        };
        let response = sent.map_err(|e| network(&current, &e, policy))?;
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            let Some(location) = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
            else {
                return Ok((response, current));
            };
            current = skills_url::resolve_location(&current, location);
            continue;
        }
        return Ok((response, current));
    }
    Err(FetchError::TooManyRedirects {
        url: url.to_string(),
    })
}

/// Downloads `url` under `policy`. Blocking: call it from a blocking thread.
///
/// # Errors
///
/// [`FetchError`] for a refused URL or address, an error status, a body over the limit, too
/// many redirects, or a network failure.
pub fn get(url: &str, policy: &FetchPolicy) -> Result<Fetched, FetchError> {
    get_with_token(url, None, policy)
}

/// As [`get`], sending `Authorization: Bearer <token>` to `url`'s origin (not to another
/// origin a redirect leads to): what a federation peer's export asks for.
///
/// # Errors
///
/// As [`get`].
pub fn get_with_token(
    url: &str,
    token: Option<&str>,
    policy: &FetchPolicy,
) -> Result<Fetched, FetchError> {
    let (mut response, last) = exchange(url, policy, false, token)?;
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        return Err(FetchError::Status { url: last, status });
    }
    let body = response
        .body_mut()
        .with_config()
        .limit(policy.max_bytes)
        .read_to_vec()
        .map_err(|e| network(&last, &e, policy))?;
    Ok(Fetched { body, url: last })
}

/// The status of a `HEAD` of `url` under `policy` (seed 001's health check). Blocking.
///
/// # Errors
///
/// As [`get`], except that an error status is an answer, not an error.
pub fn head(url: &str, policy: &FetchPolicy) -> Result<u16, FetchError> {
    let (response, _) = exchange(url, policy, true, None)?;
    Ok(response.status().as_u16())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_public() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "2001:db8::1",
        ] {
            assert!(!is_public(private.parse().unwrap()), "{private}");
        }
        for public in ["1.1.1.1", "140.82.112.3", "2606:4700:4700::1111"] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    #[test]
    fn urls_are_checked_before_any_connection() {
        let strict = FetchPolicy::default();
        assert!(
            check_url(
                "https://raw.githubusercontent.com/o/r/main/SKILL.md",
                &strict
            )
            .is_ok()
        );
        for refused in [
            "https://evil.example/SKILL.md",
            "http://raw.githubusercontent.com/o/r/main/SKILL.md",
            "https://user:pw@raw.githubusercontent.com/o/r/main/SKILL.md",
            "http://127.0.0.1:8080/SKILL.md",
            "file:///etc/passwd",
            "ftp://gitlab.com/x",
        ] {
            assert!(check_url(refused, &strict).is_err(), "{refused}");
        }
        let loopback = FetchPolicy {
            trust_hosts: vec!["127.0.0.1:8080".into()],
            allow_loopback: true,
            ..FetchPolicy::default()
        };
        assert!(check_url("http://127.0.0.1:8080/SKILL.md", &loopback).is_ok());
        assert!(check_url("http://127.0.0.1:9090/SKILL.md", &loopback).is_err());
        assert!(check_url("http://10.0.0.1:8080/SKILL.md", &loopback).is_err());
        assert_eq!(host_of("[::1]:80"), "::1");
        assert_eq!(host_of("h:80"), "h");
    }
}
