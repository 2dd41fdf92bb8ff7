#!/bin/sh
# `make deb`: the Debian packages tap-accel, tapx-dkms and tapx-as-tun,
# built with dpkg-buildpackage from debian/ in a copy of the tree (in
# build/deb/src, removed after), so that the checkout gets no file; the
# packages land in build/deb, or DEB_OUT. Offline: every build dependency
# comes from make deps.
#
#   DEB_VERSION   build with this version instead of debian/changelog's,
#                 as an entry on top of the copy's changelog (and its
#                 VERSION, so the DKMS module's too): tests/deb/run.sh's
#                 older packages to upgrade from.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
OUT=${DEB_OUT:-$BUILD/deb}
DEB_VERSION=${DEB_VERSION:-}

die() {
	echo "deb: $*" >&2
	exit 1
}

for t in dpkg-buildpackage dh dh_dkms; do
	command -v $t >/dev/null 2>&1 || die "$t is missing (make deps)"
done

# One version everywhere: debian/changelog's, without a Debian revision,
# is VERSION's, and so the CLI's, the module's and DKMS's (dkms.conf's
# PACKAGE_VERSION is #MODULE_VERSION#, which `make -C kmod dkms-tree` and
# dh_dkms fill in).
version=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
upstream=${version#*:}
upstream=${upstream%-*}
v=$(tr -d ' \n' <"$TOP/VERSION")
[ "$v" = "$upstream" ] ||
	die "VERSION says $v, debian/changelog says $version: add a debian/changelog entry for $v (dch -v $v), or correct VERSION"

src=$OUT/src/tap-accel
rm -rf "$OUT/src"
mkdir -p "$src" "$OUT"
tar -C "$TOP" --exclude=./build --exclude=./.git -cf - . | tar -C "$src" -xf -

if [ -n "$DEB_VERSION" ]; then
	{
		printf 'tap-accel (%s) unstable; urgency=medium\n\n' "$DEB_VERSION"
		printf '  * Built by mk/deb.sh with DEB_VERSION=%s.\n\n' "$DEB_VERSION"
		printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -l "$src/debian/changelog" -S Maintainer)" "$(date -R)"
		cat "$src/debian/changelog"
	} >"$src/debian/changelog.new"
	mv "$src/debian/changelog.new" "$src/debian/changelog"
	v=${DEB_VERSION#*:}
	echo "${v%-*}" >"$src/VERSION"
	version=$DEB_VERSION
fi

log=$OUT/build.log
echo "deb: dpkg-buildpackage for $version (log: ${log#$TOP/})"
# Nothing of a calling make (its flags, jobserver, V) reaches the build.
if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u V \
	dpkg-buildpackage -us -uc -b) >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "dpkg-buildpackage failed (the whole log: $log)"
fi

# This version's packages replace any other version's.
rm -f "$OUT"/tap-accel_*.deb "$OUT"/tapx-dkms_*.deb "$OUT"/tapx-as-tun_*.deb
v=${version#*:}
for p in tap-accel tapx-dkms tapx-as-tun; do
	f=$(ls "$OUT/src/${p}_${v}_"*.deb 2>/dev/null) || die "no $p package was built (see $log)"
	mv "$f" "$OUT/"
	echo "deb: ${OUT#$TOP/}/$(basename "$f")"
done
rm -rf "$OUT/src"
