//! The MCP Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): `skills/list`,
//! `skills/get`, `resources/list`, `resources/read` and `resources/directory/read`. A
//! client's URI is only ever matched against the URIs of a served skill's files.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::ErrorData;
use rmcp::model::{
    CacheScope, GetSkillResult, ListResourcesResult, ListSkillsResult, PaginatedRequestParams,
    ReadResourceDirectoryResult, ReadResourceResult, Resource, ResourceContents,
    Skill as WireSkill, SkillFrontmatter, SkillResource, SkillResources,
};
use skills_discovery::Skill;

use crate::catalog::{self, Manifest};
use crate::server::Res;
use crate::state::{Catalog, Shared, State};
use crate::text;

/// How long clients may cache `skills/list` and `skills/get` results. The server re-reads
/// the disk on every request, so a short time keeps hosts close to it.
const TTL_MS: u64 = 30_000;

/// The bounds of the page `request`'s cursor asks for: the cursor is the index of the page's
/// first skill.
fn page(
    page_size: usize,
    request: Option<&PaginatedRequestParams>,
    total: usize,
) -> Res<(usize, usize)> {
    let start = match request.and_then(|r| r.cursor.as_deref()) {
        None => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .ok()
            .filter(|&n| n <= total)
            .ok_or_else(|| {
                ErrorData::invalid_params(format!("invalid cursor {:?}", text::clip(cursor)), None)
            })?,
    };
    Ok((start, start.saturating_add(page_size).min(total)))
}

/// `skills/list`.
pub(crate) fn list_skills(
    state: &Shared,
    page_size: usize,
    request: Option<&PaginatedRequestParams>,
) -> Res<ListSkillsResult> {
    let mut guard = state.lock();
    let State { index, catalog } = &mut *guard;
    let total = index.skills().len();
    let (start, end) = page(page_size, request, total)?;
    let page = index.skills().get(start..end).unwrap_or_default();
    let mut skills = Vec::with_capacity(page.len());
    for skill in page {
        if let Some(manifest) = catalog.served(skill)
            && let Some(entry) = entry(catalog, skill, &manifest)
        {
            skills.push(entry);
        }
    }
    let mut result = ListSkillsResult::with_all_items(skills)
        .with_ttl_ms(TTL_MS)
        .with_cache_scope(CacheScope::Private);
    result.next_cursor = (end < total).then(|| end.to_string());
    Ok(result)
}

/// `skills/get`: the skill whose `SKILL.md` is at `uri`.
pub(crate) fn get_skill(state: &Shared, uri: &str) -> Res<GetSkillResult> {
    let unknown =
        || ErrorData::invalid_params(format!("No skill is served at {}", text::clip(uri)), None);
    let (id, rest) = catalog::split_uri(uri).ok_or_else(unknown)?;
    if rest != Some("SKILL.md") {
        return Err(unknown());
    }
    let mut guard = state.lock();
    let State { index, catalog } = &mut *guard;
    let (skill, manifest) = catalog.served_by_id(index, id).ok_or_else(unknown)?;
    let entry = entry(catalog, skill, &manifest).ok_or_else(|| {
        ErrorData::internal_error(
            format!("cannot read the files of {}", text::clip(uri)),
            None,
        )
    })?;
    Ok(GetSkillResult::new(entry)
        .with_ttl_ms(TTL_MS)
        .with_cache_scope(CacheScope::Private))
}

/// `resources/list`: every file of the skills on the page.
pub(crate) fn list_resources(
    state: &Shared,
    page_size: usize,
    request: Option<&PaginatedRequestParams>,
) -> Res<ListResourcesResult> {
    let mut guard = state.lock();
    let State { index, catalog } = &mut *guard;
    let total = index.skills().len();
    let (start, end) = page(page_size, request, total)?;
    let page = index.skills().get(start..end).unwrap_or_default();
    let mut resources = Vec::new();
    for skill in page {
        let Some(manifest) = catalog.served(skill) else {
            continue;
        };
        for file in &manifest.files {
            let resource = if &*file.rel == "SKILL.md" {
                Resource::new(manifest.skill_uri(), &skill.name)
                    .with_description(&skill.description)
            } else {
                Resource::new(manifest.uri(file), &*file.rel)
            };
            let resource = resource.with_size(file.size);
            resources.push(match catalog::mime_type(&file.rel) {
                Some(mime) => resource.with_mime_type(mime),
                None => resource,
            });
        }
    }
    let mut result = ListResourcesResult::with_all_items(resources);
    result.next_cursor = (end < total).then(|| end.to_string());
    Ok(result)
}

/// `resources/read`.
pub(crate) fn read(state: &Shared, uri: &str) -> Res<ReadResourceResult> {
    // The URI asked for in `data`, as MCP 2026-07-28 asks of a resource not found (SEP-2164).
    let unknown = || {
        ErrorData::invalid_params(
            format!("No resource is served at {}", text::clip(uri)),
            Some(serde_json::json!({"uri": uri})),
        )
    };
    let (id, _) = catalog::split_uri(uri).ok_or_else(unknown)?;
    let (path, rel) = {
        let mut guard = state.lock();
        let State { index, catalog } = &mut *guard;
        let (_, manifest) = catalog.served_by_id(index, id).ok_or_else(unknown)?;
        let file = manifest.file(uri).ok_or_else(unknown)?;
        (manifest.path(file), file.rel.clone())
    };
    let bytes = catalog::read_limited(&path).map_err(|e| {
        tracing::warn!(file = %path.display(), "cannot read: {e}");
        unknown()
    })?;
    let mime = catalog::mime_type(&rel);
    let contents = match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => {
            ResourceContents::text(text, uri).with_mime_type(mime.unwrap_or("text/plain"))
        }
        Ok(text) => ResourceContents::blob(STANDARD.encode(text.as_bytes()), uri)
            .with_mime_type(mime.unwrap_or("application/octet-stream")),
        Err(e) => ResourceContents::blob(STANDARD.encode(e.as_bytes()), uri)
            .with_mime_type(mime.unwrap_or("application/octet-stream")),
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// `resources/directory/read`: the files and directories right below the directory at `uri`.
pub(crate) fn read_directory(state: &Shared, uri: &str) -> Res<ReadResourceDirectoryResult> {
    let not_dir = || {
        ErrorData::invalid_params(
            format!("{} is not a directory resource", text::clip(uri)),
            None,
        )
    };
    // Only the id is taken from the URI: the rest is matched whole against generated URIs.
    let (id, _) = catalog::split_uri(uri).ok_or_else(not_dir)?;
    let manifest = {
        let mut guard = state.lock();
        let State { index, catalog } = &mut *guard;
        catalog.served_by_id(index, id).ok_or_else(not_dir)?.1
    };
    let dirs = manifest.dirs();
    // The directory asked for, relative, as its generated URI must match exactly.
    let rel = dirs
        .iter()
        .copied()
        .find(|d| manifest.dir_uri(d) == uri)
        .ok_or_else(not_dir)?;
    let parent_of = |path: &str| path.rsplit_once('/').map_or("", |(p, _)| p).to_string();
    let mut children = Vec::new();
    for dir in dirs.iter().filter(|d| !d.is_empty() && parent_of(d) == rel) {
        let name = dir.rsplit('/').next().unwrap_or(dir);
        children.push(
            Resource::new(manifest.dir_uri(dir), name)
                .with_mime_type(rmcp::model::DIRECTORY_MIME_TYPE),
        );
    }
    for file in manifest.files.iter().filter(|f| parent_of(&f.rel) == rel) {
        let name = file.rel.rsplit('/').next().unwrap_or(&file.rel);
        let resource = Resource::new(manifest.uri(file), name).with_size(file.size);
        children.push(match catalog::mime_type(&file.rel) {
            Some(mime) => resource.with_mime_type(mime),
            None => resource,
        });
    }
    Ok(ListResourcesResult::with_all_items(children))
}

/// The wire entry of a served skill, with every file's digest. `None` (logged) when a
/// file cannot be read now.
fn entry(catalog: &mut Catalog, skill: &Skill, manifest: &Manifest) -> Option<WireSkill> {
    let digests = catalog.digests(manifest)?;
    let resources: Vec<SkillResource> = manifest
        .files
        .iter()
        .zip(digests)
        .map(|(file, (hash, size))| {
            SkillResource::new(manifest.uri(file), catalog::digest_text(hash), *size)
        })
        .collect();
    // The manifest is only built when the frontmatter's name is the id; the index holds
    // the description. They are two reads of SKILL.md (the index's at its last refresh,
    // the manifest's when built), so an edit landing between them can mix two versions
    // in one answer; the next request sees the edit in both.
    let mut frontmatter = SkillFrontmatter::new(&*manifest.id, &skill.description);
    frontmatter.extra = manifest.extra();
    Some(WireSkill::new(
        manifest.skill_uri(),
        frontmatter,
        SkillResources::Files(resources),
    ))
}
