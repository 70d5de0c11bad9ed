# SPDX-License-Identifier: LGPL-2.1-or-later
# Included from Makefile.am; paths are relative to the top of the tree.
#
# docs: the reference, man pages (and docs/api.md) from the headers' kernel-doc.
# One page per function and macro (NAME.3), per structure, enum and typedef
# (NAME.3type), all in man3.  The list of pages follows the headers, so they are built
# into man/ and installed by the hooks below rather than listed here.
if HAVE_PERL
man/stamp: $(daxcacheinclude_HEADERS) docs/mkman
	$(AM_V_GEN)rm -rf man && $(MKDIR_P) man && \
	hdrs=; for h in $(daxcacheinclude_HEADERS); do hdrs="$$hdrs $(top_srcdir)/$$h"; done; \
	$(PERL) $(top_srcdir)/docs/mkman --check $$hdrs >/dev/null && \
	$(PERL) $(top_srcdir)/docs/mkman --man man --version $(PACKAGE_VERSION) $$hdrs && \
	touch $@

all-local: man/stamp

install-data-local: man/stamp
	$(MKDIR_P) $(DESTDIR)$(mandir)/man3
	$(INSTALL_DATA) man/man3/*.3 man/man3/*.3type $(DESTDIR)$(mandir)/man3/

uninstall-local:
	for f in man/man3/*.3 man/man3/*.3type; do \
		test -f "$$f" || continue; \
		rm -f "$(DESTDIR)$(mandir)/$${f#man/}"; \
	done

# docs/api.md, the same reference in one file; make check fails when it is
# stale (tests/tree/api-doc-check).
.PHONY: api-doc
# It covers <daxcache/fault.h> too, the test builds' API (not installed, no man page).
api-doc:
	$(PERL) $(top_srcdir)/docs/mkman --markdown $(top_srcdir)/docs/api.md \
		$(top_srcdir)/include/daxcache/*.h
endif

clean-local:
	rm -rf man
