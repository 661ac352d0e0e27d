//! The `tool_inventory` tool's state: seed 004's inventory of this machine and the domain
//! table (the built-in one with the nearest `skills.toml`'s `[[doctor.domains]]`), built on
//! the first call of a session and again on `refresh: true` (`skills-doctor` builds it).

use std::sync::{Arc, Mutex};

use skills_doctor::domains::Domain;
use skills_doctor::inventory::{self, Inventory};

/// The session's inventory, shared by the handler's clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Cached(Arc<Mutex<Option<Built>>>);

/// One build: the inventory and the domain table it was built with.
pub(crate) type Built = Arc<(Inventory, Vec<Domain>)>;

impl Cached {
    /// The inventory and domains, built now when there are none yet or `refresh` asks.
    pub(crate) fn get(&self, refresh: bool) -> Built {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(built) = slot.as_ref().filter(|_| !refresh) {
            return Arc::clone(built);
        }
        let cwd = std::env::current_dir().unwrap_or_default();
        // A broken `[doctor]` table leaves the built-in domains, and says so in the
        // inventory's problems, as an unreadable agent file does.
        let (domains, problem) = match skills_doctor::domains::nearest(&cwd) {
            Ok((domains, _)) => (domains, None),
            Err(e) => (skills_doctor::domains::builtin(), Some(e.to_string())),
        };
        let places = inventory::Places::here(skills_discovery::project_root(&cwd));
        let mut inventory = inventory::build(&places, &skills_doctor::commands(&domains));
        inventory.problems.extend(problem);
        let built = Arc::new((inventory, domains));
        *slot = Some(Arc::clone(&built));
        built
    }
}
