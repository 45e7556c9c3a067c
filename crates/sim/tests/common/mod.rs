//! What the fast-forward and sampling tests share: options with a small window and ring, and
//! random looping kernels for their property tests.

use idg::BarrierKind;
use proptest::prelude::*;
use sim::synth::{Piece, SynthNode};
use sim::{IssueOrder, Scheduler, SimOptions};

pub fn options(sched: Scheduler, order: IssueOrder, parts: bool) -> SimOptions {
    SimOptions {
        scheduler: sched,
        order,
        sub_partitions: parts,
        window: 8,
        ring: 32,
        ..SimOptions::default()
    }
}

/// A random body in a loop of 20 to `max_reps` iterations, sometimes with a barrier.
pub fn body_strategy(max_reps: u64) -> impl Strategy<Value = Vec<Piece>> {
    (
        prop::collection::vec(
            (0u16..3, prop::collection::vec(0u32..6, 0..3), 0u32..6),
            1..7,
        ),
        any::<bool>(),
        20u64..max_reps,
    )
        .prop_map(|(nodes, barrier, reps)| {
            let mut body: Vec<Piece> = nodes
                .into_iter()
                .map(|(s, reads, w)| Piece::Node(SynthNode::op(s, &reads, &[w])))
                .collect();
            if barrier {
                body.push(Piece::Node(SynthNode::barrier(2, BarrierKind::Sync)));
            }
            vec![Piece::Repeat(reps, body)]
        })
}

/// A (λ, Λ) table in cycles from drawn eighths: λ = l/8, Λ = (l + latency)/8.
pub fn eighths(table: Vec<(u32, u32)>) -> Vec<(f64, f64)> {
    table
        .into_iter()
        .map(|(l, lat)| (f64::from(l) / 8.0, f64::from(l + lat) / 8.0))
        .collect()
}
