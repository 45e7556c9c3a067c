//! Development aid: allocations and live bytes of one parse.
//! `cargo run --release -p ptx --example alloc_count -- FILE`
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        let n = LIVE.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(n, Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        let v = LIVE.fetch_add(n, Relaxed) + n;
        PEAK.fetch_max(v, Relaxed);
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "ptx_samples/large/big_debug.ptx".to_string());
    let src = std::fs::read_to_string(&path).unwrap();
    let (a0, l0) = (ALLOCS.load(Relaxed), LIVE.load(Relaxed));
    PEAK.store(l0, Relaxed);
    let m = ptx::parse(&src).unwrap();
    println!(
        "{path}: {} bytes input, {} allocations, {} bytes live after parse, {} peak",
        src.len(),
        ALLOCS.load(Relaxed) - a0,
        LIVE.load(Relaxed) - l0,
        PEAK.load(Relaxed) - l0
    );
    drop(m);
}
