"""Every link to a heading of a local Markdown file must land on a heading that exists.

Markdown links `[text](path.md#anchor)` and `[text](#anchor)` in README.md, docs/*.md and bench/**/*.md, and
mentions like `docs/benchmarks.md#anchor` in source comments and scripts, are resolved against the headings of the
file they name, slugged as GitHub slugs them: lowercase, punctuation other than '-' and '_' dropped, each space a
'-', and a repeated slug suffixed -1, -2, ... A link to a missing file fails too. No network, no build: a second.
"""
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MARKDOWN = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "bench").rglob("*.md"))]
SOURCES = [p for d in ("Sources", "Public", "bench", "scripts", "Tests")
           for p in sorted((ROOT / d).rglob("*")) if p.is_file() and p.suffix in
           {".swift", ".c", ".h", ".js", ".py", ".sh", ".lua", ".html", ".css", ""}
           and "__pycache__" not in p.parts and p.name != "test_links.py"]

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
MENTION = re.compile(r"((?:[\w.-]+/)*[\w.-]+\.md)#([\w-]+)")


def slug(heading: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
    text = text.lower()
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch in "-_" or ch == " " or category[0] in "LNM":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def lines_outside_fences(path: Path):
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


_anchors: dict = {}


def anchors(path: Path) -> set:
    if path not in _anchors:
        seen: dict = {}
        found = set()
        for _, line in lines_outside_fences(path):
            match = HEADING.match(line)
            if not match:
                continue
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        _anchors[path] = found
    return _anchors[path]


def markdown_links():
    for path in MARKDOWN:
        for number, line in lines_outside_fences(path):
            for match in LINK.finditer(CODE_SPAN.sub("", line)):
                target = match.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                    continue  # http:, https:, mailto:
                file_part, _, anchor = target.partition("#")
                if file_part and not file_part.endswith(".md"):
                    continue
                yield path, number, file_part, anchor


def problem(source: Path, number: int, file_part: str, anchor: str):
    """What is wrong with one link, or None."""
    where = f"{source.relative_to(ROOT)}:{number}"
    target = (source.parent / file_part).resolve() if file_part else source
    if not target.is_file():
        return f"{where}: {file_part} does not exist"
    if anchor and anchor not in anchors(target):
        return f"{where}: no heading '#{anchor}' in {target.relative_to(ROOT)}"
    return None


def test_slug_follows_github():
    assert slug("Static tiles at nginx's cost (issue 13, goals 1 and 2)") == \
        "static-tiles-at-nginxs-cost-issue-13-goals-1-and-2"
    assert slug("The 128-connection stall: libmicrohttpd's `MAX_EVENTS`") == \
        "the-128-connection-stall-libmicrohttpds-max_events"
    assert slug("Builds against `vips dzsave`") == "builds-against-vips-dzsave"
    assert slug("A gallery of 100,000 images") == "a-gallery-of-100000-images"


def test_markdown_links_land_on_headings():
    links = list(markdown_links())
    assert any(anchor for *_, anchor in links), "no anchored link found: the parser is broken"
    failures = [p for p in (problem(*link) for link in links) if p]
    assert not failures, "\n".join(failures)


def test_anchors_named_in_code_exist():
    failures = []
    for path in SOURCES:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for match in MENTION.finditer(line):
                name, anchor = match.group(1), match.group(2)
                candidates = [ROOT / name, path.parent / name, ROOT / "docs" / name]
                target = next((c.resolve() for c in candidates if c.is_file()), None)
                where = f"{path.relative_to(ROOT)}:{number}"
                if target is None:
                    failures.append(f"{where}: {name} does not exist")
                elif anchor not in anchors(target):
                    failures.append(f"{where}: no heading '#{anchor}' in {target.relative_to(ROOT)}")
    assert not failures, "\n".join(failures)
