#!/usr/bin/env python3
"""Lists the GoogleTest cases that skipped in a ctest run, and under CI fails on any that the
written list of expected skips does not name: CTest counts a skipped case as passed, so without
this a machine missing a fixture or a dependency would turn checks into silent passes.

Reads RESULTS_DIR/<ctest test>.xml (GoogleTest's reports; tests/CMakeLists.txt sets
GTEST_OUTPUT for every test) and EXPECTED, whose lines are `<ctest test pattern> <case pattern>
<why>` (shell-style patterns, `#` starts a comment). Exit status 1 under CI=true when a case
skipped that EXPECTED does not name, or when a report is missing; 0 otherwise. Standard library
only.

    python3 scripts/check_skipped_tests.py build/test-results tests/expected_skips.txt
"""
import fnmatch
import os
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path


def expected_skips(path):
    rules = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 2)
        if len(parts) < 3:
            sys.exit(f"{path}:{number}: expected `<ctest test pattern> <case pattern> <why>`")
        rules.append((parts[0], parts[1]))
    return rules


def skipped_cases(report):
    """(case, message) for every skipped case of one GoogleTest XML report."""
    found = []
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        skipped = case.find("skipped")
        if case.get("result") == "skipped" or skipped is not None:
            message = (skipped.get("message") if skipped is not None else "") or ""
            found.append((f"{case.get('classname')}.{case.get('name')}",
                          message.strip().splitlines()[-1] if message.strip() else ""))
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    results, expected_path = Path(sys.argv[1]), sys.argv[2]
    rules = expected_skips(expected_path)
    in_ci = os.environ.get("CI") == "true"
    reports = sorted(results.glob("*.xml"))
    if not reports:
        print(f"check_skipped_tests: no reports in {results}")
        return 1 if in_ci else 0
    expected, unexpected = [], []
    for report in reports:
        test = report.stem
        try:
            cases = skipped_cases(report)
        except ElementTree.ParseError as error:
            unexpected.append((test, "(the report)", f"unreadable: {error}"))
            continue
        for case, why in cases:
            listed = any(fnmatch.fnmatchcase(test, t) and fnmatch.fnmatchcase(case, c)
                         for t, c in rules)
            (expected if listed else unexpected).append((test, case, why))
    print(f"check_skipped_tests: {len(reports)} reports, {len(expected)} skipped cases listed in "
          f"{expected_path}, {len(unexpected)} not listed")
    for test, case, why in unexpected:
        print(f"  not listed: {test} {case}: {why}")
    if unexpected and in_ci:
        print(f"check_skipped_tests: under CI every skip must be listed in {expected_path}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
