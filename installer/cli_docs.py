#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The man pages and shell completions of `slicescope`, made from the binary's own --help.

Run at build time on the freshly built binary (installer/CMakeLists.txt): `slicescope --help` lists
the verbs, `slicescope VERB --help` each verb's options, and `kubectl-slicescope --help` (the same
binary under kubectl's plugin name) the plugin's defaults. Every option, value name and description
below comes from those texts, which QCommandLineParser prints from the definitions it parses with,
so a page or a completion cannot name an option the binary does not take, nor miss one it does.
What is written here by hand is only prose no option carries (the environment, the exit status).

    cli_docs.py --binary BIN --plugin PLUGIN --version V --date YYYY-MM-DD --out DIR

writes DIR/man/*.1.gz (slicescope.1, slicescope-VERB.1 for every verb, kubectl-slicescope.1) and
DIR/completion/{bash/slicescope, zsh/_slicescope, fish/slicescope.fish}.
"""

import argparse
import gzip
import io
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field

# Value names that stand for a path (QCommandLineOption's valueName, as --help prints it: <FILE>).
FILE_VALUES = {"FILE", "F", "PATH"}
DIR_VALUES = {"DIR"}
# Options whose values the completions look up: kubeconfig contexts, through kubectl when present.
CONTEXT_OPTIONS = {"--context"}


@dataclass
class Entry:
    names: list          # ["-n", "--namespace"]; for a positional argument, its name
    value: str = ""      # the value name ("N"), empty for a switch
    text: str = ""

    @property
    def long(self):
        return next((n for n in self.names if n.startswith("--")), self.names[-1])


@dataclass
class Help:
    usage: str
    description: list = field(default_factory=list)  # lines
    options: list = field(default_factory=list)
    arguments: list = field(default_factory=list)


def parse_help(text):
    """QCommandLineParser's help: "Usage: ...", the description, "Options:" and "Arguments:" with
    one entry per line starting with exactly two spaces, wrapped text indented further."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("Usage: "):
        raise ValueError("not QCommandLineParser help (no usage line): %r" % text[:200])
    help_ = Help(usage=lines[0][len("Usage: "):])
    i = 1
    while i < len(lines) and lines[i] not in ("Options:", "Arguments:"):
        help_.description.append(lines[i])
        i += 1
    while help_.description and not help_.description[-1].strip():
        help_.description.pop()
    current = None
    for line in lines[i:]:
        if line == "Options:":
            current = help_.options
        elif line == "Arguments:":
            current = help_.arguments
        elif not line.strip():
            continue
        elif re.match(r"^  \S", line):
            m = re.match(r"^  (\S(?:.*?\S)?)(?: {2,}(\S.*))?$", line)
            head, text_ = m.group(1), m.group(2) or ""
            if current is help_.options:
                value = re.search(r"<([^>]+)>", head)
                names = re.findall(r"(?<![\w-])--?[\w?][\w-]*", head)
                current.append(Entry(names, value.group(1) if value else "", text_))
            else:
                current.append(Entry([head], "", text_))
        elif current:
            current[-1].text = (current[-1].text + " " + line.strip()).strip()
        else:
            raise ValueError("help text line outside a section: %r" % line)
    return help_


def run_help(binary, *args):
    env = dict(os.environ, LC_ALL="C.UTF-8", QT_QPA_PLATFORM="offscreen")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "RAY_ADDRESS", "SLICESCOPE_DEBUG"):
        env.pop(name, None)
    done = subprocess.run([binary, *args, "--help"], capture_output=True, text=True, env=env, timeout=120)
    if done.returncode != 0:
        raise SystemExit("cli_docs: %s %s --help exited %d: %s" % (binary, " ".join(args), done.returncode, done.stderr.strip()))
    return parse_help(done.stdout)


def split_verbs(description):
    """The window's description: prose, then "Verbs (...):" and one "  name  summary" line each."""
    for i, line in enumerate(description):
        if line.startswith("Verbs"):
            verbs = []
            for entry in description[i + 1:]:
                m = re.match(r"^  (\S+)\s+(\S.*)$", entry)
                if not m:
                    break
                verbs.append((m.group(1), m.group(2)))
            prose = description[:i]
            while prose and not prose[-1].strip():
                prose.pop()
            return prose, verbs
    raise SystemExit("cli_docs: `slicescope --help` lists no verbs")


# --- man pages -------------------------------------------------------------------------------

def roff(text):
    """Plain text as roff: backslashes and hyphens escaped (options copy as typed), no line
    starting as a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line if line.startswith((".", "'")) else line) for line in text.split("\n"))


def paragraphs(lines):
    """Description lines as roff paragraphs: blank lines separate them."""
    out, para = [], []
    for line in lines + [""]:
        if line.strip():
            para.append(line.strip())
        elif para:
            out.append(roff(" ".join(para)))
            para = []
    return "\n.PP\n".join(out)


def option_heading(entry):
    names = ", ".join("\\fB%s\\fR" % roff(n) for n in entry.names)
    return names + (" \\fI%s\\fR" % roff(entry.value) if entry.value else "")


def sentence_case(text):
    """A summary as the NAME line wants it: "Print the ..." -> "print the ...", "SliceScope" kept."""
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if first[1:] == first[1:].lower() else text


def page(name, title_date, version, summary, synopsis, sections):
    out = ['.\\" Made by installer/cli_docs.py from the binary\'s --help; do not edit.',
           '.TH %s 1 "%s" "slicescope %s" "SliceScope manual"' % (roff(name.upper()), title_date, version),
           ".SH NAME", "%s \\- %s" % (roff(name), roff(sentence_case(summary).rstrip("."))),
           ".SH SYNOPSIS"]
    for i, (command, rest) in enumerate(synopsis):
        if i:
            out.append(".br")
        # "[options] NAME": the placeholders in italics, as man(7) sets what the user replaces.
        rest = re.sub(r"\b([A-Z][A-Z_]*|options)\b", lambda m: "\\fI%s\\fR" % m.group(1), roff(rest))
        out.append("\\fB%s\\fR %s" % (roff(command), rest))
    for title, body in sections:
        if body:
            out += [".SH " + title, body]
    return "\n".join(out) + "\n"


def options_section(entries):
    return "\n".join(".TP\n%s\n%s" % (option_heading(e), roff(e.text)) for e in entries)


ENVIRONMENT = [
    ("RAY_ADDRESS", "An http:// or https:// URL names the Ray dashboard when no other SOURCE is given (a GCS address is ignored)."),
    ("RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH", "The Ray token when --ray-token-file is not given; then ~/.ray/auth_token. Sent only in the Authorization header."),
    ("KUBECONFIG", "The kubeconfig files, merged as kubectl merges them, when --kubeconfig is not given; then ~/.kube/config."),
    ("SLICESCOPE_DEBUG", "1 turns on the debug log on stderr (requests, watches, retries; never a token) and lets Qt's own warnings through."),
    ("QT_LOGGING_RULES", "Picks debug log categories, e.g. slicescope.kube.debug=true."),
]

EXIT_STATUS = [
    ("0", "Success."),
    ("1", "The operation failed (a source that does not answer, a file that cannot be read); one line on stderr says why."),
    ("2", "Bad usage: an unknown or malformed option; one line on stderr names it."),
    ("3", "alerts only: an alert at or above --fail-on is active."),
]


def definition_list(items):
    return "\n".join(".TP\n\\fB%s\\fR\n%s" % (roff(term), roff(text)) for term, text in items)


def see_also(names):
    # \% keeps a name from being hyphenated across lines.
    return ",\n".join(".BR \\%%%s (1)" % roff(n) for n in names)


def write_gz(path, text):
    buffer = io.BytesIO()
    # No name and no time in the header: the same page makes the same bytes (reproducible builds).
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as out:
        out.write(text.encode("utf-8"))
    with open(path, "wb") as f:
        f.write(buffer.getvalue())


# --- completions -----------------------------------------------------------------------------

def bash_completion(window, verbs):
    def case_for(entries):
        takes = [n for e in entries if e.value for n in e.names]
        files = [n for e in entries if e.value in FILE_VALUES for n in e.names]
        dirs = [n for e in entries if e.value in DIR_VALUES for n in e.names]
        contexts = [n for e in entries if e.long in CONTEXT_OPTIONS for n in e.names]
        every = [n for e in entries for n in e.names]
        return ('opts="%s"; takes=" %s "; files=" %s "; dirs=" %s "; contexts=" %s "'
                % (" ".join(every), " ".join(takes), " ".join(files), " ".join(dirs), " ".join(contexts)))

    lines = ["# bash completion for slicescope and kubectl-slicescope. Made by installer/cli_docs.py from",
             "# the binary's --help; do not edit.",
             "_slicescope()",
             "{",
             "    local cur=${COMP_WORDS[COMP_CWORD]} prev=\"\" verb=${COMP_WORDS[1]-}",
             "    ((COMP_CWORD > 1)) && prev=${COMP_WORDS[COMP_CWORD - 1]}",
             "    local verbs=\"%s\"" % " ".join(v for v, _ in verbs),
             "    local opts takes files dirs contexts",
             "    case \" $verbs \" in *\" $verb \"*) ;; *) verb= ;; esac",
             "    ((COMP_CWORD == 1)) && verb=",
             "    case $verb in"]
    for name, help_ in verbs:
        lines.append("    %s) %s ;;" % (name, case_for(help_.options)))
    lines += ["    *) %s ;;" % case_for(window.options),
              "    esac",
              "    if [[ -n $prev && $takes == *\" $prev \"* ]]; then",
              "        if [[ $contexts == *\" $prev \"* ]] && command -v kubectl >/dev/null 2>&1; then",
              "            mapfile -t COMPREPLY < <(compgen -W \"$(kubectl config get-contexts -o name 2>/dev/null)\" -- \"$cur\")",
              "        elif [[ $dirs == *\" $prev \"* ]]; then",
              "            compopt -o filenames 2>/dev/null",
              "            mapfile -t COMPREPLY < <(compgen -d -- \"$cur\")",
              "        elif [[ $files == *\" $prev \"* ]]; then",
              "            compopt -o filenames 2>/dev/null",
              "            mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")",
              "        else",
              "            COMPREPLY=()",
              "        fi",
              "        return 0",
              "    fi",
              "    if [[ $cur == -* ]]; then",
              "        mapfile -t COMPREPLY < <(compgen -W \"$opts\" -- \"$cur\")",
              "    elif ((COMP_CWORD == 1)); then",
              "        mapfile -t COMPREPLY < <(compgen -W \"$verbs\" -- \"$cur\")",
              "    else",
              "        COMPREPLY=()",
              "    fi",
              "    return 0",
              "}",
              "complete -F _slicescope slicescope kubectl-slicescope",
              ""]
    return "\n".join(lines)


def zsh_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def zsh_spec(entry):
    # _arguments: '*--capture=[Read a capture file or recording.]:FILE:_files' (`*`: repeatable,
    # never hidden once given; `=`: the value as the next word or after '=', as Qt takes it).
    text = re.sub(r"([\[\]:\\])", r"\\\1", entry.text)
    specs = []
    for name in entry.names:
        if not entry.value:
            specs.append("*%s[%s]" % (name, text))
            continue
        action = (" _files" if entry.value in FILE_VALUES else " _files -/" if entry.value in DIR_VALUES
                  else " _slicescope_contexts" if entry.long in CONTEXT_OPTIONS else " ")
        value = re.sub(r"([:\\])", r"\\\1", entry.value)
        specs.append("*%s%s[%s]:%s:%s" % (name, "=" if name.startswith("--") else "+", text, value, action.strip() or " "))
    return specs


def zsh_completion(window, verbs):
    lines = ["#compdef slicescope kubectl-slicescope",
             "# zsh completion for slicescope and kubectl-slicescope. Made by installer/cli_docs.py from the",
             "# binary's --help; do not edit.",
             "",
             "_slicescope_contexts() {",
             "  local -a contexts",
             "  (( $+commands[kubectl] )) && contexts=(${(f)\"$(kubectl config get-contexts -o name 2>/dev/null)\"})",
             "  _describe -t contexts 'kubeconfig context' contexts",
             "}",
             "",
             "_slicescope() {",
             "  local -a verbs window",
             "  verbs=("]
    lines += ["    %s" % zsh_quote("%s:%s" % (v, h.description[0] if h.description else "")) for v, h in verbs]
    lines += ["  )", "  window=("]
    lines += ["    %s" % zsh_quote(spec) for e in window.options for spec in zsh_spec(e)]
    lines += ["  )",
              "  if (( CURRENT == 2 )) && [[ $PREFIX != -* ]]; then",
              "    _describe -t verbs 'slicescope verb' verbs",
              "    return",
              "  fi",
              "  local verb=${words[2]}",
              "  local -a specs",
              "  case $verb in"]
    for name, help_ in verbs:
        lines.append("  %s)" % name)
        lines.append("    specs=(")
        lines += ["      %s" % zsh_quote(spec) for e in help_.options for spec in zsh_spec(e)]
        lines.append("    )")
        if help_.arguments:
            lines.append("    specs+=(%s)" % " ".join(zsh_quote(":%s: " % a.names[0]) for a in help_.arguments))
        lines.append("    ;;")
    lines += ["  *)",
              "    _arguments -s $window",
              "    return",
              "    ;;",
              "  esac",
              "  shift words",
              "  (( CURRENT-- ))",
              "  _arguments -s $specs",
              "}",
              "",
              "_slicescope \"$@\"",
              ""]
    return "\n".join(lines)


def fish_quote(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish_lines(condition, entries):
    out = []
    for e in entries:
        parts = ["complete -c slicescope -c kubectl-slicescope -n %s" % fish_quote(condition)]
        for n in e.names:
            parts.append(("-l %s" % n[2:]) if n.startswith("--") else ("-s %s" % n[1:]))
        if e.value in FILE_VALUES:
            parts.append("-r -F")
        elif e.value in DIR_VALUES:
            parts.append("-r -a '(__fish_complete_directories)'")
        elif e.long in CONTEXT_OPTIONS:
            parts.append("-x -a '(command -q kubectl; and kubectl config get-contexts -o name 2>/dev/null)'")
        elif e.value:
            parts.append("-x")
        parts.append("-d %s" % fish_quote(e.text))
        out.append(" ".join(parts))
    return out


def fish_completion(window, verbs):
    names = " ".join(v for v, _ in verbs)
    lines = ["# fish completion for slicescope and kubectl-slicescope. Made by installer/cli_docs.py from the",
             "# binary's --help; do not edit.",
             "",
             "# The verb is the first argument, or there is none (the window's options).",
             "function __slicescope_verb_is",
             "    set -l words (commandline -opc)",
             "    test (count $words) -ge 2; and contains -- $words[2] %s; and test $words[2] = $argv[1]" % names,
             "end",
             "function __slicescope_no_verb",
             "    set -l words (commandline -opc)",
             "    test (count $words) -lt 2; or not contains -- $words[2] %s" % names,
             "end",
             "function __slicescope_at_verb",
             "    test (count (commandline -opc)) -eq 1",
             "end",
             "",
             "complete -c slicescope -c kubectl-slicescope -f"]
    for name, help_ in verbs:
        lines.append("complete -c slicescope -c kubectl-slicescope -n __slicescope_at_verb -a %s -d %s"
                     % (name, fish_quote(help_.description[0] if help_.description else "")))
    lines += fish_lines("__slicescope_no_verb", window.options)
    for name, help_ in verbs:
        lines += fish_lines("__slicescope_verb_is %s" % name, help_.options)
    return "\n".join(lines) + "\n"


# --- main ------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--plugin", required=True, help="the binary under the name kubectl-slicescope")
    parser.add_argument("--version", required=True)
    parser.add_argument("--date", required=True, help="the page date (the newest release's, for reproducible pages)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    window = run_help(args.binary)
    prose, verb_list = split_verbs(window.description)
    verbs = [(name, run_help(args.binary, name)) for name, _ in verb_list]
    plugin = run_help(args.plugin)
    plugin_prose, _ = split_verbs(plugin.description)

    man = os.path.join(args.out, "man")
    os.makedirs(man, exist_ok=True)
    for stale in os.listdir(man):  # a verb that is gone takes its page with it
        os.remove(os.path.join(man, stale))
    verb_pages = ["slicescope-%s" % name for name, _ in verbs]
    verbs_section = "\n".join(".TP\n\\fB%s\\fR\n%s See \\fBslicescope\\-%s\\fR(1)." % (roff(name), roff(summary), roff(name))
                              for name, summary in verb_list)
    environment = definition_list(ENVIRONMENT)
    exit_status = definition_list(EXIT_STATUS)
    write_gz(os.path.join(man, "slicescope.1.gz"), page(
        "slicescope", args.date, args.version, prose[0].split(": ", 1)[-1].split(". ")[0],
        [("slicescope", "[options]"), ("slicescope", "VERB [options]")],
        [("DESCRIPTION", paragraphs(prose)), ("VERBS", verbs_section), ("OPTIONS", options_section(window.options)),
         ("ENVIRONMENT", environment), ("EXIT STATUS", exit_status),
         ("SEE ALSO", see_also(verb_pages + ["kubectl-slicescope"]))]))
    for (name, help_), page_name in zip(verbs, verb_pages):
        usage = help_.usage.split(" ", 2)
        if usage[:2] != ["slicescope", name]:
            raise SystemExit("cli_docs: `slicescope %s --help` says usage %r" % (name, help_.usage))
        arguments = options_section(help_.arguments) if help_.arguments else ""
        write_gz(os.path.join(man, page_name + ".1.gz"), page(
            page_name, args.date, args.version, help_.description[0] if help_.description else name,
            [("slicescope %s" % name, usage[2] if len(usage) > 2 else "")],
            [("DESCRIPTION", paragraphs(help_.description)), ("OPTIONS", options_section(help_.options)),
             ("ARGUMENTS", arguments), ("ENVIRONMENT", environment), ("EXIT STATUS", exit_status),
             ("SEE ALSO", see_also(["slicescope"] + [p for p in verb_pages if p != page_name]))]))
    write_gz(os.path.join(man, "kubectl-slicescope.1.gz"), page(
        "kubectl-slicescope", args.date, args.version, "SliceScope as a kubectl plugin",
        [("kubectl slicescope", "[options]"), ("kubectl slicescope", "VERB [options]")],
        [("DESCRIPTION", paragraphs(plugin_prose) + "\n.PP\n" + roff(
            "kubectl runs this as kubectl-slicescope and hands it every argument after \"slicescope\". "
            "The verbs and their options are slicescope's: see slicescope(1) and slicescope-VERB(1).")),
         ("VERBS", verbs_section), ("OPTIONS", options_section(plugin.options)),
         ("ENVIRONMENT", environment), ("EXIT STATUS", exit_status),
         ("SEE ALSO", see_also(["slicescope", "kubectl"]))]))

    completion = os.path.join(args.out, "completion")
    for shell, name, text in (("bash", "slicescope", bash_completion(window, verbs)),
                              ("zsh", "_slicescope", zsh_completion(window, verbs)),
                              ("fish", "slicescope.fish", fish_completion(window, verbs))):
        os.makedirs(os.path.join(completion, shell), exist_ok=True)
        with open(os.path.join(completion, shell, name), "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
