-- Hosting (issue 38): skills published as a folder, not registered by URL. Every version's
-- files are kept content-addressed in `blobs` (base64 text: both databases read it alike),
-- each version lists its files with their digests and sizes, and never changes once
-- published (a yank only marks it).
ALTER TABLE skills ADD COLUMN hosted BOOLEAN NOT NULL DEFAULT FALSE;

CREATE TABLE blobs (
    digest TEXT PRIMARY KEY,
    size BIGINT NOT NULL,
    content TEXT NOT NULL
);

CREATE TABLE skill_versions (
    skill TEXT NOT NULL REFERENCES skills (name) ON DELETE CASCADE,
    version TEXT NOT NULL,
    seq BIGINT NOT NULL,
    digest TEXT NOT NULL,
    archive_digest TEXT NOT NULL,
    flat_archive_digest TEXT NOT NULL,
    size BIGINT NOT NULL,
    yanked BOOLEAN NOT NULL,
    publisher TEXT NOT NULL,
    published_at BIGINT NOT NULL,
    PRIMARY KEY (skill, version)
);
CREATE UNIQUE INDEX skill_versions_seq ON skill_versions (skill, seq);

CREATE TABLE version_files (
    skill TEXT NOT NULL,
    version TEXT NOT NULL,
    path TEXT NOT NULL,
    digest TEXT NOT NULL,
    size BIGINT NOT NULL,
    executable BOOLEAN NOT NULL,
    PRIMARY KEY (skill, version, path),
    FOREIGN KEY (skill, version) REFERENCES skill_versions (skill, version) ON DELETE CASCADE
);
CREATE INDEX version_files_digest ON version_files (digest);
