# A Rust program (system allocator, -O with debug info) against Memcheck:
# rustc nests every function in the DIEs of its module path, so its
# inlined frames are found only by a walk through namespaces; names are
# Rust's legacy and v0 manglings, demangled as Memcheck prints them;
# file names keep the directories rustc writes into its line tables
# (library/alloc/src/fmt.rs). The whole report must be Memcheck's, and
# the program must run as natively (exit status 3 of its own).
. "$(dirname "$0")/_lib.sh"
command -v rustc >/dev/null 2>&1 || { echo "SKIP: rust symbols (no rustc)"; exit 0; }
bin=$WORK/rust_leaks
rustc -g -O -o "$bin" "$TOP/samples/rust_leaks.rs" 2>"$WORK/rustc.err" || {
    fail "rustc builds the sample"; cat "$WORK/rustc.err"; exit 0; }
run_lp "$WORK/rust.txt" "show_leak_kinds=all" "$bin"
check "rust: the forgotten Box is definitely lost" grep -q "definitely lost: 24 bytes in 1 blocks" "$WORK/rust.txt"
check "rust: v0 names demangled" grep -q 'by 0x[0-9A-F]*: <alloc::raw_vec::RawVecInner>::finish_grow' "$WORK/rust.txt"
check "rust: inlined frames expanded" grep -q "by 0x[0-9A-F]*: format (library/alloc/src/fmt.rs:[0-9]*)" "$WORK/rust.txt"
if grep -q ' _R[A-Za-z0-9_]* (' "$WORK/rust.txt"; then
    fail "rust: no mangled name left"; grep ' _R[A-Za-z0-9_]* (' "$WORK/rust.txt" | head -3
else
    pass "rust: no mangled name left"
fi
if have_valgrind; then
    run_mc "$WORK/mc_rust.txt" "--leak-check=full --show-leak-kinds=all" "$bin"
    same_as_memcheck "rust: whole report as Memcheck's" "$WORK/rust.txt" "$WORK/mc_rust.txt"
else
    echo "SKIP: rust: report as Memcheck's (no valgrind)"
fi

# A Rust thread that overflows its stack: Rust's own handler (on its own
# small alternate stack) says so and aborts; our SIGABRT report must not
# overflow what is left of that stack (it ran out there, and the process
# died of SIGSEGV with no report). Status 134 and stdout as native.
cat >"$WORK/rust_overflow.rs" <<'RS'
fn deeper(n: u64) -> u64 { let a = [n; 64]; if n == u64::MAX { 0 } else { deeper(n + 1) + a[3] } }
fn main() {
    std::mem::forget(vec![1u8; 100]);
    println!("start");
    let _ = std::thread::spawn(|| deeper(0)).join();
}
RS
if rustc -C opt-level=0 -o "$WORK/rust_overflow" "$WORK/rust_overflow.rs" 2>"$WORK/rustc2.err"; then
    run_lp "$WORK/rust_overflow.txt" "" "$WORK/rust_overflow" 2>/dev/null
    check "rust thread overflow: the SIGABRT block" grep -q 'Process terminating with default action of signal 6 (SIGABRT)' "$WORK/rust_overflow.txt"
    if have_valgrind; then
        run_mc "$WORK/mc_rust_overflow.txt" "" "$WORK/rust_overflow" 2>/dev/null
        vs_memcheck "rust thread overflow: summary as Memcheck's" "$WORK/rust_overflow.txt" "$WORK/mc_rust_overflow.txt"
    fi
else
    fail "rustc builds the overflow sample"; cat "$WORK/rustc2.err"
fi
