//! The rule table: every rule's id, category, default severity and documentation.
//!
//! `docs/audit.md` is generated from [`RULES`] and the fixtures under `testdata/audit/rules/`
//! by a test of this crate (`tests/it/rules_doc.rs`, written by `cargo xtask audit-docs`), so the
//! table is the single source of what `skills audit` checks.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Severity;

/// What a rule is about: the threat it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Category {
    /// Instructions aimed at the agent against its user.
    Instructions,
    /// Code fetched or decoded and run.
    RemoteCode,
    /// Credentials and private files read and sent away.
    Exfiltration,
    /// Changes that outlive the session: cron, shell start-up files, hooks, agent settings.
    Persistence,
    /// Commands that destroy what is not the project's.
    Destructive,
    /// Keys and tokens committed in the skill.
    Secrets,
    /// Content made to be unreadable: encoded blobs, built names, binaries.
    Obfuscation,
    /// What the skill asks to be allowed, and when it asks to be loaded.
    Grants,
    /// The audit's own findings: suppressions, files it could not read.
    Audit,
}

impl Category {
    /// The kebab-case name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Instructions => "instructions",
            Self::RemoteCode => "remote-code",
            Self::Exfiltration => "exfiltration",
            Self::Persistence => "persistence",
            Self::Destructive => "destructive",
            Self::Secrets => "secrets",
            Self::Obfuscation => "obfuscation",
            Self::Grants => "grants",
            Self::Audit => "audit",
        }
    }
}

macro_rules! rule_ids {
    ($($variant:ident = $id:literal,)*) => {
        /// Every audit rule, by identity. Its kebab-case form ([`RuleId::as_str`], also
        /// `Display`, `FromStr` and serde) never changes once released. Declared in the order
        /// of [`RULES`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        #[allow(missing_docs)] // Each variant is documented by its rule in [`RULES`].
        pub enum RuleId {
            $($variant,)*
        }

        impl RuleId {
            /// Every rule id, in the order of [`RULES`].
            pub const ALL: &'static [RuleId] = &[$(RuleId::$variant,)*];

            /// The stable kebab-case id.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(RuleId::$variant => $id,)*
                }
            }
        }
    };
}

rule_ids! {
    InstructionOverride = "instruction-override",
    ConcealFromUser = "conceal-from-user",
    ImpersonateSystem = "impersonate-system",
    HiddenInstructions = "hidden-instructions",
    InvisibleUnicode = "invisible-unicode",
    Homoglyph = "homoglyph",
    DownloadExec = "download-exec",
    DecodeExec = "decode-exec",
    CredentialExfiltration = "credential-exfiltration",
    CredentialAccess = "credential-access",
    Persistence = "persistence",
    AgentConfigTamper = "agent-config-tamper",
    DestructiveCommand = "destructive-command",
    ForcePush = "force-push",
    SecretCommitted = "secret-committed",
    EncodedPayload = "encoded-payload",
    StringBuiltCommand = "string-built-command",
    BinaryFile = "binary-file",
    ContentMismatch = "content-mismatch",
    BroadGrantRemoteCode = "broad-grant-remote-code",
    GreedyDescription = "greedy-description",
    SuppressionWithoutReason = "suppression-without-reason",
    FileNotAudited = "file-not-audited",
}

impl RuleId {
    /// The rule's table entry.
    #[must_use]
    pub fn rule(self) -> &'static Rule {
        // Declared in the order of RULES (a test holds them together).
        RULES.get(self as usize).unwrap_or(&FALLBACK)
    }

    /// The rule's default severity (a finding may be lower: an allow-listed installer, a
    /// weaker form).
    #[must_use]
    pub fn severity(self) -> Severity {
        self.rule().severity
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that names no [`RuleId`], with the closest ids.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown audit rule `{name}`")]
pub struct UnknownRule {
    /// What was given.
    pub name: String,
    /// The closest rule ids ("did you mean").
    pub suggestions: Vec<&'static str>,
}

impl FromStr for RuleId {
    type Err = UnknownRule;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RuleId::ALL
            .iter()
            .copied()
            .find(|id| id.as_str() == s)
            .ok_or_else(|| UnknownRule {
                name: s.to_string(),
                suggestions: skills_core::suggest::closest(
                    s,
                    RuleId::ALL.iter().map(|id| id.as_str()),
                ),
            })
    }
}

impl Serialize for RuleId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RuleId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// One rule of the table.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Rule {
    /// Its identity.
    pub id: RuleId,
    /// The threat it covers.
    pub category: Category,
    /// Its default severity.
    pub severity: Severity,
    /// One line: what it reports.
    pub summary: &'static str,
    /// Why it matters: what an attacker gets.
    pub rationale: &'static str,
    /// What to do about a finding.
    pub fix: &'static str,
}

use Category::{
    Audit, Destructive, Exfiltration, Grants, Instructions, Obfuscation, Persistence, RemoteCode,
    Secrets,
};
use Severity::{Critical, High, Low, Medium};

/// Never used: [`RuleId::rule`] finds every id (a test checks it); this keeps it total.
static FALLBACK: Rule = Rule {
    id: RuleId::FileNotAudited,
    category: Audit,
    severity: Low,
    summary: "",
    rationale: "",
    fix: "",
};

/// Every rule, in documentation order.
pub static RULES: &[Rule] = &[
    Rule {
        id: RuleId::InstructionOverride,
        category: Instructions,
        severity: High,
        summary: "Text tells the agent to ignore its earlier instructions, system prompt or rules.",
        rationale: "A skill is loaded into the agent's context beside the user's request. Text that \
            tells the agent to disregard what it was told before is a prompt injection: it \
            replaces the user's and the developer's instructions with the skill author's.",
        fix: "Remove the sentence. A skill describes a task; it never needs to cancel the \
            agent's other instructions.",
    },
    Rule {
        id: RuleId::ConcealFromUser,
        category: Instructions,
        severity: High,
        summary: "Text tells the agent to hide what it does, or its output, from the user.",
        rationale: "An agent acts with the user's permissions because the user sees what it does. \
            Instructions to keep actions secret, not to mention them or to suppress output are \
            how a malicious skill keeps its other steps unnoticed.",
        fix: "Remove the instruction. If output is noisy, say what to summarise, not what to \
            hide.",
    },
    Rule {
        id: RuleId::ImpersonateSystem,
        category: Instructions,
        severity: High,
        summary: "Text poses as a system, developer or tool message (`<system>`, `[SYSTEM]`, chat-template tokens).",
        rationale: "Models give system and developer messages more authority than user content. \
            A skill that dresses its text as one tries to borrow that authority.",
        fix: "Write the skill's instructions as plain Markdown; do not imitate message markers.",
    },
    Rule {
        id: RuleId::HiddenInstructions,
        category: Instructions,
        severity: Critical,
        summary: "Instructions to the agent hidden where the user does not see them: an HTML comment, collapsed markup, invisible characters.",
        rationale: "Rendered Markdown does not show HTML comments or text smuggled in Unicode tag \
            characters, but the agent reads the raw file. Instructions placed there are meant \
            for the agent and kept from the reviewer: the signature of a malicious skill.",
        fix: "Delete the hidden text. Anything the agent must read belongs in the visible body.",
    },
    Rule {
        id: RuleId::InvisibleUnicode,
        category: Instructions,
        severity: High,
        summary: "Invisible or reordering characters: Unicode tag characters, bidi overrides, zero-width characters inside text.",
        rationale: "Tag characters (U+E0000-U+E007F) carry ASCII text no editor shows; bidi \
            overrides make code read differently from how it runs (Trojan Source); zero-width \
            characters hide words from a reviewer's search. None has a use in a skill's text \
            (a zero-width joiner inside an emoji sequence is not reported).",
        fix: "Remove the characters (the finding says which and where).",
    },
    Rule {
        id: RuleId::Homoglyph,
        category: Instructions,
        severity: Medium,
        summary: "A word, host or command mixes Latin letters with look-alike Cyrillic or Greek ones.",
        rationale: "`pаypal.com` with a Cyrillic `а` is another host; a command name spelled with a \
            look-alike letter escapes a reviewer's search. Mixed-script words are how a skill \
            points the agent somewhere other than where the reader thinks.",
        fix: "Retype the word in one script.",
    },
    Rule {
        id: RuleId::DownloadExec,
        category: RemoteCode,
        severity: Critical,
        summary: "Code downloaded and run in one step: `curl … | sh`, `bash <(curl …)`, `eval \"$(curl …)\"`, `iex (iwr …)`, `exec(urlopen(…).read())`; or a shell given to a network peer (`bash -i >& /dev/tcp/…`, `nc … -e /bin/sh`).",
        rationale: "What the host serves can change after the skill is reviewed, and can differ per \
            client. Running it unread gives whoever controls the host (or the network path) the \
            user's shell; a reverse shell gives it to whoever listens at the address. A small \
            allow-list of well-known installers (rustup, uv, bun, deno, \
            nvm, Homebrew, …) lowers the finding to medium rather than hiding it.",
        fix: "Download to a file, verify a checksum or signature, then run it; or use a package \
            manager. The finding names the host. A shell wired to a network peer has no safe \
            form: remove it.",
    },
    Rule {
        id: RuleId::DecodeExec,
        category: RemoteCode,
        severity: Critical,
        summary: "Encoded data decoded and run: `exec(base64.b64decode(…))`, `eval(Buffer.from(…, 'base64'))`, `base64 -d | sh`.",
        rationale: "Encoding code before running it has one purpose: keeping a reviewer from \
            reading it.",
        fix: "Ship the code as readable source.",
    },
    Rule {
        id: RuleId::CredentialExfiltration,
        category: Exfiltration,
        severity: Critical,
        summary: "Credentials or private files (`~/.ssh`, `~/.aws/credentials`, `.env`, browser profiles, keychains, `env` dumps) read in the same script or command as a network send.",
        rationale: "Reading secrets and sending data over the network in one place is how \
            credential theft looks; the agent runs it with the user's access to both.",
        fix: "A skill should read the one variable it needs (`$GITHUB_TOKEN`) and send it only to \
            the service it is for. Never read key files or dump the environment.",
    },
    Rule {
        id: RuleId::CredentialAccess,
        category: Exfiltration,
        severity: Medium,
        summary: "Credentials or private files read (`~/.ssh/id_*`, `~/.aws/credentials`, keychains, browser profiles, `env` dumps), with no network send beside them.",
        rationale: "Rarely needed by a skill, and the first half of an exfiltration; worth a \
            reviewer's look even without a send in the same place.",
        fix: "Read only the variable or file the task needs, named by the user.",
    },
    Rule {
        id: RuleId::Persistence,
        category: Persistence,
        severity: High,
        summary: "Changes that outlive the session: crontab, launchd or systemd units, git hooks and `core.hooksPath`, shell start-up files.",
        rationale: "A skill runs once, when asked. Code it installs into cron, a login item, a \
            hook or `~/.bashrc` runs again and again, later, without the agent or the user \
            asking. An `export PATH` line appended to a shell start-up file is reported as \
            medium.",
        fix: "Tell the user what to add and let them do it; do not schedule or hook code.",
    },
    Rule {
        id: RuleId::AgentConfigTamper,
        category: Persistence,
        severity: High,
        summary: "Writing the agent's own settings or MCP configuration (`.claude/settings.json`, `.cursor/mcp.json`, …), or turning its permission checks off.",
        rationale: "An agent's settings decide what it may do without asking. A skill that edits \
            them, adds an MCP server or passes `--dangerously-skip-permissions` widens its own \
            permissions for every later session.",
        fix: "Document the setting and let the user change it.",
    },
    Rule {
        id: RuleId::DestructiveCommand,
        category: Destructive,
        severity: Critical,
        summary: "Commands that destroy data outside the project: `rm -rf ~` or `/`, `--no-preserve-root`, `mkfs`, `dd of=/dev/…`, fork bombs.",
        rationale: "An agent runs what a skill tells it; a wrong path in a recursive delete of the \
            home directory or a disk is not recoverable.",
        fix: "Delete only paths inside the project, named explicitly.",
    },
    Rule {
        id: RuleId::ForcePush,
        category: Destructive,
        severity: High,
        summary: "`git push --force` to a default branch (`main`, `master`).",
        rationale: "A force-push rewrites the branch everyone builds on and can drop other \
            people's commits.",
        fix: "Push a branch and open a pull request; use `--force-with-lease` on your own branch.",
    },
    Rule {
        id: RuleId::SecretCommitted,
        category: Secrets,
        severity: High,
        summary: "A live-looking key or token in the skill: AWS, GitHub, Slack, OpenAI, Anthropic, Google, Stripe keys, private key blocks, JWTs.",
        rationale: "A skill is copied to every user who installs it; a key in it is public. Known \
            documentation examples (AWS's `AKIAIOSFODNN7EXAMPLE`, jwt.io's token) and \
            placeholders (`sk-...xxxx`, low-entropy strings) are not reported.",
        fix: "Revoke the key, remove it, and read it from the environment at run time.",
    },
    Rule {
        id: RuleId::EncodedPayload,
        category: Obfuscation,
        severity: Medium,
        summary: "A long base64 or hex blob in a script that decodes data at run time.",
        rationale: "Encoded blobs decoded by the script that carries them hide what will run or \
            be written. (Decoded and executed, the finding is `decode-exec`.)",
        fix: "Ship the content as a readable file of its own.",
    },
    Rule {
        id: RuleId::StringBuiltCommand,
        category: Obfuscation,
        severity: Medium,
        summary: "A command or function name built from pieces so that it cannot be searched for: `getattr(os, 'sys'+'tem')`, `__import__('o'+'s')`, `$'\\x63url'`, `String.fromCharCode` into `eval`.",
        rationale: "Code written to defeat a reviewer's search is code with something to hide.",
        fix: "Call the function by its name.",
    },
    Rule {
        id: RuleId::BinaryFile,
        category: Obfuscation,
        severity: Medium,
        summary: "A binary file in the skill (executables are reported high).",
        rationale: "A skill is instructions and scripts a reviewer can read. A binary, an \
            executable above all, cannot be reviewed and may be run by a script or the agent.",
        fix: "Ship sources, or have the skill install the tool from a package manager.",
    },
    Rule {
        id: RuleId::ContentMismatch,
        category: Obfuscation,
        severity: High,
        summary: "A file whose content does not match its extension: an executable or archive named `.md`, `.txt`, `.png`, ….",
        rationale: "A name that lies about the content gets a file past a review and past tools \
            that decide by extension.",
        fix: "Name the file for what it is, or remove it.",
    },
    Rule {
        id: RuleId::BroadGrantRemoteCode,
        category: Grants,
        severity: High,
        summary: "`allowed-tools` grants any shell command, and the skill tells the agent to run downloaded code.",
        rationale: "`allowed-tools` runs the skill's commands without asking the user. An \
            unrestricted shell grant together with remote code means the download runs with no \
            prompt at all.",
        fix: "Grant only the commands the skill needs (`Bash(git status:*)`), and do not run \
            downloaded code.",
    },
    Rule {
        id: RuleId::GreedyDescription,
        category: Grants,
        severity: Medium,
        summary: "A description written to make the agent load the skill for every task (\"use for every task\", \"always use this skill\").",
        rationale: "The description decides when an agent loads the skill. One that claims every \
            request puts the skill's instructions in front of the agent all the time, \
            whatever the user asks.",
        fix: "Describe what the skill does and the requests it is for.",
    },
    Rule {
        id: RuleId::SuppressionWithoutReason,
        category: Audit,
        severity: Medium,
        summary: "A suppression (`[audit] allow` in skills.toml, or an inline `skills-audit: allow` marker) that gives no reason; it suppresses nothing.",
        rationale: "A suppression is a reviewer's decision; without a reason the next reviewer \
            cannot check it.",
        fix: "Add `reason = \"…\"` (or the text after `--` on the marker).",
    },
    Rule {
        id: RuleId::FileNotAudited,
        category: Audit,
        severity: Low,
        summary: "A file of the skill the audit could not read (too large, unreadable), so it was not checked; high when it is a script.",
        rationale: "What the audit did not read it cannot vouch for. A script (executable, or \
            code by its name or `#!` line) is reported high: padded past the limit, it would \
            otherwise run unchecked after an install that blocks on high findings.",
        fix: "Make the file readable, or smaller than the limit (1 MiB per text file).",
    },
];

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_table_agree() {
        assert_eq!(RuleId::ALL.len(), RULES.len());
        for (i, id) in RuleId::ALL.iter().enumerate() {
            assert_eq!(RULES[i].id, *id, "RULES out of order at {id}");
            assert_eq!(id.rule().id, *id);
            assert_eq!(id.as_str().parse::<RuleId>(), Ok(*id));
        }
        let err = "download-exe".parse::<RuleId>().unwrap_err();
        assert_eq!(err.suggestions, ["download-exec"]);
    }
}
