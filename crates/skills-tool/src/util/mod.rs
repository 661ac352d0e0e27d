//! Small helpers shared by the commands: none of them prints or decides an exit code.

pub(crate) mod roots;
