#!/usr/bin/env bash
# tests/container/image.sh — a small local podman image for the container tests, made from the
# host's own files (no registry is reached): the shell, coreutils and the tools the tests run, bwrap,
# and the shared libraries they and the build tree's binaries load (the ldd closure), plus a
# minimal /etc (root, nobody/nogroup, a user 1000). The build tree itself is not in the image: the
# tests mount it read-only at its own path.
#
#   bash tests/container/image.sh [BUILD_DIR]   prints the image name; builds it only when missing
#
# The image is kept in the invoking user's podman storage under a tag derived from this script and
# the host's package state (a changed host or script gives a new tag; the old one is pruned).
# Environment: SBX_PODMAN (default "podman --runtime runc"). Exit 1 with a reason on stderr when
# the image cannot be built.
set -euo pipefail
B=${1:-build}
PODMAN=${SBX_PODMAN:-podman --runtime runc}
# what the tests run inside (each must exist on the host; missing optional ones are left out)
TOOLS="sh bash dash id cp chmod chown cat stat setsid sleep ls mkdir rm rmdir env ps kill grep sed
 true false readlink touch echo printf tr wc head tail cut sort nohup timeout mktemp dirname basename
 ln mv whoami getent uname pgrep pkill bwrap setpriv python3 top curl sqlite3"
# the key: this script, the host's package state, and the libraries the main binaries load
key=$( { cat "$0"; ls -l --time-style=+%s /var/lib/dpkg/status
	 for f in "$B"/sbxsup "$B"/*.so; do [ -e "$f" ] && ldd "$f" 2>/dev/null | awk '{print $1}'; done; } \
       | sha256sum | cut -c1-12)
IMG=localhost/sbxsup-test:$key
if $PODMAN image exists "$IMG" 2>/dev/null; then echo "$IMG"; exit 0; fi

root=$(mktemp -d /tmp/sbxsup-img.XXXXXX)
trap 'rm -rf "$root"' EXIT
files=$(mktemp "$root.list.XXXXXX")
trap 'rm -rf "$root" "$files"' EXIT
bins=()
for t in $TOOLS; do p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin type -P "$t" 2>/dev/null) && [ -x "$p" ] && bins+=("$(readlink -f "$p")") && echo "$p" >>"$files"; done
# python3's extension modules (the escape corpus runner; its stdlib is mounted at run time)
for f in /usr/lib/python3*/lib-dynload/*.so; do [ -e "$f" ] && bins+=("$f"); done
# the build tree's ELF files (not copied: only their libraries)
while IFS= read -r f; do bins+=("$f"); done < <(find "$B" -maxdepth 3 -type f \( -perm -u+x -o -name '*.so' \) 2>/dev/null)
for b in "${bins[@]}"; do
	echo "$b" >>"$files"
	ldd "$b" 2>/dev/null | awk '/=> \//{print $3} /^\t\/[^ ]*ld-linux/{print $1}' >>"$files" || true
done
# the tools' symlinks (e.g. /usr/bin/sh -> dash) and their targets, the loader's cache and config
# and the terminfo entries top needs (TERM=xterm in a container, dumb elsewhere)
for f in /lib64/ld-linux-x86-64.so.2 /etc/ld.so.cache /etc/nsswitch.conf /lib/terminfo/x/xterm /lib/terminfo/d/dumb \
	 /usr/share/terminfo/x/xterm /usr/share/terminfo/d/dumb; do [ -e "$f" ] && echo "$f" >>"$files"; done
sort -u "$files" | while IFS= read -r f; do
	[ -e "$f" ] || continue
	case "$f" in "$(readlink -f "$B")"/*|"$B"/*) continue;; esac
	for g in "$f" "$(readlink -f "$f")"; do
		mkdir -p "$root$(dirname "$g")"
		cp -a "$g" "$root$g" 2>/dev/null || true
	done
done
# Debian's merged /usr: /bin, /lib, /lib64, /sbin are links into /usr
for d in bin lib lib64 sbin; do
	if [ -L "/$d" ]; then
		if [ -d "$root/$d" ] && [ ! -L "$root/$d" ]; then mkdir -p "$root/usr/$d"; cp -a "$root/$d/." "$root/usr/$d/"; rm -rf "${root:?}/$d"; fi
		ln -sfn "usr/$d" "$root/$d"
	fi
done
mkdir -p "$root"/{tmp,var/tmp,proc,sys,dev,run,home/user,root,work,etc}
chmod 1777 "$root/tmp" "$root/var/tmp"
chown 1000:1000 "$root/home/user" 2>/dev/null || chmod 1777 "$root/home/user" # rootless: not ours to chown
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
user:x:1000:1000:user:/home/user:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
user:x:1000:
nogroup:x:65534:
EOF
cat >"$root/etc/shadow" <<'EOF'
root:*:19000:0:99999:7:::
EOF
chmod 600 "$root/etc/shadow"
tar -C "$root" -cf - . | $PODMAN import --quiet - "$IMG" >/dev/null
# older images of this kind are stale
for old in $($PODMAN images --format '{{.Repository}}:{{.Tag}}' 2>/dev/null | grep '^localhost/sbxsup-test:' || true); do
	[ "$old" = "$IMG" ] || $PODMAN rmi -f "$old" >/dev/null 2>&1 || true
done
echo "$IMG"
