//! What the server keeps between requests: the discovery index, kept current before each
//! request and announced to the client when the set of skills changes, and the manifests of
//! the skills served over the extension, trusted without a `stat` while their directories'
//! change watch stays quiet.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::RoleServer;
use rmcp::model::ProtocolVersion;
use rmcp::service::{Peer, RequestContext};
use skills_discovery::{Changed, Changes, DirWatch, Index, Roots, ScanOptions, Skill};

use crate::catalog::{self, Cache, Cached, Manifest, Sha};

/// What the server knows between requests.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) index: Index,
    /// Apart from the index, so that a request can borrow skills from the index while it
    /// updates the catalog.
    pub(crate) catalog: Catalog,
}

/// What the server keeps about the skills it serves over the extension.
#[derive(Debug)]
pub(crate) struct Catalog {
    /// The served skills' manifests and digests, kept while their files stat the same.
    cache: Cache,
    /// Skills already reported as not served, with the reason (each said once).
    reported: HashSet<(String, String)>,
    /// Change notification on the served skills' directories, by skill id (Linux).
    dirs: Option<DirWatch<String>>,
    /// Skills above this tier are not served.
    max_tier: Option<u32>,
    /// Skills the audit refuses are not served (`--audit`).
    pub(crate) gate: Option<Arc<dyn crate::audit::Refusals>>,
}

/// The state, shared by the handler's clones: rmcp answers each request in a task of its own.
#[derive(Debug, Clone)]
pub(crate) struct Shared(Arc<Mutex<State>>);

impl Shared {
    /// Scans `roots` for skills.
    pub(crate) fn scan(
        roots: &Roots,
        max_tier: Option<u32>,
        gate: Option<Arc<dyn crate::audit::Refusals>>,
    ) -> Self {
        // On this thread: the server is single-threaded, and worker threads would keep the
        // memory of the parse for the life of the process.
        let mut index = Index::scan_with(roots, ScanOptions::default().parallel(false));
        for warning in index.warnings() {
            tracing::warn!("{warning}");
        }
        // With kernel change notification the refresh before each request costs one read
        // of an empty queue instead of a stat per skill; without it, it still works.
        let watching = index.watch();
        tracing::info!(skills = index.skills().len(), watching, "skills found");
        Self(Arc::new(Mutex::new(State {
            index,
            catalog: Catalog {
                cache: Cache::default(),
                reported: HashSet::new(),
                dirs: DirWatch::new().ok(),
                max_tier,
                gate,
            },
        })))
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves the index usable: it is only ever replaced
        // whole by `refresh`.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Brings the index up to date and, when the set of skills changed, tells the client of
    /// a session (`peer`; a 2026-07-28 request has none: such a client hears of changes on
    /// a `subscriptions/listen` stream only).
    pub(crate) async fn refresh(&self, peer: Option<&Peer<RoleServer>>) {
        if self.update()
            && let Some(peer) = peer
        {
            tracing::info!("the skills changed; notifying the client");
            if let Err(e) = peer.notify_tool_list_changed().await {
                tracing::debug!("cannot send tools/list_changed: {e}");
            }
            if let Err(e) = peer.notify_resource_list_changed().await {
                tracing::debug!("cannot send resources/list_changed: {e}");
            }
        }
    }

    /// Brings the index up to date; whether the set of skills changed.
    pub(crate) fn update(&self) -> bool {
        let mut guard = self.lock();
        let state = &mut *guard;
        let changed = state.index.refresh();
        state.catalog.untrust_changed();
        if changed == Changed::Yes {
            for warning in state.index.warnings() {
                tracing::warn!("{warning}");
            }
            // Forget the skills that are gone.
            let ids: HashSet<&str> = state.index.skills().iter().map(|s| s.id.as_str()).collect();
            state.catalog.cache.retain(|id| ids.contains(id));
        }
        changed == Changed::Yes
    }
}

/// The peer of a 2025-11-25 session the request belongs to, which is told of changes;
/// `None` for a 2026-07-28 request, whose `_meta` names that revision: its client hears of
/// changes on a `subscriptions/listen` stream only.
pub(crate) fn session_peer(context: &RequestContext<RoleServer>) -> Option<&Peer<RoleServer>> {
    (!is_stateless(context)).then_some(&context.peer)
}

/// Whether the request is a 2026-07-28 one (its `_meta` names that revision or a later one).
pub(crate) fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

impl Catalog {
    /// The active skills the audit gate serves: all of them without `--audit`.
    pub(crate) fn visible<'a>(
        &self,
        index: &'a skills_discovery::Index,
    ) -> std::borrow::Cow<'a, [Skill]> {
        match &self.gate {
            None => std::borrow::Cow::Borrowed(index.skills()),
            Some(gate) => std::borrow::Cow::Owned(
                index
                    .skills()
                    .iter()
                    .filter(|s| gate.refusal(s).is_none())
                    .cloned()
                    .collect(),
            ),
        }
    }

    /// The manifest of an active skill, when it is served; the reason it is not is logged
    /// once. Built again only when a file or directory of the skill stats differently.
    pub(crate) fn served(&mut self, skill: &Skill) -> Option<Arc<Manifest>> {
        if let Some(gate) = &self.gate
            && gate.refusal(skill).is_some()
        {
            return None;
        }
        let manifest = self.served_any_tier(skill)?;
        let needs = crate::tier::of_frontmatter(&manifest.extra());
        if let Some(why) = crate::tier::refusal(&skill.id, needs, self.max_tier) {
            if self.reported.insert((skill.id.clone(), why.clone())) {
                tracing::info!(skill = %skill.skill_md.display(), "not served: {why}");
            }
            return None;
        }
        Some(manifest)
    }

    fn served_any_tier(&mut self, skill: &Skill) -> Option<Arc<Manifest>> {
        if let Some(cached) = self.cache.get(&skill.id)
            && cached.same_skill(skill)
        {
            if cached.trusted {
                return Some(Arc::clone(&cached.manifest));
            }
            if cached.is_fresh(skill) {
                let manifest = Arc::clone(&cached.manifest);
                self.trust(skill);
                return Some(manifest);
            }
        }
        match Cached::build(skill) {
            Ok(cached) => {
                let manifest = Arc::clone(&cached.manifest);
                self.cache.insert(cached);
                self.trust(skill);
                Some(manifest)
            }
            Err(reason) => {
                self.cache.remove(&skill.id);
                if self.reported.insert((skill.id.clone(), reason.to_string())) {
                    tracing::warn!(
                        skill = %skill.skill_md.display(),
                        "not served over the skills extension (still available to the tools): {reason}"
                    );
                }
                None
            }
        }
    }

    /// The served skill whose id is exactly `id`.
    pub(crate) fn served_by_id<'a>(
        &mut self,
        index: &'a Index,
        id: &str,
    ) -> Option<(&'a Skill, Arc<Manifest>)> {
        if !catalog::is_spec_name(id) {
            return None;
        }
        let skill = index.get(id).filter(|s| s.id == id)?;
        let manifest = self.served(skill)?;
        Some((skill, manifest))
    }

    /// Every file's digest and size of a served skill, in the manifest's order. `None`
    /// (logged) when a file cannot be read now.
    pub(crate) fn digests(&mut self, manifest: &Manifest) -> Option<&[(Sha, u64)]> {
        let cached = self.cache.get_mut(&manifest.id)?;
        if let Err(e) = cached.digests() {
            tracing::warn!(skill = %manifest.skill_uri(), "cannot read a file: {e}");
            return None;
        }
        if !cached.stamps_complete() {
            // A file changed between its stat and its hash: rebuild next time.
            cached.trusted = false;
        }
        cached.digests().ok()
    }

    /// Forgets the trust of skills whose directories changed (all of them when the
    /// kernel's queue overflowed; and the watch, when it failed).
    fn untrust_changed(&mut self) {
        let Some(watch) = &mut self.dirs else {
            return;
        };
        let untrust = |cached: &mut Cached| cached.trusted = false;
        match watch.changed() {
            Ok(Changes::Keys(ids)) => {
                for id in ids {
                    self.cache.get_mut(&id).map(untrust);
                }
            }
            Ok(Changes::All) => self.cache.iter_mut().for_each(untrust),
            Err(e) => {
                tracing::warn!("change notification failed, checking files by stat: {e}");
                self.dirs = None;
                self.cache.iter_mut().for_each(untrust);
            }
        }
    }

    /// Watches a cached skill's directories and, once they are watched and it still stats
    /// as built, trusts it: later requests serve it without a `stat` until an event about
    /// one of its directories arrives. Checked after the watch is added, so a change in
    /// between is not missed.
    fn trust(&mut self, skill: &Skill) {
        let (Some(watch), Some(cached)) = (&mut self.dirs, self.cache.get_mut(&skill.id)) else {
            return;
        };
        let watched = match cached.watch_paths() {
            Some(mut paths) => paths.all(|path| watch.add(skill.id.clone(), &path).is_ok()),
            None => return,
        };
        cached.trusted = watched && cached.is_fresh(skill);
    }
}
