#!/usr/bin/python3
"""Writes the small .pth test files of tests/data/pth/ and expected.json, the facts the C++
tests check them against (computed here, in Python, from the objects that were saved).

Run with Debian's interpreter, which has torch 1.13 and numpy:
    /usr/bin/python3 scripts/make_pth_test_files.py [OUTPUT_DIR]
"""
import collections
import json
import os
import sys

import numpy as np
import torch


class TinyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.bn = torch.nn.BatchNorm2d(4)
        self.head = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
        self.register_buffer("scale", torch.tensor([0.5, 2.0]))


def tensor_facts(t):
    flat = t.detach().reshape(-1)
    facts = {
        "dtype": str(t.dtype).replace("torch.", ""),
        "shape": list(t.shape),
        "stride": list(t.stride()),
        "storage_offset": t.storage_offset(),
        "numel": t.numel(),
    }
    if t.dtype == torch.bool:
        facts["sum"] = float(flat.to(torch.int64).sum())
        facts["first"] = [float(v) for v in flat[:4].to(torch.int64)]
    else:
        facts["sum"] = float(flat.to(torch.float64).sum())
        facts["first"] = [float(v) for v in flat[:4].to(torch.float64)]
    return facts


def describe(value, path, out):
    """Flattens a saved object into {"/"-joined key path: facts} for expected.json."""
    if isinstance(value, torch.Tensor):
        out[path] = {"kind": "tensor", **tensor_facts(value)}
    elif isinstance(value, np.ndarray):
        out[path] = {"kind": "tensor", **tensor_facts(torch.from_numpy(value.copy()))}
    elif isinstance(value, dict):
        kind = "ordered_dict" if isinstance(value, collections.OrderedDict) else "dict"
        out[path] = {"kind": kind, "keys": [str(k) for k in value.keys()]}
        for k, v in value.items():
            describe(v, f"{path}/{k}" if path else str(k), out)
    elif isinstance(value, (list, tuple)):
        out[path] = {"kind": type(value).__name__, "length": len(value)}
        for i, v in enumerate(value):
            describe(v, f"{path}/{i}" if path else str(i), out)
    elif isinstance(value, (bool, np.bool_)):
        out[path] = {"kind": "bool", "value": bool(value)}
    elif isinstance(value, (int, np.integer)):
        out[path] = {"kind": "int", "value": int(value)}
    elif isinstance(value, (float, np.floating)):
        out[path] = {"kind": "float", "value": float(value)}
    elif isinstance(value, str):
        out[path] = {"kind": "str", "value": value}
    elif isinstance(value, bytes):
        out[path] = {"kind": "bytes", "value": list(value)}
    elif value is None:
        out[path] = {"kind": "none"}
    else:
        raise TypeError(f"{path}: {type(value)}")


def tiny_state_dict():
    torch.manual_seed(0)
    model = TinyModel()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-1, 1)
        model.bn.running_var.uniform_(0.5, 2)
    model.bn.num_batches_tracked += 7
    return model.state_dict()


def build_files():
    torch.manual_seed(1)
    files = {}
    state_dict = tiny_state_dict()
    files["state_dict.pth"] = (state_dict, True)

    optimizer_state = {
        "state": {
            0: {"step": torch.tensor(3.0), "exp_avg": torch.randn(4, 3), "exp_avg_sq": torch.rand(4, 3)},
            1: {"step": torch.tensor(3.0), "exp_avg": torch.randn(4), "exp_avg_sq": torch.rand(4)},
        },
        "param_groups": [
            {"lr": 2e-4, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01, "amsgrad": False,
             "params": [0, 1], "lr_mult": None}
        ],
    }
    meta = {
        "mmcv_version": "1.5.2",
        "config": "model = dict(type='Baseline')\n",
        "epoch": 12,
        "iter": np.int64(34567),
        "loss": np.float64(0.4375),
        "lr": np.float32(0.25),
        "hook_msgs": {"last_ckpt": "work_dirs/epoch_12.pth", "best_score": np.float64(1.5)},
        "CLASSES": ("lane", "traffic_element"),
        "img_shape": (1550, 2048, 3),
        "mean": np.array([123.675, 116.28, 103.53], dtype=np.float32),
        "index": np.arange(6, dtype=np.int64).reshape(2, 3),
        "seed": None,
        "deterministic": True,
        "blob": b"\x00\x01\xfe\xff",
    }
    files["mmcv_checkpoint.pth"] = ({"meta": meta, "state_dict": state_dict, "optimizer": optimizer_state}, True)
    files["legacy_format.pth"] = (state_dict, False)

    dtypes = {
        "float16": torch.randn(3, 4).to(torch.float16),
        "bfloat16": torch.randn(2, 5).to(torch.bfloat16),
        "float64": torch.randn(3).double(),
        "int64": torch.arange(-5, 7, dtype=torch.int64).reshape(3, 4) * 1_000_000_007,
        "int32": torch.arange(-6, 6, dtype=torch.int32),
        "int16": torch.tensor([-32768, -1, 0, 32767], dtype=torch.int16),
        "int8": torch.tensor([-128, -3, 4, 127], dtype=torch.int8),
        "uint8": torch.tensor([0, 1, 200, 255], dtype=torch.uint8),
        "bool": torch.tensor([True, False, True, True]),
        "scalar": torch.tensor(2.5),
        "empty": torch.zeros(0, 3),
    }
    files["dtypes.pth"] = (dtypes, True)

    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    views = {
        "base": base,
        "transposed": base.t(),
        "row_slice": base[1:3],
        "column": base[:, 2],
        "strided": base[::2, 1::2],
    }
    files["views.pth"] = (views, True)
    files["views_legacy.pth"] = (views, False)
    shared = torch.arange(10, dtype=torch.float32)
    files["shared_storage.pth"] = ({"a": shared, "b": shared[2:6], "c": shared.view(2, 5)}, True)
    files["nested.pth"] = ([1, -2, 3.5, "text", None, True, (4, (5, 6)), {7: "seven", "k": [b"x"]},
                            2**40, -(2**62)], True)
    return files


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "pth")
    os.makedirs(out_dir, exist_ok=True)
    expected = {"torch_version": torch.__version__, "files": {}}
    for name, (obj, zip_format) in build_files().items():
        torch.save(obj, os.path.join(out_dir, name), _use_new_zipfile_serialization=zip_format)
        facts = {}
        describe(obj, "", facts)
        expected["files"][name] = {"format": "zip" if zip_format else "legacy", "values": facts}
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
