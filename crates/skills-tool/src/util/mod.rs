//! Small helpers shared by the commands.

pub(crate) mod write;
