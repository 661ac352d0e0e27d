-- The audit of each skill's cached SKILL.md (skills-audit): its highest severity, the count
-- of each, and the digest audited, as JSON; NULL for a skill registered before the audit
-- (it is audited again when its content next changes). For an imported skill, peer_audit is
-- the peer's own result, kept beside this registry's.
ALTER TABLE skills ADD COLUMN audit TEXT;
ALTER TABLE skills ADD COLUMN peer_audit TEXT;
