//! Reuse distances over the global sectors one warp touches: for a re-read, the number of
//! distinct sectors touched since the oldest last touch of its sectors (an LRU stack
//! distance), which is what a cache must hold for the re-read to hit.
//!
//! Every touch (one warp instruction) takes the next stamp; each sector is counted once, at
//! the stamp of its last touch, in a Fenwick tree over stamps, so the distinct sectors
//! touched since stamp t are the tree's sum from t on (O(log n) per sector). Stamps whose
//! sectors were all touched again hold nothing and are dropped when the stamps run out of
//! room (a compaction in linear time, amortised over as many touches), so memory follows the
//! distinct sectors the walk touched, not the touches.
//!
//! The recency also keeps the warp's instruction clock (one tick per instruction walked) at
//! each stamp, so a re-read knows how many of the warp's instructions lie between it and its
//! data's last touch ([`Reach::instructions`]): the share of the warp's time, where
//! the distance is the share of its bytes.
//!
//! Iterations of a loop the walk does not follow (a template repeat, walked once for all its
//! iterations) are summarised by [`Recency::repeat`]: each touches, after the one walked, as
//! many distinct sectors as the walked one did (stores' and shared loads' shares alike), all taken as distinct
//! from every other sector. So a later re-read's distance is an upper bound of the device's
//! whenever no iteration touches more sectors than the walked one (a second pass over a
//! long row counts the whole row, where counting only new sectors gave the one iteration
//! walked); it overstates the distance of data every iteration touches again. Re-reads inside
//! the template keep the walked iteration's distance. Their addresses are not followed, so
//! the summarised iterations hold one weight in the tree and no sector: the memory of a
//! template is its one iteration's, whatever its trip count.

use foldhash::{HashMap, HashMapExt};
use std::hash::Hash;

/// Distinct sectors: all of them, those a store touched first, and those a load every group
/// makes touched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub all: u64,
    pub written: u64,
    pub shared: u64,
}

impl Counts {
    fn plus(self, o: Counts) -> Counts {
        Counts {
            all: self.all.wrapping_add(o.all),
            written: self.written.wrapping_add(o.written),
            shared: self.shared.wrapping_add(o.shared),
        }
    }

    fn minus(self, o: Counts) -> Counts {
        Counts {
            all: self.all.wrapping_sub(o.all),
            written: self.written.wrapping_sub(o.written),
            shared: self.shared.wrapping_sub(o.shared),
        }
    }

    fn one(kind: Kind) -> Counts {
        Counts {
            all: 1,
            written: u64::from(kind.written),
            shared: u64::from(kind.shared),
        }
    }
}

/// What lies between a re-read and the oldest last touch of its sectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reach {
    /// The distinct sectors touched since, the re-read's own included (an LRU distance).
    pub touched: Counts,
    /// The instructions walked since.
    pub instructions: u64,
}

/// What a sector is: first touched by a store, loaded by every group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Kind {
    written: bool,
    shared: bool,
}

/// Summarised sectors counted at most (2^48 sectors, 8 PiB): far past any cache, and small
/// enough that the tree's sums (kept modulo 2^64, since sectors move between stamps) never
/// wrap.
const MAX_SECTORS: u64 = 1 << 48;

/// Stamps the tree holds at least, so that small walks never compact.
const MIN_STAMPS: usize = 1024;

/// The touches of one warp, by stamp of each sector's last touch.
pub(crate) struct Recency<K> {
    /// Each sector's last touch: its stamp, and what it is.
    last: HashMap<K, (usize, Kind)>,
    /// What each stamp holds: the sectors last touched there, or a template's summary.
    at: Vec<Counts>,
    /// Fenwick tree over `at` (1-based, room for `tree.len() - 1` stamps).
    tree: Vec<Counts>,
    /// The sum of `at`.
    total: Counts,
    /// The stamps where the template iterations being walked began, innermost last (kept
    /// through compactions).
    pins: Vec<usize>,
    /// Instructions walked so far, summarised iterations included.
    clock: u64,
    /// The clock at each stamp (parallel to `at`).
    clock_at: Vec<u64>,
}

impl<K: Hash + Eq + Copy> Recency<K> {
    pub(crate) fn new() -> Self {
        Self {
            last: HashMap::new(),
            at: Vec::new(),
            tree: vec![Counts::default(); MIN_STAMPS + 1],
            total: Counts::default(),
            pins: Vec::new(),
            clock: 0,
            clock_at: Vec::new(),
        }
    }

    /// One instruction walked.
    pub(crate) fn tick(&mut self) {
        self.clock = self.clock.saturating_add(1);
    }

    /// The share of every distinct sector touched so far (summaries included: the warp's
    /// traffic) that `instructions` are of the instructions walked so far.
    pub(crate) fn share(&self, instructions: u64) -> Counts {
        let clock = u128::from(self.clock.max(1));
        let part = |n: u64| {
            u64::try_from(u128::from(n) * u128::from(instructions) / clock).unwrap_or(u64::MAX)
        };
        Counts {
            all: part(self.total.all),
            written: part(self.total.written),
            shared: part(self.total.shared),
        }
    }

    /// What lies between now and the oldest last touch of `sectors`, or `None` if one of them
    /// was never touched.
    pub(crate) fn distance(&self, sectors: &[K]) -> Option<Reach> {
        // Called for every global load the walk meets: no allocation.
        let mut oldest: Option<usize> = None;
        for s in sectors {
            let stamp = self.last.get(s)?.0;
            oldest = Some(oldest.map_or(stamp, |o| o.min(stamp)));
        }
        let oldest = oldest?;
        Some(Reach {
            touched: self.total.minus(self.prefix(oldest)),
            instructions: self.clock - self.clock_at[oldest],
        })
    }

    /// Whether `sector` was touched before (at any distance).
    pub(crate) fn contains(&self, sector: &K) -> bool {
        self.last.contains_key(sector)
    }

    /// How many of `sectors` were touched before (at any distance).
    pub(crate) fn seen(&self, sectors: &[K]) -> usize {
        sectors.iter().filter(|s| self.last.contains_key(s)).count()
    }

    /// Records one touch of `sectors`: a store's when `store`, a load every group makes
    /// (the sectors stay shared) when `shared`.
    pub(crate) fn touch(&mut self, sectors: &[K], store: bool, shared: bool) {
        if sectors.is_empty() {
            return;
        }
        let stamp = self.stamp();
        for s in sectors {
            let kind = match self.last.get(s) {
                Some(&(old, kind)) => {
                    self.add(old, Counts::default().minus(Counts::one(kind)));
                    kind
                }
                None => Kind {
                    written: store,
                    shared: false,
                },
            };
            let kind = Kind {
                shared: kind.shared || shared,
                ..kind
            };
            self.last.insert(*s, (stamp, kind));
            self.add(stamp, Counts::one(kind));
        }
    }

    /// Marks the start of a walked iteration that [`Recency::repeat`] summarises.
    pub(crate) fn begin(&mut self) {
        let stamp = self.stamp();
        self.pins.push(stamp);
    }

    /// Summarises `times` more iterations like the one walked since the matching
    /// [`Recency::begin`]: each touches as many distinct sectors again, none of them known.
    pub(crate) fn repeat(&mut self, times: u64) {
        let Some(pin) = self.pins.pop() else {
            return;
        };
        // The summarised iterations take as many instructions as the walked one.
        let span = self.clock - self.clock_at[pin];
        self.clock = self.clock.saturating_add(span.saturating_mul(times));
        let walked = self.total.minus(self.prefix(pin));
        let room = MAX_SECTORS.saturating_sub(self.total.all);
        let all = walked.all.saturating_mul(times).min(room);
        if all == 0 {
            return;
        }
        let part = |n: u64| n.saturating_mul(times).min(all);
        let more = Counts {
            all,
            written: part(walked.written),
            shared: part(walked.shared),
        };
        let stamp = self.stamp();
        self.add(stamp, more);
    }

    /// A new stamp, after compacting the tree when it is full.
    fn stamp(&mut self) -> usize {
        if self.at.len() + 1 >= self.tree.len() {
            self.compact();
        }
        self.at.push(Counts::default());
        self.clock_at.push(self.clock);
        self.at.len() - 1
    }

    /// Drops the stamps that hold nothing and mark nothing, renumbers the others in order and
    /// rebuilds the tree with room for as many again.
    fn compact(&mut self) {
        let mut renumber = vec![usize::MAX; self.at.len()];
        for &p in &self.pins {
            renumber[p] = 0;
        }
        let mut kept = Vec::new();
        let mut kept_clock = Vec::new();
        for (i, c) in self.at.iter().enumerate() {
            if c.all != 0 || renumber[i] == 0 {
                renumber[i] = kept.len();
                kept.push(*c);
                kept_clock.push(self.clock_at[i]);
            }
        }
        for l in self.last.values_mut() {
            l.0 = renumber[l.0];
        }
        for p in &mut self.pins {
            *p = renumber[*p];
        }
        let room = (2 * kept.len()).max(MIN_STAMPS);
        let mut tree = vec![Counts::default(); room + 1];
        for j in 1..=room {
            if let Some(c) = kept.get(j - 1) {
                tree[j] = tree[j].plus(*c);
            }
            let up = j + (j & j.wrapping_neg());
            if up <= room {
                tree[up] = tree[up].plus(tree[j]);
            }
        }
        self.tree = tree;
        self.at = kept;
        self.clock_at = kept_clock;
    }

    fn add(&mut self, stamp: usize, c: Counts) {
        self.at[stamp] = self.at[stamp].plus(c);
        self.total = self.total.plus(c);
        let mut j = stamp + 1;
        while j < self.tree.len() {
            self.tree[j] = self.tree[j].plus(c);
            j += j & j.wrapping_neg();
        }
    }

    /// What the stamps before `stamp` hold.
    fn prefix(&self, stamp: usize) -> Counts {
        let mut sum = Counts::default();
        let mut j = stamp;
        while j > 0 {
            sum = sum.plus(self.tree[j]);
            j -= j & j.wrapping_neg();
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn since(r: &Recency<u32>, s: &[u32]) -> Option<u64> {
        r.distance(s).map(|d| d.instructions)
    }

    fn all(r: &Recency<u32>, s: &[u32]) -> Option<u64> {
        r.distance(s).map(|d| d.touched.all)
    }

    /// The distinct keys touched since the oldest last touch of `s`, by brute force.
    fn brute(history: &[Vec<u32>], s: &[u32]) -> Option<u64> {
        let last = |k: u32| history.iter().rposition(|t| t.contains(&k));
        let oldest = s.iter().map(|&k| last(k)).collect::<Option<Vec<_>>>()?;
        let oldest = *oldest.iter().min()?;
        let mut seen: Vec<u32> = history[oldest..].concat();
        seen.sort_unstable();
        seen.dedup();
        Some(seen.len() as u64)
    }

    #[test]
    fn passes_that_only_re_read_get_the_whole_row() {
        // Three passes over 16 chunks of 4 sectors: every re-read of passes 2 and 3 has the
        // whole row (64 sectors) in between. Counting only first touches gave pass 2's
        // chunk k (16 - k) chunks and pass 3 nothing.
        let mut r = Recency::new();
        let chunk = |k: u32| (4 * k..4 * k + 4).collect::<Vec<u32>>();
        for k in 0..16 {
            assert_eq!(all(&r, &chunk(k)), None);
            r.touch(&chunk(k), false, false);
        }
        for pass in 2..=3 {
            for k in 0..16 {
                assert_eq!(all(&r, &chunk(k)), Some(64), "pass {pass}, chunk {k}");
                r.touch(&chunk(k), false, false);
            }
        }
    }

    #[test]
    fn a_re_read_counts_what_was_re_read_written_and_shared_before_it() {
        // Pass 2 re-reads chunk k of x (sectors 0..32), loads chunk k of w (200..), which
        // every group loads, and writes chunk k of y (100..): since x[k]'s touch in pass 1,
        // all of x and k chunks of w and y came in between.
        let mut r = Recency::new();
        let chunk = |at: u32, k: u32| (at + 4 * k..at + 4 * k + 4).collect::<Vec<u32>>();
        for k in 0..8 {
            r.touch(&chunk(0, k), false, false);
        }
        for k in 0..8 {
            let d = r.distance(&chunk(0, k)).unwrap().touched;
            let k = u64::from(k);
            assert_eq!(
                d,
                Counts {
                    all: 32 + 8 * k,
                    written: 4 * k,
                    shared: 4 * k
                }
            );
            let k = k as u32;
            r.touch(&chunk(0, k), false, false);
            r.touch(&chunk(200, k), false, true);
            r.touch(&chunk(100, k), true, false);
        }
    }

    #[test]
    fn matches_a_brute_force_count_through_compactions() {
        // A pseudo-random touch sequence long enough to compact the stamps many times.
        let mut r = Recency::new();
        let mut history: Vec<Vec<u32>> = Vec::new();
        let mut x = 12345u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..6000 {
            let base = (next() % 300) as u32;
            let n = (next() % 4 + 1) as u32;
            let s: Vec<u32> = (base..base + n).collect();
            assert_eq!(all(&r, &s), brute(&history, &s));
            r.touch(&s, next() % 5 == 0, false);
            history.push(s);
        }
        assert!(
            r.tree.len() - 1 < 4 * MIN_STAMPS,
            "stamps follow the live sectors"
        );
    }

    #[test]
    fn summarised_iterations_count_what_the_walked_one_touched() {
        // Pass 1 over a long row, summarised: one iteration walked (4 sectors) for 100.
        let mut r = Recency::new();
        r.begin();
        r.touch(&[0, 1, 2, 3], true, false);
        r.repeat(99);
        assert_eq!(
            r.distance(&[0]).map(|d| d.touched),
            Some(Counts {
                all: 400,
                written: 400,
                shared: 0
            })
        );
        // Pass 2 re-reads the row: its walked iteration re-reads the first chunk, and the 99
        // others re-read 99 more, so after it the first chunk has the whole row in between
        // (counting new sectors only, the summary added nothing and left 4 sectors).
        r.begin();
        r.touch(&[0, 1, 2, 3], false, false);
        r.repeat(99);
        assert_eq!(
            r.distance(&[0]).map(|d| d.touched),
            Some(Counts {
                all: 400,
                written: 400,
                shared: 0
            })
        );
        // An iteration walked in a stepped loop (no more iterations) adds nothing.
        r.begin();
        r.touch(&[0], false, false);
        r.repeat(0);
        assert_eq!(all(&r, &[0]), Some(1));
    }

    #[test]
    fn a_re_read_knows_the_instructions_since_its_data_was_touched() {
        let mut r = Recency::new();
        r.tick();
        r.touch(&[0, 1], false, false);
        assert_eq!(since(&r, &[0, 1]), Some(0));
        assert_eq!(since(&r, &[9]), None);
        // Two instructions, then a loop of 10 iterations of 3, one walked for all.
        r.tick();
        r.tick();
        r.begin();
        for _ in 0..3 {
            r.tick();
        }
        r.touch(&[5], false, false);
        r.repeat(9);
        assert_eq!(r.clock, 1 + 2 + 30);
        assert_eq!(since(&r, &[0]), Some(32));
        // The oldest of the sectors decides; compactions keep the clock of every stamp.
        r.touch(&[1], false, false);
        assert_eq!(since(&r, &[0, 1]), Some(32));
        for k in 0..5000u32 {
            r.tick();
            r.touch(&[100 + k % 700], false, false);
        }
        assert_eq!(since(&r, &[0]), Some(5032));
        assert_eq!(r.total.all, 2 + 1 + 9 + 700);
    }

    #[test]
    fn marks_survive_compactions() {
        // A template iteration long enough to compact the stamps: its summary still counts
        // every sector it touched.
        let mut r = Recency::new();
        r.begin();
        for k in 0..5000 {
            r.touch(&[k % 700], false, false);
        }
        r.repeat(2);
        assert_eq!(all(&r, &[100]), Some(3 * 700));
    }
}
