# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by tests/package/*.sh: running commands inside an unpacked Debian root.

# in_root ROOT [--bind HOST_DIR ROOT_DIR]... COMMAND...: runs COMMAND chrooted into ROOT, in a mount
# and PID namespace of its own. /proc, /dev, the X socket directory and each --bind are mounted for
# it there and vanish with it, so nothing stays mounted however the command ends (a throwaway root
# is then removed with a plain rm -rf); ending the unshare process ends everything inside. The
# environment is a clean one: pass what the command needs with `env NAME=value` in COMMAND.
in_root() {
  local root=$1
  shift
  local binds=()
  while [[ "${1:-}" == --bind ]]; do
    binds+=("$2" "$3")
    shift 3
  done
  unshare --mount --propagation private --pid --fork --kill-child --mount-proc="$root/proc" \
    /bin/sh -c '
      root=$1 nbinds=$2; shift 2
      mount --rbind /dev "$root/dev" || exit 1
      if [ -d /tmp/.X11-unix ]; then
        mkdir -p "$root/tmp/.X11-unix" && mount --bind /tmp/.X11-unix "$root/tmp/.X11-unix" || exit 1
      fi
      while [ "$nbinds" -gt 0 ]; do
        mkdir -p "$root$2" && mount --bind "$1" "$root$2" || exit 1
        shift 2; nbinds=$((nbinds - 1))
      done
      exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"' \
    sh "$root" $((${#binds[@]} / 2)) "${binds[@]}" "$@"
}

# now: seconds since the epoch, for the phase timings.
now() { date +%s; }
