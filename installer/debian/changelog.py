#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The package's Debian changelog, made from the <releases> of the AppStream metainfo so the two
cannot tell different stories:

    changelog.py METAINFO.xml "Name <address>" OUT.gz

Each <release version date> becomes an entry (newest first, as in the metainfo), its description's
paragraphs and list items the entry's lines. Compressed without a name or time in the gzip header,
so the same metainfo gives the same bytes.
"""

import datetime
import gzip
import io
import sys
import textwrap
import xml.etree.ElementTree as ElementTree


def entry_lines(release):
    lines = []
    for element in release.iterfind("description/*"):
        texts = [element] if element.tag == "p" else list(element.iterfind("li"))
        for text in texts:
            words = " ".join("".join(text.itertext()).split())
            lines += textwrap.wrap(words, width=76, initial_indent="  * ", subsequent_indent="    ")
    return lines or ["  * Release %s." % release.get("version")]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    metainfo, maintainer, out = sys.argv[1:]
    package = "slicescope"
    releases = ElementTree.parse(metainfo).getroot().findall("releases/release")
    if not releases:
        sys.exit("changelog.py: %s has no <release>" % metainfo)
    text = []
    for release in releases:
        day = datetime.datetime.strptime(release.get("date"), "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)
        text.append("%s (%s) unstable; urgency=medium\n" % (package, release.get("version")))
        text.append("\n".join(entry_lines(release)) + "\n")
        text.append(" -- %s  %s\n" % (maintainer, day.strftime("%a, %d %b %Y %H:%M:%S +0000")))
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as f:
        f.write("\n".join(text).encode("utf-8"))
    with open(out, "wb") as f:
        f.write(buffer.getvalue())


if __name__ == "__main__":
    main()
