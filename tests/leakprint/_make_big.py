#!/usr/bin/env python3
"""Make a big massif file by repeating the snapshots of a real one.

Usage: _make_big.py SRC OUT MEGABYTES

Snapshots are renumbered 0..n-1, times keep increasing, and only the last
copy keeps its heap_tree=peak (earlier copies become detailed), so the
result is a valid file that both ms_print and leakprint render.
Used by bench.sh for the 100 MB speed comparison.
"""
import sys

src, out, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
lines = open(src).read().split('\n')
if lines and lines[-1] == '':
    lines.pop()
header, snaps, cur = lines[:3], [], None
for l in lines[3:]:
    if l.startswith('snapshot='):
        cur = []
        snaps.append(cur)
        continue
    if cur is not None and l != '#-----------':
        cur.append(l)
size = sum(len(l) + 1 for s in snaps for l in s) + 40 * len(snaps)
reps = max(1, int(mb * 1024 * 1024 / max(size, 1)) + 1)
last_time = max(int(s[0].split('=')[1]) for s in snaps) + 1
with open(out, 'w') as f:
    f.write('\n'.join(header) + '\n')
    n = 0
    for r in range(reps):
        for s in snaps:
            t = int(s[0].split('=')[1]) + r * last_time
            body = ['time=%d' % t] + s[1:]
            if r != reps - 1:
                body = ['heap_tree=detailed' if b == 'heap_tree=peak' else b for b in body]
            f.write('#-----------\nsnapshot=%d\n#-----------\n' % n)
            f.write('\n'.join(body) + '\n')
            n += 1
