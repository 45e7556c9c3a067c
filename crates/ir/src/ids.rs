//! Typed `u32` indices into the arenas of a [`crate::Kernel`] and its side tables.
//!
//! Invariant: an id is only meaningful for the kernel (or analysis) that created it; ids are
//! dense, so side tables are plain `Vec`s indexed by `id.index()`.

use serde::Serialize;
use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as an index into its arena or side table.
            pub fn index(self) -> usize {
                self.0 as usize
            }

            pub(crate) fn from_index(i: usize) -> Self {
                // Arenas are bounded by PTX text size, far below u32::MAX.
                Self(u32::try_from(i).unwrap_or(u32::MAX))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id_type!(
    /// An instruction in [`crate::Kernel::insts`].
    InstId,
    "i"
);
id_type!(
    /// A basic block in [`crate::Kernel::blocks`].
    BlockId,
    "b"
);
id_type!(
    /// A register (or `.param`-space call slot, see [`crate::RegKind`]) in [`crate::Kernel::regs`].
    RegId,
    "r"
);
id_type!(
    /// A natural loop in [`crate::LoopForest`].
    LoopId,
    "L"
);
id_type!(
    /// A symbolic address base (pointer parameter or module variable) in [`crate::Kernel::bases`].
    BaseId,
    "base"
);
