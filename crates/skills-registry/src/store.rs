//! Where the registry keeps its cards: the [`Store`] trait, and its two implementations,
//! [`SqliteStore`] (embedded, the default) and [`PostgresStore`].
//!
//! Both run the same SQL (the migrations and every query are written in the part of SQL the
//! two share), stamped out by one macro so they cannot drift apart; what differs is how a
//! pool is opened. Times are Unix milliseconds; lists are JSON text, with the tags and
//! groups that queries filter by also in tables of their own, indexed.

use std::future::Future;
use std::str::FromStr;
use std::time::Duration;

use sqlx::Row;

pub use crate::caller::Caller;
use crate::model::{FileRecord, HealthStatus, RatingDetail, SkillCard, VersionRecord, Visibility};
use crate::time;

/// Why the store failed. Its text never holds SQL or data: it is logged, not shown.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A skill of that name is already registered.
    #[error("a skill named `{0}` is already registered")]
    Conflict(String),
    /// [`Store::publish`]: the skill is not, or no longer, the hosted skill of the card's
    /// owner (someone else created it, or registered it by URL, while the archive was
    /// checked).
    #[error("the skill `{0}` is someone else's")]
    NotOwner(String),
    /// The database URL is not one this registry can open (the URL's scheme; the rest may
    /// hold a password).
    #[error("unsupported database scheme `{0}`")]
    UnsupportedUrl(String),
    /// The database could not be reached or answered with an error.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// A migration failed.
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A stored value does not read back (a row written by something else).
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// [`AnyStore::open_existing`]: there is no database file at the path.
    #[error("there is no database at {}", .0.display())]
    Missing(std::path::PathBuf),
    /// [`AnyStore::open_existing`]: the database does not have this version's schema (it
    /// was never migrated, or by an older version).
    #[error("the database has {applied} of this version's {expected} migrations")]
    Outdated {
        /// The migrations it has.
        applied: usize,
        /// The migrations this version has.
        expected: usize,
    },
}

/// The order of a list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Sort {
    /// The best match first (an exact name, then names holding every word, then the
    /// full-text rank: name, then description and tags, then the body); by name when there
    /// is no query.
    #[default]
    Relevance,
    /// By name.
    Name,
    /// The highest average rating first (unrated last), then by name.
    Rating,
    /// The most recently changed content first, then by name.
    Updated,
}

impl Sort {
    /// The order a list with this sort and `q` is in: [`Sort::Relevance`] without a query
    /// is [`Sort::Name`].
    #[must_use]
    pub fn effective(self, q: Option<&str>) -> Self {
        match self {
            Self::Relevance if q.is_none_or(|q| q.trim().is_empty()) => Self::Name,
            other => other,
        }
    }

    /// `relevance`, `name`, `rating`, `updated`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Relevance => "relevance",
            Self::Name => "name",
            Self::Rating => "rating",
            Self::Updated => "updated",
        }
    }
}

/// The most words of a query that are searched for; the rest are left out.
pub const MAX_QUERY_WORDS: usize = 8;

/// What a list asks for: filters, and the page.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ListQuery {
    /// What to search for: each word (letters and digits) in the name, description, tags or
    /// body of the `SKILL.md` (as a prefix, stemmed: `form` finds `forms`), all of them; or
    /// the whole text in the name or description, any case; or a word a typo away from
    /// the name or a part of it (`pfd` finds `pdf-forms`).
    pub q: Option<String>,
    /// The order ([`Sort::effective`]).
    pub sort: Sort,
    /// How many to skip: the page of an order other than by name (whose pages continue
    /// `after` a name).
    pub offset: u32,
    /// A tag the skill has.
    pub tag: Option<String>,
    /// The registry the skill comes from.
    pub registry: Option<String>,
    /// Enabled or disabled skills only.
    pub enabled: Option<bool>,
    /// Only what federation exports: public, enabled, registered here (not imported).
    pub exportable: bool,
    /// Names after this one (the cursor).
    pub after: Option<String>,
    /// How many at most.
    pub limit: u32,
}

/// An API token as stored: its hash, never the token.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TokenRecord {
    /// A short public id (`tok_…`) to list and revoke it by.
    pub id: String,
    /// SHA-256 of the token, hex.
    pub hash: String,
    /// The user it authenticates.
    pub user: String,
    /// The groups that user is in.
    pub groups: Vec<String>,
    /// Whether the user is an admin.
    pub admin: bool,
    /// When it was created (Unix ms).
    pub created_at: i64,
    /// When it was revoked, if it was.
    pub revoked_at: Option<i64>,
}

impl TokenRecord {
    /// A record for a new token.
    #[must_use]
    pub fn new(id: String, hash: String, user: String, groups: Vec<String>, admin: bool) -> Self {
        Self {
            id,
            hash,
            user,
            groups,
            admin,
            created_at: time::now_ms(),
            revoked_at: None,
        }
    }
}

/// Where the registry keeps its state. Every method is one transaction.
pub trait Store: Send + Sync + 'static {
    /// Applies the migrations not applied yet.
    fn migrate(&self) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Whether the database answers.
    fn ping(&self) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Keeps the query planner's statistics current (SQLite's `PRAGMA optimize`; nothing on
    /// PostgreSQL, whose autovacuum does it). Cheap when little changed: run it now and then.
    fn maintain(&self) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Adds a skill and its content; [`StoreError::Conflict`] when the name is taken.
    fn insert<'a>(
        &'a self,
        card: &'a SkillCard,
        content: &'a str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send + 'a;
    /// Replaces what registration fills (description, URLs, metadata, tags, access, content)
    /// of an existing skill, keeping its owner, state, ratings and creation time. `false`
    /// when there is no such skill.
    fn update<'a>(
        &'a self,
        card: &'a SkillCard,
        content: &'a str,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a;
    /// The skill, with its average rating (not every rating: see [`Store::ratings`]).
    fn get<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<Option<SkillCard>, StoreError>> + Send + 'a;
    /// As [`Store::get`], when `caller` may see the skill: an admin any; anyone else an
    /// enabled public one, and a user also their own (even disabled) and the enabled group
    /// ones of their groups. Whether the caller may read at all (anonymous reads) is not
    /// its business. The rule is in the query, so a skill that is there but hidden costs
    /// the same as one that is not there: neither is read, and the time of the answer does
    /// not tell them apart.
    fn get_visible<'a>(
        &'a self,
        name: &'a str,
        caller: &'a Caller,
    ) -> impl Future<Output = Result<Option<SkillCard>, StoreError>> + Send + 'a;
    /// As [`Store::get_visible`], with the skill's cached `SKILL.md` (`None` when it has
    /// none) read by the same query: a full view in one read.
    fn get_visible_full<'a>(
        &'a self,
        name: &'a str,
        caller: &'a Caller,
    ) -> impl Future<Output = Result<Option<(SkillCard, Option<String>)>, StoreError>> + Send + 'a;
    /// Every rating of the skill, by user.
    fn ratings<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<Vec<RatingDetail>, StoreError>> + Send + 'a;
    /// The cached `SKILL.md` and its version.
    fn content<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<Option<(String, String)>, StoreError>> + Send + 'a;
    /// The skills `caller` may see that match `query`, in its order, at most `query.limit`
    /// (without their rating details).
    fn list<'a>(
        &'a self,
        query: &'a ListQuery,
        caller: &'a Caller,
    ) -> impl Future<Output = Result<Vec<SkillCard>, StoreError>> + Send + 'a;
    /// How many skills `caller` may see match `query`'s filters and search, on every page
    /// (its page, order and cursor aside).
    fn count<'a>(
        &'a self,
        query: &'a ListQuery,
        caller: &'a Caller,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send + 'a;
    /// As [`Store::list`], each card with its cached `SKILL.md` (`None` when it has none)
    /// read by the same query: a page of full views in one read, not one more per card.
    fn list_full<'a>(
        &'a self,
        query: &'a ListQuery,
        caller: &'a Caller,
    ) -> impl Future<Output = Result<Vec<(SkillCard, Option<String>)>, StoreError>> + Send + 'a;
    /// Removes a skill; `false` when there was none.
    fn delete<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a;
    /// Enables or disables a skill; `false` when there is none.
    fn set_enabled<'a>(
        &'a self,
        name: &'a str,
        enabled: bool,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a;
    /// Records a health check.
    fn set_health<'a>(
        &'a self,
        name: &'a str,
        status: HealthStatus,
        checked_at: i64,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a;
    /// Up to `limit` skills (name and raw URL) never health-checked or last checked before
    /// `checked_before` (Unix ms), the oldest first.
    fn due_for_health(
        &self,
        checked_before: i64,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<(String, String)>, StoreError>> + Send;
    /// Sets `user`'s rating of a skill (1–5), replacing theirs; `false` when there is no
    /// such skill.
    fn rate<'a>(
        &'a self,
        name: &'a str,
        user: &'a str,
        stars: u8,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a;
    /// Stores a new token.
    fn insert_token<'a>(
        &'a self,
        token: &'a TokenRecord,
    ) -> impl Future<Output = Result<(), StoreError>> + Send + 'a;
    /// The unrevoked token with this hash.
    fn token_by_hash<'a>(
        &'a self,
        hash: &'a str,
    ) -> impl Future<Output = Result<Option<TokenRecord>, StoreError>> + Send + 'a;
    /// Every token, revoked ones too, oldest first.
    fn tokens(&self) -> impl Future<Output = Result<Vec<TokenRecord>, StoreError>> + Send;
    /// Revokes a token; `false` when there is no such unrevoked token.
    fn revoke_token<'a>(
        &'a self,
        id: &'a str,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a;
    /// Marks the skill `name` as imported from the federation peer `peer`.
    fn mark_imported<'a>(
        &'a self,
        name: &'a str,
        peer: &'a str,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a;
    /// The peer the skill `name` was imported from; `None` for a skill registered here (or
    /// none of that name).
    fn imported_from<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<Option<String>, StoreError>> + Send + 'a;
    /// The skills imported from `peer`: name and `content_version`.
    fn imported<'a>(
        &'a self,
        peer: &'a str,
    ) -> impl Future<Output = Result<Vec<(String, String)>, StoreError>> + Send + 'a;
    /// Publishes a version of a hosted skill in one transaction: the card (inserted, or
    /// its content-derived fields and access replaced, keeping owner, state and ratings),
    /// its `SKILL.md`, the blobs not stored yet, the version and its files.
    /// [`StoreError::Conflict`] (with `name@version`) when that version exists;
    /// [`StoreError::NotOwner`] when the stored skill is not the hosted skill of the card's
    /// owner (the check is made again inside the transaction).
    fn publish<'a>(
        &'a self,
        publication: &'a Publication,
    ) -> impl Future<Output = Result<(), StoreError>> + Send + 'a;
    /// Every version of `name`, oldest first.
    fn versions<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<Vec<VersionRecord>, StoreError>> + Send + 'a;
    /// The files of `name@version`, by path.
    fn version_files<'a>(
        &'a self,
        name: &'a str,
        version: &'a str,
    ) -> impl Future<Output = Result<Vec<FileRecord>, StoreError>> + Send + 'a;
    /// The bytes stored under `digest`.
    fn blob<'a>(
        &'a self,
        digest: &'a str,
    ) -> impl Future<Output = Result<Option<Vec<u8>>, StoreError>> + Send + 'a;
    /// Yanks or restores `name@version`; `false` when there is no such version.
    fn set_yanked<'a>(
        &'a self,
        name: &'a str,
        version: &'a str,
        yanked: bool,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a;
    /// Removes `name@version` and the blobs no version uses any more; `false` when there
    /// was no such version.
    fn delete_version<'a>(
        &'a self,
        name: &'a str,
        version: &'a str,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a;
    /// Starts watching for the changes any process makes to the database, this one's
    /// included ([`Changes::next`]): PostgreSQL's `LISTEN`, or SQLite's `data_version`
    /// polled on a connection of its own.
    fn watch(&self) -> impl Future<Output = Result<Changes, StoreError>> + Send;
    /// Starts `job` when no other process on this database runs it: with `every`, only
    /// when none started it within (three quarters of) `every` either, else `None`;
    /// without, waiting for the one that runs it. The start is recorded; the lock is held
    /// until [`JobLock::release`] or the guard is dropped (or the process dies).
    fn begin_job(
        &self,
        job: Job,
        every: Option<Duration>,
    ) -> impl Future<Output = Result<Option<JobLock>, StoreError>> + Send;
}

/// What [`Store::publish`] writes.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Publication {
    /// The card (`hosted`), its content fields from the new version's `SKILL.md`.
    pub card: SkillCard,
    /// The new version's `SKILL.md`.
    pub content: String,
    /// The version.
    pub version: VersionRecord,
    /// Its files.
    pub files: Vec<FileRecord>,
    /// `(digest, bytes)` of every file and both archives.
    pub blobs: Vec<(String, Vec<u8>)>,
}

impl Publication {
    /// A publication of `version` of `card`.
    #[must_use]
    pub fn new(
        card: SkillCard,
        content: String,
        version: VersionRecord,
        files: Vec<FileRecord>,
        blobs: Vec<(String, Vec<u8>)>,
    ) -> Self {
        Self {
            card,
            content,
            version,
            files,
            blobs,
        }
    }
}

/// A background job that the processes sharing a database run one at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Job {
    /// A round of the background health checker.
    Health,
    /// A sync with the federation peers.
    Sync,
}

impl Job {
    /// Its row in `registry_jobs`.
    fn name(self) -> &'static str {
        match self {
            Self::Health => "health",
            Self::Sync => "sync",
        }
    }

    /// Its PostgreSQL advisory lock: `skills` in ASCII, then the job.
    fn lock_key(self) -> i64 {
        const BASE: i64 = 0x736b_696c_6c73 << 16;
        match self {
            Self::Health => BASE | 1,
            Self::Sync => BASE | 2,
        }
    }
}

/// The right to run a [`Job`], from [`Store::begin_job`]: on PostgreSQL a session-level
/// advisory lock, on a connection of its own (closed, and the lock with it, when the guard
/// is dropped); on SQLite, whose file one server serves, nothing across processes.
#[derive(Debug)]
#[must_use = "the job is locked until this is released or dropped"]
pub struct JobLock {
    held: Option<(sqlx::PgConnection, i64)>,
}

impl JobLock {
    /// Unlocks the job for the other processes.
    pub async fn release(self) {
        if let Some((mut connection, key)) = self.held {
            let _ = sqlx::query("SELECT pg_advisory_unlock($1)")
                .bind(key)
                .execute(&mut connection)
                .await;
            let _ = sqlx::Connection::close(connection).await;
        }
    }
}

/// What a change touched, as [`Changes::next`] reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Changed {
    /// Skills, their content, state or ratings: what cached answers show.
    pub skills: bool,
    /// Tokens (a revocation): what cached authentications rest on.
    pub tokens: bool,
}

impl Changed {
    /// Everything, as after a watch that was interrupted.
    #[must_use]
    pub fn everything() -> Self {
        Self {
            skills: true,
            tokens: true,
        }
    }
}

/// The topics a write announces (`registry_changes` rows, NOTIFY payloads).
const TOPIC_SKILLS: &str = "skills";
const TOPIC_TOKENS: &str = "tokens";
/// The channel PostgreSQL's announcements go to.
const CHANNEL: &str = "skills_registry_changes";
/// How often a SQLite watch asks the file whether another connection wrote it.
const SQLITE_WATCH_INTERVAL: Duration = Duration::from_millis(25);

/// The changes made to a database, by any process, from [`Store::watch`].
#[derive(Debug)]
pub struct Changes {
    inner: Watch,
}

#[derive(Debug)]
enum Watch {
    Postgres(sqlx::postgres::PgListener),
    Sqlite {
        connection: sqlx::SqliteConnection,
        data_version: i64,
        serials: Vec<(String, i64)>,
    },
}

impl Changes {
    /// Waits for the next change and says what it touched ([`Changed::everything`] when
    /// the watch had to reconnect: what happened meanwhile is unknown).
    ///
    /// # Errors
    ///
    /// [`StoreError::Database`] when the database cannot be asked; watch again.
    pub async fn next(&mut self) -> Result<Changed, StoreError> {
        match &mut self.inner {
            Watch::Postgres(listener) => match listener.try_recv().await? {
                Some(notification) => Ok(match notification.payload() {
                    TOPIC_SKILLS => Changed {
                        skills: true,
                        tokens: false,
                    },
                    TOPIC_TOKENS => Changed {
                        skills: false,
                        tokens: true,
                    },
                    _ => Changed::everything(),
                }),
                // Lost and (sqlx's eager reconnect) listening again.
                None => Ok(Changed::everything()),
            },
            Watch::Sqlite {
                connection,
                data_version,
                serials,
            } => loop {
                tokio::time::sleep(SQLITE_WATCH_INTERVAL).await;
                // Moves when another connection commits to the file, this process's
                // other connections included; cheap (no page is read).
                let version: i64 = sqlx::query_scalar("PRAGMA data_version")
                    .fetch_one(&mut *connection)
                    .await?;
                if version == *data_version {
                    continue;
                }
                *data_version = version;
                let now = sqlite_serials(connection).await?;
                let moved = |topic: &str| {
                    let at = |list: &[(String, i64)]| {
                        list.iter().find(|(t, _)| t == topic).map(|(_, s)| *s)
                    };
                    at(&now) != at(serials)
                };
                let changed = Changed {
                    skills: moved(TOPIC_SKILLS),
                    tokens: moved(TOPIC_TOKENS),
                };
                *serials = now;
                if changed != Changed::default() {
                    return Ok(changed);
                }
            },
        }
    }
}

impl Changes {
    /// Stops watching, and closes the watch's connection.
    pub async fn close(self) {
        match self.inner {
            Watch::Postgres(listener) => drop(listener),
            Watch::Sqlite { connection, .. } => {
                let _ = sqlx::Connection::close(connection).await;
            }
        }
    }
}

async fn sqlite_serials(
    connection: &mut sqlx::SqliteConnection,
) -> Result<Vec<(String, i64)>, StoreError> {
    Ok(
        sqlx::query_as("SELECT topic, serial FROM registry_changes ORDER BY topic")
            .fetch_all(connection)
            .await?,
    )
}

/// A card's audit as its column holds it (JSON), `NULL` for none.
fn audit_json(audit: Option<&crate::model::AuditSummary>) -> Option<String> {
    audit.and_then(|a| serde_json::to_string(a).ok())
}

/// The audit a column holds.
fn audit_of(
    text: Option<String>,
    column: &str,
) -> Result<Option<crate::model::AuditSummary>, StoreError> {
    text.map(|t| {
        serde_json::from_str(&t).map_err(|e| StoreError::Corrupt(format!("{column}: {e}")))
    })
    .transpose()
}

/// The migrations, embedded: the same files for both databases, as version, description
/// and SQL.
///
/// Listed by hand rather than by `sqlx::migrate!`: that macro is sqlx's only use of its
/// `macros` feature here, which builds sqlx's PostgreSQL and SQLite drivers, tokio and
/// rustls a second time for the compiler (138 compile units, about 100 s of CPU in a clean
/// `cargo clippy`). The
/// versions, descriptions and checksums are the ones sqlx derives from the file names and
/// contents, so databases migrated by either agree; a test holds the list to the folder.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "skills", include_str!("../migrations/0001_skills.sql")),
    (
        2,
        "federation",
        include_str!("../migrations/0002_federation.sql"),
    ),
    (
        3,
        "multi instance",
        include_str!("../migrations/0003_multi_instance.sql"),
    ),
    (4, "hosting", include_str!("../migrations/0004_hosting.sql")),
    (5, "search", include_str!("../migrations/0005_search.sql")),
    (6, "audit", include_str!("../migrations/0006_audit.sql")),
];

fn migrator() -> sqlx::migrate::Migrator {
    use sqlx::SqlSafeStr;
    use sqlx::migrate::{Migration, MigrationType, Migrator};
    Migrator::with_migrations(
        MIGRATIONS
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(
                    version,
                    description.into(),
                    MigrationType::Simple,
                    sql.into_sql_str(),
                    false,
                )
            })
            .collect(),
    )
}

/// The columns a card is read from (a macro: queries are `concat!`ed literals).
macro_rules! card_columns {
    () => {
        "s.name, s.description, s.skill_md_url, s.skill_md_raw_url, \
        s.repository_url, s.version, s.author, s.license, s.compatibility, s.tags, s.requirements, \
        s.target_agents, s.allowed_tools, s.visibility, s.allowed_groups, s.owner, s.is_enabled, \
        s.registry_name, s.health_status, s.last_checked_time, s.content_version, \
        s.content_updated_at, s.created_at, s.updated_at, s.hosted, s.audit, s.peer_audit"
    };
}

/// The column a full read adds to a card's: the skill's `SKILL.md`, by a subquery rather
/// than a join, so the rest of the query, and the plan that pages it, is the card read's.
const CONTENT_COLUMN: &str =
    ", (SELECT c.content FROM skill_content c WHERE c.skill = s.name) AS content";

/// Removes the blobs no version uses (a file, or either archive).
const UNUSED_BLOBS: &str = "DELETE FROM blobs WHERE NOT EXISTS \
     (SELECT 1 FROM version_files f WHERE f.digest = blobs.digest) \
     AND NOT EXISTS (SELECT 1 FROM skill_versions v WHERE \
     v.archive_digest = blobs.digest OR v.flat_archive_digest = blobs.digest)";

fn json_list<T: serde::Serialize>(items: &[T]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".to_string())
}

fn from_json<T: serde::de::DeserializeOwned>(text: &str, column: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("{column}: {e}")))
}

/// A duplicate primary key, as either database reports it.
fn is_unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(e) if e.is_unique_violation())
}

/// Escapes `%`, `_` and `\` for a `LIKE … ESCAPE '\'` pattern.
fn like_pattern(text: &str) -> String {
    let mut out = String::from("%");
    for c in text.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// The words of a search, lowercased: runs of letters and digits, at most
/// [`MAX_QUERY_WORDS`] of at most 64 characters each. What the full-text query is made of,
/// so no character of it is syntax to either database.
fn query_words(q: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in q.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() || word.chars().nth(64).is_some() {
            continue;
        }
        let word = word.to_lowercase();
        if !words.contains(&word) {
            words.push(word);
        }
        if words.len() == MAX_QUERY_WORDS {
            break;
        }
    }
    words
}

/// The most names a search takes as typos of its words.
const MAX_TYPO_NAMES: usize = 64;

/// The names among `names` a typo away from a word of the search, or from the words
/// joined by `-`: the whole name, a `-`-separated part of it or the start of one as long as
/// the word (of 6 characters or more, typed halfway: `brainstrom` for `brainstorming`),
/// within one edit (two
/// for a word of 7 characters or more) but not equal (those the full-text search finds).
/// Words under 4 characters are too short to tell a typo from another word.
fn typo_names(words: &[String], names: &[String]) -> Vec<String> {
    let joined = words.join("-");
    let candidates: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .chain(std::iter::once(joined.as_str()).filter(|_| words.len() > 1))
        .filter(|w| w.chars().count() >= 4)
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let close = |word: &str, part: &str| {
        let allowed = if word.chars().count() >= 7 { 2 } else { 1 };
        let d = skills_core::suggest::distance(word, part);
        d > 0 && d <= allowed
    };
    names
        .iter()
        .filter(|name| {
            candidates.iter().any(|word| {
                close(word, name)
                    || name.split('-').any(|part| {
                        let start: String = part.chars().take(word.chars().count()).collect();
                        part.len() >= 3
                            && (close(word, part)
                                || (word.chars().count() >= 6 && close(word, &start)))
                    })
            })
        })
        .take(MAX_TYPO_NAMES)
        .cloned()
        .collect()
}

/// What a search needs beside its SQL: the text as typed (lowercased), the full-text query
/// in the database's syntax (none when the text has no word), the names a typo away.
struct Search {
    text: String,
    pattern: String,
    full_text: Option<String>,
    typos: Vec<String>,
    /// A `LIKE` pattern of each word: a name holding them all ranks first after an exact
    /// one (`code review`: `requesting-code-review` before a long body that says it more).
    word_patterns: Vec<String>,
}

/// The text a skill is found by: its name, description, tags (space-separated) and the
/// body of its `SKILL.md` (the whole file when it does not parse).
fn search_body(content: &str) -> String {
    skills_frontmatter::SkillMd::parse(content.as_bytes())
        .map_or_else(|_| content.to_string(), |md| md.body().to_string())
}

macro_rules! sql_store {
    ($store:ident, $db:ty, $row:ty) => {
        impl $store {
            /// ` OR (group visibility and one of `groups`)`, for the visibility rule of a
            /// caller in those groups; nothing for a caller in none.
            fn push_group_alternative(sql: &mut sqlx::QueryBuilder<$db>, groups: &[String]) {
                if groups.is_empty() {
                    return;
                }
                sql.push(
                    " OR (s.visibility = 'group' AND EXISTS (SELECT 1 FROM \
                     skill_groups g WHERE g.skill = s.name AND g.grp IN (",
                );
                let mut separated = sql.separated(", ");
                for group in groups {
                    separated.push_bind(group.clone());
                }
                // Closes IN, EXISTS and the group alternative.
                sql.push(")))");
            }

            /// [`Store::get_visible`], and the skill's content too when `content` is set.
            async fn visible_card(
                &self,
                name: &str,
                caller: &Caller,
                content: bool,
            ) -> Result<Option<(SkillCard, Option<String>)>, StoreError> {
                let mut sql = sqlx::QueryBuilder::<$db>::new(concat!(
                    "SELECT ",
                    card_columns!(),
                    ", (SELECT CAST(AVG(r.stars) AS DOUBLE PRECISION) FROM ratings r \
                     WHERE r.skill = s.name) AS num_stars"
                ));
                if content {
                    sql.push(CONTENT_COLUMN);
                }
                sql.push(" FROM skills s WHERE s.name = ");
                sql.push_bind(name.to_string());
                if !caller.admin {
                    match &caller.user {
                        None => {
                            sql.push(" AND s.is_enabled = TRUE AND s.visibility = 'public'");
                        }
                        Some(user) => {
                            sql.push(" AND (s.owner = ");
                            sql.push_bind(user.clone());
                            sql.push(" OR (s.is_enabled = TRUE AND (s.visibility = 'public'");
                            Self::push_group_alternative(&mut sql, &caller.groups);
                            // Closes the visibilities, the enabled alternative, the whole.
                            sql.push(")))");
                        }
                    }
                }
                let Some(row) = sql.build().fetch_optional(&self.pool).await? else {
                    return Ok(None);
                };
                Ok(Some((Self::card(&row)?, Self::content_of(&row, content)?)))
            }

            /// The `content` column of a row read with [`CONTENT_COLUMN`] (when `content`).
            fn content_of(row: &$row, content: bool) -> Result<Option<String>, StoreError> {
                if content {
                    Ok(row.try_get::<Option<String>, _>("content")?)
                } else {
                    Ok(None)
                }
            }

            /// The search `query` asks for, when it has a text: its full-text query, and the
            /// names (of every skill: the page's query applies the visibility) a typo away.
            async fn search_of(&self, query: &ListQuery) -> Result<Option<Search>, StoreError> {
                let Some(text) = query.q.as_deref().map(str::trim).filter(|q| !q.is_empty())
                else {
                    return Ok(None);
                };
                let words = query_words(text);
                let typos = if words.iter().any(|w| w.chars().count() >= 4) {
                    let names: Vec<String> = sqlx::query_scalar("SELECT name FROM skills")
                        .fetch_all(&self.pool)
                        .await?;
                    typo_names(&words, &names)
                } else {
                    Vec::new()
                };
                Ok(Some(Search {
                    text: text.to_lowercase(),
                    pattern: like_pattern(text),
                    full_text: (!words.is_empty()).then(|| Self::full_text_query(&words)),
                    typos,
                    word_patterns: words.iter().map(|w| like_pattern(w)).collect(),
                }))
            }

            /// ` FROM … WHERE …` of a list: the filters of `query`, the visibility rule
            /// of `caller`, the search; the ratings joined when they order it.
            fn push_from_where(
                sql: &mut sqlx::QueryBuilder<$db>,
                query: &ListQuery,
                caller: &Caller,
                search: Option<&Search>,
                sort: Sort,
            ) {
                // A tag drives the query from its index, in name order: no scan of every
                // skill, no sort, whatever the planner knows of the tables.
                if query.tag.is_some() {
                    sql.push(" FROM skill_tags t JOIN skills s ON s.name = t.skill");
                } else {
                    sql.push(" FROM skills s");
                }
                let full_text = search.and_then(|s| s.full_text.as_ref());
                if let Some(full_text) = full_text {
                    sql.push(" LEFT JOIN (");
                    sql.push(Self::MATCH_HEAD);
                    sql.push_bind(full_text.clone());
                    sql.push(Self::MATCH_TAIL);
                    sql.push(") m ON m.skill = s.name");
                }
                if sort == Sort::Rating {
                    sql.push(
                        " LEFT JOIN (SELECT skill, CAST(AVG(stars) AS DOUBLE PRECISION) AS \
                         average FROM ratings GROUP BY skill) r ON r.skill = s.name",
                    );
                }
                match &query.tag {
                    Some(tag) => {
                        sql.push(" WHERE t.tag = ");
                        sql.push_bind(tag.clone());
                    }
                    None => {
                        sql.push(" WHERE 1 = 1");
                    }
                }
                if !caller.admin {
                    sql.push(" AND s.is_enabled = TRUE");
                    match &caller.user {
                        None => {
                            sql.push(" AND s.visibility = 'public'");
                        }
                        Some(user) => {
                            sql.push(" AND (s.visibility = 'public' OR s.owner = ");
                            sql.push_bind(user.clone());
                            Self::push_group_alternative(sql, &caller.groups);
                            sql.push(")");
                        }
                    }
                }
                if let Some(search) = search {
                    sql.push(" AND (");
                    if full_text.is_some() {
                        sql.push("m.skill IS NOT NULL OR ");
                    }
                    sql.push("LOWER(s.name) LIKE ");
                    sql.push_bind(search.pattern.clone());
                    sql.push(" ESCAPE '\\' OR LOWER(s.description) LIKE ");
                    sql.push_bind(search.pattern.clone());
                    sql.push(" ESCAPE '\\'");
                    if !search.typos.is_empty() {
                        sql.push(" OR s.name IN (");
                        let mut names = sql.separated(", ");
                        for name in &search.typos {
                            names.push_bind(name.clone());
                        }
                        sql.push(")");
                    }
                    sql.push(")");
                }
                if let Some(registry) = &query.registry {
                    sql.push(" AND s.registry_name = ");
                    sql.push_bind(registry.clone());
                }
                if let Some(enabled) = query.enabled {
                    sql.push(" AND s.is_enabled = ");
                    sql.push_bind(enabled);
                }
                if query.exportable {
                    sql.push(
                        " AND s.visibility = 'public' AND s.is_enabled = TRUE \
                         AND s.imported_from IS NULL",
                    );
                }
            }

            /// [`Store::list`], and each skill's content too when `content` is set.
            async fn page(
                &self,
                query: &ListQuery,
                caller: &Caller,
                content: bool,
            ) -> Result<Vec<(SkillCard, Option<String>)>, StoreError> {
                let search = self.search_of(query).await?;
                let sort = query.sort.effective(query.q.as_deref());
                let mut sql = sqlx::QueryBuilder::<$db>::new(concat!("SELECT ", card_columns!()));
                if content {
                    sql.push(CONTENT_COLUMN);
                }
                Self::push_from_where(&mut sql, query, caller, search.as_ref(), sort);
                match (sort, &search) {
                    (Sort::Relevance, Some(search)) => {
                        sql.push(" ORDER BY CASE WHEN s.name = ");
                        sql.push_bind(search.text.clone());
                        sql.push(" THEN 0 ELSE 1 END");
                        if !search.word_patterns.is_empty() {
                            sql.push(", CASE WHEN ");
                            for (i, pattern) in search.word_patterns.iter().enumerate() {
                                if i > 0 {
                                    sql.push(" AND ");
                                }
                                sql.push("LOWER(s.name) LIKE ");
                                sql.push_bind(pattern.clone());
                                sql.push(" ESCAPE '\\'");
                            }
                            sql.push(" THEN 0 ELSE 1 END");
                        }
                        if search.full_text.is_some() {
                            sql.push(", CASE WHEN m.score IS NULL THEN 1 ELSE 0 END, m.score");
                        }
                        sql.push(", s.name");
                    }
                    (Sort::Rating, _) => {
                        sql.push(" ORDER BY COALESCE(r.average, 0) DESC, s.name");
                    }
                    (Sort::Updated, _) => {
                        sql.push(" ORDER BY s.content_updated_at DESC, s.name");
                    }
                    _ => {
                        // By the tag index's own column when there is a tag: the planner
                        // then reads the index in order and stops at the limit.
                        let order = if query.tag.is_some() { "t.skill" } else { "s.name" };
                        if let Some(after) = &query.after {
                            sql.push(format_args!(" AND {order} > "));
                            sql.push_bind(after.clone());
                        }
                        sql.push(format_args!(" ORDER BY {order}"));
                    }
                }
                sql.push(" LIMIT ");
                sql.push_bind(i64::from(query.limit));
                if query.offset > 0 {
                    sql.push(" OFFSET ");
                    sql.push_bind(i64::from(query.offset));
                }
                let rows = sql.build().fetch_all(&self.pool).await?;
                let mut cards = rows
                    .iter()
                    .map(|row| Ok((Self::card(row)?, Self::content_of(row, content)?)))
                    .collect::<Result<Vec<_>, StoreError>>()?;
                // The averages of this page only, in one query.
                if !cards.is_empty() {
                    let mut ratings = sqlx::QueryBuilder::<$db>::new(
                        "SELECT skill, CAST(AVG(stars) AS DOUBLE PRECISION) AS average \
                         FROM ratings WHERE skill IN (",
                    );
                    let mut names = ratings.separated(", ");
                    for (card, _) in &cards {
                        names.push_bind(card.name.clone());
                    }
                    ratings.push(") GROUP BY skill");
                    for row in ratings.build().fetch_all(&self.pool).await? {
                        let skill: String = row.try_get("skill")?;
                        let average: Option<f64> = row.try_get("average")?;
                        if let Some((card, _)) = cards.iter_mut().find(|(c, _)| c.name == skill) {
                            card.num_stars = average.unwrap_or(0.0);
                        }
                    }
                }
                Ok(cards)
            }

            /// Writes a skill's row of `skill_search` (the database's index follows it).
            async fn index_search(
                tx: &mut sqlx::Transaction<'_, $db>,
                card: &SkillCard,
                content: &str,
            ) -> Result<(), StoreError> {
                sqlx::query("DELETE FROM skill_search WHERE skill = $1")
                    .bind(&card.name)
                    .execute(&mut **tx)
                    .await?;
                sqlx::query(
                    "INSERT INTO skill_search (skill, name, description, tags, body) \
                     VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(&card.name)
                .bind(&card.name)
                .bind(&card.description)
                .bind(card.tags.join(" "))
                .bind(search_body(content))
                .execute(&mut **tx)
                .await?;
                Ok(())
            }

            fn card(row: &$row) -> Result<SkillCard, StoreError> {
                let name: String = row.try_get("name")?;
                let visibility: String = row.try_get("visibility")?;
                let health: String = row.try_get("health_status")?;
                Ok(SkillCard {
                    path: format!("/skills/{name}"),
                    description: row.try_get("description")?,
                    skill_md_url: row.try_get("skill_md_url")?,
                    skill_md_raw_url: row.try_get("skill_md_raw_url")?,
                    repository_url: row.try_get("repository_url")?,
                    version: row.try_get("version")?,
                    author: row.try_get("author")?,
                    license: row.try_get("license")?,
                    compatibility: row.try_get("compatibility")?,
                    tags: from_json(&row.try_get::<String, _>("tags")?, "tags")?,
                    requirements: from_json(
                        &row.try_get::<String, _>("requirements")?,
                        "requirements",
                    )?,
                    target_agents: from_json(
                        &row.try_get::<String, _>("target_agents")?,
                        "target_agents",
                    )?,
                    allowed_tools: from_json(
                        &row.try_get::<String, _>("allowed_tools")?,
                        "allowed_tools",
                    )?,
                    visibility: Visibility::parse(&visibility)
                        .ok_or_else(|| StoreError::Corrupt(format!("visibility `{visibility}`")))?,
                    allowed_groups: from_json(
                        &row.try_get::<String, _>("allowed_groups")?,
                        "allowed_groups",
                    )?,
                    owner: row.try_get("owner")?,
                    is_enabled: row.try_get("is_enabled")?,
                    registry_name: row.try_get("registry_name")?,
                    health_status: HealthStatus::parse(&health),
                    last_checked_time: row
                        .try_get::<Option<i64>, _>("last_checked_time")?
                        .map(time::rfc3339),
                    // Single-skill reads compute it in the query; lists fill it after.
                    num_stars: row
                        .try_get::<Option<f64>, _>("num_stars")
                        .ok()
                        .flatten()
                        .unwrap_or(0.0),
                    rating_details: Vec::new(),
                    content_version: row.try_get("content_version")?,
                    content_updated_at: time::rfc3339(row.try_get("content_updated_at")?),
                    created_at: time::rfc3339(row.try_get("created_at")?),
                    updated_at: time::rfc3339(row.try_get("updated_at")?),
                    hosted: row.try_get("hosted")?,
                    audit: audit_of(row.try_get("audit")?, "audit")?,
                    peer_audit: audit_of(row.try_get("peer_audit")?, "peer_audit")?,
                    name,
                })
            }

            /// Records, in the transaction of a change, that `topic` changed: for the
            /// other processes on the database ([`Store::watch`]).
            async fn announce(
                tx: &mut sqlx::Transaction<'_, $db>,
                topic: &str,
            ) -> Result<(), StoreError> {
                sqlx::query(Self::ANNOUNCE)
                    .bind(topic)
                    .execute(&mut **tx)
                    .await?;
                Ok(())
            }

            /// Rewrites a skill's tag and group rows from its card.
            async fn index_lists(
                tx: &mut sqlx::Transaction<'_, $db>,
                card: &SkillCard,
            ) -> Result<(), StoreError> {
                sqlx::query("DELETE FROM skill_tags WHERE skill = $1")
                    .bind(&card.name)
                    .execute(&mut **tx)
                    .await?;
                sqlx::query("DELETE FROM skill_groups WHERE skill = $1")
                    .bind(&card.name)
                    .execute(&mut **tx)
                    .await?;
                let mut tags: Vec<&String> = card.tags.iter().collect();
                tags.sort();
                tags.dedup();
                for tag in tags {
                    sqlx::query("INSERT INTO skill_tags (skill, tag) VALUES ($1, $2)")
                        .bind(&card.name)
                        .bind(tag)
                        .execute(&mut **tx)
                        .await?;
                }
                let mut groups: Vec<&String> = card.allowed_groups.iter().collect();
                groups.sort();
                groups.dedup();
                for group in groups {
                    sqlx::query("INSERT INTO skill_groups (skill, grp) VALUES ($1, $2)")
                        .bind(&card.name)
                        .bind(group)
                        .execute(&mut **tx)
                        .await?;
                }
                Ok(())
            }

            /// How many of [`MIGRATIONS`] the database has (none when it has no
            /// migrations table: it is not a registry's, or never was migrated).
            async fn applied_migrations(&self) -> usize {
                let versions: Result<Vec<i64>, sqlx::Error> =
                    sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success")
                        .fetch_all(&self.pool)
                        .await;
                versions.map_or(0, |versions| {
                    MIGRATIONS
                        .iter()
                        .filter(|(version, _, _)| versions.contains(version))
                        .count()
                })
            }

            fn token(row: &$row) -> Result<TokenRecord, StoreError> {
                Ok(TokenRecord {
                    id: row.try_get("id")?,
                    hash: row.try_get("token_hash")?,
                    user: row.try_get("user_name")?,
                    groups: from_json(&row.try_get::<String, _>("groups")?, "groups")?,
                    admin: row.try_get("is_admin")?,
                    created_at: row.try_get("created_at")?,
                    revoked_at: row.try_get("revoked_at")?,
                })
            }
        }

        impl Store for $store {
            async fn migrate(&self) -> Result<(), StoreError> {
                migrator().run(&self.pool).await?;
                // The search index, in the database's own terms (idempotent).
                let mut tx = self.pool.begin().await?;
                for &statement in Self::SEARCH_INDEX {
                    sqlx::query(statement).execute(&mut *tx).await?;
                }
                tx.commit().await?;
                self.maintain().await
            }

            async fn maintain(&self) -> Result<(), StoreError> {
                if let Some(statement) = Self::MAINTAIN {
                    sqlx::query(statement).execute(&self.pool).await?;
                }
                Ok(())
            }

            async fn ping(&self) -> Result<(), StoreError> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }

            async fn insert(&self, card: &SkillCard, content: &str) -> Result<(), StoreError> {
                let mut tx = self.pool.begin().await?;
                let now = time::now_ms();
                let inserted = sqlx::query(
                    "INSERT INTO skills (name, description, skill_md_url, skill_md_raw_url, \
                     repository_url, version, author, license, compatibility, tags, \
                     requirements, target_agents, allowed_tools, visibility, allowed_groups, \
                     owner, is_enabled, registry_name, health_status, last_checked_time, \
                     content_version, content_updated_at, created_at, updated_at, audit, \
                     peer_audit) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, \
                     $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26)",
                )
                .bind(&card.name)
                .bind(&card.description)
                .bind(&card.skill_md_url)
                .bind(&card.skill_md_raw_url)
                .bind(&card.repository_url)
                .bind(&card.version)
                .bind(&card.author)
                .bind(&card.license)
                .bind(&card.compatibility)
                .bind(json_list(&card.tags))
                .bind(json_list(&card.requirements))
                .bind(json_list(&card.target_agents))
                .bind(json_list(&card.allowed_tools))
                .bind(card.visibility.as_str())
                .bind(json_list(&card.allowed_groups))
                .bind(&card.owner)
                .bind(card.is_enabled)
                .bind(&card.registry_name)
                .bind(card.health_status.as_str())
                // Checked as it was fetched, or (imported) never.
                .bind(card.last_checked_time.is_some().then_some(now))
                .bind(&card.content_version)
                .bind(now)
                .bind(now)
                .bind(now)
                .bind(audit_json(card.audit.as_ref()))
                .bind(audit_json(card.peer_audit.as_ref()))
                .execute(&mut *tx)
                .await;
                match inserted {
                    Err(e) if is_unique_violation(&e) => {
                        return Err(StoreError::Conflict(card.name.clone()));
                    }
                    other => {
                        other?;
                    }
                }
                sqlx::query("INSERT INTO skill_content (skill, content) VALUES ($1, $2)")
                    .bind(&card.name)
                    .bind(content)
                    .execute(&mut *tx)
                    .await?;
                Self::index_lists(&mut tx, card).await?;
                Self::index_search(&mut tx, card, content).await?;
                Self::announce(&mut tx, TOPIC_SKILLS).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn update(&self, card: &SkillCard, content: &str) -> Result<bool, StoreError> {
                let mut tx = self.pool.begin().await?;
                let now = time::now_ms();
                let updated = sqlx::query(
                    "UPDATE skills SET description = $2, skill_md_url = $3, \
                     skill_md_raw_url = $4, repository_url = $5, version = $6, author = $7, \
                     license = $8, compatibility = $9, tags = $10, requirements = $11, \
                     target_agents = $12, allowed_tools = $13, visibility = $14, \
                     allowed_groups = $15, \
                     content_updated_at = CASE WHEN content_version = $16 \
                         THEN content_updated_at ELSE $17 END, \
                     content_version = $16, updated_at = $17, audit = $18, peer_audit = $19 \
                     WHERE name = $1",
                )
                .bind(&card.name)
                .bind(&card.description)
                .bind(&card.skill_md_url)
                .bind(&card.skill_md_raw_url)
                .bind(&card.repository_url)
                .bind(&card.version)
                .bind(&card.author)
                .bind(&card.license)
                .bind(&card.compatibility)
                .bind(json_list(&card.tags))
                .bind(json_list(&card.requirements))
                .bind(json_list(&card.target_agents))
                .bind(json_list(&card.allowed_tools))
                .bind(card.visibility.as_str())
                .bind(json_list(&card.allowed_groups))
                .bind(&card.content_version)
                .bind(now)
                .bind(audit_json(card.audit.as_ref()))
                .bind(audit_json(card.peer_audit.as_ref()))
                .execute(&mut *tx)
                .await?;
                if updated.rows_affected() == 0 {
                    return Ok(false);
                }
                sqlx::query("UPDATE skill_content SET content = $2 WHERE skill = $1")
                    .bind(&card.name)
                    .bind(content)
                    .execute(&mut *tx)
                    .await?;
                Self::index_lists(&mut tx, card).await?;
                Self::index_search(&mut tx, card, content).await?;
                Self::announce(&mut tx, TOPIC_SKILLS).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn get(&self, name: &str) -> Result<Option<SkillCard>, StoreError> {
                let Some(row) = sqlx::query(concat!(
                    "SELECT ",
                    card_columns!(),
                    ", (SELECT CAST(AVG(r.stars) AS DOUBLE PRECISION) FROM ratings r \
                     WHERE r.skill = s.name) AS num_stars FROM skills s WHERE s.name = $1"
                ))
                    .bind(name)
                    .fetch_optional(&self.pool)
                    .await?
                else {
                    return Ok(None);
                };
                Self::card(&row).map(Some)
            }

            async fn get_visible(
                &self,
                name: &str,
                caller: &Caller,
            ) -> Result<Option<SkillCard>, StoreError> {
                Ok(self
                    .visible_card(name, caller, false)
                    .await?
                    .map(|(card, _)| card))
            }

            async fn get_visible_full(
                &self,
                name: &str,
                caller: &Caller,
            ) -> Result<Option<(SkillCard, Option<String>)>, StoreError> {
                self.visible_card(name, caller, true).await
            }

            async fn ratings(&self, name: &str) -> Result<Vec<RatingDetail>, StoreError> {
                let rows = sqlx::query(
                    "SELECT user_name, stars FROM ratings WHERE skill = $1 ORDER BY user_name",
                )
                .bind(name)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|r| {
                        let stars: i64 = r.try_get("stars")?;
                        Ok(RatingDetail {
                            user: r.try_get("user_name")?,
                            rating: u8::try_from(stars)
                                .map_err(|_| StoreError::Corrupt(format!("rating {stars}")))?,
                        })
                    })
                    .collect()
            }

            async fn content(&self, name: &str) -> Result<Option<(String, String)>, StoreError> {
                let row = sqlx::query(
                    "SELECT c.content, s.content_version FROM skills s \
                     JOIN skill_content c ON c.skill = s.name WHERE s.name = $1",
                )
                .bind(name)
                .fetch_optional(&self.pool)
                .await?;
                row.map(|r| Ok((r.try_get("content")?, r.try_get("content_version")?)))
                    .transpose()
            }

            async fn list(
                &self,
                query: &ListQuery,
                caller: &Caller,
            ) -> Result<Vec<SkillCard>, StoreError> {
                let page = self.page(query, caller, false).await?;
                Ok(page.into_iter().map(|(card, _)| card).collect())
            }

            async fn list_full(
                &self,
                query: &ListQuery,
                caller: &Caller,
            ) -> Result<Vec<(SkillCard, Option<String>)>, StoreError> {
                self.page(query, caller, true).await
            }

            async fn count(&self, query: &ListQuery, caller: &Caller) -> Result<u64, StoreError> {
                let search = self.search_of(query).await?;
                let mut sql = sqlx::QueryBuilder::<$db>::new("SELECT COUNT(*) AS total");
                Self::push_from_where(&mut sql, query, caller, search.as_ref(), Sort::Name);
                let total: i64 = sql.build().fetch_one(&self.pool).await?.try_get("total")?;
                Ok(u64::try_from(total).unwrap_or(0))
            }

            async fn delete(&self, name: &str) -> Result<bool, StoreError> {
                let mut tx = self.pool.begin().await?;
                let done = sqlx::query("DELETE FROM skills WHERE name = $1")
                    .bind(name)
                    .execute(&mut *tx)
                    .await?;
                if done.rows_affected() == 0 {
                    return Ok(false);
                }
                // A hosted skill's versions went with it: so do the files no other uses.
                sqlx::query(Self::BLOB_TURN).execute(&mut *tx).await?;
                sqlx::query(UNUSED_BLOBS).execute(&mut *tx).await?;
                Self::announce(&mut tx, TOPIC_SKILLS).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn set_enabled(&self, name: &str, enabled: bool) -> Result<bool, StoreError> {
                let mut tx = self.pool.begin().await?;
                let done = sqlx::query(
                    "UPDATE skills SET is_enabled = $2, updated_at = $3 WHERE name = $1",
                )
                .bind(name)
                .bind(enabled)
                .bind(time::now_ms())
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() == 0 {
                    return Ok(false);
                }
                Self::announce(&mut tx, TOPIC_SKILLS).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn set_health(
                &self,
                name: &str,
                status: HealthStatus,
                checked_at: i64,
            ) -> Result<bool, StoreError> {
                let mut tx = self.pool.begin().await?;
                // A new status is announced (cached answers show it); a check that finds
                // the status it had moves only `last_checked_time`, quietly: announcing
                // every check emptied every server's cache all through a health round.
                let moved = sqlx::query(
                    "UPDATE skills SET health_status = $2, last_checked_time = $3 \
                     WHERE name = $1 AND health_status <> $2",
                )
                .bind(name)
                .bind(status.as_str())
                .bind(checked_at)
                .execute(&mut *tx)
                .await?;
                if moved.rows_affected() > 0 {
                    Self::announce(&mut tx, TOPIC_SKILLS).await?;
                    tx.commit().await?;
                    return Ok(true);
                }
                let done =
                    sqlx::query("UPDATE skills SET last_checked_time = $2 WHERE name = $1")
                        .bind(name)
                        .bind(checked_at)
                        .execute(&mut *tx)
                        .await?;
                tx.commit().await?;
                Ok(done.rows_affected() > 0)
            }

            async fn due_for_health(
                &self,
                checked_before: i64,
                limit: u32,
            ) -> Result<Vec<(String, String)>, StoreError> {
                let rows = sqlx::query(
                    "SELECT name, skill_md_raw_url FROM skills WHERE hosted = FALSE \
                     AND (last_checked_time IS NULL OR last_checked_time < $1) \
                     ORDER BY COALESCE(last_checked_time, 0), name LIMIT $2",
                )
                .bind(checked_before)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|r| Ok((r.try_get("name")?, r.try_get("skill_md_raw_url")?)))
                    .collect()
            }

            async fn rate(&self, name: &str, user: &str, stars: u8) -> Result<bool, StoreError> {
                // One statement: the skill's existence and the rating are decided together,
                // so a rating never outlives a concurrent delete's check.
                let mut tx = self.pool.begin().await?;
                let done = sqlx::query(
                    "INSERT INTO ratings (skill, user_name, stars, rated_at) \
                     SELECT name, $2, $3, $4 FROM skills WHERE name = $1 \
                     ON CONFLICT (skill, user_name) DO UPDATE \
                     SET stars = excluded.stars, rated_at = excluded.rated_at",
                )
                .bind(name)
                .bind(user)
                .bind(i64::from(stars))
                .bind(time::now_ms())
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() == 0 {
                    return Ok(false);
                }
                Self::announce(&mut tx, TOPIC_SKILLS).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn insert_token(&self, token: &TokenRecord) -> Result<(), StoreError> {
                sqlx::query(
                    "INSERT INTO tokens (id, token_hash, user_name, groups, is_admin, created_at, \
                     revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(&token.id)
                .bind(&token.hash)
                .bind(&token.user)
                .bind(json_list(&token.groups))
                .bind(token.admin)
                .bind(token.created_at)
                .bind(token.revoked_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn token_by_hash(&self, hash: &str) -> Result<Option<TokenRecord>, StoreError> {
                let row = sqlx::query(
                    "SELECT * FROM tokens WHERE token_hash = $1 AND revoked_at IS NULL",
                )
                .bind(hash)
                .fetch_optional(&self.pool)
                .await?;
                row.as_ref().map(Self::token).transpose()
            }

            async fn tokens(&self) -> Result<Vec<TokenRecord>, StoreError> {
                let rows = sqlx::query("SELECT * FROM tokens ORDER BY created_at, id")
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(Self::token).collect()
            }

            async fn revoke_token(&self, id: &str) -> Result<bool, StoreError> {
                let mut tx = self.pool.begin().await?;
                let done = sqlx::query(
                    "UPDATE tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
                )
                .bind(id)
                .bind(time::now_ms())
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() == 0 {
                    return Ok(false);
                }
                Self::announce(&mut tx, TOPIC_TOKENS).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn mark_imported(&self, name: &str, peer: &str) -> Result<bool, StoreError> {
                let mut tx = self.pool.begin().await?;
                let done = sqlx::query("UPDATE skills SET imported_from = $2 WHERE name = $1")
                    .bind(name)
                    .bind(peer)
                    .execute(&mut *tx)
                    .await?;
                if done.rows_affected() == 0 {
                    return Ok(false);
                }
                Self::announce(&mut tx, TOPIC_SKILLS).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn imported_from(&self, name: &str) -> Result<Option<String>, StoreError> {
                let row = sqlx::query("SELECT imported_from FROM skills WHERE name = $1")
                    .bind(name)
                    .fetch_optional(&self.pool)
                    .await?;
                match row {
                    Some(row) => Ok(row.try_get::<Option<String>, _>("imported_from")?),
                    None => Ok(None),
                }
            }

            async fn publish(&self, p: &Publication) -> Result<(), StoreError> {
                use base64::Engine as _;
                let card = &p.card;
                let mut tx = self.pool.begin().await?;
                sqlx::query(Self::BLOB_TURN).execute(&mut *tx).await?;
                let now = time::now_ms();
                let upserted = sqlx::query(
                    "INSERT INTO skills (name, description, skill_md_url, skill_md_raw_url, \
                     repository_url, version, author, license, compatibility, tags, \
                     requirements, target_agents, allowed_tools, visibility, allowed_groups, \
                     owner, is_enabled, registry_name, health_status, last_checked_time, \
                     content_version, content_updated_at, created_at, updated_at, hosted, \
                     audit) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, \
                     $16, TRUE, $17, 'healthy', $18, $19, $18, $18, $18, TRUE, $20) \
                     ON CONFLICT (name) DO UPDATE SET description = excluded.description, \
                     skill_md_url = excluded.skill_md_url, \
                     skill_md_raw_url = excluded.skill_md_raw_url, \
                     repository_url = excluded.repository_url, version = excluded.version, \
                     author = excluded.author, license = excluded.license, \
                     compatibility = excluded.compatibility, tags = excluded.tags, \
                     requirements = excluded.requirements, \
                     target_agents = excluded.target_agents, \
                     allowed_tools = excluded.allowed_tools, visibility = excluded.visibility, \
                     allowed_groups = excluded.allowed_groups, \
                     content_updated_at = CASE WHEN skills.content_version = \
                         excluded.content_version THEN skills.content_updated_at \
                         ELSE excluded.updated_at END, \
                     content_version = excluded.content_version, \
                     updated_at = excluded.updated_at, hosted = TRUE, audit = excluded.audit \
                     WHERE skills.owner = excluded.owner AND skills.hosted",
                )
                .bind(&card.name)
                .bind(&card.description)
                .bind(&card.skill_md_url)
                .bind(&card.skill_md_raw_url)
                .bind(&card.repository_url)
                .bind(&card.version)
                .bind(&card.author)
                .bind(&card.license)
                .bind(&card.compatibility)
                .bind(json_list(&card.tags))
                .bind(json_list(&card.requirements))
                .bind(json_list(&card.target_agents))
                .bind(json_list(&card.allowed_tools))
                .bind(card.visibility.as_str())
                .bind(json_list(&card.allowed_groups))
                .bind(&card.owner)
                .bind(&card.registry_name)
                .bind(now)
                .bind(&card.content_version)
                .bind(audit_json(card.audit.as_ref()))
                .execute(&mut *tx)
                .await?;
                // The owner was checked before the archive was unpacked, linted and
                // audited (seconds): here, in the transaction, is where it counts.
                if upserted.rows_affected() == 0 {
                    return Err(StoreError::NotOwner(card.name.clone()));
                }
                sqlx::query(
                    "INSERT INTO skill_content (skill, content) VALUES ($1, $2) \
                     ON CONFLICT (skill) DO UPDATE SET content = excluded.content",
                )
                .bind(&card.name)
                .bind(&p.content)
                .execute(&mut *tx)
                .await?;
                Self::index_lists(&mut tx, card).await?;
                for (digest, bytes) in &p.blobs {
                    sqlx::query(
                        "INSERT INTO blobs (digest, size, content) VALUES ($1, $2, $3) \
                         ON CONFLICT (digest) DO NOTHING",
                    )
                    .bind(digest)
                    .bind(i64::try_from(bytes.len()).unwrap_or(i64::MAX))
                    .bind(base64::engine::general_purpose::STANDARD.encode(bytes))
                    .execute(&mut *tx)
                    .await?;
                }
                let v = &p.version;
                let inserted = sqlx::query(
                    "INSERT INTO skill_versions (skill, version, seq, digest, archive_digest, \
                     flat_archive_digest, size, yanked, publisher, published_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, FALSE, $8, $9)",
                )
                .bind(&card.name)
                .bind(&v.version)
                .bind(v.seq)
                .bind(&v.digest)
                .bind(&v.archive_digest)
                .bind(&v.flat_archive_digest)
                .bind(v.size)
                .bind(&v.publisher)
                .bind(now)
                .execute(&mut *tx)
                .await;
                match inserted {
                    Err(e) if is_unique_violation(&e) => {
                        return Err(StoreError::Conflict(format!("{}@{}", card.name, v.version)));
                    }
                    other => {
                        other?;
                    }
                }
                for file in &p.files {
                    sqlx::query(
                        "INSERT INTO version_files (skill, version, path, digest, size, \
                         executable) VALUES ($1, $2, $3, $4, $5, $6)",
                    )
                    .bind(&card.name)
                    .bind(&v.version)
                    .bind(&file.path)
                    .bind(&file.digest)
                    .bind(file.size)
                    .bind(file.executable)
                    .execute(&mut *tx)
                    .await?;
                }
                Self::index_search(&mut tx, card, &p.content).await?;
                Self::announce(&mut tx, TOPIC_SKILLS).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn versions(&self, name: &str) -> Result<Vec<VersionRecord>, StoreError> {
                let rows = sqlx::query(
                    "SELECT skill, version, seq, digest, archive_digest, flat_archive_digest, \
                     size, yanked, publisher, published_at FROM skill_versions \
                     WHERE skill = $1 ORDER BY seq",
                )
                .bind(name)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|r| {
                        Ok(VersionRecord {
                            name: r.try_get("skill")?,
                            version: r.try_get("version")?,
                            seq: r.try_get("seq")?,
                            digest: r.try_get("digest")?,
                            archive_digest: r.try_get("archive_digest")?,
                            flat_archive_digest: r.try_get("flat_archive_digest")?,
                            size: r.try_get("size")?,
                            yanked: r.try_get("yanked")?,
                            publisher: r.try_get("publisher")?,
                            published_at: time::rfc3339(r.try_get("published_at")?),
                        })
                    })
                    .collect()
            }

            async fn version_files(
                &self,
                name: &str,
                version: &str,
            ) -> Result<Vec<FileRecord>, StoreError> {
                let rows = sqlx::query(
                    "SELECT path, digest, size, executable FROM version_files \
                     WHERE skill = $1 AND version = $2 ORDER BY path",
                )
                .bind(name)
                .bind(version)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|r| {
                        Ok(FileRecord {
                            path: r.try_get("path")?,
                            digest: r.try_get("digest")?,
                            size: r.try_get("size")?,
                            executable: r.try_get("executable")?,
                        })
                    })
                    .collect()
            }

            async fn blob(&self, digest: &str) -> Result<Option<Vec<u8>>, StoreError> {
                use base64::Engine as _;
                let row = sqlx::query("SELECT content FROM blobs WHERE digest = $1")
                    .bind(digest)
                    .fetch_optional(&self.pool)
                    .await?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let text: String = row.try_get("content")?;
                base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map(Some)
                    .map_err(|e| StoreError::Corrupt(format!("blob {digest}: {e}")))
            }

            async fn set_yanked(
                &self,
                name: &str,
                version: &str,
                yanked: bool,
            ) -> Result<bool, StoreError> {
                let mut tx = self.pool.begin().await?;
                let done = sqlx::query(
                    "UPDATE skill_versions SET yanked = $3 WHERE skill = $1 AND version = $2",
                )
                .bind(name)
                .bind(version)
                .bind(yanked)
                .execute(&mut *tx)
                .await?;
                // The card changed with its latest version (what MCP views key on).
                sqlx::query("UPDATE skills SET updated_at = $2 WHERE name = $1")
                    .bind(name)
                    .bind(time::now_ms())
                    .execute(&mut *tx)
                    .await?;
                Self::announce(&mut tx, TOPIC_SKILLS).await?;
                tx.commit().await?;
                Ok(done.rows_affected() > 0)
            }

            async fn delete_version(&self, name: &str, version: &str) -> Result<bool, StoreError> {
                let mut tx = self.pool.begin().await?;
                let done = sqlx::query(
                    "DELETE FROM skill_versions WHERE skill = $1 AND version = $2",
                )
                .bind(name)
                .bind(version)
                .execute(&mut *tx)
                .await?;
                sqlx::query("UPDATE skills SET updated_at = $2 WHERE name = $1")
                    .bind(name)
                    .bind(time::now_ms())
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(Self::BLOB_TURN).execute(&mut *tx).await?;
                sqlx::query(UNUSED_BLOBS).execute(&mut *tx).await?;
                Self::announce(&mut tx, TOPIC_SKILLS).await?;
                tx.commit().await?;
                Ok(done.rows_affected() > 0)
            }

            async fn imported(&self, peer: &str) -> Result<Vec<(String, String)>, StoreError> {
                let rows = sqlx::query(
                    "SELECT name, content_version FROM skills WHERE imported_from = $1 \
                     ORDER BY name",
                )
                .bind(peer)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|r| Ok((r.try_get("name")?, r.try_get("content_version")?)))
                    .collect()
            }

            async fn watch(&self) -> Result<Changes, StoreError> {
                self.watch_changes().await
            }

            async fn begin_job(
                &self,
                job: Job,
                every: Option<Duration>,
            ) -> Result<Option<JobLock>, StoreError> {
                let Some(lock) = self.lock_job(job, every.is_none()).await? else {
                    return Ok(None);
                };
                // Due when the last start, anywhere, is older than three quarters of the
                // interval: ticks a little early still find it due.
                let now = time::now_ms();
                let due_before = every.map_or(now, |every| {
                    let every = i64::try_from(every.as_millis()).unwrap_or(i64::MAX);
                    now.saturating_sub(every.saturating_sub(every / 4))
                });
                let claimed = sqlx::query(
                    "UPDATE registry_jobs SET started_at = $2 \
                     WHERE job = $1 AND started_at <= $3",
                )
                .bind(job.name())
                .bind(now)
                .bind(due_before)
                .execute(&self.pool)
                .await;
                match claimed {
                    Ok(done) if done.rows_affected() > 0 => Ok(Some(lock)),
                    Ok(_) => {
                        lock.release().await;
                        Ok(None)
                    }
                    Err(e) => {
                        lock.release().await;
                        Err(e.into())
                    }
                }
            }
        }
    };
}

/// The embedded store: one SQLite file in WAL mode.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: sqlx::SqlitePool,
}

impl SqliteStore {
    /// Analyzes the tables whose size changed much since they last were (all of them the
    /// first time): without statistics SQLite may sort a whole table for a page of 50.
    const MAINTAIN: Option<&'static str> = Some("PRAGMA optimize=0x10002");

    /// The search index: an FTS5 table over `skill_search` (Porter stems, Unicode
    /// words, diacritics folded), kept in step by triggers, filled when it is first made.
    /// Publications and the removal of unused blobs take turns: SQLite has one writer at a
    /// time already.
    const BLOB_TURN: &'static str = "SELECT 1";

    const SEARCH_INDEX: &'static [&'static str] = &[
        "CREATE VIRTUAL TABLE IF NOT EXISTS skill_fts USING fts5(skill UNINDEXED, name, \
         description, tags, body, tokenize = 'porter unicode61 remove_diacritics 2')",
        "CREATE TRIGGER IF NOT EXISTS skill_search_insert AFTER INSERT ON skill_search BEGIN \
         INSERT INTO skill_fts (skill, name, description, tags, body) \
         VALUES (new.skill, new.name, new.description, new.tags, new.body); END",
        "CREATE TRIGGER IF NOT EXISTS skill_search_delete AFTER DELETE ON skill_search BEGIN \
         DELETE FROM skill_fts WHERE skill = old.skill; END",
        "INSERT INTO skill_fts (skill, name, description, tags, body) \
         SELECT skill, name, description, tags, body FROM skill_search \
         WHERE NOT EXISTS (SELECT 1 FROM skill_fts)",
    ];

    /// The full-text match of a search, with its rank (lower is better): BM25 with the
    /// name weighing most, then the description and tags, then the body.
    const MATCH_HEAD: &'static str = "SELECT skill, bm25(skill_fts, 0.0, 10.0, 4.0, 4.0, 1.0) AS score FROM skill_fts \
         WHERE skill_fts MATCH ";
    const MATCH_TAIL: &'static str = "";

    /// Each word as a quoted prefix (`"form"*`), all of them required.
    fn full_text_query(words: &[String]) -> String {
        words
            .iter()
            .map(|w| format!("\"{w}\"*"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A change moves its topic's serial, which a watch reads when the file's
    /// `data_version` moved.
    const ANNOUNCE: &'static str =
        "UPDATE registry_changes SET serial = serial + 1 WHERE topic = $1";

    /// A connection of its own, polling `data_version`: another connection's commit (this
    /// process's or another's) moves it.
    async fn watch_changes(&self) -> Result<Changes, StoreError> {
        use sqlx::ConnectOptions as _;
        let mut connection = self.pool.connect_options().connect().await?;
        let data_version: i64 = sqlx::query_scalar("PRAGMA data_version")
            .fetch_one(&mut connection)
            .await?;
        let serials = sqlite_serials(&mut connection).await?;
        Ok(Changes {
            inner: Watch::Sqlite {
                connection,
                data_version,
                serials,
            },
        })
    }

    /// SQLite's file is served by one server: a job needs no lock across processes (a
    /// `skills registry sync` from cron is spaced by the recorded start alone).
    #[allow(clippy::unused_async)]
    async fn lock_job(&self, _job: Job, _wait: bool) -> Result<Option<JobLock>, StoreError> {
        Ok(Some(JobLock { held: None }))
    }

    /// Opens (creating it if needed) the database at `url` (`sqlite://PATH` or
    /// `sqlite::memory:`), in WAL mode with full synchronous commits: an acknowledged write
    /// survives a crash.
    ///
    /// # Errors
    ///
    /// [`StoreError::Database`] when the file cannot be opened or created.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10))
            .pragma("cache_size", "-512");
        // SQLite has one writer at a time, and reads are short. Each connection is a thread
        // with a page cache of its own: six with 512 KiB each (`cache_size`, in KiB when
        // negative; the default is 2 MiB) answer a burst of misses sooner than four with
        // the default, in less memory. The OS page cache holds the file anyway. Measured
        // with `cargo xtask bench registry` (docs/performance.md#registry).
        let pool = sqlx::sqlite::SqlitePoolOptions::new()
            .max_connections(6)
            .connect_with(options)
            .await?;
        Ok(Self { pool })
    }

    /// Opens the database file at `url`, which must exist: read-only (nothing is written,
    /// not even the journal mode) or for writing, never created.
    ///
    /// # Errors
    ///
    /// [`StoreError::Missing`] when there is no file; [`StoreError::Database`] when it
    /// cannot be opened.
    pub async fn open_existing(url: &str, read_only: bool) -> Result<Self, StoreError> {
        use sqlx::sqlite::{SqliteConnectOptions, SqliteSynchronous};
        let options = SqliteConnectOptions::from_str(url)?;
        let file = options.get_filename().to_path_buf();
        // `sqlite::memory:` names no file (sqlx calls it `file:sqlx-in-memory-N`).
        let in_memory = file.to_string_lossy().starts_with("file:sqlx-in-memory-");
        if !in_memory && !file.exists() {
            return Err(StoreError::Missing(file));
        }
        let mut options = options
            .create_if_missing(false)
            .read_only(read_only)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        if !read_only {
            options = options.synchronous(SqliteSynchronous::Full);
        }
        let pool = sqlx::sqlite::SqlitePoolOptions::new()
            .max_connections(2)
            .connect_with(options)
            .await?;
        Ok(Self { pool })
    }

    /// Closes every connection, waiting for those in use.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

sql_store!(SqliteStore, sqlx::Sqlite, sqlx::sqlite::SqliteRow);

/// PostgreSQL (or a database that speaks its protocol), for more than one machine.
#[derive(Debug, Clone)]
pub struct PostgresStore {
    pool: sqlx::PgPool,
}

impl PostgresStore {
    /// Autovacuum keeps PostgreSQL's statistics.
    const MAINTAIN: Option<&'static str> = None;

    /// The search index: a GIN index over the weighted document of [`SEARCH_DOCUMENT`]
    /// (English stems), made under a lock, so servers starting together do not race.
    /// Publications and the removal of unused blobs take turns, so a blob a publication
    /// is about to use is never removed as unused by a removal that cannot see it yet.
    const BLOB_TURN: &'static str = "SELECT pg_advisory_xact_lock(5380039)";

    const SEARCH_INDEX: &'static [&'static str] = &[
        "SELECT pg_advisory_xact_lock(5380038)",
        concat!(
            "CREATE INDEX IF NOT EXISTS skill_search_document ON skill_search USING GIN ((",
            search_document!(),
            "))"
        ),
    ];

    /// The full-text match of a search, with its rank (lower is better: the cover density
    /// rank, negated).
    const MATCH_HEAD: &'static str = concat!(
        "SELECT skill, CAST(-ts_rank_cd(",
        search_document!(),
        ", query) AS DOUBLE PRECISION) AS score FROM skill_search, to_tsquery('english', "
    );
    const MATCH_TAIL: &'static str = concat!(") AS query WHERE ", search_document!(), " @@ query");

    /// Each word as a prefix (`form:*`), all of them required.
    fn full_text_query(words: &[String]) -> String {
        words
            .iter()
            .map(|w| format!("{w}:*"))
            .collect::<Vec<_>>()
            .join(" & ")
    }

    /// A change is announced to every listening server when its transaction commits (and
    /// never when it rolls back).
    const ANNOUNCE: &'static str = "SELECT pg_notify('skills_registry_changes', $1)";

    /// `LISTEN` on a connection of its own (sqlx's `PgListener`, which reconnects).
    async fn watch_changes(&self) -> Result<Changes, StoreError> {
        let mut listener = sqlx::postgres::PgListener::connect_with(&self.pool).await?;
        listener.listen(CHANNEL).await?;
        Ok(Changes {
            inner: Watch::Postgres(listener),
        })
    }

    /// The job's advisory lock, taken on a connection of its own: a process that dies
    /// holding it closes the connection, and PostgreSQL releases the lock.
    async fn lock_job(&self, job: Job, wait: bool) -> Result<Option<JobLock>, StoreError> {
        use sqlx::ConnectOptions as _;
        let mut connection = self.pool.connect_options().connect().await?;
        let key = job.lock_key();
        let locked = if wait {
            sqlx::query("SELECT pg_advisory_lock($1)")
                .bind(key)
                .execute(&mut connection)
                .await?;
            true
        } else {
            sqlx::query_scalar::<_, bool>("SELECT pg_try_advisory_lock($1)")
                .bind(key)
                .fetch_one(&mut connection)
                .await?
        };
        if locked {
            Ok(Some(JobLock {
                held: Some((connection, key)),
            }))
        } else {
            let _ = sqlx::Connection::close(connection).await;
            Ok(None)
        }
    }

    /// Connects to `url` (`postgres://user:password@host:port/database`).
    ///
    /// # Errors
    ///
    /// [`StoreError::Database`] when the server cannot be reached or refuses.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await?;
        Ok(Self { pool })
    }

    /// Connects to `url` as [`PostgresStore::open`] does; with `read_only`, every
    /// transaction is read-only (`default_transaction_read_only`).
    ///
    /// # Errors
    ///
    /// As [`PostgresStore::open`].
    pub async fn open_existing(url: &str, read_only: bool) -> Result<Self, StoreError> {
        let mut options = sqlx::postgres::PgConnectOptions::from_str(url)?;
        if read_only {
            options = options.options([("default_transaction_read_only", "on")]);
        }
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(2)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await?;
        Ok(Self { pool })
    }

    /// Closes every connection, waiting for those in use.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

sql_store!(PostgresStore, sqlx::Postgres, sqlx::postgres::PgRow);

/// PostgreSQL's search document of a `skill_search` row: the name weighs most (A), the
/// description and tags next (B), the body least (D). The index and the queries must spell
/// it alike for the index to serve them.
macro_rules! search_document {
    () => {
        "setweight(to_tsvector('english', name), 'A') || \
         setweight(to_tsvector('english', description), 'B') || \
         setweight(to_tsvector('english', tags), 'B') || \
         setweight(to_tsvector('english', body), 'D')"
    };
}
use search_document;

/// The store a database URL names: SQLite for `sqlite:…`, PostgreSQL for `postgres://…`
/// and `postgresql://…`. What `skills registry serve --database URL` opens.
#[derive(Debug, Clone)]
pub enum AnyStore {
    /// `sqlite://PATH`, `sqlite:PATH`, `sqlite::memory:`.
    Sqlite(SqliteStore),
    /// `postgres://…`, `postgresql://…`.
    Postgres(PostgresStore),
}

impl AnyStore {
    /// Opens the database `url` names.
    ///
    /// # Errors
    ///
    /// [`StoreError::UnsupportedUrl`] for another scheme; the store's own errors.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_boxed(url).await
    }

    // Boxed where it is made, as every call of `delegate!` is.
    fn open_boxed(url: &str) -> Boxed<'_, Result<Self, StoreError>> {
        Box::pin(async move {
            let lower = url.to_ascii_lowercase();
            if lower.starts_with("sqlite:") {
                Ok(Self::Sqlite(SqliteStore::open(url).await?))
            } else if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
                Ok(Self::Postgres(PostgresStore::open(url).await?))
            } else {
                let scheme = url.split_once(':').map_or("", |(scheme, _)| scheme);
                Err(StoreError::UnsupportedUrl(scheme.to_string()))
            }
        })
    }

    /// Opens the existing database `url` names, read-only or for writing, and checks that
    /// it has this version's schema; nothing is created or migrated. What the commands that
    /// read or change a registry's tokens open: run in the wrong directory, they must not
    /// leave an empty database behind.
    ///
    /// # Errors
    ///
    /// [`StoreError::Missing`] for a SQLite file that is not there,
    /// [`StoreError::Outdated`] for a database without this version's migrations, and as
    /// [`AnyStore::open`].
    pub async fn open_existing(url: &str, read_only: bool) -> Result<Self, StoreError> {
        Self::open_existing_boxed(url, read_only).await
    }

    // Boxed where it is made, as every call of `delegate!` is.
    fn open_existing_boxed(url: &str, read_only: bool) -> Boxed<'_, Result<Self, StoreError>> {
        Box::pin(async move {
            let lower = url.to_ascii_lowercase();
            let store = if lower.starts_with("sqlite:") {
                Self::Sqlite(SqliteStore::open_existing(url, read_only).await?)
            } else if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
                Self::Postgres(PostgresStore::open_existing(url, read_only).await?)
            } else {
                let scheme = url.split_once(':').map_or("", |(scheme, _)| scheme);
                return Err(StoreError::UnsupportedUrl(scheme.to_string()));
            };
            let applied = match &store {
                Self::Sqlite(s) => s.applied_migrations().await,
                Self::Postgres(p) => p.applied_migrations().await,
            };
            if applied < MIGRATIONS.len() {
                store.close().await;
                return Err(StoreError::Outdated {
                    applied,
                    expected: MIGRATIONS.len(),
                });
            }
            Ok(store)
        })
    }

    /// `SQLite` or `PostgreSQL`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Sqlite(_) => "SQLite",
            Self::Postgres(_) => "PostgreSQL",
        }
    }

    /// Closes every connection, waiting for those in use.
    pub async fn close(&self) {
        self.close_boxed().await;
    }

    // Boxed where it is made, as every call of `delegate!` is.
    fn close_boxed(&self) -> Boxed<'_, ()> {
        match self {
            Self::Sqlite(s) => Box::pin(s.close()),
            Self::Postgres(p) => Box::pin(p.close()),
        }
    }
}

/// A future boxed where it is made.
type Boxed<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;

// Each call is boxed here, in a plain function of this crate: the body of an `async fn` is
// compiled in every crate that polls it, so `skills registry` would otherwise compile both
// stores' queries (and sqlx under them) again. One allocation a query, beside a database
// round trip (docs/ARCHITECTURE.md, "Where async code is compiled").
macro_rules! delegate {
    ($self:ident . $method:ident ( $($arg:expr),* )) => {{
        let call: Boxed<'_, _> = match $self {
            AnyStore::Sqlite(s) => Box::pin(s.$method($($arg),*)),
            AnyStore::Postgres(p) => Box::pin(p.$method($($arg),*)),
        };
        call
    }};
}

impl Store for AnyStore {
    fn migrate(&self) -> impl Future<Output = Result<(), StoreError>> + Send {
        delegate!(self.migrate())
    }
    fn ping(&self) -> impl Future<Output = Result<(), StoreError>> + Send {
        delegate!(self.ping())
    }
    fn maintain(&self) -> impl Future<Output = Result<(), StoreError>> + Send {
        delegate!(self.maintain())
    }
    fn insert<'a>(
        &'a self,
        card: &'a SkillCard,
        content: &'a str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send + 'a {
        delegate!(self.insert(card, content))
    }
    fn update<'a>(
        &'a self,
        card: &'a SkillCard,
        content: &'a str,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a {
        delegate!(self.update(card, content))
    }
    fn get<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<Option<SkillCard>, StoreError>> + Send + 'a {
        delegate!(self.get(name))
    }
    fn get_visible<'a>(
        &'a self,
        name: &'a str,
        caller: &'a Caller,
    ) -> impl Future<Output = Result<Option<SkillCard>, StoreError>> + Send + 'a {
        delegate!(self.get_visible(name, caller))
    }
    fn get_visible_full<'a>(
        &'a self,
        name: &'a str,
        caller: &'a Caller,
    ) -> impl Future<Output = Result<Option<(SkillCard, Option<String>)>, StoreError>> + Send + 'a
    {
        delegate!(self.get_visible_full(name, caller))
    }
    fn ratings<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<Vec<RatingDetail>, StoreError>> + Send + 'a {
        delegate!(self.ratings(name))
    }
    fn content<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<Option<(String, String)>, StoreError>> + Send + 'a {
        delegate!(self.content(name))
    }
    fn list<'a>(
        &'a self,
        query: &'a ListQuery,
        caller: &'a Caller,
    ) -> impl Future<Output = Result<Vec<SkillCard>, StoreError>> + Send + 'a {
        delegate!(self.list(query, caller))
    }
    fn list_full<'a>(
        &'a self,
        query: &'a ListQuery,
        caller: &'a Caller,
    ) -> impl Future<Output = Result<Vec<(SkillCard, Option<String>)>, StoreError>> + Send + 'a
    {
        delegate!(self.list_full(query, caller))
    }
    fn count<'a>(
        &'a self,
        query: &'a ListQuery,
        caller: &'a Caller,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send + 'a {
        delegate!(self.count(query, caller))
    }
    fn delete<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a {
        delegate!(self.delete(name))
    }
    fn set_enabled<'a>(
        &'a self,
        name: &'a str,
        enabled: bool,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a {
        delegate!(self.set_enabled(name, enabled))
    }
    fn set_health<'a>(
        &'a self,
        name: &'a str,
        status: HealthStatus,
        checked_at: i64,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a {
        delegate!(self.set_health(name, status, checked_at))
    }
    fn due_for_health(
        &self,
        checked_before: i64,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<(String, String)>, StoreError>> + Send {
        delegate!(self.due_for_health(checked_before, limit))
    }
    fn rate<'a>(
        &'a self,
        name: &'a str,
        user: &'a str,
        stars: u8,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a {
        delegate!(self.rate(name, user, stars))
    }
    fn insert_token<'a>(
        &'a self,
        token: &'a TokenRecord,
    ) -> impl Future<Output = Result<(), StoreError>> + Send + 'a {
        delegate!(self.insert_token(token))
    }
    fn token_by_hash<'a>(
        &'a self,
        hash: &'a str,
    ) -> impl Future<Output = Result<Option<TokenRecord>, StoreError>> + Send + 'a {
        delegate!(self.token_by_hash(hash))
    }
    fn tokens(&self) -> impl Future<Output = Result<Vec<TokenRecord>, StoreError>> + Send {
        delegate!(self.tokens())
    }
    fn revoke_token<'a>(
        &'a self,
        id: &'a str,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a {
        delegate!(self.revoke_token(id))
    }
    fn mark_imported<'a>(
        &'a self,
        name: &'a str,
        peer: &'a str,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a {
        delegate!(self.mark_imported(name, peer))
    }
    fn imported_from<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<Option<String>, StoreError>> + Send + 'a {
        delegate!(self.imported_from(name))
    }
    fn imported<'a>(
        &'a self,
        peer: &'a str,
    ) -> impl Future<Output = Result<Vec<(String, String)>, StoreError>> + Send + 'a {
        delegate!(self.imported(peer))
    }
    fn publish<'a>(
        &'a self,
        publication: &'a Publication,
    ) -> impl Future<Output = Result<(), StoreError>> + Send + 'a {
        delegate!(self.publish(publication))
    }
    fn versions<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Future<Output = Result<Vec<VersionRecord>, StoreError>> + Send + 'a {
        delegate!(self.versions(name))
    }
    fn version_files<'a>(
        &'a self,
        name: &'a str,
        version: &'a str,
    ) -> impl Future<Output = Result<Vec<FileRecord>, StoreError>> + Send + 'a {
        delegate!(self.version_files(name, version))
    }
    fn blob<'a>(
        &'a self,
        digest: &'a str,
    ) -> impl Future<Output = Result<Option<Vec<u8>>, StoreError>> + Send + 'a {
        delegate!(self.blob(digest))
    }
    fn set_yanked<'a>(
        &'a self,
        name: &'a str,
        version: &'a str,
        yanked: bool,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a {
        delegate!(self.set_yanked(name, version, yanked))
    }
    fn delete_version<'a>(
        &'a self,
        name: &'a str,
        version: &'a str,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'a {
        delegate!(self.delete_version(name, version))
    }
    fn watch(&self) -> impl Future<Output = Result<Changes, StoreError>> + Send {
        delegate!(self.watch())
    }
    fn begin_job(
        &self,
        job: Job,
        every: Option<Duration>,
    ) -> impl Future<Output = Result<Option<JobLock>, StoreError>> + Send {
        delegate!(self.begin_job(job, every))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_words_and_typos_are_a_letter_away() {
        assert_eq!(
            query_words("PDF, forms!  pdf \"x*\" OR"),
            ["pdf", "forms", "x", "or"]
        );
        assert!(query_words("-- * ()").is_empty());
        assert_eq!(query_words(&"a ".repeat(20)).len(), 1);
        let names = ["pdf-forms", "release-notes", "docx", "pdf"].map(String::from);
        let words = |q: &str| query_words(q);
        // A swap, a missing letter, a part of the name; never the name itself.
        assert_eq!(typo_names(&words("pfd-froms"), &names), ["pdf-forms"]);
        assert_eq!(typo_names(&words("relase"), &names), ["release-notes"]);
        assert_eq!(typo_names(&words("docs"), &names), ["docx"]);
        assert_eq!(typo_names(&words("relaese"), &names), ["release-notes"]);
        let names = ["brainstorming", "systematic-debugging"].map(String::from);
        assert_eq!(typo_names(&words("brainstrom"), &names), ["brainstorming"]);
        assert_eq!(
            typo_names(&words("debuging"), &names),
            ["systematic-debugging"]
        );
        assert!(
            typo_names(&words("pdf"), &names).is_empty(),
            "too short to guess"
        );
        assert!(
            typo_names(&words("forms"), &names).is_empty(),
            "found by the text"
        );
        assert!(typo_names(&words("xylophone"), &names).is_empty());
    }

    #[test]
    fn like_patterns_match_text_literally() {
        assert_eq!(like_pattern("PDF"), "%pdf%");
        assert_eq!(like_pattern("100%_a\\b"), "%100\\%\\_a\\\\b%");
    }

    /// The hand-written list is what sqlx would read from the folder: the same versions,
    /// descriptions, kinds and checksums (a database migrated by an older build, with
    /// `sqlx::migrate!`, checks the checksums), and no file left out.
    #[tokio::test]
    async fn the_embedded_migrations_are_the_folders() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let read = sqlx::migrate::Migrator::new(folder).await.unwrap();
        let embedded = migrator();
        let summary = |m: &sqlx::migrate::Migrator| {
            m.iter()
                .map(|m| {
                    (
                        m.version,
                        m.description.to_string(),
                        m.migration_type,
                        m.checksum.to_vec(),
                        m.no_tx,
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(summary(&embedded), summary(&read));
        assert_eq!(summary(&read).len(), MIGRATIONS.len());
    }
}
