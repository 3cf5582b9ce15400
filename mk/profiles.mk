# mk/profiles.mk - pprof export, flame graphs and the HTML report: the
# tools their tests compare against. Included by the top Makefile.
#
#   make profiles        run tests/profiles/*.sh
#   make profiles-deps   install the test tools (Debian): golang-go for
#                        `go tool pprof`, chromium to render the HTML
#                        report and the SVG headless; `make test` does
#                        this first.
# Tests skip (SKIP:) instead of failing when a tool cannot be installed,
# so an offline machine still builds and tests.

PROFILES_STAMP := $(O)/.profiles-deps-ok

.PHONY: profiles profiles-deps
profiles-deps: $(PROFILES_STAMP)
$(PROFILES_STAMP):
	$(Q)missing=""; \
	command -v go >/dev/null 2>&1 || missing="golang-go"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	if [ -n "$$missing" ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo -n"; \
	  $$SUDO apt-get install -y -qq $$missing >/dev/null 2>&1 || \
	  { $$SUDO apt-get update -qq >/dev/null 2>&1 && $$SUDO apt-get install -y -qq $$missing >/dev/null 2>&1; } || \
	  { echo "warning: could not install$$missing; the profiles tests that need it will skip"; exit 0; }; \
	fi; \
	mkdir -p $(O) && touch $@

test: profiles-deps

profiles: all $(O)/test/test_pprof profiles-deps
	$(Q)$(O)/test/test_pprof
	$(Q)O=$(O) tests/run.sh profiles
