# mk/ci-gate.mk - CI leak gate (issue 5): what the report-side tests need.
# Included by the top Makefile (-include mk/*.mk).
#
#   make cigate        build libreport.a and run tests/cigate/*.sh
#   make cigate-deps   install the test tools (Debian): python3-jsonschema
#                      for the SARIF schema check, valgrind as the reference
#                      for suppression files and reports, sqlite3 as a real
#                      program to compare on, clang for the clang-built
#                      sample (no .debug_aranges); `make test` does this first.
# Tests skip (exit 77 / SKIP:) instead of failing when a tool cannot be
# installed, so an offline machine still builds and tests.

CIGATE_PKGS  := python3-jsonschema valgrind sqlite3 clang
CIGATE_STAMP := $(O)/.cigate-deps-ok

.PHONY: cigate cigate-deps
cigate-deps: $(CIGATE_STAMP)
$(CIGATE_STAMP):
	$(Q)missing=""; \
	{ python3 -c 'import jsonschema' 2>/dev/null || /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; } || missing="python3-jsonschema"; \
	command -v valgrind >/dev/null 2>&1 || missing="$$missing valgrind"; \
	command -v sqlite3 >/dev/null 2>&1 || missing="$$missing sqlite3"; \
	command -v clang >/dev/null 2>&1 || missing="$$missing clang"; \
	if [ -n "$$missing" ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo -n"; \
	  $$SUDO apt-get install -y -qq $$missing >/dev/null 2>&1 || \
	  { $$SUDO apt-get update -qq >/dev/null 2>&1 && $$SUDO apt-get install -y -qq $$missing >/dev/null 2>&1; } || \
	  { echo "warning: could not install$$missing; the cigate tests that need it will skip"; exit 0; }; \
	fi; \
	mkdir -p $(O) && touch $@

test: cigate-deps

cigate: $(O)/libreport.a cigate-deps
	$(Q)O=$(O) tests/run.sh cigate
