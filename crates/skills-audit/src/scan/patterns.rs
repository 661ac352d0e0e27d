//! What paths and words mean: credentials, agents' settings, shell start-up files.

use std::sync::LazyLock;

use regex::Regex;

use super::FileCtx;
use crate::{RuleId, Severity};

#[allow(clippy::unwrap_used)] // Constant patterns; the tests compile each.
fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap()
}

static PRIVATE_CREDENTIAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\.ssh/(?:id_[a-z0-9_]+|[\w.-]*key[\w.-]*|\*)|\.ssh(?:/|(?-u:\b)|$)|\.aws/credentials|\.aws/config|\.netrc(?-u:\b)|\.git-credentials|\.docker/config\.json|\.kube/config|\.npmrc(?-u:\b)|\.pypirc(?-u:\b)|\.gnupg(?-u:\b)|\.config/gcloud|\.azure/|\.config/gh/hosts|Library/Keychains|login\.keychain|(?-u:\b)security (?:find-generic-password|find-internet-password|dump-keychain)|Google/Chrome|google-chrome/|chromium/|BraveSoftware|\.mozilla/firefox|Firefox/Profiles|Login Data|cookies\.sqlite|logins\.json|key4\.db|/etc/shadow|wallet\.dat|\.ethereum/keystore|\.bitcoin/|\.password-store|\.vault-token|\.terraform\.d/credentials|\.config/op/|1password",
    )
});

static DOTENV: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:^|[/\s'\x22=@(])\.env(?:\.[a-z]+)?(?:$|[\s'\x22)])"));

/// What kind of secret a path or word names: a private credential (keys, cloud
/// credentials, keychains, browser profiles) or a project's `.env`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Credential {
    Private,
    DotEnv,
}

pub(crate) fn credential(text: &str) -> Option<Credential> {
    if PRIVATE_CREDENTIAL.is_match(text) {
        // `ssh-keygen -f ~/.ssh/id_x` makes a key; `.ssh/known_hosts` is not a secret.
        if text.contains("known_hosts") || text.contains(".pub") {
            return None;
        }
        Some(Credential::Private)
    } else if DOTENV.is_match(text)
        && !text.contains(".env.example")
        && !text.contains(".env.sample")
        && !text.contains(".env.template")
    {
        Some(Credential::DotEnv)
    } else {
        None
    }
}

/// Whether `text` names a private credential anywhere, the exceptions of [`credential`]
/// (public keys, `known_hosts`) aside: the prefilter's test, which must not miss a string
/// that [`credential`] would find in a part of `text`.
pub(crate) fn mentions_private(text: &str) -> bool {
    PRIVATE_CREDENTIAL.is_match(text)
}

static AGENT_CONFIG: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\.claude/settings(?:\.local)?\.json|\.claude\.json|claude_desktop_config\.json|\.cursor/(?:mcp|settings|permissions)\.json|(?:^|/|\s)\.mcp\.json|\.codex/config\.toml|\.gemini/settings\.json|\.continue/config\.(?:json|yaml)|\.windsurf/|mcp_config\.json|\.vscode/mcp\.json|\.config/opencode/|\.aider\.conf\.yml",
    )
});

pub(crate) fn agent_config(text: &str) -> bool {
    AGENT_CONFIG.is_match(text)
}

static PERMISSIONS_OFF: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"--dangerously-skip-permissions|--dangerously-bypass-approvals-and-sandbox|(?-u:\b)bypassPermissions(?-u:\b)|--yolo(?-u:\b)|(?-u:\b)dangerouslySkipPermissions(?-u:\b)",
    )
});

pub(crate) fn permissions_off(text: &str) -> Option<regex::Match<'_>> {
    PERMISSIONS_OFF.find(text)
}

static RC_FILE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:^|/|~)\.(?:bashrc|zshrc|bash_profile|profile|zprofile|zshenv|zlogin|bash_login|cshrc|tcshrc)$|config\.fish$|/etc/profile|/etc/bash\.bashrc",
    )
});

pub(crate) fn rc_file(text: &str) -> bool {
    RC_FILE.is_match(text.trim_matches(['"', '\'']))
}

static AUTOSTART: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"Library/Launch(?:Agents|Daemons)|/etc/systemd/|\.config/systemd/|/etc/cron|/var/spool/cron|\.config/autostart|\.ssh/authorized_keys|/etc/sudoers|/etc/rc\.local|/etc/init\.d/",
    )
});

pub(crate) fn autostart(text: &str) -> bool {
    AUTOSTART.is_match(text)
}

pub(crate) fn git_hook(text: &str) -> bool {
    text.contains(".git/hooks/") || text.ends_with(".git/hooks")
}

static FORK_BOMB: LazyLock<Regex> =
    LazyLock::new(|| re(r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"));

/// Text-level checks that need no parser: fork bombs, agents' permission checks turned
/// off in prose (commands are the shell's).
pub(crate) fn scan_text(ctx: &mut FileCtx<'_>) {
    let text = ctx.text;
    for m in FORK_BOMB.find_iter(text) {
        ctx.push(
            RuleId::DestructiveCommand,
            Severity::Critical,
            m.range(),
            "a fork bomb: it exhausts the machine's processes".to_string(),
        );
    }
    for m in PERMISSIONS_OFF.find_iter(text) {
        if ctx.code_at(m.start()) {
            continue; // The shell check reports commands.
        }
        ctx.push(
            RuleId::AgentConfigTamper,
            Severity::Medium,
            m.range(),
            format!("`{}` turns the agent's permission checks off", m.as_str()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(credential("~/.ssh/id_rsa"), Some(Credential::Private));
        assert_eq!(
            credential("$HOME/.aws/credentials"),
            Some(Credential::Private)
        );
        assert_eq!(credential(".env"), Some(Credential::DotEnv));
        assert_eq!(credential("~/.ssh/known_hosts"), None);
        assert_eq!(credential("environment"), None);
        assert!(agent_config("~/.claude/settings.json"));
        assert!(rc_file("~/.bashrc"));
        assert!(!rc_file("~/.bashrc.bak"));
        assert!(autostart("~/Library/LaunchAgents/com.x.plist"));
    }
}
