//! Ratings: a user's stars (one rating per user, replaced), and every rating of a skill.

use crate::caller::Caller;
use crate::error::RegistryError;
use crate::model::SkillCard;
use crate::store::Store;

use super::Registry;

impl<S: Store> Registry<S> {
    /// The skill `name` with every rating (`GET …/rating`).
    ///
    /// # Errors
    ///
    /// As [`Registry::get`].
    pub async fn rating(&self, caller: &Caller, name: &str) -> Result<SkillCard, RegistryError> {
        let mut card = self.get(caller, name).await?;
        card.rating_details = self.store.ratings(name).await?;
        Ok(card)
    }

    /// Sets `caller`'s rating of `name`.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Invalid`] outside 1–5, [`RegistryError::Unauthorized`] without a
    /// user, [`RegistryError::NotFound`].
    pub async fn rate(
        &self,
        caller: &Caller,
        name: &str,
        stars: i64,
    ) -> Result<SkillCard, RegistryError> {
        let Some(user) = caller.user.clone() else {
            return Err(RegistryError::Unauthorized);
        };
        let stars = u8::try_from(stars)
            .ok()
            .filter(|s| (1..=5).contains(s))
            .ok_or_else(|| RegistryError::Invalid("`rating` must be 1 to 5".into()))?;
        self.get(caller, name).await?;
        if !self.store.rate(name, &user, stars).await? {
            return Err(RegistryError::NotFound(name.to_string()));
        }
        self.changed();
        self.rating(caller, name).await
    }
}
