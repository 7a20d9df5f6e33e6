#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""debian.py DEBIAN_DIR VERSION CHANGELOG_ENTRY

Adapts Debian trixie's rdma-core 56.1-1 debian/ directory to a build for
Debian 12 with liberi (scripts/rdma-core-deb.sh), as a backport would:

- the time64 renames are reverted (librdmacm1t64 -> librdmacm1,
  libibnetdisc5t64 -> libibnetdisc5): Debian 12's packages depend on the
  old names, and amd64 never changed its ABI;
- Build-Depends that Debian 12 cannot meet and the build does not need are
  relaxed (dpkg-dev >= 1.22.5 is there for the time64 substvars; pandoc
  builds man pages the tarball ships prebuilt);
- systemd units and udev rules go to /lib/systemd/system and
  /lib/udev/rules.d, where Debian 12's rdma-core 44 has them: Debian 12's
  debhelper looks for units there only, and files that move between /lib
  and /usr/lib across an upgrade can vanish on merged-/usr systems;
- python3-pyverbs is not built (cython makes it the slowest part of the
  build, and nothing of ERI's needs it installed);
- ibverbs-providers' postrm deletes /etc/libibverbs.d/eri.driver when a
  version without liberi replaces it;
- a changelog entry at VERSION (the text of CHANGELOG_ENTRY, with
  @VERSION@ replaced) on top.
"""
import os
import re
import sys

d, version, entry = sys.argv[1:4]
RENAMES = {"librdmacm1t64": "librdmacm1", "libibnetdisc5t64": "libibnetdisc5"}


def rd(name):
    with open(os.path.join(d, name)) as f:
        return f.read()


def wr(name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)


control = rd("control")
stanzas = control.rstrip("\n").split("\n\n")
out = []
for s in stanzas:
    if re.search(r"^Package: python3-pyverbs$", s, re.M):
        continue
    for old, new in RENAMES.items():
        if re.search(r"^Package: %s$" % old, s, re.M):
            # The old name's Provides/Replaces/Breaks are the t64 transition's.
            s = re.sub(r"^Provides: \$\{t64:Provides\}\n", "", s, flags=re.M)
            s = re.sub(r"^Replaces: %s\n" % new, "", s, flags=re.M)
            s = re.sub(r"^Breaks: %s \(<< \$\{source:Version\}\)\n" % new, "", s,
                       flags=re.M)
        s = re.sub(r"\b%s\b" % old, new, s)
    if s.startswith("Source:"):
        s = re.sub(r"dpkg-dev \(>= [^)]*\)", "dpkg-dev", s)
        s = re.sub(r"^ *pandoc,\n", "", s, flags=re.M)
    out.append(s)
control = "\n\n".join(out) + "\n"
assert "t64" not in control and "pyverbs" not in control, "control still names t64/pyverbs"
wr("control", control)

for old, new in RENAMES.items():
    for f in os.listdir(d):
        if f.startswith(old + "."):
            text = rd(f).replace(old, new)
            os.unlink(os.path.join(d, f))
            wr(new + f[len(old):], text)
for f in ("python3-pyverbs.install", "python3-pyverbs.examples"):
    if os.path.exists(os.path.join(d, f)):
        os.unlink(os.path.join(d, f))

rules = rd("rules")
assert "-Npython3-pyverbs " in rules, "debian/rules changed: no -Npython3-pyverbs"
rules = rules.replace("-Npython3-pyverbs ", "")
for old, new in (("/usr/lib/systemd/system", "/lib/systemd/system"),
                 ("/usr/lib/udev/rules.d", "/lib/udev/rules.d")):
    assert old in rules, "debian/rules changed: no " + old
    rules = rules.replace(old, new)
wr("rules", rules)
for f in sorted(os.listdir(d)):
    if f.endswith((".install", ".links", ".maintscript", ".postinst")):
        text = rd(f)
        new = re.sub(r"(^|\s|/)usr/lib/(systemd|udev)/", r"\1lib/\2/", text, flags=re.M)
        if new != text:
            wr(f, new)

# liberi's driver file is a conffile (all of /etc is): going back to a
# version without liberi (Debian 12's 44.0-2) would keep it as an obsolete
# conffile, and that libibverbs would warn in every program that it cannot
# load liberi.  The old package's postrm runs at that downgrade.
assert not os.path.exists(os.path.join(d, "ibverbs-providers.postrm"))
wr("ibverbs-providers.postrm", """#!/bin/sh
set -e
# ERI: no liberi in the version that replaces this one: no eri.driver.
if [ "$1" = upgrade ]; then
	case "$2" in
	*+eri*) ;;
	*) rm -f /etc/libibverbs.d/eri.driver ;;
	esac
fi

#DEBHELPER#
""")

with open(entry) as f:
    wr("changelog", f.read().replace("@VERSION@", version) + "\n" + rd("changelog"))
