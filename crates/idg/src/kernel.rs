//! All IDGs of one kernel launch: warp classes (warps with identical paths share one IDG) and
//! which warps of which work groups use them. This is the unit serialized as IDG JSON.

use serde::{Deserialize, Serialize};

use crate::graph::Idg;
use crate::node::ClassId;
use crate::IdgError;

/// Version of the JSON schema in `docs/idg-format.md`; bump on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// The warps whose paths are identical, and their shared IDG.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WarpClass {
    /// Global warp ids: `group * warps_per_group + warp_in_group`, ascending.
    pub warps: Vec<u64>,
    pub idg: Idg,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelIdgs {
    pub schema_version: u32,
    /// Mangled kernel name as in the PTX.
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub warps_per_group: u32,
    /// Linear ids of the work groups whose warps were walked, ascending. Groups not listed run
    /// the classes of the first built group.
    pub groups_built: Vec<u64>,
    pub classes: Vec<WarpClass>,
    /// The warps of a group take their classes in a rotated order, chosen per group by the
    /// simulator so that warp 0's class lands on the scheduler partition it places it on
    /// (`sim`'s placement): the classes stand for roles, not for fixed warps, as the long
    /// warp of uneven warps (`walk::uneven`), which the hardware places on no fixed
    /// scheduler. Absent: every group as walked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rotate_classes: bool,
}

impl KernelIdgs {
    /// Whether every class's critical-path analysis stays within its budget
    /// (`Idg::check_analysis`): what `render::summary` and `render::stats_json` need.
    pub fn check_analysis(&self) -> Result<(), crate::IdgError> {
        self.classes
            .iter()
            .enumerate()
            .try_for_each(|(i, c)| c.idg.check_analysis(i))
    }

    pub fn total_groups(&self) -> u64 {
        self.grid.iter().map(|&d| u64::from(d)).product()
    }

    pub fn class(&self, id: ClassId) -> &WarpClass {
        &self.classes[id.index()]
    }

    /// The class of each warp of `group`, in warp order. Groups that were not walked reuse the
    /// first walked group; the caller chose which groups to walk (`--groups`).
    pub fn classes_for_group(&self, group: u64) -> Vec<ClassId> {
        let built = if self.groups_built.binary_search(&group).is_ok() {
            group
        } else {
            self.groups_built.first().copied().unwrap_or(0)
        };
        let first = built * u64::from(self.warps_per_group);
        (0..u64::from(self.warps_per_group))
            .map(|w| self.class_of_warp(first + w).unwrap_or(ClassId(0)))
            .collect()
    }

    /// The class a global warp id belongs to, if that warp was walked.
    pub fn class_of_warp(&self, warp: u64) -> Option<ClassId> {
        self.classes
            .iter()
            .position(|c| c.warps.binary_search(&warp).is_ok())
            .map(|i| ClassId(i as u32))
    }

    /// Checks the invariants of everything read from outside: schema version, every class's
    /// tree, warps ascending and each walked warp in exactly one class.
    pub fn validate(&self) -> Result<(), IdgError> {
        if self.schema_version != SCHEMA_VERSION {
            return Err(IdgError::Schema {
                found: self.schema_version,
                expected: SCHEMA_VERSION,
            });
        }
        if self.classes.is_empty() {
            return Err(IdgError::NoClasses);
        }
        // Launch dimensions every consumer multiplies out: a block of at most 2^16 threads,
        // a grid of at most 2^63 groups (fuzz finding: products of
        // hostile dimensions overflowed).
        let threads = self
            .block
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(u64::from(d)));
        let groups = self
            .grid
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(u64::from(d)));
        // Global warp ids (group * warps per group) must fit, and every walked group must
        // be one of the grid's.
        let fits = matches!(threads, Some(t) if (1..=1 << 16).contains(&t))
            && matches!(groups, Some(g) if (1..=1 << 63).contains(&g)
                && g.checked_mul(u64::from(self.warps_per_group)).is_some()
                && self.groups_built.iter().all(|&b| b < g));
        if !fits {
            return Err(IdgError::Launch {
                grid: self.grid,
                block: self.block,
                warps_per_group: self.warps_per_group,
            });
        }
        let mut all: Vec<u64> = Vec::new();
        for class in &self.classes {
            if class.warps.windows(2).any(|w| w[0] >= w[1]) {
                return Err(IdgError::WarpsUnsorted);
            }
            class.idg.validate()?;
            all.extend(&class.warps);
        }
        all.sort_unstable();
        if let Some(w) = all.windows(2).find(|w| w[0] == w[1]) {
            return Err(IdgError::WarpInTwoClasses(w[0]));
        }
        Ok(())
    }

    pub fn to_json(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Result<Self, IdgError> {
        let k: KernelIdgs =
            serde_json::from_str(text).map_err(|e| IdgError::Json(e.to_string()))?;
        k.validate()?;
        Ok(k)
    }
}
