//! One module per subcommand.

pub mod args;
pub mod cfg;
pub mod check;
pub mod eval;
pub mod front;
pub mod gpu_args;
pub mod gpus;
pub mod idg;
pub mod map;
pub mod metrics;
pub mod model_args;
pub mod models;
pub mod sass_args;
pub mod simulate;
