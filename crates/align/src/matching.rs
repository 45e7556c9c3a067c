//! Which loop of the machine code runs which loop of the IDG. With line info on both sides
//! (the PTX's `.loc` in the IDG's nodes, nvdisasm `-gi` in the listing) the loops are paired by
//! the source lines they run, in program order (an order-keeping alignment that maximises the
//! summed overlap, so a remainder loop ptxas adds beside an unrolled one pairs with nothing);
//! without it, in program order when both sides have as many loops, else not at all.

use std::collections::{BTreeMap, BTreeSet};

use idg::{Idg, Item, LoopId};

use crate::machine::{base_name, Line, MachineCode};

/// Two loops whose source lines overlap less than this (intersection over union) are not
/// paired: a loop shares its header's line with the code around it, rarely more.
pub const MIN_OVERLAP: f64 = 0.3;

/// What a pair whose loads match ([`pair`]) adds to its overlap: enough to decide between
/// loops of equal lines, too little to outweigh a real difference in lines.
const LOAD_MATCH: f64 = 0.01;

/// One loop of an IDG as the alignment sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct IdgLoop {
    pub id: LoopId,
    pub label: String,
    pub ptx_line: u32,
    /// Source lines of the nodes the loop runs itself (not those of loops inside it).
    pub lines: BTreeSet<Line>,
    /// Bytes per lane of its global loads (`ld.global`, not `cp.async`) per iteration.
    pub load_bytes: u32,
    /// Its global loads per iteration.
    pub loads: usize,
}

/// Whether a node is a global load the machine code runs as an `LDG`.
pub(crate) fn is_global_load(n: &idg::Node) -> bool {
    n.op.opcode == ptx::ast::Opcode::Ld
        && n.mem
            .is_some_and(|m| m.space == idg::MemSpace::Global && !m.store && !m.atomic)
}

/// The loops an IDG runs, in PTX order, with what [`IdgLoop`] records. `files` names the
/// PTX's `.file` entries by number.
pub fn idg_loops(idg: &Idg, files: &BTreeMap<u32, String>) -> Vec<IdgLoop> {
    fn walk(
        idg: &Idg,
        items: &[Item],
        inside: Option<LoopId>,
        files: &BTreeMap<u32, String>,
        out: &mut BTreeMap<LoopId, IdgLoop>,
    ) {
        for item in items {
            match item {
                Item::Node(id) => {
                    let Some(l) = inside.and_then(|l| out.get_mut(&l)) else {
                        continue;
                    };
                    let n = idg.node(*id);
                    if let Some(s) = n.src {
                        if let Some(f) = files.get(&s.file) {
                            l.lines.insert((base_name(f).to_string(), s.line));
                        }
                    }
                }
                Item::Repeat(r) => {
                    let fresh = !out.contains_key(&r.loop_id);
                    let info = &idg.loops[r.loop_id.index()];
                    let e = out.entry(r.loop_id).or_insert_with(|| IdgLoop {
                        id: r.loop_id,
                        label: info.label.clone(),
                        ptx_line: info.ptx_line,
                        lines: BTreeSet::new(),
                        load_bytes: 0,
                        loads: 0,
                    });
                    if fresh {
                        // One iteration's loads: the first range of the loop.
                        for it in &r.body {
                            if let Item::Node(id) = it {
                                let n = idg.node(*id);
                                if is_global_load(n) {
                                    e.load_bytes += n.mem.map_or(0, |m| m.bytes_per_lane);
                                    e.loads += 1;
                                }
                            }
                        }
                    }
                    walk(idg, &r.body, Some(r.loop_id), files, out);
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(idg, &idg.body, None, files, &mut out);
    let mut loops: Vec<IdgLoop> = out.into_values().collect();
    loops.sort_by_key(|l| (l.ptx_line, l.id));
    loops
}

/// How the loops were paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchedBy {
    LineInfo,
    ProgramOrder,
}

/// The pairs (index into the IDG loops, index into the machine loops) and how they were found;
/// `why` says why nothing could be paired, when nothing was.
#[derive(Debug, Clone, PartialEq)]
pub struct Pairing {
    pub by: MatchedBy,
    pub pairs: Vec<(usize, usize)>,
    pub why: Option<String>,
}

fn overlap(a: &BTreeSet<Line>, b: &BTreeSet<Line>) -> f64 {
    let common = a.intersection(b).count();
    let union = a.len() + b.len() - common;
    if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    }
}

/// Pairs `idg` loops with `machine` loops (see the module's description).
pub fn pair(idg: &[IdgLoop], machine: &MachineCode) -> Pairing {
    let (n, m) = (idg.len(), machine.loops.len());
    let lines = machine.has_lines && idg.iter().any(|l| !l.lines.is_empty());
    if !lines {
        if n == m {
            return Pairing {
                by: MatchedBy::ProgramOrder,
                pairs: (0..n).map(|i| (i, i)).collect(),
                why: None,
            };
        }
        return Pairing {
            by: MatchedBy::ProgramOrder,
            pairs: Vec::new(),
            why: Some(format!(
                "the machine code has {m} loops and the PTX {n}, and without line info \
                 (`.loc` in the PTX, nvdisasm -gi) they cannot be paired"
            )),
        };
    }
    // A pair's score: the overlap of its lines, and a little more where the machine loop
    // loads a whole multiple of the PTX loop's bytes per iteration (one iteration or an
    // unrolled pass). ptxas splits an unrolled PTX loop into a main loop and remainder loops
    // over the same source lines; the remainder, which loads less, is not its form. `None`:
    // too little overlap to pair.
    let score: Vec<Vec<Option<f64>>> = (0..n)
        .map(|i| {
            (0..m)
                .map(|j| {
                    let o = overlap(&idg[i].lines, &machine.loops[j].lines);
                    let (a, b) = (idg[i].load_bytes, machine.loops[j].load_bytes);
                    let whole = if a == 0 {
                        b == 0
                    } else {
                        b >= a && b.is_multiple_of(a)
                    };
                    (o >= MIN_OVERLAP).then_some(if whole { o + LOAD_MATCH } else { o })
                })
                .collect()
        })
        .collect();
    // best[i][j]: the largest summed score pairing idg[i..] with machine[j..] in order.
    let mut best = vec![vec![0.0f64; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            let take = score[i][j].map_or(f64::NEG_INFINITY, |s| s + best[i + 1][j + 1]);
            best[i][j] = take.max(best[i + 1][j]).max(best[i][j + 1]);
        }
    }
    let (mut i, mut j, mut pairs) = (0, 0, Vec::new());
    while i < n && j < m {
        let taken =
            score[i][j].is_some_and(|s| (best[i][j] - (s + best[i + 1][j + 1])).abs() < 1e-12);
        if taken {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if (best[i][j] - best[i + 1][j]).abs() < 1e-12 {
            i += 1;
        } else {
            j += 1;
        }
    }
    Pairing {
        by: MatchedBy::LineInfo,
        pairs,
        why: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::MachineLoop;

    fn lines(ls: &[u32]) -> BTreeSet<Line> {
        ls.iter().map(|l| ("k.cu".to_string(), *l)).collect()
    }

    fn idg_loop(id: u32, ls: &[u32]) -> IdgLoop {
        IdgLoop {
            id: LoopId(id),
            label: format!("L{id}"),
            ptx_line: 10 * id,
            lines: lines(ls),
            load_bytes: 4,
            loads: 1,
        }
    }

    fn machine(loops: &[&[u32]]) -> MachineCode {
        MachineCode {
            loops: loops
                .iter()
                .enumerate()
                .map(|(k, ls)| MachineLoop {
                    header: 16 * k as u64,
                    lines: lines(ls),
                    load_bytes: 4,
                    reused_destination: vec![false],
                    local: Vec::new(),
                    in_flight_bytes: 4,
                    load_groups: vec![true],
                    arithmetic: Default::default(),
                    line_order: Vec::new(),
                })
                .collect(),
            outside_load_groups: Vec::new(),
            outside_arithmetic: Default::default(),
            outside_local: Vec::new(),
            has_lines: true,
        }
    }

    #[test]
    fn line_info_skips_the_loops_ptxas_added() {
        // ptxas split the second loop into an unrolled loop and a remainder loop.
        let idg = [idg_loop(0, &[3, 4]), idg_loop(1, &[7, 8, 9])];
        let m = machine(&[&[3, 4], &[7, 8, 9], &[7, 8], &[12]]);
        let p = pair(&idg, &m);
        assert_eq!(p.by, MatchedBy::LineInfo);
        assert_eq!(p.pairs, vec![(0, 0), (1, 1)]);
    }

    #[test]
    fn of_loops_with_equal_lines_the_one_that_loads_a_whole_pass_pairs() {
        // A PTX loop unrolled by 4 (16 bytes a lane per iteration) over the same source lines
        // as ptxas' remainder loop (4 bytes) and its loop unrolled once more (64 bytes).
        let mut l = idg_loop(0, &[7, 8]);
        l.load_bytes = 16;
        let mut m = machine(&[&[7, 8], &[7, 8]]);
        m.loops[1].load_bytes = 64;
        assert_eq!(pair(&[l.clone()], &m).pairs, vec![(0, 1)]);
        // With nothing to tell them apart, the first.
        m.loops[1].load_bytes = 4;
        assert_eq!(pair(&[l], &m).pairs, vec![(0, 0)]);
    }

    #[test]
    fn loops_without_common_lines_stay_unpaired() {
        let idg = [idg_loop(0, &[3, 4]), idg_loop(1, &[20, 21])];
        let m = machine(&[&[3, 4], &[30]]);
        assert_eq!(pair(&idg, &m).pairs, vec![(0, 0)]);
    }

    #[test]
    fn without_lines_only_equal_counts_pair() {
        let idg = [idg_loop(0, &[]), idg_loop(1, &[])];
        let mut m = machine(&[&[], &[]]);
        m.has_lines = false;
        let p = pair(&idg, &m);
        assert_eq!(
            (p.by, p.pairs.clone()),
            (MatchedBy::ProgramOrder, vec![(0, 0), (1, 1)])
        );
        m.loops.pop();
        let p = pair(&idg, &m);
        assert!(p.pairs.is_empty());
        assert!(p.why.unwrap().contains("has 1 loops and the PTX 2"));
    }
}
