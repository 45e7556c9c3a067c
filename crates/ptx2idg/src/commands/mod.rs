//! One module per subcommand.

pub mod check;
