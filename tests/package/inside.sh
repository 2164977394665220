#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Run by tests/package/check.sh inside the bare Debian 12 root, after `apt-get install ./slicescope.deb`:
# what a user of the package does first. POSIX sh: the root has no bash-isms to rely on beyond the
# shells the completions are checked with.   inside.sh VERSION
set -eu
version=$1
fail() {
  echo "inside: $*" >&2
  exit 1
}
step() { echo "inside: $*"; }

out=$(slicescope --version) || fail "slicescope --version exited $?"
[ "$out" = "slicescope $version" ] || fail "slicescope --version said \"$out\", not \"slicescope $version\""
out=$(kubectl-slicescope --version) || fail "kubectl-slicescope --version exited $?"
[ "$out" = "slicescope $version" ] || fail "kubectl-slicescope --version said \"$out\""
step "--version: $out"

slicescope inspect --demo --json >/tmp/inspect.json || fail "inspect --demo --json exited $?"
grep -q '"slices"' /tmp/inspect.json && grep -q '"placementGroups"' /tmp/inspect.json ||
  fail "inspect --demo --json printed no slices and placement groups: $(head -c 300 /tmp/inspect.json)"
step "inspect --demo --json: $(wc -c </tmp/inspect.json) bytes"

env QT_QPA_PLATFORM=offscreen slicescope screenshot --demo --view slice:v6e-4x4-0 --size 800x600 -o /tmp/shot.png ||
  fail "screenshot under offscreen exited $?"
[ "$(head -c 8 /tmp/shot.png | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] || fail "screenshot wrote no PNG"
step "screenshot under offscreen: $(wc -c </tmp/shot.png) bytes"

# kubectl's plugin: its own flags reach the kubeconfig's current context without naming a source
# (kubectl passes every argument after `slicescope` unchanged). Nothing listens at the kubeconfig's
# server, so the verb fails; its debug log names the RayCluster list it asked for, which says the
# namespace -n or -A chose.
cat >/tmp/kubeconfig <<'KUBE'
apiVersion: v1
kind: Config
current-context: here
clusters:
- name: c
  cluster:
    server: http://127.0.0.1:9
users:
- name: u
  user:
    token: not-a-secret
contexts:
- name: here
  context:
    cluster: c
    user: u
KUBE
asked() { # asked FLAGS...: the RayCluster list kubectl-slicescope inspect FLAGS asked for
  env KUBECONFIG=/tmp/kubeconfig SLICESCOPE_DEBUG=1 kubectl-slicescope inspect "$@" --json --timeout 3 2>&1 >/dev/null |
    grep -o 'GET http://127.0.0.1:9/apis/ray.io/v1/[a-z0-9/-]*rayclusters' | head -n 1
}
[ "$(asked -n team-a)" = "GET http://127.0.0.1:9/apis/ray.io/v1/namespaces/team-a/rayclusters" ] ||
  fail "kubectl-slicescope inspect -n team-a asked for: $(asked -n team-a)"
[ "$(asked -A)" = "GET http://127.0.0.1:9/apis/ray.io/v1/rayclusters" ] || fail "kubectl-slicescope inspect -A asked for: $(asked -A)"
step "kubectl-slicescope inspect -n/-A: the kubeconfig's current context, the namespace asked"

for page in slicescope slicescope-inspect slicescope-scale kubectl-slicescope; do
  text=$(env MANPAGER=cat MANWIDTH=100 man "$page" 2>/tmp/man.err) || fail "man $page exited $?: $(cat /tmp/man.err)"
  [ ! -s /tmp/man.err ] || fail "man $page warned: $(cat /tmp/man.err)"
  case $text in *--help*) ;; *) fail "man $page shows no options" ;; esac
done
env MANPAGER=cat man slicescope-inspect | grep -q -- '--json' || fail "man slicescope-inspect has no --json"
step "man pages open: $(ls /usr/share/man/man1 | grep -c slicescope) pages"

# bash: the completion as bash-completion loads it on first use, for both names.
bash -c '
  . /usr/share/bash-completion/bash_completion
  for cmd in slicescope kubectl-slicescope; do
    _completion_loader "$cmd" >/dev/null 2>&1
    complete -p "$cmd" >/dev/null || { echo "no bash completion for $cmd"; exit 1; }
  done
  COMP_WORDS=(slicescope ins); COMP_CWORD=1; _slicescope
  [ "${COMPREPLY[*]}" = inspect ] || { echo "slicescope ins<TAB> gave: ${COMPREPLY[*]}"; exit 1; }
  COMP_WORDS=(kubectl-slicescope inspect --all-n); COMP_CWORD=2; _slicescope
  [ "${COMPREPLY[*]}" = --all-namespaces ] || { echo "inspect --all-n<TAB> gave: ${COMPREPLY[*]}"; exit 1; }
' || fail "bash completion"
# zsh: compinit finds the #compdef for both names, and the file parses.
zsh -fc '
  autoload -Uz compinit && compinit -u -d /tmp/zcompdump
  [[ $_comps[slicescope] == _slicescope && $_comps[kubectl-slicescope] == _slicescope ]] || { print "compinit: $_comps[slicescope]"; exit 1 }
  zsh -n /usr/share/zsh/vendor-completions/_slicescope
' || fail "zsh completion"
# fish: asked for completions as the shell would at a TAB.
out=$(fish -c 'complete -C "slicescope ins"') || fail "fish exited $?"
case $out in inspect*) ;; *) fail "fish: slicescope ins<TAB> gave: $out" ;; esac
out=$(fish -c 'complete -C "kubectl-slicescope screenshot --vi"') || fail "fish exited $?"
case $out in --view*) ;; *) fail "fish: kubectl-slicescope screenshot --vi<TAB> gave: $out" ;; esac
step "completions load: bash, zsh, fish"

test -f /usr/share/applications/io.github.slicescope.SliceScope.desktop || fail "no desktop entry"
test -f /usr/share/metainfo/io.github.slicescope.SliceScope.metainfo.xml || fail "no metainfo"
test -f /usr/share/icons/hicolor/scalable/apps/io.github.slicescope.SliceScope.svg || fail "no SVG icon"
test -f /usr/share/icons/hicolor/48x48/apps/io.github.slicescope.SliceScope.png || fail "no 48x48 icon"
step "desktop entry, metainfo and icons installed"
