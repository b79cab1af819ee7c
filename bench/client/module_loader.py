"""The gallery page's module pack loader (Public/index.html, between its `module pack loader: begin` and `end`
lines), put into a benchmark page where it says so, so that the benchmark page loads its modules exactly as the
gallery page does without a second copy of the loader to keep in step."""
import re
import textwrap
from pathlib import Path

INDEX = Path(__file__).resolve().parents[2] / 'Public' / 'index.html'
BLOCK = re.compile(r'^ *// module pack loader: begin\n.*?^ *// module pack loader: end\n', re.M | re.S)
PLACE = re.compile(r'^( *)// module pack loader: Public/index\.html\'s, put here by bench/client/module_loader\.py\n',
                   re.M)


def with_module_loader(page):
    """`page` (HTML) with the gallery page's loader where its placeholder line is, at that line's indentation."""
    block = BLOCK.search(INDEX.read_text())
    place = PLACE.search(page)
    if not block or not place:
        raise ValueError('no module pack loader in Public/index.html, or no place for it in the page')
    loader = textwrap.indent(textwrap.dedent(block.group(0)), place.group(1))
    return page[:place.start()] + loader + page[place.end():]
