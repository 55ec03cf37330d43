#!/usr/bin/python3
"""Prints, as JSON, the facts of a .pth file as Python's torch.load sees it (the same facts
make_pth_test_files.py records in expected.json). Used by the C++ round-trip tests.

    /usr/bin/python3 scripts/describe_pth.py FILE
"""
import json
import os
import sys

import torch

sys.dont_write_bytecode = True  # keep the source tree clean when tests run this
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_pth_test_files import describe  # noqa: E402


def main():
    facts = {}
    describe(torch.load(sys.argv[1]), "", facts)
    json.dump(facts, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
