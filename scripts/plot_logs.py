#!/usr/bin/env python3
"""Plots train_ds runs' curves from their <timestamp>.log.json files, as mmdet's
tools/analysis_tools/analyze_logs.py plot_curve does: one PNG per quantity, one line per run.

Training quantities are drawn against the global iteration (each epoch's iterations after those
of the epochs before it; a resumed run's log starts where its checkpoint was), validation metrics
against the epoch. By default: loss.png, lr.png, grad_norm.png, a PNG per validation metric
(OLS.png, DET_l.png, ...) and loss_terms.png. Standard library and matplotlib.

    python3 scripts/plot_logs.py RUN.log.json [RUN2.log.json ...] --out-dir DIR [--keys KEY ...]
        [--legend NAME ...] [--title T]
"""
import argparse
import json
import re
import sys
from pathlib import Path

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
except ImportError:
    plt = None

TRAIN_QUANTITIES = ("loss", "lr", "grad_norm")
LOSS_TERMS = "loss_terms"
NOT_PLOTTED = ("epoch", "iter")
# An intermediate decoder layer's term: "lane_head.d0.loss_lane_cls"; the last layer's has none.
INTERMEDIATE_LAYER = re.compile(r"(^|\.)d\d+\.")


def fail(message):
    print(f"plot_logs: error: {message}", file=sys.stderr)
    sys.exit(2)


def numeric(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def read_log(path):
    """The train and val records of one log; a truncated last line (a killed run) is skipped."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError as error:
        fail(f"{path}: {error.strerror.lower()}")
    train, val = [], []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines) and train:
                print(f"plot_logs: warning: {path} line {number}: not JSON (a truncated last "
                      "record?), skipped", file=sys.stderr)
                continue
            fail(f"{path} line {number}: not JSON")
        if not isinstance(record, dict) or record.get("mode") not in ("train", "val"):
            continue
        if not all(type(record.get(k)) is int for k in ("epoch", "iter")):
            fail(f"{path} line {number}: a {record['mode']} record without integer epoch and iter")
        (train if record["mode"] == "train" else val).append(record)
    if not train:
        fail(f"{path}: no train records")
    return train, val


def global_iterations(train):
    """Each record's iteration counted from the start of training. An epoch's length is the
    last iteration logged in it; epochs before the log's first (a resumed run) take the longest
    complete epoch's."""
    lengths = {}
    for record in train:
        lengths[record["epoch"]] = max(lengths.get(record["epoch"], 0), record["iter"])
    last = max(lengths)
    typical = max((n for epoch, n in lengths.items() if epoch != last), default=lengths[last])
    offsets, total = {}, 0
    for epoch in range(1, last + 1):
        offsets[epoch] = total
        total += lengths.get(epoch, typical)
    return [offsets.get(record["epoch"], 0) + record["iter"] for record in train]


def train_series(run, key):
    xs, ys = [], []
    for x, record in zip(run["x"], run["train"]):
        if not numeric(record.get(key)):
            continue
        # A log that restarts at an earlier point (resumed from an older checkpoint): the later
        # records replace the ones they repeat.
        while xs and xs[-1] >= x:
            xs.pop()
            ys.pop()
        xs.append(x)
        ys.append(record[key])
    return xs, ys


def val_series(run, key):
    by_epoch = {r["epoch"]: r[key] for r in run["val"] if numeric(r.get(key))}
    epochs = sorted(by_epoch)
    return epochs, [by_epoch[e] for e in epochs]


def keys_of(records):
    return [k for r in records for k, v in r.items() if numeric(v) and k not in NOT_PLOTTED]


def loss_terms(runs):
    """The loss terms but the total, of the last decoder layer only (the intermediate layers'
    repeat them: plot those with --keys)."""
    keys = dict.fromkeys(keys_of(record for run in runs for record in run["train"]))
    terms = [k for k in keys if "loss" in k and k not in ("loss", "loss_scale")]
    last_layer = [k for k in terms if not INTERMEDIATE_LAYER.search(k)]
    return last_layer or terms


def default_keys(train_keys, metrics, runs):
    keys = [k for k in TRAIN_QUANTITIES if k in train_keys]
    keys += sorted(metrics, key=lambda k: k != "OLS")
    return keys + ([LOSS_TERMS] if loss_terms(runs) else [])


def new_axes(title, key, xlabel, width=8):
    figure, axes = plt.subplots(figsize=(width, 5), dpi=100, layout="constrained")
    axes.set_title(f"{title}: {key}" if title else key)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(key)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    axes.grid(alpha=0.3)
    return figure, axes


def plot(runs, key, is_metric, title, path):
    figure, axes = new_axes(title, key, "epoch" if is_metric else "iteration")
    for run in runs:
        xs, ys = (val_series if is_metric else train_series)(run, key)
        # Markers keep a single point (a one-epoch run) visible.
        axes.plot(xs, ys, label=run["label"], marker="o" if is_metric or len(xs) < 30 else None,
                  markersize=4)
    axes.legend()
    figure.savefig(path)
    plt.close(figure)


def plot_loss_terms(runs, title, path):
    figure, axes = new_axes(title, "loss terms", "iteration", width=12)
    styles = ["-", "--", ":", "-."]
    for index, term in enumerate(loss_terms(runs)):
        for number, run in enumerate(runs):
            xs, ys = train_series(run, term)
            label = f"{run['label']}: {term}" if len(runs) > 1 else term
            axes.plot(xs, ys, label=label, color=f"C{index % 10}",
                      linestyle=styles[number % len(styles)], marker="o" if len(xs) == 1 else None)
    axes.set_ylabel("loss")
    axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    figure.savefig(path)
    plt.close(figure)


def labels(paths, names):
    if names:
        if len(names) != len(paths):
            fail(f"{len(names)} --legend names for {len(paths)} log files")
        return names
    folders = [p.resolve().parent.name for p in paths]
    if len(set(folders)) == len(folders):
        return folders
    # Two logs of one work dir (a run and its resumption) are told apart by their file names.
    return [f"{folder}/{p.name}" for folder, p in zip(folders, paths)]


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=f"{LOSS_TERMS}.png holds every loss term but the total, of the last decoder layer "
        "only (terms without a .d<k>. layer prefix); name intermediate layers' terms with --keys.")
    parser.add_argument("logs", nargs="+", type=Path, metavar="RUN.log.json",
                        help="train_ds's <timestamp>.log.json, one per run")
    parser.add_argument("--out-dir", "--out_dir", required=True, type=Path, metavar="DIR",
                        help="folder for the PNG files (created)")
    parser.add_argument("--keys", nargs="+", metavar="KEY",
                        help="quantities to plot: any numeric key of the records, or "
                        f"{LOSS_TERMS} (default: loss, lr, grad_norm, every validation metric, "
                        f"{LOSS_TERMS})")
    parser.add_argument("--legend", nargs="+", metavar="NAME",
                        help="one name per log file (default: the log's folder name)")
    parser.add_argument("--title", help="prefix of every figure's title")
    args = parser.parse_args()
    if plt is None:
        fail("matplotlib missing (scripts/install_test_deps.sh installs python3-matplotlib)")
    names = labels(args.logs, args.legend)
    runs = []
    for path, name in zip(args.logs, names):
        train, val = read_log(path)
        runs.append({"label": name, "train": train, "val": val, "x": global_iterations(train)})
    train_keys = set(keys_of(r for run in runs for r in run["train"]))
    metrics = dict.fromkeys(k for k in keys_of(r for run in runs for r in run["val"])
                            if k not in train_keys)
    keys = list(dict.fromkeys(args.keys or default_keys(train_keys, metrics, runs)))
    available = sorted(train_keys | set(metrics)) + [LOSS_TERMS]
    for key in keys:
        if key not in available:
            fail(f"unknown key '{key}'; available: {', '.join(available)}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for key in keys:
        path = args.out_dir / (key.replace("/", "_") + ".png")
        if key == LOSS_TERMS:
            plot_loss_terms(runs, args.title, path)
        else:
            plot(runs, key, key in metrics, args.title, path)
        print(path)


if __name__ == "__main__":
    main()
