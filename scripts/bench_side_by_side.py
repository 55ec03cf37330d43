#!/usr/bin/python3
"""What the side-by-side benchmarks of a detector against its original share.

Imported by scripts/bench_toponet_original.py and scripts/bench_lanesegnet_original.py (LaneSegNet
and its Map Element Bucket model):
`time_training_steps` times the original model's training step (forward_train + the sum of the
loss terms + backward + AdamW(lr 1e-4, weight decay 1e-4).step() + zero_grad(), the procedure of
the reference's bench_original.py) with a per-stage split, the peak RSS and the foreign CPU load
of each step.

Run by the drivers (scripts/bench_toponet_vs_original.sh, bench_lanesegnet_vs_original.sh):

  report RESULTS DETECTOR
        RESULTS holds JSON lines, the original's then ours, per model (the original's names
        it: its `variant`, e.g. reduced, full, bucket_reduced, bucket_full); prints a table of both
        (median time per step and per stage, peak RSS) and their ratio, then one JSON line per
        model: {"model", "threads", "ours", "original", "step_ratio", "rss_ratio"} with
        ratio = ours / original.
"""
import copy
import json
import os
import resource
import statistics
import sys
import time

CLOCK_TICKS = os.sysconf('SC_CLK_TCK')
STAGES = ('backbone', 'neck', 'view_transformer', 'heads+losses', 'backward', 'optimizer')


def state_dict_path(directory, model):
    return os.path.join(directory, f'{model}_state_dict.pt')


def rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def busy_seconds():
    """CPU seconds the whole machine has spent busy (user, nice, system, irq, softirq, steal)."""
    with open('/proc/stat') as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / CLOCK_TICKS


def own_cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def blas_libs():
    libs = set()
    with open('/proc/self/maps') as f:
        for line in f:
            name = os.path.basename(line.split()[-1])
            if any(part in name for part in ('blas', 'lapack', 'mkl', 'dnnl')):
                libs.add(os.path.realpath(line.split()[-1]))
    return sorted(libs)


def add_stage_hooks(model, split):
    """Adds each stage's forward time to split[stage]."""
    stages = {'backbone': model.img_backbone, 'neck': model.img_neck,
              'view_transformer': model.bev_constructor}
    for stage, module in stages.items():
        def pre(module, inputs, stage=stage):
            split['_' + stage] = time.perf_counter()

        def post(module, inputs, outputs, stage=stage):
            split[stage] = split.get(stage, 0.0) + time.perf_counter() - split.pop('_' + stage)
        module.register_forward_pre_hook(pre)
        module.register_forward_hook(post)


def stats(values):
    return dict(median=round(statistics.median(values), 4), min=round(min(values), 4),
                max=round(max(values), 4))


def time_training_steps(model, batch, gt_keys, args, rss_imports, rss_load):
    """Times `args.steps` training steps of `model` on `batch` after `args.warmup` untimed ones
    (a step seeing more than `args.clean_thresh` foreign cores is retried, up to
    `args.max_extra` times); returns the timing fields of the JSON line."""
    import numpy as np
    import torch
    split = {}
    add_stage_hooks(model, split)
    model.train()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad],
                                  lr=1e-4, weight_decay=1e-4)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    first_losses = {}

    def step():
        split.clear()
        t0 = time.perf_counter()
        losses = model.forward_train(img=batch['img'].clone(),
                                     img_metas=copy.deepcopy(batch['img_metas']),
                                     **{key: batch[key] for key in gt_keys})
        total = sum(v for k, v in losses.items() if 'loss' in k)
        t1 = time.perf_counter()
        if not first_losses:
            first_losses.update({k: float(v) for k, v in losses.items()})
            first_losses['total_loss'] = float(total)
        split['forward_train+loss'] = t1 - t0
        split['heads+losses'] = t1 - t0 - sum(split.get(k, 0.0) for k in
                                              ('backbone', 'neck', 'view_transformer'))
        total.backward()
        t2 = time.perf_counter()
        optimizer.step()
        t3 = time.perf_counter()
        optimizer.zero_grad()
        t4 = time.perf_counter()
        split.update(backward=t2 - t1, optimizer=t3 - t2, zero_grad=t4 - t3)
        return t4 - t0

    for _ in range(args.warmup):
        step()
    rss_after_warmup = rss_mib()

    runs = []
    while True:
        busy0, own0 = busy_seconds(), own_cpu_seconds()
        wall = step()
        busy1, own1 = busy_seconds(), own_cpu_seconds()
        foreign = max(0.0, ((busy1 - busy0) - (own1 - own0)) / wall)
        runs.append(dict(wall=wall, foreign_cores=round(foreign, 3),
                         own_cores=round((own1 - own0) / wall, 3),
                         split={k: round(v, 4) for k, v in split.items()}))
        clean = [r for r in runs if r['foreign_cores'] < args.clean_thresh]
        if len(runs) >= args.steps and (len(clean) >= args.steps or
                                        len(runs) >= args.steps + args.max_extra):
            break
    rss_end = rss_mib()

    selected = clean if len(clean) >= args.steps else runs
    walls = stats([r['wall'] for r in selected])
    split_keys = sorted({k for r in selected for k in r['split']})
    meta = batch['img_metas'][0][0]
    return dict(
        mode='train', img=list(batch['img'][:, 0].shape), img_shape=list(meta['img_shape'][0]),
        pad_shape=list(meta['pad_shape'][0]), threads=torch.get_num_threads(),
        warmup=args.warmup, steps=args.steps, median_s=walls['median'], min_s=walls['min'],
        max_s=walls['max'], stats_over='clean' if selected is clean else 'all',
        n_runs=len(runs), n_clean=len(clean),
        split_median={k: stats([r['split'][k] for r in selected if k in r['split']])['median']
                      for k in split_keys},
        runs=runs, peak_rss_mib=round(rss_end, 1),
        rss_mib=dict(imports=round(rss_imports, 1), after_load=round(rss_load, 1),
                     after_warmup=round(rss_after_warmup, 1), end=round(rss_end, 1)),
        parameters=sum(p.numel() for p in model.parameters()), blas=blas_libs(),
        first_losses=first_losses)


def report(results_file, detector):
    lines = [json.loads(line) for line in open(results_file) if line.strip()]
    pairs = [(lines[i], lines[i + 1]) for i in range(0, len(lines), 2)]
    for original, ours in pairs:
        o_split, u_split = original['split_median'], ours['split_median']
        masks = f", masks {original['masks']}" if 'masks' in original else ''
        print(f"{detector} {original['variant']}: input {ours['img']}{masks}, fp32, "
              f"{ours['threads']} threads, {ours['steps']} timed steps after {ours['warmup']}")
        print(f"  {'':22} {'original':>10} {'ours':>10} {'ours/orig':>10}")
        rows = [('step s (median)', original['median_s'], ours['median_s'])]
        rows += [(f'  {k} s', o_split[k], u_split[k]) for k in STAGES
                 if k in o_split and k in u_split]
        rows.append(('peak RSS MiB', original['peak_rss_mib'], ours['peak_rss_mib']))
        for name, o, u in rows:
            ratio = u / o if o else float('nan')
            print(f"  {name:22} {o:10.3f} {u:10.3f} {ratio:10.2f}")
    for original, ours in pairs:
        print(json.dumps({
            'model': original['variant'], 'threads': ours['threads'], 'img': ours['img'],
            'warmup': ours['warmup'], 'steps': ours['steps'],
            'ours': {'step_s': ours['median_s'], 'peak_rss_mib': ours['peak_rss_mib'],
                     'split_s': ours['split_median']},
            'original': {'step_s': original['median_s'], 'peak_rss_mib': original['peak_rss_mib'],
                         'split_s': original['split_median'],
                         'foreign_cores': [r['foreign_cores'] for r in original['runs']]},
            'step_ratio': ours['median_s'] / original['median_s'],
            'rss_ratio': ours['peak_rss_mib'] / original['peak_rss_mib']}))


if __name__ == '__main__':
    if len(sys.argv) != 4 or sys.argv[1] != 'report':
        sys.exit(f'usage: {sys.argv[0]} report RESULTS DETECTOR')
    report(sys.argv[2], sys.argv[3])
