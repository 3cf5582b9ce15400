/* SPDX-License-Identifier: MIT */
/*
 * init.c - bringing the library up: the first allocation (or our
 * constructor) parses the options, sizes the recently-freed queue and
 * starts massif; a process in secure execution gets nothing of it.
 *
 * The hot path only asks "ready?" (lp_track_init in track.h: one acquire
 * load); everything else is here, run once per process.
 * Context: BOOT (no allocation through the hooks); lp_init_request_service
 * is SIGNAL-safe.
 */
#include "preload/life/exit_lists.h"
#include "preload/life/init.h"

#include "report/line_writer.h"
#include "report/symbolize.h"

#include "preload/hot/nursery.h"

#include <stdlib.h>
#include <sys/auxv.h>

#include "preload/life/child_env.h"
#include "preload/life/config.h"
#include "preload/scan/xml_out.h"
#include "preload/hot/freed.h"
#include "preload/hot/guard.h"
#include "preload/hot/real.h"
#include "preload/hot/sample.h"
#include "preload/life/snapshot_signal.h"
#include "preload/hot/snapshot.h"
#include "preload/hot/stack.h"
#include "preload/hot/stack_count.h"
#include "preload/hot/track.h"
#include "preload/hot/unwind_rules_file.h"

#define init_here (lp_self.track_init_here)

void lp_init_request_service(void)
{
    int expect = 2;

    lp_cas(&lp_init_state, &expect, 3);
}

/* Serve a pending request, outside any handler and any lock of ours. */
static LP_NOINLINE bool serve_request(void)
{
    int expect = 3;

    if (!lp_guard_held && lp_cas(&lp_init_state, &expect, 2))
        lp_signal_start_dumper();
    return true;
}

/* The hot line's copies (lp.h), before init_state says ready. */
static void lp_hot_set(void)
{
    lp_hot.malloc = lp_real.malloc;
    lp_hot.calloc = lp_real.calloc;
    lp_hot.free = lp_real.free;
    lp_hot_pass_update();
}

bool lp_init_slow(void)
{
    int expect = 0, st = lp_load_acquire(&lp_init_state);

    if (LP_LIKELY(st == 2))
        return true;
    if (st == 3)
        return serve_request();
    if (init_here)
        return lp_real_init();
    if (!lp_cas(&lp_init_state, &expect, 1)) {
        while (lp_load_acquire(&lp_init_state) < 2)
            ;
        return true;
    }
    init_here = true;
    lp_errno_locate();
    lp_real_init();
    if (getauxval(AT_SECURE)) {
        /* setuid/setgid: the caller's environment must not steer a
         * privileged process; read no options, write nothing, install
         * nothing. Every hook passes straight through. */
        lp_config_parse(&lp_config, NULL, false);
        lp_hot_set();
        init_here = false;
        lp_store_release(&lp_state, LP_STATE_DONE);
        lp_store_release(&lp_init_state, 2);
        return true;
    }
    {
        bool exec_child;

        const char *text = lp_child_env_options(&exec_child);

        lp_config_parse(&lp_config, text, true);
        lp_xml_out_note_options(text);
        if (exec_child)
            lp_config.exec_child = true;
    }
    lp_line_style_set(lp_config.time_stamp, lp_config.error_markers);
    lp_sym_set_demangle(!lp_config.no_demangle);
    lp_sym_set_fullpath_after(lp_config.fullpath_after,
                              lp_config.nfullpath_after);
    lp_sym_set_below_main(&(struct lp_sym_below_main){
        .on = lp_config.show_below_main, .depth = lp_config.depth });
    lp_exit_lists_init();
    lp_rules_file_init();
    lp_freed_set_volume(lp_config.freelist_vol);
    lp_sample_init();
    (void)lp_stack_is_self((uintptr_t)&lp_init_slow);
    lp_snapshot_init();
    /* The thread that brings the library up (main, nearly always) gets
     * the first nursery and a site-counter cache; threads we start get
     * theirs with their record (thread_registry.c). */
    lp_self.nursery = lp_nursery_main();
    if (lp_self.stack_local == NULL)
        lp_self.stack_local = lp_stack_local_new();
    lp_hot_set();
    init_here = false;
    lp_store_release(&lp_state, LP_STATE_READY);
    lp_store_release(&lp_init_state, 2);
    return true;
}
