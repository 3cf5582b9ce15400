// SPDX-License-Identifier: MIT
//
// rust_leaks.rs - tests/e2e/rust_symbols.sh builds it with rustc when there
// is one.
//
// A Rust program on the system allocator: a Vec of Strings kept in a
// static (still reachable), a Box forgotten (definitely lost) holding a
// Vec (indirectly lost), text built with format! through inlined
// std code, and an exit status of its own.
use std::sync::Mutex;

static KEEP: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Node {
    items: Vec<u64>,
}

#[inline(never)]
fn build(n: u64) -> Box<Node> {
    Box::new(Node { items: (0..n).collect() })
}

#[inline(never)]
fn forget_one() -> usize {
    let lost = build(100);
    let n = lost.items.len();
    std::mem::forget(lost);
    n
}

fn main() {
    let n = forget_one();
    for i in 0..20 {
        KEEP.lock().unwrap().push(format!("entry number {}", i));
    }
    println!("{} {}", KEEP.lock().unwrap().len(), n);
    std::process::exit(3);
}
