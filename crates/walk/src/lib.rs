//! Builds the IDGs of a kernel launch: walks every warp of the chosen work groups over the
//! kernel's CFG with the SIMT rules of [`warp`], and shares one compact IDG among warps whose
//! paths are identical (pipeline-model-analysis section 3.1.1: one IDG per distinct path).
//!
//! Input: a lowered kernel with its analyses, bound launch and resolved trip counts (crate
//! `ir`). Output: [`idg::KernelIdgs`]. Everything a run assumed is reported in [`Built`].

mod front;
pub mod inputs;
mod mix;
mod pattern;
mod recency;
mod slice;
pub mod uneven;
mod warp;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use idg::{Idg, KernelIdgs, WarpClass, SCHEMA_VERSION};
use ir::{Analysis, BoundLaunch, Kernel, Trips, WarpState};

pub use front::{front_end, front_end_fitted, FrontEnd, FrontError};
pub use inputs::{evidence, trip_data, InputsError, TripData};
pub use mix::{profile_consistent, Choice};
pub use pattern::analyse as analyse_addresses;

/// What to assume for a branch whose condition depends on data the launch does not decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnknownBranch {
    /// All lanes with an unknown condition take the branch.
    Taken,
    /// All lanes with an unknown condition fall through (guards like `if (x[i] > t)`, whose
    /// body nvcc puts on the fall-through, usually protect the rarer path).
    NotTaken,
    /// All lanes with an unknown condition take the side with more code before the sides
    /// meet again (the default; ties fall through): the body of an `if`, the computation
    /// beside an early return, wherever the compiler laid them out.
    #[default]
    Heavier,
    /// Both sides run, as if the warp diverged.
    Both,
}

impl UnknownBranch {
    /// The assumption profile evidence supports: measured divergent branches mean the warps
    /// really split on data (run both sides); none measured means they did not, so the
    /// default holds. Without evidence, the default. Shared by every front end so the CLI and
    /// the evaluation build the same graphs from the same counters.
    pub fn from_divergent_branches(divergent: Option<f64>) -> UnknownBranch {
        match divergent {
            Some(d) if d > 0.0 => UnknownBranch::Both,
            _ => UnknownBranch::Heavier,
        }
    }
}

/// Which work groups to walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Groups {
    /// Only the central group of the grid (the middle of each dimension); all other groups
    /// reuse its classes. It stands for the others better than group 0: the first and last
    /// groups, and any group on an edge of a 2-D or 3-D grid, are where boundary tests (a
    /// stencil's edge rows, the pivot row of an elimination step, a clamped neighbourhood)
    /// make threads exit early.
    #[default]
    Middle,
    /// Only group 0; all other groups reuse its classes.
    First,
    /// Every group of the grid.
    All,
    /// The first N groups.
    Count(u64),
}

/// Two assumptions for branches on unknown data shared among the warps of each walked group:
/// warps `0..first_warps` take `first`, the others `second` (a mix of warp classes in the
/// proportion the profile supports, [`profile_consistent`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mix {
    pub first: UnknownBranch,
    pub second: UnknownBranch,
    pub first_warps: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub unknown_branch: UnknownBranch,
    /// When set, replaces `unknown_branch` warp by warp.
    pub mix: Option<Mix>,
    /// Instructions after a branch depend on it (a warp cannot issue past an unresolved
    /// branch). On by default.
    pub control_deps: bool,
    pub groups: Groups,
    /// Inlining budget of the front end: statements of the kernel after inlining its calls.
    pub max_inlined: usize,
    /// The IDG-size budget: template nodes of all warp classes of the launch together (and
    /// of the warp being walked). [`DEFAULT_MAX_IDG_NODES`] unless raised.
    pub max_idg_nodes: u64,
    /// The busy share of the warp slots at one group per SM ([`uneven::busy_share`]): when
    /// set below one, warp 0 of each walked group runs the profile-fitted loops longer and the
    /// others shorter ([`uneven::split`]). `None`: every warp runs the fitted counts.
    pub busy_share: Option<f64>,
    /// Compare each global load with the same warp of the groups 1, 2, 4, ..., 64 apart in
    /// launch order for data that groups running at the same time share (`Reuse::Groups`);
    /// off: with the next group only. Where a profile's counters give mapper g the DRAM share
    /// of the accesses, the front ends turn it off: the search costs about half an IDG build.
    pub nearby_groups: bool,
}

/// The default IDG-size budget: 2^22 template nodes. The bundled kernels build at most
/// about 2,700 at their evaluated launches (Rodinia lud_perimeter; `docs/trips.md`, "Limits").
pub const DEFAULT_MAX_IDG_NODES: u64 = 1 << 22;

impl Default for Options {
    fn default() -> Self {
        Self {
            unknown_branch: UnknownBranch::default(),
            mix: None,
            control_deps: true,
            groups: Groups::default(),
            max_inlined: ir::DEFAULT_INLINE_BUDGET,
            max_idg_nodes: DEFAULT_MAX_IDG_NODES,
            busy_share: None,
            nearby_groups: true,
        }
    }
}

/// The IDGs of one launch and what the walk assumed.
#[derive(Debug, Clone)]
pub struct Built {
    pub idgs: KernelIdgs,
    /// PTX lines of branches whose condition was unknown for some lane, with the assumption
    /// applied (deduplicated, ascending).
    pub unknown_branches: Vec<u32>,
    /// Per warp class (indexed like `idgs.classes`): dynamic executions of a branch whose
    /// lanes split, for one warp of the class (the walk of its first warp). A side table
    /// rather than an IDG field: it describes the path, not the graph the simulator runs.
    pub divergent_branches: Vec<u64>,
    /// Loops split between warp 0 (long) and the other warps of each walked group under
    /// [`Options::busy_share`]: (loop, fitted count, long count, short count); empty when the
    /// warps run the same counts ([`uneven::split`]).
    pub uneven: Vec<(ir::LoopId, u64, u64, u64)>,
}

#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("kernel {kernel}: the walk made no progress around block {block} (unsupported control flow)")]
    NoProgress { kernel: String, block: String },
    #[error("internal IDG invariant broken: {0}")]
    Idg(idg::IdgError),
    #[error("kernel {kernel}: the IDGs of the launch grow past {limit} template nodes, the IDG-size budget; raise it with --max-idg-nodes N, or walk fewer groups (--groups middle, or a count N)")]
    IdgBudget { kernel: String, limit: u64 },
    #[error("walking {groups} work groups is refused: the walk takes at most {limit} (about 2 s); the middle group stands for all of them (--groups middle, the default), or give --groups N with N at most {limit}")]
    TooManyGroups { groups: u64, limit: u64 },
}

/// How far (in groups, launch order) the groups a walked group compares its loads with lie.
const NEIGHBOUR_DISTANCES: [u64; 7] = [1, 2, 4, 8, 16, 32, 64];

/// The groups launched before `g` whose loads a load of `g` may find in L2: the previous one
/// and the one a row and a plane of the grid back (a 1-, 2- or 3-D grid's neighbours in x, y
/// and z, whose edges a stencil's halo reads). They run at about the same time as `g` on a
/// device of a hundred SMs holding several groups each, or just before it. (Data that groups
/// further apart share at the same point of their paths is `Reuse::Groups`.)
fn earlier_groups(g: u64, grid: [u32; 3]) -> Vec<u64> {
    let row = u64::from(grid[0]);
    let plane = row * u64::from(grid[1]);
    let mut v: Vec<u64> = [1, row, plane]
        .into_iter()
        .filter(|&d| d > 0)
        .filter_map(|d| g.checked_sub(d))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Smallest share of a grid's groups that one combination of edges (first, last or between
/// in each dimension, `idg::Edges`) must stand for to be walked apart from the middle group:
/// smaller ones add at most that share of the launch's work to a kind it may differ from, and
/// walking them would multiply the cost of building the IDGs of any large 2-D or 3-D grid.
pub const MIN_EDGE_SHARE: f64 = 1.0 / 64.0;

/// One group for every combination of edges of `grid` other than `middle`'s that stands for at
/// least [`MIN_EDGE_SHARE`] of its groups (`idg::edge_combinations`), in launch order.
fn edge_groups(grid: [u32; 3], middle: u64) -> Vec<u64> {
    let total: u64 = grid.iter().map(|&d| u64::from(d.max(1))).product();
    let mut out: Vec<u64> = idg::edge_combinations(grid)
        .into_iter()
        .filter(|&(_, count, g)| g != middle && count as f64 >= MIN_EDGE_SHARE * total as f64)
        .map(|(_, _, g)| g)
        .collect();
    out.sort_unstable();
    out
}

/// Most groups one walk takes (`--groups all` or a count): 65 536 took about 30 s.
pub const WALKED_GROUPS_LIMIT: u64 = 4_096;

/// Walks the chosen groups of `launch` and groups warps by identical IDG.
pub fn build(
    kernel: &Kernel,
    an: &Analysis,
    launch: &BoundLaunch,
    trips: &Trips,
    opts: &Options,
) -> Result<Built, WalkError> {
    let total = launch.blocks();
    let walked = match opts.groups {
        Groups::Middle | Groups::First => 1,
        Groups::Count(n) => n.clamp(1, total),
        Groups::All => total,
    };
    if walked > WALKED_GROUPS_LIMIT {
        return Err(WalkError::TooManyGroups {
            groups: walked,
            limit: WALKED_GROUPS_LIMIT,
        });
    }
    let groups: Vec<u64> = match opts.groups {
        Groups::Middle => vec![launch.middle_block()],
        Groups::First => vec![0],
        Groups::Count(_) | Groups::All => (0..walked).collect(),
    };
    let warps_per_group = launch.warps_per_block();
    let split = opts
        .busy_share
        .and_then(|rho| uneven::split(kernel, an, trips, warps_per_group, rho));
    // Warp 0 of a group is the long one when the fitted loops are split.
    let trips_of = |w: u32| match &split {
        Some(s) if w == 0 => &s.long,
        Some(s) => &s.short,
        None => trips,
    };
    // What the walks interpret, for the traces of nearby groups and for the IDGs: with warp
    // 0's trips and with the others', where the loops are split.
    let slices: Vec<[slice::Slice; 2]> = match &split {
        Some(s) => vec![
            slice::Slice::both(kernel, &s.long),
            slice::Slice::both(kernel, &s.short),
        ],
        None => vec![slice::Slice::both(kernel, trips)],
    };
    let slice_of = |reads: slice::Reads, w: u32| {
        &slices[usize::from(w > 0).min(slices.len() - 1)][reads as usize]
    };
    // The assumption for warp `w`'s branches on unknown data.
    let policy_of = |w: u32| match opts.mix {
        Some(m) if w < m.first_warps => m.first,
        Some(m) => m.second,
        None => opts.unknown_branch,
    };
    let mut classes: Vec<WarpClass> = Vec::new();
    let mut by_hash: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut unknown = Vec::new();
    let mut divergent: Vec<u64> = Vec::new();
    // Template nodes of the classes kept so far, against `opts.max_idg_nodes`.
    let mut kept = 0u64;
    // Warp `w` of group `n` walked alone, with no other warps' loads to compare with.
    let alone = |n: u64, w: u32, budget: u64, reads: slice::Reads| {
        warp::WarpWalk::new(
            kernel,
            an,
            trips_of(w),
            opts,
            policy_of(w),
            WarpState::new(kernel, launch, launch.ctaid_of(n), w),
            warp::Peers::default(),
            budget,
            slice_of(reads, w),
        )
        .run()
    };
    // Walks every warp of group `g` and files its IDG under its class; returns each warp's
    // class and IDG.
    let mut walk_group = |g: u64| -> Result<Vec<(usize, Idg)>, WalkError> {
        let ctaid = launch.ctaid_of(g);
        // Groups near this one in launch order run at the same time on a device of a few
        // dozen SMs or more: what one of them loads at the same point of its path is in L2
        // for the others (tiles of a grouped matrix product, shared vectors). Forward, or
        // backward where the grid ends.
        let distances = if opts.nearby_groups {
            &NEIGHBOUR_DISTANCES[..]
        } else {
            &NEIGHBOUR_DISTANCES[..1]
        };
        let mut neighbours: Vec<u64> = distances
            .iter()
            .filter_map(|&d| match g.checked_add(d) {
                Some(n) if n < total => Some(n),
                _ => g.checked_sub(d),
            })
            .collect();
        neighbours.sort_unstable();
        neighbours.dedup();
        // Without counters, the sectors the earlier groups load: a load of this group finds
        // them in L2 (walked as traces, every warp of each group).
        let earlier: Option<HashSet<pattern::Sector>> = if opts.nearby_groups {
            let mut set = HashSet::new();
            for n in earlier_groups(g, launch.grid) {
                for w in 0..warps_per_group {
                    let out = alone(
                        n,
                        w,
                        opts.max_idg_nodes.saturating_sub(kept),
                        slice::Reads::Trace,
                    )?;
                    set.extend(out.loads.into_iter().flat_map(|(_, s)| s));
                }
            }
            Some(set)
        } else {
            None
        };
        // The loads of the group's warps walked so far, and every sector they load.
        let mut siblings = Vec::new();
        let mut sibling_sectors: HashSet<pattern::Sector> = HashSet::new();
        let mut idgs = Vec::with_capacity(warps_per_group as usize);
        for w in 0..warps_per_group {
            let policy = policy_of(w);
            // Warp `w` of the group at `ctaid`, compared with `peers`.
            let walk = |ctaid, peers, reads| {
                warp::WarpWalk::new(
                    kernel,
                    an,
                    trips_of(w),
                    opts,
                    policy,
                    WarpState::new(kernel, launch, ctaid, w),
                    peers,
                    opts.max_idg_nodes.saturating_sub(kept),
                    slice_of(reads, w),
                )
            };
            let traces = neighbours
                .iter()
                .map(|&n| {
                    walk(
                        launch.ctaid_of(n),
                        warp::Peers::default(),
                        slice::Reads::Trace,
                    )
                    .run()
                    .map(|o| o.loads)
                })
                .collect::<Result<Vec<_>, _>>()?;
            let out = walk(
                ctaid,
                warp::Peers {
                    neighbours: &traces,
                    siblings: &siblings,
                    sibling_sectors: Some(&sibling_sectors),
                    earlier: earlier.as_ref(),
                },
                slice::Reads::Idg,
            )
            .run()?;
            sibling_sectors.extend(out.loads.iter().flat_map(|(_, s)| s.iter().copied()));
            siblings.push(out.loads);
            unknown.extend(out.unknown_branches);
            let idg = out.idg;
            let global = g * u64::from(warps_per_group) + u64::from(w);
            let h = fingerprint(&idg);
            let slot = by_hash.entry(h).or_default();
            let class = match slot.iter().find(|&&c| classes[c].idg == idg) {
                Some(&c) => {
                    classes[c].warps.push(global);
                    c
                }
                None => {
                    kept += idg.nodes.len() as u64;
                    slot.push(classes.len());
                    divergent.push(out.divergent_branches);
                    classes.push(WarpClass {
                        warps: vec![global],
                        idg: idg.clone(),
                    });
                    classes.len() - 1
                }
            };
            idgs.push((class, idg));
        }
        Ok(idgs)
    };
    let mut walked = groups.clone();
    // Warps of edge groups whose paths are the middle group's: (global warp, its class).
    let mut like_middle: Vec<(u64, usize)> = Vec::new();
    for &g in &groups {
        let idgs = walk_group(g)?;
        if opts.groups != Groups::Middle {
            continue;
        }
        // The middle group stands for the grid's inside; a group at its edges, where
        // launch-decided bounds may mask lanes or skip work (the partial last tile of a row,
        // a stencil's border), stands for the groups with its edges where they are at least
        // `MIN_EDGE_SHARE` of the grid: walked as the middle group is where its warps' paths
        // differ from the middle group's, else running the middle group's classes.
        for e in edge_groups(launch.grid, g) {
            let same = (0..warps_per_group).try_fold(true, |same, w| {
                if !same {
                    return Ok::<bool, WalkError>(false);
                }
                let out = alone(e, w, opts.max_idg_nodes, slice::Reads::Idg)?;
                Ok(out.idg.same_path(&idgs[w as usize].1))
            })?;
            if same {
                let first = e * u64::from(warps_per_group);
                like_middle.extend(idgs.iter().zip(first..).map(|((c, _), w)| (w, *c)));
            } else {
                walk_group(e)?;
            }
            walked.push(e);
        }
    }
    for (w, c) in like_middle {
        classes[c].warps.push(w);
    }
    walked.sort_unstable();
    // Edge groups walked after the middle one join its classes out of order.
    for c in &mut classes {
        c.warps.sort_unstable();
    }
    unknown.sort_unstable();
    unknown.dedup();
    let uneven = split.map(|s| s.scaled).unwrap_or_default();
    Ok(Built {
        idgs: KernelIdgs {
            schema_version: SCHEMA_VERSION,
            kernel: kernel.name.clone(),
            grid: launch.grid,
            block: launch.block,
            warps_per_group,
            groups_built: walked,
            classes,
            // The long warp is a role: rotate it over the group's warps.
            rotate_classes: !uneven.is_empty(),
        },
        unknown_branches: unknown,
        divergent_branches: divergent,
        uneven,
    })
}

/// A bucket key for warp IDGs: equal IDGs get equal keys, and a class is only joined after a
/// full comparison, so the key need not tell every IDG apart. It hashes what differs between
/// warps (lines, active lanes, dependences, the compact tree's size) instead of serializing
/// the whole IDG, which took most of the classing time on long straight-line kernels.
fn fingerprint(idg: &idg::Idg) -> u64 {
    let mut h = DefaultHasher::new();
    (idg.nodes.len(), idg.body.len(), idg.instruction_count()).hash(&mut h);
    for n in &idg.nodes {
        (n.ptx_line, n.active_lanes, &n.reads, &n.writes).hash(&mut h);
    }
    h.finish()
}
