#!/usr/bin/env python3
"""The documentation's cross-references hold: every `vas-protocol.md §N.N` a tracked file cites
exists (and so does the numbered step it names), every page of docs/ a file names exists, every
section it names by title ("docs/operations.md, "Metrics"") is a heading of that page, and every
Markdown link between the pages leads to a file and heading that exist.

Run: python3 -m unittest scripts/test_docs.py (scripts/test does).
"""

import re
import subprocess
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PROTOCOL = DOCS / "vas-protocol.md"

# A § that belongs to another document: "ISO/IEC 7816-4 §5.2", "SEC 1 v2 §3.6.1", "issue 10 §3",
# "user manual §7.1", "RFC 5915 §3". Judged on the text just before the §, on the same line.
OTHER_DOCUMENT = re.compile(r"(ISO|IEC|SEC 1|issue \d+|RFC|manual|7816|14443)[^§\n]{0,16}$")
SECTION = re.compile(r"§(\d+(?:\.\d+)*)")
STEP = re.compile(r"^\s*(?:steps?\s+(\d+)(?:\s*[–-]\s*(\d+))?)")
PAGE = re.compile(r"(?<![\w/.-])docs/([A-Za-z0-9_-]+\.md)")
NAMED_SECTION = re.compile(r"(?<![\w/.-])docs/([A-Za-z0-9_-]+\.md)`?,? \(?\"([^\"]+)\"")
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def tracked_text_files():
    """Every tracked file that is UTF-8 text, as (path, text)."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    for name in names.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file():
            continue
        try:
            yield path, path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue


def headings(text):
    """The Markdown headings of `text` (outside code fences), as (level, title)."""
    found, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if match:
            found.append((len(match.group(1)), match.group(2)))
    return found


def slug(title):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    title = re.sub(r"[`*_]", "", title.lower())
    return re.sub(r"[^\w\- ]", "", title).replace(" ", "-")


def protocol_sections():
    """vas-protocol.md's numbered sections: number -> the section's text (up to the next heading
    of the same or a higher level), for checking the numbered steps cited."""
    lines = PROTOCOL.read_text().splitlines()
    numbered = []
    for index, line in enumerate(lines):
        match = re.match(r"^(#{2,4})\s+(\d+(?:\.\d+)*)\.?\s", line)
        if match:
            numbered.append((index, len(match.group(1)), match.group(2)))
    sections = {}
    for position, (index, level, number) in enumerate(numbered):
        end = len(lines)
        for later_index, later_level, _ in numbered[position + 1:]:
            if later_level <= level:
                end = later_index
                break
        sections[number] = "\n".join(lines[index:end])
    return sections


def protocol_citations(text):
    """The (line, section, steps) each § in a file that cites vas-protocol.md stands for.
    Every § in such a file counts, unless another document's name stands just before it."""
    for number, line in enumerate(text.splitlines(), 1):
        for match in SECTION.finditer(line):
            if OTHER_DOCUMENT.search(line[: match.start()]):
                continue
            steps = STEP.match(line[match.end():])
            wanted = []
            if steps:
                first = int(steps.group(1))
                last = int(steps.group(2) or first)
                wanted = list(range(first, last + 1))
            yield number, match.group(1), wanted


class VASProtocolCitationTests(unittest.TestCase):
    def test_every_cited_section_and_step_exists(self):
        sections = protocol_sections()
        problems = []
        citing = 0
        for path, text in tracked_text_files():
            if "vas-protocol.md" not in text:
                continue
            citing += 1
            for line, section, steps in protocol_citations(text):
                where = f"{path.relative_to(ROOT)}:{line}"
                if section not in sections:
                    problems.append(f"{where} cites vas-protocol.md §{section}, which the page does not have")
                    continue
                for step in steps:
                    if not re.search(rf"^{step}\. ", sections[section], re.MULTILINE):
                        problems.append(f"{where} cites §{section} step {step}, which that section does not number")
        self.assertGreater(citing, 40, "the citing files were not found: is this a git checkout?")
        self.assertEqual(problems, [])

    def test_the_citation_reader_tells_sections_apart(self):
        sample = ("/// (vas-protocol.md §5.2 steps 2–3), ISO/IEC 7816-4 §5.2.2.1, issue 10 §3\n"
                  "// §8.2: the capture; SEC 1 v2 §3.6.1; §2–§5\n")
        self.assertEqual(list(protocol_citations(sample)),
                         [(1, "5.2", [2, 3]), (2, "8.2", []), (2, "2", []), (2, "5", [])])


class DocumentLinkTests(unittest.TestCase):
    def test_every_docs_page_named_exists(self):
        problems = []
        for path, text in tracked_text_files():
            for number, line in enumerate(text.splitlines(), 1):
                for match in PAGE.finditer(line):
                    if not (DOCS / match.group(1)).is_file():
                        problems.append(f"{path.relative_to(ROOT)}:{number} names docs/{match.group(1)}, which does not exist")
        self.assertEqual(problems, [])

    def test_every_section_named_by_title_is_a_heading_of_its_page(self):
        problems = []
        for path, text in tracked_text_files():
            for number, line in enumerate(text.splitlines(), 1):
                for match in NAMED_SECTION.finditer(line):
                    page = DOCS / match.group(1)
                    if not page.is_file():
                        continue  # reported by the test above
                    titles = [title.lower() for _, title in headings(page.read_text())]
                    wanted = match.group(2).lower()
                    if not any(title == wanted or re.match(re.escape(wanted) + r"\b", title) for title in titles):
                        problems.append(f"{path.relative_to(ROOT)}:{number} names section \"{match.group(2)}\" "
                                        f"of docs/{match.group(1)}, which has no such heading")
        self.assertEqual(problems, [])

    def test_markdown_links_lead_to_files_and_headings_that_exist(self):
        problems = []
        for path, text in tracked_text_files():
            if path.suffix != ".md":
                continue
            for number, line in enumerate(text.splitlines(), 1):
                for match in MARKDOWN_LINK.finditer(line):
                    target = match.group(1)
                    if re.match(r"[a-z]+:", target):
                        continue  # https:, mailto:
                    file_part, _, anchor = target.partition("#")
                    linked = (path.parent / file_part).resolve() if file_part else path
                    where = f"{path.relative_to(ROOT)}:{number}"
                    if not linked.exists():
                        problems.append(f"{where} links {target}: no such file")
                    elif anchor and linked.suffix == ".md":
                        anchors = {slug(title) for _, title in headings(linked.read_text())}
                        if anchor not in anchors:
                            problems.append(f"{where} links {target}: no such heading")
        self.assertEqual(problems, [])

    def test_no_page_drives_a_virtual_device_on_a_fixed_rig_port(self):
        """pcscd-rig takes a free pair of ports, and the first is usually the demo's own phone: an
        example with `--port 39000` taps the demo's reader. Examples use the port it printed."""
        fixed = re.compile(r"(virtual_card|pn532_emulator)\.py[^\n]*--port\s+\d+")
        for page in sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]:
            for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
                self.assertIsNone(fixed.search(line), "%s:%d: a fixed rig port: %s" % (page.name, number, line))

    def test_the_index_lists_every_page(self):
        index = (DOCS / "README.md").read_text()
        unlisted = [page.name for page in sorted(DOCS.glob("*.md"))
                    if page.name != "README.md" and f"]({page.name})" not in index]
        self.assertEqual(unlisted, [], "docs/README.md does not link these pages")


if __name__ == "__main__":
    unittest.main()
