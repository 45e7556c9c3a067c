//! The random numbers of the mutation-based robustness tests and fuzz runs (of this crate's
//! PTX and of crate `sass`'s listings, which include this file): deterministic for a seed,
//! so a failing case can be replayed.

/// xorshift64* — small, deterministic, good enough to pick mutations.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}
