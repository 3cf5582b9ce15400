# A real service nobody here wrote: Debian's nginx, a master and a
# worker (forked, then setuid to nobody when run as root), serving gzipped and plain files
# on 127.0.0.1, asked for a snapshot of master and worker while it runs
# (`leakprof --snapshot`: nginx has a SIGUSR1 handler of its own), then
# stopped gracefully with SIGQUIT. As natively: the same replies and exit
# status; every process writes its report and massif file, which
# Valgrind's ms_print reads; with quarantine=yes (Memcheck's freelist,
# so that freed addresses are not handed out again at once) each
# process's in-use block count and definitely and indirectly lost bytes
# and blocks are Memcheck's. Bytes in use differ by the length of the
# environment nginx copies for its process title (LD_PRELOAD differs).
# One worker: with two, which of them ends with a 27 KB block definitely
# lost changes from run to run, under Memcheck as here.
. "$(dirname "$0")/_lib.sh"
NGINX=$(command -v nginx || ls /usr/sbin/nginx 2>/dev/null)
[ -x "$NGINX" ] && command -v curl >/dev/null ||
    { echo "SKIP: real service (no nginx or curl)"; exit 0; }
LP=$TOP/$O/leakprof
# A port nothing answers on yet.
for PORT in $((20000 + $$ % 20000)) $((21000 + $$ % 19000)) $((22000 + $$ % 18000)); do
    curl -s -o /dev/null "http://127.0.0.1:$PORT/" || break
done
mkdir -p "$WORK/html" "$WORK/tmp" "$WORK/logs"
chmod 1777 "$WORK"  # the workers (nobody) write their snapshot files
chmod 755 "$WORK/html"
chmod 777 "$WORK/tmp"
echo "hello from nginx" >"$WORK/html/index.html"
seq 1 40000 >"$WORK/html/big.txt"
chmod 644 "$WORK/html/"*
cat >"$WORK/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes 1;
error_log $WORK/logs/error.log;
pid $WORK/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $WORK/tmp;
  proxy_temp_path $WORK/tmp;
  fastcgi_temp_path $WORK/tmp;
  uwsgi_temp_path $WORK/tmp;
  scgi_temp_path $WORK/tmp;
  server {
    listen 127.0.0.1:$PORT;
    root $WORK/html;
    gzip on;
    gzip_types text/plain;
  }
}
EOF
# serve TAG [PID_HOOK]: the replies to 40 requests in TAG.replies; nginx
# is up when its port answers. Returns 1 if it never did.
serve() {
    local i
    for i in $(seq 300); do
        curl -s -o /dev/null "http://127.0.0.1:$PORT/index.html" && break
        sleep 0.1
    done
    [ "$i" = 300 ] && return 1
    for i in $(seq 20); do
        curl -s -H 'Accept-Encoding: gzip' "http://127.0.0.1:$PORT/big.txt" | gzip -dc | md5sum
        curl -s "http://127.0.0.1:$PORT/index.html"
    done >"$WORK/$1.replies"
}
# stop: SIGQUIT to the master, then its exit status (from the caller's
# wait).
stop() { kill -QUIT "$(cat "$WORK/nginx.pid")"; }

"$NGINX" -p "$WORK" -c "$WORK/nginx.conf" >"$WORK/native.out" 2>&1 & pid=$!
if ! serve native; then
    kill $pid 2>/dev/null; wait $pid 2>/dev/null
    echo "SKIP: real service (nginx does not start here: $(tail -1 "$WORK/logs/error.log" 2>/dev/null))"
    exit 0
fi
stop; wait $pid; nrc=$?

LEAKPROF_OPTIONS=quarantine=yes "$LP" --trace-children=yes --log-file="$WORK/lp.%p.txt" \
    --massif="$WORK/massif.%p" "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" >"$WORK/lp.out" 2>&1 & pid=$!
serve lp
master=$(cat "$WORK/nginx.pid")
worker=$(pgrep -P "$master" | head -1)
"$LP" --snapshot "$master" >/dev/null 2>&1
"$LP" --snapshot "$worker" >/dev/null 2>&1
for i in $(seq 100); do
    [ -f "$WORK/massif.$master.1" ] && [ -f "$WORK/massif.$worker.1" ] &&
        grep -q "Live leak check 1" "$WORK/lp.$worker.txt" 2>/dev/null && break
    sleep 0.1
done
check "snapshot: the master wrote massif.PID.1 and keeps serving" \
    sh -c "[ -s '$WORK/massif.$master.1' ] && curl -s http://127.0.0.1:$PORT/index.html | grep -q hello"
check "snapshot: the worker (setuid nobody) wrote massif.PID.1 and a live leak report" \
    sh -c "[ -s '$WORK/massif.$worker.1' ] && grep -q 'Live leak check 1 on SIGUSR1' '$WORK/lp.$worker.txt'"
stop; wait $pid; rc=$?
as_native "nginx: replies" "$WORK/lp.replies" $rc "$WORK/native.replies" $nrc
check "nginx: nothing of ours on its output" [ ! -s "$WORK/lp.out" ]
n=$(ls "$WORK"/lp.*.txt | wc -l)
check "nginx: a report per process (master, worker: $n)" [ "$n" = 2 ]
for f in "$WORK"/lp.*.txt; do
    check "nginx: $(basename "$f") ends with the exit report" grep -q "ERROR SUMMARY" "$f"
done
if command -v ms_print >/dev/null; then
    for f in "$WORK"/massif.*; do
        check "ms_print reads $(basename "$f" | sed "s/[0-9][0-9]*/PID/")" \
            sh -c "ms_print '$f' >/dev/null 2>&1"
    done
fi

have_valgrind || { echo "SKIP: nginx against memcheck (no valgrind)"; exit 0; }
valgrind --trace-children=yes --leak-check=full --log-file="$WORK/mc.%p.txt" \
    "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" >/dev/null 2>&1 & pid=$!
serve mc
stop; wait $pid
# The figures compared: in-use blocks, definitely and indirectly lost.
figures() { # FILE
    tr -d , <"$1" | sed -nE 's/.*in use at exit: [0-9]+ bytes in ([0-9]+) blocks.*/use \1/p;
        s/.*(definitely|indirectly) lost: ([0-9]+) bytes in ([0-9]+) blocks.*/\1 \2 \3/p' | paste -sd' '
}
# A process's role: the master is the one whose parent is not an nginx.
by_role() { # PREFIX: "master FIGURES" and sorted "worker FIGURES" lines
    local f pids
    pids=$(ls "$WORK"/$1.*.txt | sed -E "s#.*/$1\.([0-9]+)\.txt#\1#")
    for f in "$WORK"/$1.*.txt; do
        p=$(grep -m1 -o 'Parent PID: [0-9]*' "$f" | grep -o '[0-9]*$')
        if printf '%s\n' $pids | grep -qx "$p"; then r=worker; else r=master; fi
        echo "$r $(figures "$f")"
    done | sort
}
by_role lp >"$WORK/lp.fig"
by_role mc >"$WORK/mc.fig"
cat "$WORK/lp.fig" "$WORK/mc.fig"
check "nginx with quarantine=yes: blocks in use, definitely and indirectly lost as Memcheck's, per process" \
    cmp -s "$WORK/lp.fig" "$WORK/mc.fig"
