//! The allow-list of well-known installers: a download piped into a shell from one of
//! these is still reported (`download-exec`), at medium instead of critical.

/// A well-known installer script and where it is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Installer {
    /// What it installs.
    pub name: &'static str,
    /// The URL prefix, without the scheme (`sh.rustup.rs`, `astral.sh/uv/`).
    pub prefix: &'static str,
}

const fn i(name: &'static str, prefix: &'static str) -> Installer {
    Installer { name, prefix }
}

/// The allow-list, documented in docs/audit.md. Only HTTPS URLs match.
pub static INSTALLERS: &[Installer] = &[
    i("rustup", "sh.rustup.rs"),
    i("rustup", "static.rust-lang.org/rustup/"),
    i("uv", "astral.sh/uv/"),
    i("ruff", "astral.sh/ruff/"),
    i("bun", "bun.sh/install"),
    i("deno", "deno.land/install.sh"),
    i("deno", "deno.land/x/install/"),
    i("nvm", "raw.githubusercontent.com/nvm-sh/nvm/"),
    i("Homebrew", "raw.githubusercontent.com/Homebrew/install/"),
    i("pnpm", "get.pnpm.io/install.sh"),
    i("Poetry", "install.python-poetry.org"),
    i("pyenv", "pyenv.run"),
    i("Docker", "get.docker.com"),
    i("Ollama", "ollama.com/install.sh"),
    i("Volta", "get.volta.sh"),
    i("fnm", "fnm.vercel.app/install"),
    i("SDKMAN!", "get.sdkman.io"),
    i("Claude Code", "claude.ai/install.sh"),
    i("GitHub CLI", "cli.github.com/packages/"),
    i("Nix", "nixos.org/nix/install"),
    i("Starship", "starship.rs/install.sh"),
    i("mise", "mise.run"),
    i("Google Cloud SDK", "sdk.cloud.google.com"),
    i("Flux", "fluxcd.io/install.sh"),
    i("Linkerd", "run.linkerd.io/install"),
];

/// The installer `url` is from, if it is on the list.
pub(crate) fn allowed(url: &str) -> Option<&'static Installer> {
    let rest = url.strip_prefix("https://")?;
    INSTALLERS.iter().find(|i| {
        rest.strip_prefix(i.prefix).is_some_and(|after| {
            i.prefix.ends_with('/') || after.is_empty() || after.starts_with(['/', '?', '#'])
        })
    })
}

/// The host of an `http(s)` URL.
pub(crate) fn host(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let end = rest
        .find(['/', '?', '#', '"', '\'', ' ', ')'])
        .unwrap_or(rest.len());
    let host = rest.get(..end)?;
    let host = host.rsplit('@').next().unwrap_or(host);
    (!host.is_empty()).then_some(host)
}

/// The first `http(s)` URL in `text`.
pub(crate) fn find_url(text: &str) -> Option<&str> {
    let start = text.find("https://").or_else(|| text.find("http://"))?;
    let rest = text.get(start..)?;
    let end = rest
        .find(|c: char| {
            c.is_whitespace() || matches!(c, '"' | '\'' | ')' | '`' | '|' | ';' | '>' | '<')
        })
        .unwrap_or(rest.len());
    rest.get(..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_list() {
        assert!(allowed("https://sh.rustup.rs").is_some());
        assert!(allowed("https://astral.sh/uv/install.sh").is_some());
        assert!(allowed("http://sh.rustup.rs").is_none());
        assert!(allowed("https://sh.rustup.rs.evil.net/x").is_none());
        assert_eq!(host("https://u@evil.net:8080/x"), Some("evil.net:8080"));
        assert_eq!(
            find_url("curl -s 'https://a.b/c' | sh"),
            Some("https://a.b/c")
        );
    }
}
