/* SPDX-License-Identifier: MIT */
/*
 * test_xml.c - report/xml: text escaping, Valgrind's time format, the
 * <suppression> element built from a generated suppression, the
 * document's head and tail. (tests/e2e/xml.sh parses whole documents
 * and compares them with valgrind --xml=yes's.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/xml.h"

typedef void writer(FILE *f, const void *arg);

static char *capture(writer *w, const void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    w(f, arg);
    fclose(f);
    return buf;
}

static void text_w(FILE *f, const void *arg) { lp_xml_text(f, arg); }

#define ESC_EQ(in, want)                         \
    do {                                         \
        char *got_ = capture(text_w, in);        \
        assert_string_equal(got_, want);         \
        free(got_);                              \
    } while (0)

static void test_escape(void **state)
{
    (void)state;
    ESC_EQ(NULL, "");
    ESC_EQ("plain", "plain");
    ESC_EQ("a & b", "a &amp; b");
    ESC_EQ("std::map<int, char*>::operator[](int const&)",
           "std::map&lt;int, char*&gt;::operator[](int const&amp;)");
    ESC_EQ("x -> y", "x -&gt; y");
    /* Quotes need no escape in character data. */
    ESC_EQ("\"q\" 'a'", "\"q\" 'a'");
    /* Tab and newline are XML characters; other controls are not. */
    ESC_EQ("a\tb\nc", "a\tb\nc");
    ESC_EQ("\x01\x1f\x7f", "???");
    /* Valid UTF-8 passes, invalid bytes become '?'. */
    ESC_EQ("caf\xc3\xa9", "caf\xc3\xa9");
    ESC_EQ("a\x80z\xff", "a?z?");
    ESC_EQ("\xe2\x82", "??");
}

static void test_time(void **state)
{
    char t[64];

    (void)state;
    assert_string_equal(lp_xml_time(t, sizeof(t), 0), "00:00:00:00.000 ");
    assert_string_equal(lp_xml_time(t, sizeof(t), 36), "00:00:00:00.036 ");
    assert_string_equal(lp_xml_time(t, sizeof(t), 61001), "00:00:01:01.001 ");
    assert_string_equal(lp_xml_time(t, sizeof(t), 90061001ull),
                        "01:01:01:01.001 ");
}

static void supp_w(FILE *f, const void *arg) { lp_xml_suppression(f, arg); }

static void test_suppression(void **state)
{
    const char *raw = "{\n   <insert_a_suppression_name_here>\n"
                      "   Memcheck:Leak\n   match-leak-kinds: definite\n"
                      "   fun:malloc\n   fun:_ZN1AIiE1fEv\n   obj:/lib/a<b>.so\n"
                      "}\n";
    char *got = capture(supp_w, raw);
    char want[1024];

    (void)state;
    snprintf(want, sizeof(want),
             "  <suppression>\n"
             "    <sname>insert_a_suppression_name_here</sname>\n"
             "    <skind>Memcheck:Leak</skind>\n"
             "    <skaux>match-leak-kinds: definite</skaux>\n"
             "    <sframe> <fun>malloc</fun> </sframe>\n"
             "    <sframe> <fun>_ZN1AIiE1fEv</fun> </sframe>\n"
             "    <sframe> <obj>/lib/a&lt;b&gt;.so</obj> </sframe>\n"
             "    <rawtext>\n<![CDATA[\n%s]]>\n    </rawtext>\n"
             "  </suppression>\n",
             raw);
    assert_string_equal(got, want);
    free(got);
}

static void head_w(FILE *f, const void *arg) { lp_xml_begin(f, arg); }

static void test_head(void **state)
{
    static const char cmd[] = "./app\0a<b\0";
    const char *vargv[] = { "--xml=yes", "--xml-file=x.%p.xml" };
    struct lp_xml_head h = { .pid = 42, .ppid = 7, .command = cmd,
                             .command_len = sizeof(cmd) - 1,
                             .vargv_exe = "leakprof", .vargv = vargv,
                             .nvargv = 2, .start_ms = 36 };
    char *got = capture(head_w, &h);

    (void)state;
    assert_true(strncmp(got, "<?xml version=\"1.0\"?>\n\n<valgrindoutput>\n\n"
                             "<protocolversion>4</protocolversion>\n"
                             "<protocoltool>memcheck</protocoltool>\n", 105) == 0);
    assert_non_null(strstr(got, "<pid>42</pid>\n<ppid>7</ppid>\n<tool>memcheck</tool>\n"));
    assert_non_null(strstr(got, "  <line>Command: ./app a\\&lt;b</line>\n"));
    assert_non_null(strstr(got, "  <vargv>\n    <exe>leakprof</exe>\n"
                                "    <arg>--xml=yes</arg>\n"
                                "    <arg>--xml-file=x.%p.xml</arg>\n  </vargv>\n"));
    assert_non_null(strstr(got, "  <argv>\n    <exe>./app</exe>\n"
                                "    <arg>a&lt;b</arg>\n  </argv>\n"));
    assert_non_null(strstr(got, "<status>\n  <state>RUNNING</state>\n"
                                "  <time>00:00:00:00.036 </time>\n</status>\n"));
    free(got);
}

static void end_w(FILE *f, const void *arg)
{
    const unsigned count[] = { 3, 1 };

    (void)arg;
    lp_xml_end(f, count, 2, NULL, 0);
}

static void test_end(void **state)
{
    char *got = capture(end_w, NULL);

    (void)state;
    /* The latest context first, as Memcheck lists them. */
    assert_string_equal(got,
                        "<errorcounts>\n"
                        "  <pair>\n    <count>1</count>\n    <unique>0x1</unique>\n  </pair>\n"
                        "  <pair>\n    <count>3</count>\n    <unique>0x0</unique>\n  </pair>\n"
                        "</errorcounts>\n\n<suppcounts>\n</suppcounts>\n\n"
                        "</valgrindoutput>\n\n");
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_time),
        cmocka_unit_test(test_suppression),
        cmocka_unit_test(test_head),
        cmocka_unit_test(test_end),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
