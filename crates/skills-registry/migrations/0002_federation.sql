-- Federation: the peer a skill was imported from (NULL for a skill registered here).
-- Imported skills are read-only here, are never exported again, and leave when the peer
-- drops them.
ALTER TABLE skills ADD COLUMN imported_from TEXT;
CREATE INDEX skills_imported_from ON skills (imported_from);
