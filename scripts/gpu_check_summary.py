#!/usr/bin/env python3
"""Summarises a scripts/gpu_check.sh run as gpu_check.json and gpu_check.md.

Reads, under --work: stages.tsv (name, outcome, exit status, seconds, note per stage),
logs/<stage>.log, and runs/<name>/<timestamp>.log.json (train_ds's records, one per logged
interval; gpu_check logs every optimizer step). Standard library only.

    python3 scripts/gpu_check_summary.py --work build-gpu/gpu_check --out gpu_check_out
"""
import argparse
import json
import re
import statistics
import sys
from pathlib import Path


def read_stages(work):
    stages = []
    for line in (work / "stages.tsv").read_text().splitlines():
        name, outcome, status, seconds, note = (line.split("\t") + [""] * 5)[:5]
        stages.append({"name": name, "outcome": outcome,
                       "exit_status": int(status) if status else None,
                       "seconds": int(seconds), "note": note})
    return stages


def read_log(work, stage):
    path = work / "logs" / f"{stage}.log"
    return path.read_text(errors="replace") if path.exists() else ""


def versions(work):
    # train_ds 0.1.0 (git abc1234), LibTorch 2.11.0 (CUDA 13.0, cuDNN 9.19.0, NCCL 2.28.9)
    text = read_log(work, "version")
    line = text.splitlines()[0] if text else ""
    libtorch = re.search(r"LibTorch ([^ ,]+)", line)
    cuda = re.search(r"CUDA ([^ ,)]+)", line)
    return {"train_ds": line or None,
            "libtorch": libtorch.group(1) if libtorch else None,
            "cuda": cuda.group(1) if cuda else None}


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


def skipped_gtests(text):
    """GoogleTest cases skipped inside passing CTest tests, with the reason each gave."""
    skipped = {}
    reason = None
    for line in text.splitlines():
        line = re.sub(r"^\d+: ", "", line)  # ctest -V prefixes each line with the test number
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


def ctest(work):
    text = read_log(work, "ctest")
    summary = re.search(r"(\d+)% tests passed, (\d+) tests? failed out of (\d+)", text)
    if not summary:
        return None
    failed = re.findall(r"^\s*\d+ - (\S+) \(", text.split("The following tests FAILED:")[-1],
                        re.MULTILINE) if "The following tests FAILED:" in text else []
    total = int(summary.group(3))
    return {"summary": summary.group(0), "total": total, "failed": int(summary.group(2)),
            "passed": total - int(summary.group(2)), "failed_tests": failed,
            "skipped_gtests": skipped_gtests(text)}


def run_summary(work_dir):
    logs = sorted(work_dir.glob("*.log.json"))
    if not logs:
        return None
    records = []
    for line in logs[-1].read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("mode") == "train":
            records.append(record)
    if not records:
        return {"log": logs[-1].name, "steps": 0}
    times = [r["time"] for r in records if "time" in r]
    summary = {
        "log": logs[-1].name,
        "steps": len(records),
        "median_step_s": round(statistics.median(times[1:]), 4) if len(times) > 1 else None,
        "first_step_s": times[0] if times else None,
        "max_memory_mb": max((r["memory"] for r in records if "memory" in r), default=None),
        "median_data_time_s": round(statistics.median(r["data_time"] for r in records), 4)
        if all("data_time" in r for r in records) else None,
        "loss_first": records[0].get("loss"),
        "loss_last": records[-1].get("loss"),
    }
    if "loss_scale" in records[-1]:
        summary["loss_scale_last"] = records[-1]["loss_scale"]
        summary["skipped_steps"] = records[-1].get("skipped_steps")
    return summary


def markdown(result):
    lines = ["# GPU check", ""]
    if result["versions"]["train_ds"]:
        lines += [f"`{result['versions']['train_ds']}`", ""]
    lines += ["| stage | outcome | seconds | note |", "|---|---|---:|---|"]
    for stage in result["stages"]:
        note = stage["note"].replace("|", "\\|")
        lines.append(f"| {stage['name']} | {stage['outcome']} | {stage['seconds']} | {note} |")
    lines.append("")
    bench = result["bench_tflops"]
    if bench:
        unit = "tflop_per_s" if bench.get("device", "").startswith("cuda") else "gflop_per_s"
        rates = ", ".join(f"{r['dtype']} {r[unit]:.1f}" if unit in r
                          else f"{r['dtype']} unsupported" for r in bench.get("results", []))
        lines += [f"bench_tflops on {bench.get('device_name')} ({bench.get('memory_gib', 0):.0f} "
                  f"GiB), {bench.get('n')} x {bench.get('n')} matmul, "
                  f"{'TFLOP/s' if unit == 'tflop_per_s' else 'GFLOP/s'}: {rates}", ""]
    if result["ctest"]:
        failed = result["ctest"]["failed_tests"]
        skipped = result["ctest"]["skipped_gtests"]
        lines += [f"ctest -L cuda: {result['ctest']['summary']}"
                  + (f" (failed: {', '.join(failed)})" if failed else ""), ""]
        if skipped:
            lines += [f"skipped inside them ({len(skipped)}):"]
            lines += [f"- {name}: {reason}" for name, reason in skipped.items()] + [""]
    lines += ["| run | steps | median s/step (after the first) | first step s | max memory MB "
              "| median data_time s | loss first → last |", "|---|---:|---:|---:|---:|---:|---|"]
    for name, run in result["runs"].items():
        if not run:
            lines.append(f"| {name} | no log | | | | | |")
            continue
        lines.append(f"| {name} | {run['steps']} | {run.get('median_step_s')} | "
                     f"{run.get('first_step_s')} | {run.get('max_memory_mb')} | "
                     f"{run.get('median_data_time_s')} | "
                     f"{run.get('loss_first')} → {run.get('loss_last')} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", required=True, type=Path, help="gpu_check's work directory")
    parser.add_argument("--out", required=True, type=Path, help="where the two files go")
    args = parser.parse_args()
    if not (args.work / "stages.tsv").exists():
        sys.exit(f"gpu_check_summary: {args.work / 'stages.tsv'} not found")
    stages = read_stages(args.work)
    runs_dir = args.work / "runs"
    result = {
        "ok": all(stage["outcome"] == "ok" for stage in stages),
        "versions": versions(args.work),
        "stages": stages,
        "bench_tflops": bench_tflops(args.work),
        "ctest": ctest(args.work),
        "runs": {d.name: run_summary(d) for d in sorted(runs_dir.iterdir()) if d.is_dir()}
        if runs_dir.exists() else {},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gpu_check.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "gpu_check.md").write_text(markdown(result))


if __name__ == "__main__":
    main()
