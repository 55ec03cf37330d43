#!/usr/bin/python3
"""torchrun for Debian's python3-torch (torch 1.13 under Python 3.11).

Debian's `torch.distributed.run` crashes before starting any worker: `Std.from_str` looks a
value up by iterating the `Std` IntFlag, and since Python 3.11 that iteration skips `NONE` (0)
and `ALL` (3), so every `--redirects`/`--tee` value, the default "0" included, becomes None.
This replaces that one function with a direct conversion and runs torchrun unchanged:

    /usr/bin/python3 scripts/torchrun.py --nproc_per_node 2 --no_python build/bin/train_ds CFG \
        --launcher pytorch
"""
import re

import torch.distributed.run
from torch.distributed.elastic.multiprocessing.api import Std


def _std_from_str(value):
    """"0".."3" -> Std, "0:3,1:0" -> {local rank: Std}; anything else is a ValueError."""
    if re.fullmatch(r"[0-3]", value):
        return Std(int(value))
    if re.fullmatch(r"(\d+:[0-3],)*\d+:[0-3]", value):
        return {int(rank): Std(int(std)) for rank, std in (m.split(":") for m in value.split(","))}
    raise ValueError(f"{value} does not match <0..3> or <local_rank:0..3,...>")


Std.from_str = staticmethod(_std_from_str)

if __name__ == "__main__":
    torch.distributed.run.main()
