#!/usr/bin/env bash
# Links between the Markdown pages: every Markdown link to a page's heading in README.md, docs/ and bench/, and
# every such page and anchor named in the code, must reach a heading that exists. No build, no server: about a second.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -c "import pytest" 2>/dev/null || .venv/bin/pip install -q --disable-pip-version-check pytest
exec .venv/bin/python -m pytest Tests/docs -p no:cacheprovider -q "$@"
