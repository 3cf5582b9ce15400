# mk/leakprint.mk - extra targets for leakprint: the libFuzzer target.
#   make fuzz                       build $(O)/fuzz/fuzz_massif (needs clang)
#   make fuzz-run [FUZZ_TIME=600]   fuzz, growing tests/fuzz/corpus; crash
#                                   inputs land in tests/fuzz/crashes/
FUZZ_CC   ?= clang
FUZZ_TIME ?= 600
LEAKPRINT_FUZZ_SRC := tests/fuzz/fuzz_massif.c report/massif.c \
	report/massif_read.c tools/chart.c tools/msprint.c report/flame.c \
	report/flame_script.c \
	tools/diff.c

.PHONY: fuzz fuzz-run
fuzz: $(O)/fuzz/fuzz_massif

$(O)/fuzz/fuzz_massif: $(LEAKPRINT_FUZZ_SRC) report/massif.h \
		report/massif_impl.h tools/chart.h tools/msprint.h report/flame.h \
		tools/diff.h
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) -std=gnu11 -D_GNU_SOURCE -I. -g -O1 \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  -o $@ $(LEAKPRINT_FUZZ_SRC)

fuzz-run: $(O)/fuzz/fuzz_massif
	@mkdir -p tests/fuzz/crashes
	$(O)/fuzz/fuzz_massif -max_total_time=$(FUZZ_TIME) -max_len=65536 \
	  -timeout=10 -rss_limit_mb=2048 -artifact_prefix=tests/fuzz/crashes/ \
	  tests/fuzz/corpus

# 100 MB massif file: leakprint vs ms_print wall time (not part of test).
.PHONY: leakprint-bench
leakprint-bench: $(O)/leakprint
	$(Q)O=$(O) tests/leakprint/_bench.sh 100
