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
    /// the classes of a walked group in the same place of the grid ([`GroupMap`]).
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

    /// The class of each warp of `group`, in warp order: those of the walked group it runs as
    /// ([`GroupMap::representative`]); the caller chose which groups to walk (`--groups`).
    /// Builds the map; a caller asking for many groups keeps one [`GroupClasses`] instead.
    pub fn classes_for_group(&self, group: u64) -> Vec<ClassId> {
        self.classes_of_walked(GroupMap::new(self).representative(group))
    }

    /// The class of each warp of walked group `built`, in warp order.
    fn classes_of_walked(&self, built: u64) -> Vec<ClassId> {
        let first = built * u64::from(self.warps_per_group);
        (0..u64::from(self.warps_per_group))
            .map(|w| self.class_of_warp(first + w).unwrap_or(ClassId(0)))
            .collect()
    }

    /// Per class, how many of the grid's warps it stands for, in units of walked warps: the
    /// sum of its warps' [`GroupMap::weights`]. With one walked group, or every group walked,
    /// each class's count of walked warps.
    pub fn class_weights(&self) -> Vec<f64> {
        let map = GroupMap::new(self);
        let weights = map.weights();
        let wpg = u64::from(self.warps_per_group.max(1));
        self.classes
            .iter()
            .map(|c| {
                c.warps
                    .iter()
                    .map(|&w| {
                        self.groups_built
                            .binary_search(&(w / wpg))
                            .map_or(0.0, |i| weights[i])
                    })
                    .sum()
            })
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

/// Where a group lies along one grid dimension: its first group, its last, the only one, or
/// between. Groups at the edges of a grid are where launch-decided bounds differ (a partial
/// tile, a stencil's border), so a group runs as a walked group with its edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    Only,
    First,
    Between,
    Last,
}

impl Edge {
    fn of(coord: u64, extent: u64) -> Edge {
        match (coord == 0, coord + 1 >= extent) {
            (true, true) => Edge::Only,
            (true, false) => Edge::First,
            (false, true) => Edge::Last,
            (false, false) => Edge::Between,
        }
    }

    /// The edges a dimension of `extent` groups has, with how many groups lie at each and the
    /// coordinate of one of them (the middle one between the ends).
    fn all(extent: u64) -> Vec<(Edge, u64, u64)> {
        match extent {
            0 | 1 => vec![(Edge::Only, 1, 0)],
            2 => vec![(Edge::First, 1, 0), (Edge::Last, 1, 1)],
            n => vec![
                (Edge::First, 1, 0),
                (Edge::Between, n - 2, n / 2),
                (Edge::Last, 1, n - 1),
            ],
        }
    }
}

/// A group's edges in x, y and z.
pub type Edges = [Edge; 3];

/// Every combination of edges of `grid`, with how many of its groups have it and the linear id
/// of one of them (first or last coordinate where an edge is taken, the middle one between),
/// x outermost.
pub fn edge_combinations(grid: [u32; 3]) -> Vec<(Edges, u64, u64)> {
    let n = grid.map(|d| u64::from(d.max(1)));
    let mut out = Vec::new();
    for (ex, nx, x) in Edge::all(n[0]) {
        for (ey, ny, y) in Edge::all(n[1]) {
            for (ez, nz, z) in Edge::all(n[2]) {
                out.push(([ex, ey, ez], nx * ny * nz, x + n[0] * (y + n[1] * z)));
            }
        }
    }
    out
}

/// Which walked group each group of the grid runs as: itself if walked; else the first walked
/// group with its edges ([`Edges`]); else the first walked group whose edges differ from its
/// own in the fewest dimensions. With one walked group every group runs as it.
#[derive(Debug, Clone)]
pub struct GroupMap {
    grid: [u64; 3],
    walked: Vec<u64>,
    walked_edges: Vec<Edges>,
    /// (edges, the index in `walked` of the group the groups with those edges run as, how
    /// many groups have them), for every edge combination of the grid.
    by_edges: Vec<(Edges, usize, u64)>,
}

impl GroupMap {
    pub fn new(k: &KernelIdgs) -> GroupMap {
        let grid = k.grid.map(|d| u64::from(d.max(1)));
        let walked = k.groups_built.clone();
        let walked_edges: Vec<Edges> = walked.iter().map(|&g| edges_in(grid, g)).collect();
        let by_edges = edge_combinations(k.grid)
            .into_iter()
            .map(|(e, count, _)| {
                let differ = |w: &Edges| w.iter().zip(&e).filter(|(a, b)| a != b).count();
                // `walked` ascends, so the first of the nearest is the lowest id.
                let rep = walked_edges
                    .iter()
                    .enumerate()
                    .min_by_key(|(i, w)| (differ(w), *i))
                    .map_or(0, |(i, _)| i);
                (e, rep, count)
            })
            .collect();
        GroupMap {
            grid,
            walked,
            walked_edges,
            by_edges,
        }
    }

    /// The walked group `group` runs as.
    pub fn representative(&self, group: u64) -> u64 {
        self.walked
            .get(self.representative_index(group))
            .copied()
            .unwrap_or(0)
    }

    /// The index in `groups_built` of the walked group `group` runs as.
    fn representative_index(&self, group: u64) -> usize {
        if let Ok(i) = self.walked.binary_search(&group) {
            return i;
        }
        let e = edges_in(self.grid, group);
        self.by_edges
            .iter()
            .find(|(x, ..)| *x == e)
            .map_or(0, |&(_, rep, _)| rep)
    }

    /// How many of the grid's groups each walked group (in `groups_built` order) stands for:
    /// itself, and, where it represents its edges, every group with those edges that was not
    /// walked. Scaled so that the weights sum to the number of walked groups (each is 1 when
    /// one group, or every group, was walked).
    pub fn weights(&self) -> Vec<f64> {
        let mut raw = vec![1u64; self.walked.len()];
        for &(e, rep, count) in &self.by_edges {
            let walked_here = self.walked_edges.iter().filter(|w| **w == e).count() as u64;
            if let Some(r) = raw.get_mut(rep) {
                *r += count.saturating_sub(walked_here);
            }
        }
        let total: u64 = self.grid.iter().product();
        let n = self.walked.len() as f64;
        raw.iter().map(|&r| r as f64 * n / total as f64).collect()
    }
}

/// The class lists the groups of a launch run, each distinct list once: what the simulator
/// asks of every group it starts, without looking the warps' classes up again.
#[derive(Debug, Clone)]
pub struct GroupClasses {
    map: GroupMap,
    lists: Vec<Vec<ClassId>>,
    /// Per walked group (in `groups_built` order), its index in `lists`.
    of_walked: Vec<usize>,
}

impl GroupClasses {
    pub fn new(k: &KernelIdgs) -> GroupClasses {
        let mut lists: Vec<Vec<ClassId>> = Vec::new();
        // IDGs read from JSON may name no walked group: group 0's warps then stand for all.
        let walked: &[u64] = if k.groups_built.is_empty() {
            &[0]
        } else {
            &k.groups_built
        };
        let of_walked = walked
            .iter()
            .map(|&g| {
                let l = k.classes_of_walked(g);
                lists.iter().position(|x| *x == l).unwrap_or_else(|| {
                    lists.push(l);
                    lists.len() - 1
                })
            })
            .collect();
        GroupClasses {
            map: GroupMap::new(k),
            lists,
            of_walked,
        }
    }

    /// The index in [`Self::lists`] of the classes `group` runs (those of the walked group it
    /// runs as).
    pub fn list_of(&self, group: u64) -> usize {
        self.of_walked
            .get(self.map.representative_index(group))
            .copied()
            .unwrap_or(0)
    }

    /// The distinct class lists, each the class of every warp of a group in warp order.
    pub fn lists(&self) -> &[Vec<ClassId>] {
        &self.lists
    }
}

fn edges_in(grid: [u64; 3], g: u64) -> Edges {
    let c = [
        g % grid[0],
        (g / grid[0]) % grid[1],
        g / (grid[0] * grid[1]),
    ];
    [
        Edge::of(c[0], grid[0]),
        Edge::of(c[1], grid[1]),
        Edge::of(c[2], grid[2]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(grid: [u32; 3], walked: Vec<u64>) -> KernelIdgs {
        KernelIdgs {
            schema_version: SCHEMA_VERSION,
            kernel: "k".into(),
            grid,
            block: [32, 1, 1],
            warps_per_group: 1,
            classes: vec![WarpClass {
                warps: walked.clone(),
                idg: Idg::default(),
            }],
            groups_built: walked,
            rotate_classes: false,
        }
    }

    /// A 4 x 2 grid with its middle group (2, 1) and the group at the first row's inside
    /// (2, 0) walked: every group of the first row runs as (2, 0), of the second as (2, 1),
    /// and each walked group stands for one row.
    #[test]
    fn groups_run_as_the_walked_group_at_their_edges() {
        let k = launch([4, 2, 1], vec![2, 6]);
        let map = GroupMap::new(&k);
        let reps: Vec<u64> = (0..8).map(|g| map.representative(g)).collect();
        assert_eq!(reps, vec![2, 2, 2, 2, 6, 6, 6, 6]);
        assert_eq!(map.weights(), vec![1.0, 1.0]);
    }

    /// One walked group stands for the whole grid; every group walked stands for itself; a
    /// combination of edges no walked group has runs as the nearest one.
    #[test]
    fn one_walked_group_or_all_keep_their_weights() {
        let one = launch([8, 8, 1], vec![36]);
        let map = GroupMap::new(&one);
        assert!((0..64).all(|g| map.representative(g) == 36));
        assert_eq!(map.weights(), vec![1.0]);
        assert_eq!(one.class_weights(), vec![1.0]);
        let all = launch([3, 1, 1], vec![0, 1, 2]);
        assert_eq!(GroupMap::new(&all).weights(), vec![1.0; 3]);
        // Walked: the inside (4, 4) and the last column's inside (7, 4); the corner (7, 7)
        // differs from (7, 4) in one dimension and from (4, 4) in two.
        let two = launch([8, 8, 1], vec![36, 39]);
        let map = GroupMap::new(&two);
        assert_eq!(map.representative(63), 39);
        assert_eq!(map.representative(0), 36);
        // (7, 4) stands for the 6 groups between the corners of the last column and its two
        // corners; (4, 4) for the other 56.
        let w = map.weights();
        assert_eq!(w, vec![56.0 * 2.0 / 64.0, 8.0 * 2.0 / 64.0]);
    }
}
