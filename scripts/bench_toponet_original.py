#!/usr/bin/python3
"""Benchmark of the ORIGINAL TopoNet training step, for scripts/bench_toponet_vs_original.sh.

Runs TopoNet (`projects/` at commit 0436764) on the original baseline's stack, CPU, fp32, on
frame 0 of tests/data/gradients/two_frames.pt (7 cameras, 128x160) with TopoNet's ground truth
(tests/data/toponet/inputs.pt), as scripts/toponet_fixtures.py feeds it. Two models:

  reduced   the parity fixtures' model and weights (tests/data/toponet/README.md)
  full      the subset-A config, unchanged but for `img_backbone.init_cfg = None`, with mmcv's
            initialisation (`init_weights()`, as mmdet3d's train.py calls it) after seeding

Two commands, one process each:

  prepare --dir DIR --model M
        writes what both sides time on: DIR/input.pt, the frame in the fixture input format
        that our `bench_train_step --input` reads (`gt_lc` holds TopoNet's 11-point lanes
        [n, 33], the topologies are float32), and DIR/M_state_dict.pt, the model's weights
  time --dir DIR --model M [--threads 2] [--warmup 2] [--steps 5]
        builds the model, loads DIR/M_state_dict.pt and times `--steps` steps after `--warmup`
        untimed ones: forward_train (train mode, dropout as configured) + the sum of the loss
        terms + backward + AdamW(lr 1e-4, weight decay 1e-4).step() + zero_grad(), the
        procedure of the reference's bench_original.py. Prints ONE JSON line: median / min /
        max seconds per step, a per-stage split (backbone, neck, view_transformer = the BEV
        constructor, heads+losses, backward, optimizer), peak RSS (`ru_maxrss`, MiB), the BLAS
        libraries mapped, and the foreign CPU load during each step (`--max-extra K` retries a
        step with more than `--clean-thresh` foreign cores, up to K times)

Environment: as scripts/toponet_fixtures.py.
"""
import argparse
import json
import logging
import os
import sys
import time

from bench_side_by_side import rss_mib, state_dict_path, time_training_steps
from original_gradients import ROOT
from toponet_fixtures import (GT_KEYS, TWO_FRAMES, build, build_fixture_model, build_reduced,
                              data_batch, import_original, load_config, versions)

MODELS = ('reduced', 'full')
FRAME = 0
TOPONET_INPUTS = os.path.join(ROOT, 'tests', 'data', 'toponet', 'inputs.pt')
# inputs.pt key of each fixture-format ground-truth key.
FIXTURE_GT = {'gt_lc': 'gt_lanes_3d', 'gt_lc_labels': 'gt_lane_labels_3d',
              'gt_te': 'gt_bboxes', 'gt_te_labels': 'gt_labels',
              'gt_topology_lclc': 'gt_lane_adj', 'gt_topology_lcte': 'gt_lane_lcte_adj'}
FRAME_KEYS = ('img', 'lidar2img', 'img_shape', 'pad_shape', 'scale_factor', 'can_bus')


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = ap.add_subparsers(dest='command', required=True)
    for name in ('prepare', 'time'):
        command = commands.add_parser(name)
        command.add_argument('--dir', required=True, help='where prepare writes, time reads')
        command.add_argument('--model', choices=MODELS, required=True)
        command.add_argument('--seed', type=int, default=0,
                             help='prepare: the full model\'s initialisation; time: dropout')
        command.add_argument('--threads', type=int, default=2)
    timing = commands.choices['time']
    timing.add_argument('--warmup', type=int, default=2)
    timing.add_argument('--steps', type=int, default=5)
    timing.add_argument('--max-extra', type=int, default=0)
    timing.add_argument('--clean-thresh', type=float, default=0.15)
    return ap.parse_args()




def build_model(name):
    """The original model `name` as its config builds it (weights to be loaded)."""
    return build_reduced()[1] if name == 'reduced' else build(load_config('A'))


def initial_weights(name, seed):
    """The state dict both sides time: the fixture weights, or the full model's
    initialisation from `seed`."""
    import numpy as np
    import torch
    if name == 'reduced':
        return build_fixture_model()[1].state_dict()
    from mmcv.utils import get_logger
    get_logger('mmcv', log_level=logging.WARNING)  # init_weights logs every parameter at INFO
    torch.manual_seed(seed)
    np.random.seed(seed)
    model = build_model(name)
    model.init_weights()
    return model.state_dict()


def write_input(directory):
    """Frame FRAME of two_frames.pt with TopoNet's ground truth, in the fixture input format."""
    import torch
    frames = torch.load(TWO_FRAMES)
    extra = torch.load(TOPONET_INPUTS)
    out = {key: frames[key][FRAME:FRAME + 1].clone() for key in FRAME_KEYS}
    out.update({key: extra[f'{source}.{FRAME}'].clone() for key, source in FIXTURE_GT.items()})
    torch.save(out, os.path.join(directory, 'input.pt'))


def prepare(args):
    import torch
    os.makedirs(args.dir, exist_ok=True)
    write_input(args.dir)
    weights = initial_weights(args.model, args.seed)
    torch.save(weights, state_dict_path(args.dir, args.model))
    print(f'{args.model}: {len(weights)} state-dict entries, '
          f'{sum(t.numel() for t in weights.values())} values', file=sys.stderr)














def run_time(args, t_start):
    import torch
    rss_imports = rss_mib()
    model = build_model(args.model)
    state = torch.load(state_dict_path(args.dir, args.model), map_location='cpu')
    model.load_state_dict(state, strict=True)
    del state
    frames = torch.load(TWO_FRAMES)
    batch = data_batch(frames, torch.load(TOPONET_INPUTS), [FRAME])
    rss_load = rss_mib()

    out = dict(model='TopoNet', variant=args.model)
    out.update(time_training_steps(model, batch, GT_KEYS, args, rss_imports, rss_load))
    out.update(versions=versions(), total_wall_s=round(time.perf_counter() - t_start, 2))
    print(json.dumps(out), flush=True)


def main():
    t_start = time.perf_counter()
    args = parse_args()
    import torch
    torch.set_num_threads(args.threads)
    import_original()
    if args.command == 'prepare':
        prepare(args)
    else:
        run_time(args, t_start)


if __name__ == '__main__':
    main()
