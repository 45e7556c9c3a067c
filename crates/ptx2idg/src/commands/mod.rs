//! One module per subcommand.

pub mod args;
pub mod cfg;
pub mod check;
pub mod front;
pub mod idg;
