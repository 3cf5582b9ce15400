# mk/massif.mk - heap-over-time checks: `make massif-test` runs the
# schedule unit test and the tests/massif end-to-end cases (ms_print,
# strict grammar, SIGUSR1, signal stress, sqlite3 vs Valgrind massif).
.PHONY: massif-test
massif-test: all $(O)/test/test_sched
	$(Q)$(O)/test/test_sched
	$(Q)O=$(O) tests/run.sh massif
