//! The prompts: `init-skills`, the usage guide, and `skills-router`, seed 000's Level-1
//! router over the skills served now.

use rmcp::model::{GetPromptResult, ListPromptsResult, Prompt, PromptMessage, Role};
use rmcp::service::Peer;
use rmcp::{ErrorData, RoleServer};
use skills_prompt::Globals;

use crate::server::Res;
use crate::state::Shared;
use crate::text;

/// The name of the usage-guide prompt.
const PROMPT: &str = "init-skills";

/// The name of the Level-1 router prompt (seed 000).
const ROUTER_PROMPT: &str = "skills-router";

pub(crate) fn list() -> ListPromptsResult {
    ListPromptsResult::with_all_items(vec![
        Prompt::new(
            PROMPT,
            Some(
                "Background on working with skills through this server: what they are, \
                 when to load one, and the workflow.",
            ),
            None,
        )
        .with_title("Skills usage guide"),
        Prompt::new(
            ROUTER_PROMPT,
            Some(
                "The Level-1 router prompt: every skill's name and description, the \
                 universal tools (view_skill first) and the global resources. Call \
                 view_skill to get a skill's Level-2 prompt.",
            ),
            None,
        )
        .with_title("Skills router (Level 1)"),
    ])
}

/// The prompt `name`. Only the router depends on the skills, so only it refreshes the index
/// (and may notify `peer`).
pub(crate) async fn get(
    state: &Shared,
    globals: &Globals,
    name: &str,
    peer: Option<&Peer<RoleServer>>,
) -> Res<GetPromptResult> {
    let (text, description) = match name {
        PROMPT => (
            skills_export::instructions(true),
            "How to work with skills through this server",
        ),
        ROUTER_PROMPT => {
            state.refresh(peer).await;
            (
                router(state, globals)?,
                "The Level-1 router prompt over the skills served now",
            )
        }
        other => {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt {:?}: the prompts are {PROMPT} and {ROUTER_PROMPT}",
                    text::clip(other)
                ),
                None,
            ));
        }
    };
    let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
    result.description = Some(description.to_string());
    Ok(result)
}

/// The Level-1 router prompt over the current index.
fn router(state: &Shared, globals: &Globals) -> Res<String> {
    use skills_prompt::{Builtin, Context, render_builtin};
    let state = state.lock();
    Context::router(&state.catalog.visible(&state.index), globals)
        .and_then(|ctx| render_builtin(Builtin::Router, &ctx))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))
}
