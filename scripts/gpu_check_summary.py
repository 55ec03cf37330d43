#!/usr/bin/env python3
"""Summarises a scripts/gpu_check.sh run as gpu_check.json and gpu_check.md.

Reads, under --work: mode ("gpu" or "rehearsal"), environment.json (the environment stage),
stages.tsv (name, outcome, exit status, seconds, estimate, limit, note per stage; the stages
recorded so far, since gpu_check.sh calls this after every stage), launcher (the multi-process
stages' launcher), logs/<stage>.log, logs/<stage>.smi (nvidia-smi's used memory in MiB, one
sample a line) and runs/<name>/ (train_ds's or test_ds's work directory: <timestamp>.log.json
with a record per optimizer step, eval_*.json). Writes each file whole under a temporary name
first, so that a reader never sees half of one. Standard library only.

    python3 scripts/gpu_check_summary.py --work build-gpu/gpu_check --out gpu_check_out
"""
import argparse
import json
import re
import statistics
import sys
from pathlib import Path

# What the original projects published for the same recipes, each with the kind of figure it is
# and which of ours is of the same kind: the allocator's peak (mmcv's log `memory`,
# torch.cuda.max_memory_allocated) beside ours, nvidia-smi's used memory beside ours, and a
# card's size beside a run under a cap of that size.
ORIGINAL_MEMORY = {
    "baseline_fp16": {"published": "trains on a 16 GB card (RTX 3080)", "kind": "card size",
                      "ours": "cap"},
    "baseline_large_v100": {"published": "8 GB per V100 (batch 1, recomputed; 18 GB without)",
                            "kind": "nvidia-smi", "ours": "nvidia_smi_peak_mib"},
    "toponet_fp32": {"published": "12.3G (TopoNet's README, 8 GPUs x 1 frame, fp32)",
                     "kind": "allocator peak (mmcv's log memory)", "ours": "allocated_peak_mb"},
    "lanesegnet_fp32": {"published": "9.4G (LaneSegNet's README, 8 GPUs x 1 frame, fp32)",
                        "kind": "allocator peak (mmcv's log memory)",
                        "ours": "allocated_peak_mb"},
}
# Fewer optimizer steps taken than this on the GPU and a run's time and memory describe a model
# that hardly stepped (the rehearsal takes one step on purpose).
MIN_TAKEN_STEPS = 3


def read_stages(work):
    stages = []
    for line in (work / "stages.tsv").read_text().splitlines():
        name, outcome, status, seconds, estimate, limit, note = (line.split("\t") + [""] * 7)[:7]
        stages.append({"name": name, "outcome": outcome,
                       "exit_status": int(status) if status else None,
                       "seconds": int(seconds), "estimate_s": int(estimate) if estimate else None,
                       "limit_s": int(limit) if limit else None, "note": note})
    return stages


def read_log(work, stage):
    path = work / "logs" / f"{stage}.log"
    return path.read_text(errors="replace") if path.exists() else ""


def read_json(path):
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def version(work):
    # train_ds 0.1.0 (git abc1234), LibTorch 2.11.0 (CUDA 13.0, cuDNN 9.19.0, NCCL 2.28.9)
    lines = read_log(work, "version").splitlines()
    return lines[0] if lines else None


def bench_tflops(work):
    for line in reversed(read_log(work, "bench_tflops").splitlines()):
        if line.startswith("{"):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if record.get("bench") == "tflops":
                return record
    return None


def test_lines(text):
    """The tests' own output: ctest -V prefixes each line with the test's number."""
    return [re.sub(r"^\d+: ", "", line) for line in text.splitlines()]


def skipped_gtests(lines):
    """GoogleTest cases skipped inside passing CTest tests, with the reason each gave."""
    skipped = {}
    reason = None
    for line in lines:
        if line.startswith("[ RUN      ]"):
            reason = None
        elif line.endswith(": Skipped"):
            reason = ""
        elif reason == "":
            reason = line.strip()
        match = re.match(r"\[  SKIPPED \] (\S+) \(", line)
        if match:
            skipped[match.group(1)] = reason or ""
    return skipped


def printed_differences(lines):
    """What the CUDA tests print of their comparisons: each 'the worst N of M' block with its
    entries, the fp16 totals and gradient counts, the allocator's peaks."""
    blocks = []
    inside = False
    for line in lines:
        if re.search(r": the worst \d+ of \d+$", line) or re.search(
                r"total loss fp16|fp16 gradients, \d+ not finite|^peak allocated", line):
            blocks.append(line)
            inside = bool(re.search(r": the worst \d+ of \d+$", line))
        elif inside and line.startswith("  "):
            blocks.append(line)
        else:
            inside = False
    return blocks


def cuda_tests(work):
    text = read_log(work, "cuda_tests")
    summary = re.search(r"(\d+)% tests passed, (\d+) tests? failed out of (\d+)", text)
    if not summary:
        return None
    failed = re.findall(r"^\s*\d+ - (\S+) \(", text.split("The following tests FAILED:")[-1],
                        re.MULTILINE) if "The following tests FAILED:" in text else []
    total = int(summary.group(3))
    lines = test_lines(text)
    return {"summary": summary.group(0), "total": total, "failed": int(summary.group(2)),
            "passed": total - int(summary.group(2)), "failed_tests": failed,
            "skipped_gtests": skipped_gtests(lines), "differences": printed_differences(lines)}


def smi_samples(work, stage):
    """nvidia-smi's used-memory samples (MiB) taken during a stage, or None without a file."""
    path = work / "logs" / f"{stage}.smi"
    if not path.exists():
        return None
    return [int(line) for line in path.read_text().split() if line.isdigit()]


def smi_peak(work, stage):
    samples = smi_samples(work, stage)
    return max(samples) if samples else None


def memory_cap(work, stage):
    """What train_ds said of its --cuda-memory-cap in the stage's output, or None."""
    for line in read_log(work, stage).splitlines():
        match = re.search(r"(GPU memory cap .*)$", line)
        if match:
            return match.group(1)
    return None


def published_beside_ours(name, run, outcome, mode):
    """The original's figure and ours of the same kind, for the run NAME."""
    original = ORIGINAL_MEMORY.get(name)
    if original is None:
        return None
    if original["ours"] == "cap":
        cap = run.get("memory_cap")
        if cap is None:
            ours = "not run under a cap"
        elif "applied" in cap:
            ours = f"{cap}: the run {'passed' if outcome == 'ok' else 'did not pass'}"
        else:
            ours = cap
    else:
        value = run.get(original["ours"])
        ours = f"{value} MiB" if value is not None else "not measured"
        if value is not None and mode == "rehearsal" and original["ours"] == "allocated_peak_mb":
            ours += " (the rehearsal's: the CPU's peak resident memory, no allocator peak)"
    return {"published": original["published"], "kind": original["kind"], "ours": ours}


def train_records(work_dir):
    logs = sorted(work_dir.glob("*.log.json"))
    if not logs:
        return None, [], []
    train, val = [], []
    for line in logs[-1].read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        (train if record.get("mode") == "train" else val if record.get("mode") == "val"
         else []).append(record)
    return logs[-1].name, train, val


def run_summary(work, work_dir):
    log, records, validations = train_records(work_dir)
    summary = {"nvidia_smi_peak_mib": smi_peak(work, work_dir.name)}
    cap = memory_cap(work, work_dir.name)
    if cap:
        summary["memory_cap"] = cap
    evaluations = sorted(work_dir.glob("eval_*.json"))
    if evaluations:
        written = read_json(evaluations[-1]) or {}
        metrics = written.get("metrics", written)
        summary["evaluation"] = {key: metrics[key] for key in
                                 ("OLS", "DET_l", "DET_t", "TOP_ll", "TOP_lt", "F-Score")
                                 if key in metrics}
    if log is None:
        return summary
    summary["log"] = log
    summary["steps"] = len(records)
    if not records:
        return summary
    times = [r["time"] for r in records if "time" in r]
    summary.update({
        "median_step_s": round(statistics.median(times[1:]), 4) if len(times) > 1 else None,
        "first_step_s": times[0] if times else None,
        "allocated_peak_mb": max((r["memory"] for r in records if "memory" in r), default=None),
        "reserved_peak_mb": max((r["memory_reserved"] for r in records
                                 if "memory_reserved" in r), default=None),
        "median_data_time_s": round(statistics.median(r["data_time"] for r in records), 4)
        if all("data_time" in r for r in records) else None,
        "loss_first": records[0].get("loss"),
        "loss_last": records[-1].get("loss"),
    })
    if "loss_scale" in records[-1]:
        skipped = records[-1].get("skipped_steps") or 0
        summary.update({"loss_scale_first": records[0]["loss_scale"],
                        "loss_scale_last": records[-1]["loss_scale"],
                        "skipped_steps": skipped, "taken_steps": len(records) - skipped})
    if validations:
        summary["validation"] = {k: v for k, v in validations[-1].items()
                                 if k not in ("mode", "epoch", "iter", "lr")}
    return summary


def markdown(result):
    lines = [f"# GPU check ({result['mode']})", ""]
    environment = result["environment"] or {}
    if environment:
        gpus = environment.get("gpus", {})
        gpu_text = gpus.get("error") or "; ".join(
            f"{d['name']}, driver {d['driver']}, {d['memory_total_mib']} MiB, "
            f"{d['memory_used_mib']} MiB used before" for d in gpus.get("devices", []))
        torch = environment.get("torch", {})
        lines += ["| environment | |", "|---|---|", f"| GPU | {gpu_text} |",
                  f"| cores | {environment.get('cores')} |"]
        for key in ("compiler", "cmake", "nvcc", "ninja", "glibc"):
            lines.append(f"| {key} | {environment.get(key)} |")
        lines.append(f"| PyTorch | {torch.get('error') or torch.get('version')} (CUDA "
                     f"{torch.get('cuda')}, cuDNN {torch.get('cudnn')}, NCCL {torch.get('nccl')}) |")
        lines.append(f"| CUDA | {torch.get('cuda_problem') or 'a first computation on cuda:0 ran'} |")
        links = "; ".join(f"{k}: {v}" for k, v in
                          environment.get("cuda_development_links", {}).items())
        lines += [f"| CUDA toolkit libraries | {environment.get('cuda_toolkit_library_dir')} "
                  f"({links}) |", ""]
    if result["version"]:
        lines += [f"`{result['version']}`", ""]
    if result["launcher"]:
        lines += [f"The multi-process stages' launcher: {result['launcher']}", ""]
    lines += ["| stage | outcome | seconds | estimate (16 cores) | limit | nvidia-smi peak MiB "
              "(samples) | note |", "|---|---|---:|---:|---:|---:|---|"]
    for stage in result["stages"]:
        note = stage["note"].replace("|", "\\|")
        smi = (f"{stage['nvidia_smi_peak_mib'] or ''} ({stage['nvidia_smi_samples']})"
               if stage["nvidia_smi_samples"] is not None else "")
        lines.append(f"| {stage['name']} | {stage['outcome']} | {stage['seconds']} | "
                     f"{stage['estimate_s'] or ''} | {stage['limit_s'] or ''} | {smi} | {note} |")
    lines.append("")
    bench = result["bench_tflops"]
    if bench:
        unit = "tflop_per_s" if bench.get("device", "").startswith("cuda") else "gflop_per_s"
        rates = ", ".join(f"{r['dtype']} {r[unit]:.1f}" if unit in r
                          else f"{r['dtype']} unsupported" for r in bench.get("results", []))
        lines += [f"bench_tflops on {bench.get('device_name')} ({bench.get('memory_gib', 0):.0f} "
                  f"GiB), {bench.get('n')} x {bench.get('n')} matmul, "
                  f"{'TFLOP/s' if unit == 'tflop_per_s' else 'GFLOP/s'}: {rates}", ""]
    tests = result["cuda_tests"]
    if tests:
        failed = tests["failed_tests"]
        lines += [f"ctest -L cuda: {tests['summary']}"
                  + (f" (failed: {', '.join(failed)})" if failed else ""), ""]
        if tests["skipped_gtests"]:
            lines += [f"skipped inside them ({len(tests['skipped_gtests'])}):"]
            lines += [f"- {name}: {reason}" for name, reason in tests["skipped_gtests"].items()]
            lines.append("")
        if tests["differences"]:
            lines += ["```"] + tests["differences"] + ["```", ""]
    lines += ["| run | steps (taken / skipped) | loss scale first → last | median s/step "
              "(after the first) | first step s | allocated peak MB | reserved peak MB | "
              "nvidia-smi peak MiB | loss first → last |",
              "|---|---|---|---:|---:|---:|---:|---:|---|"]
    for name, run in result["runs"].items():
        if "steps" not in run:  # test_ds's: its scores are listed below
            continue
        steps = str(run["steps"])
        if "taken_steps" in run:
            steps += f" ({run['taken_steps']} / {run['skipped_steps']})"
            if run["taken_steps"] < MIN_TAKEN_STEPS and result["mode"] == "gpu":
                steps += f" **fewer than {MIN_TAKEN_STEPS} taken**"
        scale = (f"{run['loss_scale_first']:g} → {run['loss_scale_last']:g}"
                 if "loss_scale_last" in run else "")
        lines.append(
            f"| {name} | {steps} | {scale} | {run.get('median_step_s')} | "
            f"{run.get('first_step_s')} | {run.get('allocated_peak_mb')} | "
            f"{run.get('reserved_peak_mb') or ''} | {run.get('nvidia_smi_peak_mib') or ''} | "
            f"{run.get('loss_first')} → {run.get('loss_last')} |")
    lines.append("")
    compared = [(name, run["memory_beside_published"]) for name, run in result["runs"].items()
                if run.get("memory_beside_published")]
    if compared:
        lines += ["| run | published memory | its kind | ours of that kind |", "|---|---|---|---|"]
        lines += [f"| {name} | {c['published']} | {c['kind']} | {c['ours']} |"
                  for name, c in compared]
        lines.append("")
    for name, run in result["runs"].items():
        for key in ("validation", "evaluation"):
            if key in run:
                scores = ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
                                   for k, v in run[key].items())
                lines.append(f"- {name} {key}: {scores}")
    return "\n".join(lines) + "\n"


def write_whole(path, text):
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    partial.replace(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", required=True, type=Path, help="gpu_check's work directory")
    parser.add_argument("--out", required=True, type=Path, help="where the two files go")
    args = parser.parse_args()
    if not (args.work / "stages.tsv").exists():
        sys.exit(f"gpu_check_summary: {args.work / 'stages.tsv'} not found")
    stages = read_stages(args.work)
    for stage in stages:
        samples = smi_samples(args.work, stage["name"])
        stage["nvidia_smi_samples"] = None if samples is None else len(samples)
        stage["nvidia_smi_peak_mib"] = max(samples) if samples else None
    mode_file = args.work / "mode"
    runs_dir = args.work / "runs"
    mode = mode_file.read_text().strip() if mode_file.exists() else "unknown"
    # A rehearsal skips what needs a GPU; on the GPU machine every stage must run.
    passing = ("ok", "skipped") if mode == "rehearsal" else ("ok",)
    launcher_file = args.work / "launcher"
    outcomes = {stage["name"]: stage["outcome"] for stage in stages}
    runs = {d.name: run_summary(args.work, d) for d in sorted(runs_dir.iterdir())
            if d.is_dir()} if runs_dir.exists() else {}
    for name, run in runs.items():
        run["memory_beside_published"] = published_beside_ours(name, run, outcomes.get(name), mode)
    result = {
        "mode": mode,
        "ok": all(stage["outcome"] in passing for stage in stages),
        "launcher": launcher_file.read_text().strip() if launcher_file.exists() else None,
        "environment": read_json(args.work / "environment.json"),
        "version": version(args.work),
        "stages": stages,
        "bench_tflops": bench_tflops(args.work),
        "cuda_tests": cuda_tests(args.work),
        "runs": runs,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    write_whole(args.out / "gpu_check.json", json.dumps(result, indent=2) + "\n")
    write_whole(args.out / "gpu_check.md", markdown(result))


if __name__ == "__main__":
    main()
