#!/usr/bin/env python3
"""The environment stage of scripts/gpu_check.sh: what the machine is, before anything is built.

Records the GPU (nvidia-smi: name, driver, memory, memory used before the check), the build
tools (c++, cmake, nvcc, ninja, glibc), the PyTorch the project builds against (version, CUDA,
cuDNN, NCCL, devices seen) and the CUDA toolkit's library folder: whether libcudart.so and
libnvrtc.so have their unversioned development links, without which Caffe2's CMake config stops
with "cannot find the CUDA libraries". For each that lacks one, a link to the versioned library
(the toolkit's, else PyTorch's own nvidia-* package's) is made in --links-dir, which the
configure stage puts on CMAKE_LIBRARY_PATH. Writes --json and prints a readable block.

Exit status 0; 3 when PyTorch is not 2.11.x (from 2.12 on LibTorch needs C++20, which the project
does not build with) or cannot be imported, or, with --require-cuda (the GPU machine), when CUDA
is unusable (PyTorch built without it, no device, or a first computation on the device fails): the
check stops there with one line saying so, the driver and torch.version.cuda. Standard library
only; run under the python that has torch.

    python3 scripts/gpu_check_environment.py --json ENV.json --links-dir DIR [--require-cuda]
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

SUPPORTED_TORCH = "2.11."
# What Caffe2's CMake config links by name; the rest of the CUDA libraries come from LibTorch.
DEVELOPMENT_LINKS = ("libcudart.so", "libnvrtc.so")


def version_line(command, last=False):
    """The first (or last) non-empty line `command` prints, or why there is none."""
    if shutil.which(command[0]) is None:
        return "not found"
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"failed: {error}"
    lines = [line.strip() for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    if not lines:
        return f"printed nothing (exit status {result.returncode})"
    return lines[-1] if last else lines[0]


def gpus():
    if shutil.which("nvidia-smi") is None:
        return {"error": "nvidia-smi not found"}
    query = "name,driver_version,memory.total,memory.used"
    result = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"],
                            capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        return {"error": (result.stdout + result.stderr).strip().splitlines()[-1:] or
                "nvidia-smi failed"}
    found = []
    for line in result.stdout.strip().splitlines():
        name, driver, total, used = [part.strip() for part in line.split(",")]
        found.append({"name": name, "driver": driver, "memory_total_mib": int(total),
                      "memory_used_mib": int(used)})
    return {"devices": found}


def cuda_problem(torch):
    """Why CUDA cannot run here, or None: what a first computation on the device says."""
    if not torch.version.cuda:
        return "this PyTorch was built without CUDA"
    if not torch.cuda.is_available():
        return "torch.cuda.is_available() is False (the driver is missing, too old for " \
               f"CUDA {torch.version.cuda}, or no device is visible)"
    try:
        value = (torch.ones(2, device="cuda") * 3).sum().item()
        torch.cuda.synchronize()
    except RuntimeError as error:
        return f"a first computation on cuda:0 failed: {str(error).splitlines()[0]}"
    if value != 6.0:
        return f"a first computation on cuda:0 gave {value}, not 6"
    return None


def torch_facts():
    try:
        import torch  # noqa: PLC0415 - only this stage needs it, and it may be missing
    except ImportError as error:
        return {"error": f"cannot import torch: {error}"}
    facts = {"version": torch.__version__, "cuda": torch.version.cuda,
             "python": sys.executable, "cmake_prefix_path": torch.utils.cmake_prefix_path,
             "cuda_available": torch.cuda.is_available(),
             "device_count": torch.cuda.device_count() if torch.cuda.is_available() else 0,
             "cuda_problem": cuda_problem(torch)}
    try:
        facts["cudnn"] = torch.backends.cudnn.version()
    except RuntimeError:
        facts["cudnn"] = None
    try:
        facts["nccl"] = ".".join(map(str, torch.cuda.nccl.version())) if torch.version.cuda else None
    except (RuntimeError, AttributeError):
        facts["nccl"] = None
    return facts


def toolkit_library_dir():
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return None
    root = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    for candidate in ("lib64", "targets/x86_64-linux/lib", "lib"):
        path = os.path.join(root, candidate)
        if glob.glob(os.path.join(path, "libcudart.so*")):
            return path
    return None


def link_missing_libraries(library_dir, torch_prefix, links_dir):
    """Per development link: present in the toolkit, linked here to a versioned copy, or missing."""
    state = {}
    # PyTorch's wheel keeps its CUDA libraries in site-packages/nvidia/<package>/lib.
    wheel_dirs = []
    if torch_prefix:
        site_packages = os.path.dirname(os.path.dirname(os.path.dirname(torch_prefix)))
        wheel_dirs = glob.glob(os.path.join(site_packages, "nvidia", "*", "lib"))
    for name in DEVELOPMENT_LINKS:
        if library_dir and os.path.exists(os.path.join(library_dir, name)):
            state[name] = "in the toolkit"
            continue
        versioned = []
        for directory in ([library_dir] if library_dir else []) + wheel_dirs:
            versioned += sorted(glob.glob(os.path.join(directory, name + ".[0-9]*")))
        versioned = [path for path in versioned if ".alt." not in path]
        if not versioned:
            state[name] = "missing: no versioned copy in the toolkit or PyTorch's nvidia packages"
            continue
        os.makedirs(links_dir, exist_ok=True)
        link = os.path.join(links_dir, name)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(versioned[0], link)
        state[name] = f"no development link: {link} -> {versioned[0]}"
    return state


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", required=True, help="where the facts go")
    parser.add_argument("--links-dir", required=True,
                        help="where links to versioned CUDA libraries are made when needed")
    parser.add_argument("--require-cuda", action="store_true",
                        help="stop (exit 3) when CUDA is unusable")
    args = parser.parse_args()

    torch = torch_facts()
    library_dir = toolkit_library_dir()
    torch_prefix = torch.get("cmake_prefix_path")
    facts = {
        "gpus": gpus(),
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "cores": os.cpu_count(),
        "compiler": version_line(["c++", "--version"]),
        "cmake": version_line(["cmake", "--version"]),
        "nvcc": version_line(["nvcc", "--version"], last=True),
        "ninja": version_line(["ninja", "--version"]),
        "glibc": version_line(["ldd", "--version"]),
        "torch": torch,
        "cuda_toolkit_library_dir": library_dir,
        "cuda_development_links": link_missing_libraries(library_dir, torch_prefix,
                                                         args.links_dir),
    }
    with open(args.json, "w") as out:
        json.dump(facts, out, indent=2)
        out.write("\n")

    gpu_text = facts["gpus"].get("error") or "; ".join(
        f"{d['name']}, driver {d['driver']}, {d['memory_total_mib']} MiB "
        f"({d['memory_used_mib']} MiB used)" for d in facts["gpus"]["devices"])
    print(f"GPU:        {gpu_text} (CUDA_VISIBLE_DEVICES={facts['cuda_visible_devices']})")
    print(f"cores:      {facts['cores']}")
    for key in ("compiler", "cmake", "nvcc", "ninja", "glibc"):
        print(f"{key + ':':<11} {facts[key]}")
    if "error" in torch:
        print(f"torch:      {torch['error']}")
    else:
        print(f"torch:      {torch['version']} (CUDA {torch['cuda']}, cuDNN {torch['cudnn']}, "
              f"NCCL {torch['nccl']}; {torch['device_count']} device(s) usable) from "
              f"{torch['python']}")
        print(f"CUDA:       {torch['cuda_problem'] or 'a first computation on cuda:0 ran'}")
    print(f"toolkit:    {library_dir or 'no nvcc, or no libcudart beside it'}")
    for name, state in facts["cuda_development_links"].items():
        print(f"  {name}: {state}")

    if "error" in torch:
        print(f"gpu_check: stopping: {torch['error']}; run under the python that has PyTorch "
              f"{SUPPORTED_TORCH}x (PYTHON=...)", file=sys.stderr)
        return 3
    if not torch["version"].startswith(SUPPORTED_TORCH):
        print(f"gpu_check: stopping: this machine's PyTorch is {torch['version']}; the project "
              f"builds against {SUPPORTED_TORCH}x (2.12 and later need C++20)", file=sys.stderr)
        return 3
    if args.require_cuda and torch["cuda_problem"]:
        drivers = ", ".join(d["driver"] for d in facts["gpus"].get("devices", [])) or \
            facts["gpus"].get("error", "unknown")
        print(f"gpu_check: stopping: CUDA is unusable: {torch['cuda_problem']}; NVIDIA driver "
              f"{drivers}, torch.version.cuda {torch['cuda']}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
