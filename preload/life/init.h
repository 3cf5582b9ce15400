/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_INIT_H
#define LP_PRELOAD_INIT_H
/*
 * init.h - bringing the library up (init.c). The hot path's question,
 * "ready?", is lp_track_init() in track.h.
 * Context: BOOT; lp_init_request_service SIGNAL-safe.
 */
#include "preload/lp.h"

/* 0 none, 1 running, 2 done, 3 done and a service request is pending. */
#define lp_init_state (lp_hot.init_state)

/* The slow path of lp_track_init(): bring the profiler up, or wait for
 * the thread that does, or serve a pending request. */
bool lp_init_slow(void);

/* From a signal handler (async-signal-safe): ask the next allocation, in
 * any thread, to start the snapshot dumper (snapshot_signal.c) outside the
 * handler. Costs the hot path nothing: the ready check fails once. */
void lp_init_request_service(void);

#endif /* LP_PRELOAD_INIT_H */
