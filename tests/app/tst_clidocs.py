#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The man pages and shell completions the package installs (made at build time by
installer/cli_docs.py) against what the binary says now, read here on their own terms:

- the verbs: the list `slicescope VERB-THAT-DOES-NOT-EXIST` names (the dispatcher's own list) is the
  list `slicescope --help` prints, and each has its page;
- every option token `--help` prints, for the window, for kubectl's plugin and for each verb, is on
  the page and in the bash, zsh and fish completions, and the page's OPTIONS name no other option;
- each page renders with no warning from groff.

    tst_clidocs.py --binary BIN --docs BUILD/installer/clidocs
"""

import argparse
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def run(argv, expect=0):
    env = dict(os.environ, LC_ALL="C.UTF-8", QT_QPA_PLATFORM="offscreen")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "RAY_ADDRESS", "KUBECONFIG"):
        env.pop(name, None)
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    if done.returncode != expect:
        sys.exit("%s exited %d, not %d: %s" % (" ".join(argv), done.returncode, expect, done.stderr.strip()))
    return done


def help_options(text):
    """Every option token of the Options section, by a rule of its own: the dashed words before
    the two spaces that end an entry's names."""
    options = set()
    section = text.split("\nOptions:\n", 1)[1].split("\nArguments:\n", 1)[0]
    for line in section.splitlines():
        if re.match(r"^  -", line):
            names = re.split(r" {2,}", line.strip(), maxsplit=1)[0]
            options.update(re.findall(r"--?[A-Za-z?][\w-]*", names))
    return options


def page_text(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read()


def page_options(roff):
    """The options a page's OPTIONS section names (bold, as cli_docs.py sets them)."""
    section = roff.split("\n.SH OPTIONS\n", 1)[1].split("\n.SH ", 1)[0]
    return {o.replace("\\-", "-") for o in re.findall(r"\\fB(\\-(?:\\-)?[A-Za-z?][\w\\-]*)\\fR", section)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--docs", required=True)
    args = parser.parse_args()
    man = os.path.join(args.docs, "man")
    completion = os.path.join(args.docs, "completion")

    # The verbs, from the dispatcher's message and from --help.
    unknown = run([args.binary, "no-such-verb"], expect=2).stderr
    listed = re.search(r"\(verbs: ([^)]*)\)", unknown)
    if not listed:
        print("FAIL: `slicescope no-such-verb` names no verbs: %r" % unknown)
        return 1
    verbs = listed.group(1).split(", ")
    window_help = run([args.binary, "--help"]).stdout
    block = window_help.split("\nVerbs", 1)[1].split("\n\n", 1)[0]
    check(re.findall(r"^  (\S+)  ", block, re.M) == verbs, "--help lists verbs %r, the dispatcher %r" % (block, verbs))

    with tempfile.TemporaryDirectory() as tmp:
        plugin = os.path.join(tmp, "kubectl-slicescope")
        os.symlink(os.path.abspath(args.binary), plugin)
        helps = [("slicescope", window_help), ("kubectl-slicescope", run([plugin, "--help"]).stdout)]
    helps += [("slicescope-" + verb, run([args.binary, verb, "--help"]).stdout) for verb in verbs]

    with open(os.path.join(completion, "bash", "slicescope"), encoding="utf-8") as f:
        bash = f.read()
    with open(os.path.join(completion, "zsh", "_slicescope"), encoding="utf-8") as f:
        zsh = f.read()
    with open(os.path.join(completion, "fish", "slicescope.fish"), encoding="utf-8") as f:
        fish = f.read()

    def completions_for(verb):
        """Each shell's part for a verb (None: the window's, which the plugin shares)."""
        case = re.escape(verb) if verb else r"\*"
        bash_part = re.search(r'^    %s\) opts="([^"]*)"' % case, bash, re.M)
        zsh_part = (re.search(r"^  %s\)\n(.*?)^    ;;" % re.escape(verb), zsh, re.M | re.S) if verb
                    else re.search(r"^  window=\(\n(.*?)^  \)", zsh, re.M | re.S))
        condition = "'__slicescope_verb_is %s'" % verb if verb else "'__slicescope_no_verb'"
        fish_part = "\n".join(line for line in fish.splitlines() if "-n %s " % condition in line)
        return (bash_part.group(1) if bash_part else "", zsh_part.group(1) if zsh_part else "", fish_part)

    for verb in verbs:
        check(all(completions_for(verb)), "a completion has no part for %s" % verb)
        check("'%s:" % verb in zsh, "zsh completion: no verb %s" % verb)
        check("-a %s " % verb in fish, "fish completion: no verb %s" % verb)
    check(re.search(r"^    local verbs=\"%s\"$" % re.escape(" ".join(verbs)), bash, re.M), "bash completion: verbs are not %s" % verbs)

    expected_pages = {name + ".1.gz" for name, _ in helps}
    actual_pages = set(os.listdir(man))
    check(actual_pages == expected_pages, "man pages %s, expected %s" % (sorted(actual_pages), sorted(expected_pages)))
    groff = shutil.which("groff")
    for name, text in helps:
        options = help_options(text)
        check(len(options) >= 3, "%s --help: only %s" % (name, options))
        path = os.path.join(man, name + ".1.gz")
        if not check(os.path.exists(path), "no man page %s" % path):
            continue
        roff = page_text(path)
        on_page = page_options(roff)
        check(on_page == options, "%s(1) names %s; --help: %s" % (name, sorted(on_page), sorted(options)))
        bash_part, zsh_part, fish_part = completions_for(name[len("slicescope-"):] if name.startswith("slicescope-") else None)
        for option in options:
            check(option in bash_part.split(), "bash completion lacks %s (%s)" % (option, name))
            check(re.search(r"'\*%s[=+\[]" % re.escape(option), zsh_part), "zsh completion lacks %s (%s)" % (option, name))
            flag = "-l " + option[2:] if option.startswith("--") else "-s " + option[1:]
            check(re.search(r"%s(?![\w-])" % re.escape(flag), fish_part), "fish completion lacks %s (%s)" % (option, name))
        if groff:  # Debian's groff-base, which man-db needs; lintian runs the same check on the package
            done = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z"], input=roff, capture_output=True, text=True)
            check(done.returncode == 0 and not done.stderr.strip(), "groff warns on %s(1): %s" % (name, done.stderr.strip()))
    if not groff:
        print("LOUD SKIP: groff is not installed; the pages were not rendered")

    for failure in failures:
        print("FAIL: " + failure)
    print("tst_clidocs: %d pages, %d verbs, %d failures" % (len(helps), len(verbs), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
