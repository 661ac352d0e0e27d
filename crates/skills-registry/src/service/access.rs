//! Who may do what: the access rules beside the visibility filter the store applies.

use crate::caller::Caller;
use crate::error::RegistryError;
use crate::model::{SkillCard, Visibility};
use crate::store::Store;

use super::Registry;

impl<S: Store> Registry<S> {
    /// Whether `caller` may read at all: anonymous readers only with public reads on.
    pub(super) fn readable(&self, caller: &Caller) -> Result<(), RegistryError> {
        if caller.user.is_none() && !caller.admin && !self.config.public_read {
            return Err(RegistryError::Unauthorized);
        }
        Ok(())
    }

    /// The skill, if `caller` may change it.
    pub(super) async fn owned(
        &self,
        caller: &Caller,
        name: &str,
    ) -> Result<SkillCard, RegistryError> {
        // Anonymous readers (with public reads on) may see, never change: that asks them
        // to authenticate rather than telling them they are not the owner.
        if caller.user.is_none() && !caller.admin {
            return Err(RegistryError::Unauthorized);
        }
        let card = self.get(caller, name).await?;
        if let Some(peer) = self.store.imported_from(name).await? {
            return Err(RegistryError::Forbidden(format!(
                "`{name}` is imported from the peer `{peer}`: it changes there, and here at the next sync"
            )));
        }
        if caller.admin || caller.user.as_deref() == Some(card.owner.as_str()) {
            Ok(card)
        } else {
            Err(RegistryError::Forbidden(format!(
                "only the owner of `{name}` or an admin may change it"
            )))
        }
    }
}

/// `group` needs groups; the others take none.
pub(super) fn check_access(visibility: Visibility, groups: &[String]) -> Result<(), RegistryError> {
    match (visibility, groups.iter().any(|g| !g.trim().is_empty())) {
        (Visibility::Group, false) => Err(RegistryError::Invalid(
            "`allowed_groups` is required for `group` visibility".into(),
        )),
        (Visibility::Public | Visibility::Private, true) => Err(RegistryError::Invalid(
            "`allowed_groups` applies to `group` visibility only".into(),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_rules() {
        assert!(check_access(Visibility::Group, &[]).is_err());
        assert!(check_access(Visibility::Group, &[" ".into()]).is_err());
        assert!(check_access(Visibility::Group, &["eng".into()]).is_ok());
        assert!(check_access(Visibility::Public, &["eng".into()]).is_err());
        assert!(check_access(Visibility::Private, &[]).is_ok());
    }
}
