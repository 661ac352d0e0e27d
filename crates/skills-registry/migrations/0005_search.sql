-- Search: the text a search matches, one row per skill: its name, description, tags and the
-- body of its SKILL.md, written by the store with the skill. Each database indexes it its
-- own way, made by the store right after the migrations (`store.rs`, `SEARCH_INDEX`):
-- SQLite an FTS5 table kept in step by triggers, PostgreSQL a GIN index over a weighted
-- tsvector. This file is the part both databases share.
CREATE TABLE skill_search (
    skill TEXT PRIMARY KEY REFERENCES skills (name) ON DELETE CASCADE,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    tags TEXT NOT NULL,
    body TEXT NOT NULL
);

-- The skills registered before: their tags as stored (JSON text, whose words are the tags)
-- and the whole SKILL.md as the body; the next update of each writes them as new ones are.
INSERT INTO skill_search (skill, name, description, tags, body)
SELECT s.name, s.name, s.description, s.tags, c.content
FROM skills s JOIN skill_content c ON c.skill = s.name;
