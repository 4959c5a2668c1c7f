"""docs/performance.md, where each bench with `--write` keeps one section between its own markers
(`<!-- NAME:start -->` and `<!-- NAME:end -->`) and leaves the rest of the page as it is."""

import os

from . import ROOT

DOC = os.path.join(ROOT, "docs/performance.md")


def write_section(start, end, body, missing="end", doc=DOC):
    """Replaces the text between the markers `start` and `end` of `doc` with `body` (which ends
    with a newline): the page then has `start`, a newline, `body`, `end`. Where the page has no
    such section yet, it goes where `missing` says: "end" (the default), "after-title" (after the
    page's first line), or another marker, before which it goes (the end when that is absent)."""
    with open(doc) as f:
        text = f.read()
    section = start + "\n" + body + end
    at, until = text.find(start), text.find(end)
    if at >= 0 and until > at:
        text = text[:at] + section + text[until + len(end):]
    elif missing == "after-title":
        title_end = text.find("\n") + 1
        text = text[:title_end] + "\n" + section + "\n" + text[title_end:]
    elif missing != "end" and missing in text:
        at = text.find(missing)
        text = text[:at] + section + "\n\n" + text[at:]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(doc, "w") as f:
        f.write(text)
