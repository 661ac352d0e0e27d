//! The `tool_inventory` tool's state: seed 004's inventory of this machine, built on the
//! first call of a session and again on `refresh: true` (`skills-doctor` builds it).

use std::sync::{Arc, Mutex};

use skills_doctor::domains::Domain;
use skills_doctor::inventory::{self, Inventory};

/// The session's inventory, shared by the handler's clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Cached(Arc<Mutex<Option<Arc<Inventory>>>>);

impl Cached {
    /// The inventory, built now when there is none yet or `refresh` asks.
    pub(crate) fn get(&self, refresh: bool, domains: &[Domain]) -> Arc<Inventory> {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(built) = slot.as_ref().filter(|_| !refresh) {
            return Arc::clone(built);
        }
        let cwd = std::env::current_dir().unwrap_or_default();
        let places = inventory::Places::here(skills_discovery::project_root(&cwd));
        let built = Arc::new(inventory::build(&places, &skills_doctor::commands(domains)));
        *slot = Some(Arc::clone(&built));
        built
    }
}
