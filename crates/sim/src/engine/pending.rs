//! The instructions of a partition whose predecessors have all issued, waiting for their
//! readiness time: a binary heap ordered by readiness alone. The engine takes due entries in
//! any order (entries due at one instant enter the ready sets with the same snapshots, and the
//! ready sets do not depend on insertion order), so ties need no order, and each sift compares
//! one word.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// An instruction waiting for its readiness time.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub ready: u64,
    pub slot: u32,
    pub sub: u16,
    pub seq: u64,
}

/// Reversed on `ready`, for a min-heap.
#[derive(Debug, Clone, Copy)]
struct ByReady(Entry);

impl PartialEq for ByReady {
    fn eq(&self, other: &Self) -> bool {
        self.0.ready == other.0.ready
    }
}

impl Eq for ByReady {}

impl PartialOrd for ByReady {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ByReady {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.ready.cmp(&self.0.ready)
    }
}

#[derive(Debug, Default)]
pub(super) struct Pending {
    heap: BinaryHeap<ByReady>,
}

impl Pending {
    pub(super) fn push(&mut self, e: Entry) {
        self.heap.push(ByReady(e));
    }

    /// The earliest readiness (`u64::MAX` when empty).
    pub(super) fn min(&self) -> u64 {
        self.heap.peek().map_or(u64::MAX, |e| e.0.ready)
    }

    /// Moves every entry ready at or before `now` to `out`.
    pub(super) fn pop_due(&mut self, now: u64, out: &mut Vec<Entry>) {
        while self.min() <= now {
            if let Some(e) = self.heap.pop() {
                out.push(e.0);
            }
        }
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Entry> + '_ {
        self.heap.iter().map(|e| &e.0)
    }

    /// Moves every readiness `dt` later.
    pub(super) fn shift(&mut self, dt: u64) {
        // A uniform shift keeps the heap order.
        let mut v = std::mem::take(&mut self.heap).into_vec();
        for e in &mut v {
            e.0.ready += dt;
        }
        self.heap = BinaryHeap::from(v);
    }
}
