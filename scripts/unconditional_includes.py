#!/usr/bin/env python3
"""Prints, for each file given, which of the --find headers it includes unconditionally, directly
or through the project's own headers: one line per file, the file and then the headers found, in
the order of --find, separated by tabs.

An include counts only in a file's opening block of preprocessor lines and comments, before
any code, and outside every #if/#ifdef/#ifndef block (the project's headers use #pragma once,
not include guards): a header included only in some configuration, or after some code, is never
reported, so the answer may miss an include, never invent one. Includes are resolved beside the
including file, then in the --include-dir directories, in order.

    unconditional_includes.py --include-dir include --find torch/torch.h src/a.cpp src/b.cpp

With --first-include instead of --find, prints for each file the project header it includes
first, before any other line but comments and #pragma once, or "-" where there is none.

    unconditional_includes.py --include-dir include --first-include src/a.cpp src/b.cpp
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'#\s*include\s*[<"]([^>"]+)[>"]')
OPENS = re.compile(r"#\s*if(n?def)?\b")
CLOSES = re.compile(r"#\s*endif\b")


def code_lines(path):
    """The file's lines, stripped, without blank lines and comments."""
    in_comment = False
    with open(path, encoding="utf-8", errors="replace") as source:
        for line in source:
            line = line.strip()
            if in_comment or line.startswith("/*"):
                in_comment = "*/" not in line
                continue
            if line and not line.startswith("//"):
                yield line


def direct_includes(path):
    """The names a file includes before its first code, outside preprocessor conditionals."""
    names = []
    depth = 0
    for line in code_lines(path):
        if not line.startswith("#"):
            break
        if OPENS.match(line):
            depth += 1
        elif CLOSES.match(line):
            depth -= 1
        elif depth == 0:
            match = INCLUDE.match(line)
            if match:
                names.append(match.group(1))
    return names


def first_include(path):
    """The name a file includes first, before any other line but comments and #pragma once."""
    for line in code_lines(path):
        if re.match(r"#\s*pragma\s+once\b", line):
            continue
        match = INCLUDE.match(line)
        return match.group(1) if match else None
    return None


class Closure:
    def __init__(self, include_dirs, wanted):
        self.include_dirs = include_dirs
        self.wanted = set(wanted)
        self.found = {}

    def resolve(self, name, including_file):
        for directory in [os.path.dirname(including_file)] + self.include_dirs:
            candidate = os.path.normpath(os.path.join(directory, name))
            if os.path.isfile(candidate):
                return candidate
        return None

    def of(self, path):
        """The wanted headers `path` includes, directly or through project headers."""
        if path in self.found:
            return self.found[path]
        self.found[path] = set()  # an include cycle ends here
        result = set()
        for name in direct_includes(path):
            if name in self.wanted:
                result.add(name)
                continue
            included = self.resolve(name, path)
            if included is not None:
                result |= self.of(included)
        self.found[path] = result
        return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--include-dir", action="append", default=[])
    parser.add_argument("--find", action="append", default=[])
    parser.add_argument("--first-include", action="store_true")
    parser.add_argument("files", nargs="+")
    arguments = parser.parse_args()
    if arguments.first_include == bool(arguments.find):
        parser.error("give either --find or --first-include")
    closure = Closure(arguments.include_dir, arguments.find)
    if arguments.first_include:
        for path in arguments.files:
            name = first_include(path)
            included = closure.resolve(name, path) if name else None
            print(f"{path}\t{included or '-'}")
        return 0
    for path in arguments.files:
        found = closure.of(path)
        print("\t".join([path] + [name for name in arguments.find if name in found]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
