pub mod mutate;
