-- The registry's tables. One file for SQLite and PostgreSQL: only types both read alike
-- (TEXT, BIGINT, BOOLEAN, DOUBLE PRECISION), times as Unix milliseconds, lists as JSON text
-- beside the tables that index them.

CREATE TABLE skills (
    name TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    skill_md_url TEXT NOT NULL,
    skill_md_raw_url TEXT NOT NULL,
    repository_url TEXT,
    version TEXT,
    author TEXT,
    license TEXT,
    compatibility TEXT,
    tags TEXT NOT NULL,
    requirements TEXT NOT NULL,
    target_agents TEXT NOT NULL,
    allowed_tools TEXT NOT NULL,
    visibility TEXT NOT NULL,
    allowed_groups TEXT NOT NULL,
    owner TEXT NOT NULL,
    is_enabled BOOLEAN NOT NULL,
    registry_name TEXT NOT NULL,
    health_status TEXT NOT NULL,
    last_checked_time BIGINT,
    content_version TEXT NOT NULL,
    content_updated_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

-- Seed 001's indexes: the name is the primary key (unique), then tags, visibility,
-- registry, owner, and the compound one lists filter by.
CREATE TABLE skill_tags (
    skill TEXT NOT NULL REFERENCES skills (name) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (skill, tag)
);
CREATE INDEX skill_tags_tag ON skill_tags (tag, skill);
CREATE INDEX skills_visibility ON skills (visibility);
CREATE INDEX skills_registry_name ON skills (registry_name);
CREATE INDEX skills_owner ON skills (owner);
CREATE INDEX skills_visibility_enabled_registry ON skills (visibility, is_enabled, registry_name);

-- The groups a `group` skill is shown to.
CREATE TABLE skill_groups (
    skill TEXT NOT NULL REFERENCES skills (name) ON DELETE CASCADE,
    grp TEXT NOT NULL,
    PRIMARY KEY (skill, grp)
);
CREATE INDEX skill_groups_grp ON skill_groups (grp, skill);

-- The cached SKILL.md, apart so that lists never read it.
CREATE TABLE skill_content (
    skill TEXT PRIMARY KEY REFERENCES skills (name) ON DELETE CASCADE,
    content TEXT NOT NULL
);

-- One rating per user per skill.
CREATE TABLE ratings (
    skill TEXT NOT NULL REFERENCES skills (name) ON DELETE CASCADE,
    user_name TEXT NOT NULL,
    stars BIGINT NOT NULL,
    rated_at BIGINT NOT NULL,
    PRIMARY KEY (skill, user_name)
);

-- API tokens the registry issued: only a SHA-256 of each is kept.
CREATE TABLE tokens (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    user_name TEXT NOT NULL,
    groups TEXT NOT NULL,
    is_admin BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
