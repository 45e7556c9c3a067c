//! Property tests: dominators and post-dominators agree with the textbook iterative
//! data-flow definition on random CFGs; every natural loop's header dominates its blocks.

// Index loops keep the reference implementation in the textbook's set-of-indices form.
#![allow(clippy::needless_range_loop)]

use ir::{BlockId, Cfg, DomTree, LoopForest, PostDomTree};
use proptest::prelude::*;
use smallvec::SmallVec;

fn cfg_strategy() -> impl Strategy<Value = Cfg> {
    (1usize..10).prop_flat_map(|n| {
        proptest::collection::vec(proptest::collection::vec(0..n, 0..3), n).prop_map(move |succ| {
            let succs: Vec<SmallVec<[BlockId; 2]>> = succ
                .into_iter()
                .map(|v| {
                    let mut s: SmallVec<[BlockId; 2]> = SmallVec::new();
                    for t in v {
                        let b = BlockId(t as u32);
                        if !s.contains(&b) {
                            s.push(b);
                        }
                    }
                    s
                })
                .collect();
            let exits = (0..n)
                .filter(|i| succs[*i].is_empty())
                .map(|i| BlockId(i as u32))
                .collect();
            Cfg::new(succs, exits)
        })
    })
}

/// Dom sets by iteration to a fixed point over `preds`, from `roots`.
fn naive(n: usize, roots: &[usize], preds: &dyn Fn(usize) -> Vec<usize>) -> Vec<Option<Vec<bool>>> {
    // Reachability from the roots along the reverse of `preds`.
    let mut reach = vec![false; n];
    let mut work: Vec<usize> = roots.to_vec();
    for r in roots {
        reach[*r] = true;
    }
    while let Some(b) = work.pop() {
        for s in 0..n {
            if !reach[s] && preds(s).contains(&b) {
                reach[s] = true;
                work.push(s);
            }
        }
    }
    let mut dom: Vec<Vec<bool>> = (0..n)
        .map(|i| {
            if roots.contains(&i) {
                (0..n).map(|j| j == i).collect()
            } else {
                vec![true; n]
            }
        })
        .collect();
    loop {
        let mut changed = false;
        for b in 0..n {
            if !reach[b] || roots.contains(&b) {
                continue;
            }
            let mut d = vec![true; n];
            for p in preds(b).into_iter().filter(|p| reach[*p]) {
                for j in 0..n {
                    d[j] &= dom[p][j];
                }
            }
            d[b] = true;
            if d != dom[b] {
                dom[b] = d;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    (0..n).map(|b| reach[b].then(|| dom[b].clone())).collect()
}

proptest! {
    #[test]
    fn dominators_match_dataflow(cfg in cfg_strategy()) {
        let n = cfg.len();
        let dom = DomTree::new(&cfg);
        let want = naive(n, &[0], &|b| cfg.preds(BlockId(b as u32)).iter().map(|p| p.index()).collect());
        for b in 0..n {
            match &want[b] {
                None => prop_assert!(!dom.is_reachable(BlockId(b as u32))),
                Some(d) => for a in 0..n {
                    prop_assert_eq!(dom.dominates(BlockId(a as u32), BlockId(b as u32)), d[a], "{} dom {}", a, b);
                },
            }
        }
    }

    #[test]
    fn post_dominators_match_dataflow(cfg in cfg_strategy()) {
        let n = cfg.len();
        let pdom = PostDomTree::new(&cfg);
        // Post-dominance from the exits over successors; the virtual exit joins all exits,
        // so exit blocks are treated as roots whose sets hold only themselves.
        let exits: Vec<usize> = cfg.exits().iter().map(|e| e.index()).collect();
        let want = naive(n, &exits, &|b| cfg.succs(BlockId(b as u32)).iter().map(|s| s.index()).collect());
        for b in 0..n {
            match &want[b] {
                None => prop_assert!(!pdom.reaches_exit(BlockId(b as u32))),
                Some(d) => for a in 0..n {
                    prop_assert_eq!(pdom.post_dominates(BlockId(a as u32), BlockId(b as u32)), d[a], "{} pdom {}", a, b);
                },
            }
        }
    }

    #[test]
    fn loops_are_dominated_by_headers(cfg in cfg_strategy()) {
        let dom = DomTree::new(&cfg);
        if let Ok(forest) = LoopForest::new(&cfg, &dom) {
            for l in forest.ids() {
                let lp = forest.get(l);
                for b in &lp.blocks {
                    prop_assert!(dom.dominates(lp.header, *b));
                }
                for x in &lp.latches {
                    prop_assert!(cfg.succs(*x).contains(&lp.header));
                }
                if let Some(p) = lp.parent {
                    let outer = forest.get(p);
                    prop_assert!(lp.blocks.iter().all(|b| outer.contains(*b)));
                    prop_assert_eq!(lp.depth, outer.depth + 1);
                }
            }
        }
    }
}
