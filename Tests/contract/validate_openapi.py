#!/usr/bin/env python3
"""Checks the API contract, Sources/Tilescope/OpenAPI/openapi.json: the one copy, edited by hand.

The server sends that file's bytes at GET /openapi.json (a SwiftPM resource of the Tilescope target).
This fails when the file is not JSON, repeats a key in an object (JSON parsers keep one of the two
silently, so an edit would be lost), or is not valid OpenAPI 3.1 (openapi-spec-validator, PyPI).
Tests/contract/run.sh runs it before schemathesis.

    validate_openapi.py
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "Sources/Tilescope/OpenAPI/openapi.json"
NAME = CONTRACT.relative_to(ROOT)


class RepeatedKey(ValueError):
    pass


def unique_keys(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise RepeatedKey(key)
        seen[key] = value
    return seen


def main() -> int:
    try:
        document = json.loads(CONTRACT.read_text(encoding="utf-8"), object_pairs_hook=unique_keys)
    except RepeatedKey as error:
        print(f"{NAME}: the key {error} appears twice in one object", file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"{NAME} is not JSON: {error}", file=sys.stderr)
        return 1
    from openapi_spec_validator import validate
    try:
        validate(document)
    except Exception as error:  # the validator's errors print the whole document: keep the gist
        where = "/".join(str(part) for part in getattr(error, "path", []))
        print(f"{NAME} is not valid OpenAPI 3.1 at /{where}: "
              f"{getattr(error, 'message', str(error))[:300]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
