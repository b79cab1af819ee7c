"""Runs iiif-validator-ng (PyPI) against a live server and exits 1 on any failure.

usage: validator_ng.py BASE_URL IDENTIFIER {3|2}

The validator's own command line prints failures but always exits 0, so its test runner is called
here and the failures are counted. Every test the validator finds applicable to the server's
info.json runs (level 2 plus each declared extra format, quality and feature).

Python 3.11 (Debian 12's) cannot import the validator's validate.py: one class uses Python 3.12's
generic syntax (`class SizedGenerator[T]:`) although the package declares Python >= 3.9. That one
line is rewritten to the 3.11 spelling (`Generic[T]`) before the module is loaded; nothing else of
the validator is touched. The script fails if the line is no longer there, so the rewrite goes once
the validator is fixed.
"""
import importlib.util
import sys
from typing import Generic, TypeVar

import iiif_validator
from iiif_validator.tests.test import IIIFVersion, TargetServer, ValidationFailure

NEW_SYNTAX = "class SizedGenerator[T]:"


def load_validate():
    path = iiif_validator.__path__[0] + "/validate.py"
    source = open(path).read()
    if NEW_SYNTAX not in source:
        sys.exit(f"{path} no longer has '{NEW_SYNTAX}': drop the rewrite in {__file__}")
    source = source.replace(NEW_SYNTAX, "class SizedGenerator(Generic[T]):")
    spec = importlib.util.spec_from_loader("iiif_validator.validate", loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "iiif_validator"
    module.Generic, module.T = Generic, TypeVar("T")
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def main():
    base, ident, version = sys.argv[1], sys.argv[2], sys.argv[3]
    server = TargetServer(base, validation_id=ident, version=IIIFVersion.V2 if version == "2" else IIIFVersion.V3)
    passed, failed = 0, 0
    for test, result in load_validate().run_tests(server, max_threads=2):
        for outcome in result if isinstance(result, list) else [result]:
            if isinstance(outcome, ValidationFailure):
                failed += 1
                print(f"FAIL {test.__module__.split('.')[-1]}: {outcome.details}\n"
                      f"  expected {outcome.expected}\n  received {outcome.received}\n  {outcome.url}")
            else:
                passed += 1
    print(f"iiif-validator-ng, Image API {server.version.value}: {passed} checks passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
