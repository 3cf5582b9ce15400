/* SPDX-License-Identifier: MIT */
/*
 * config_parse.c - reading LEAKPROF_OPTIONS: the text cut into key=value
 * items (':' or whitespace between them, quotes keeping either, as
 * ASAN_OPTIONS), each applied through its row of the option table
 * (config.c), and one warning line for an item that is wrong.
 * Context: BOOT. No allocation: everything lands in fixed buffers.
 */
#include "preload/life/config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void warn_line(bool warn, bool cmdline, const char *what,
                      const char *key, const char *val)
{
    char buf[512], dashed[128];
    size_t i;
    int n;

    if (!warn)
        return;
    /* On the command line the user wrote --some-key: say it that way. */
    if (cmdline) {
        for (i = 0; key[i] && i + 3 < sizeof(dashed); i++)
            dashed[i + 2] = key[i] == '_' ? '-' : key[i];
        dashed[0] = dashed[1] = '-';
        dashed[i + 2] = 0;
        key = dashed;
    }
    n = snprintf(buf, sizeof(buf), "==%d== leakprof: %s '%s%s%s' %s, ignored\n",
                 (int)getpid(), what, key, val ? "=" : "", val ? val : "",
                 cmdline ? "on the leakprof command line" : "in LEAKPROF_OPTIONS");
    if (n > (int)sizeof(buf))
        n = sizeof(buf);
    (void)!write(2, buf, n);
}

const struct lp_option *lp_option_find(const char *key)
{
    size_t i;

    for (i = 0; i < lp_noptions; i++)
        if (!strcmp(lp_options[i].key, key))
            return &lp_options[i];
    return NULL;
}

void lp_config_defaults(struct lp_config *c)
{
    size_t i;

    memset(c, 0, sizeof(*c));
    for (i = 0; i < lp_noptions; i++)
        if (lp_options[i].defval)
            lp_options[i].set(c, lp_options[i].defval);
}

int lp_config_apply(struct lp_config *c, const char *key, const char *value)
{
    const struct lp_option *o = lp_option_find(key);

    if (!o)
        return -ENOENT;
    return o->set(c, value) ? 0 : -EINVAL;
}

static bool is_separator(char ch)
{
    return ch == ':' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

int lp_config_next_item(const char **p, char *item, size_t n)
{
    const char *s = *p;
    char quote = 0;
    size_t len = 0;
    bool fits = true;

    while (*s && is_separator(*s))
        s++;
    if (!*s) {
        *p = s;
        return 0;
    }
    for (; *s && (quote || !is_separator(*s)); s++) {
        if (quote ? *s == quote : (*s == '\'' || *s == '"')) {
            quote = quote ? 0 : *s;
            continue;
        }
        if (len + 1 < n)
            item[len++] = *s;
        else
            fits = false;
    }
    *p = s;
    if (n)
        item[len] = 0;
    return fits ? (int)(len ? len : 1) : -1;
}

int lp_config_parse(struct lp_config *c, const char *text, bool warn)
{
    char item[LP_CONFIG_PATH_MAX * 2];
    const char *p = text;
    int problems = 0, len;

    lp_config_defaults(c);
    if (!text || !*text)
        return 0;
    if (strlen(text) >= sizeof(c->options_text)) {
        warn_line(warn, false, "value too long", "LEAKPROF_OPTIONS", NULL);
        return 1;
    }
    strcpy(c->options_text, text);
    while ((len = lp_config_next_item(&p, item, sizeof(item))) != 0) {
        char *eq = strchr(item, '=');
        int rc;

        if (len < 0) {
            warn_line(warn, c->from_cmdline, "value too long", item, NULL);
            problems++;
            continue;
        }
        if (!*item) /* only quotes: "" */
            continue;
        if (!eq) {
            warn_line(warn, c->from_cmdline, "option without a value", item,
                      NULL);
            problems++;
            continue;
        }
        *eq = 0;
        rc = lp_config_apply(c, item, eq + 1);
        if (rc != 0) {
            warn_line(warn, c->from_cmdline,
                      rc == -ENOENT ? "unknown option" : "bad value", item,
                      eq + 1);
            problems++;
        }
    }
    return problems;
}
