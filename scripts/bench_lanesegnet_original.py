#!/usr/bin/python3
"""Benchmark of the ORIGINAL LaneSegNet training step, for scripts/bench_lanesegnet_vs_original.sh.

Runs LaneSegNet (OpenDriveLab/LaneSegNet at commit 9f12fe7) on the original baseline's stack with
the v2.x devkit, CPU, fp32, on frame 0 of tests/data/gradients/two_frames.pt (7 cameras,
128x160) with the model's ground truth of that frame, as scripts/lanesegnet_fixtures.py feeds it:
LaneSegNet's (tests/data/lanesegnet/: 5 lane segments and 2 crossings) or, for the Map Element
Bucket model (LaneSegNetMapElementBucket, `lanesegnet_fixtures.py --model mapele_bucket`),
its own (tests/data/lanesegnet_mapele_bucket/: the same 5 lane segments, their lane x TE
adjacency gt_lane_lste_adj, two_frames.pt's 3 traffic elements gt_bboxes / gt_labels, and 3
areas gt_areas_3d [3, 20, 3] float64 with gt_area_labels_3d: 2 crossings and a road boundary;
the img_metas' crop_shape gives the TE head's front crop). Four models:

  reduced         LaneSegNet: the parity fixtures' model and weights
                  (tests/data/lanesegnet/README.md); its instance masks at the 25 x 50 BEV
                  (inputs.pt)
  full            LaneSegNet: the subset-A config, unchanged but for `img_backbone.init_cfg =
                  None`, with mmcv's initialisation (`init_weights()`, as mmdet3d's train.py
                  calls it) after seeding; its instance masks at the 100 x 200 BEV
                  (pipeline_expected.pt: the same lines, the pipeline's masks on the full grid)
  bucket_reduced  the Map Element Bucket model: the parity fixtures' model and weights
                  (tests/data/lanesegnet_mapele_bucket/README.md); masks at 25 x 50 (inputs.pt)
  bucket_full     the Map Element Bucket model: the subset-A mapele_bucket config, unchanged but
                  for `img_backbone.init_cfg = None`, initialised as `full`; masks at 100 x 200
                  (that folder's pipeline_expected.pt, whose other targets must equal
                  inputs.pt's; the TEs stay two_frames.pt's, as the fixtures' model step has
                  them)

Two commands, one process each:

  prepare --dir DIR --model M
        writes what both sides time on: DIR/M_input.pt, the frame in the fixture input format
        that our `bench_train_step --input` reads (img, lidar2img, img_shape, pad_shape,
        scale_factor, can_bus and crop_shape [1, 7, 2] of two_frames.pt / inputs.pt; the
        ground truth under forward_train's names: gt_lanes_3d [n, 90], gt_lane_labels_3d,
        gt_lane_adj, gt_lane_left_type, gt_lane_right_type and gt_instance_masks
        [n, bev_h, bev_w] float64, and for the bucket models also gt_lane_lste_adj, gt_areas_3d,
        gt_area_labels_3d, gt_bboxes and gt_labels; one file per model, as the masks follow the
        model's BEV), and DIR/M_state_dict.pt, the model's weights
  time --dir DIR --model M [--threads 2] [--warmup 2] [--steps 5]
        builds the model, loads DIR/M_state_dict.pt and times `--steps` steps after `--warmup`
        untimed ones: forward_train (train mode, dropout as configured) + the sum of the loss
        terms + backward + AdamW(lr 1e-4, weight decay 1e-4).step() + zero_grad(), the
        procedure of the reference's bench_original.py. Prints ONE JSON line: median / min /
        max seconds per step, a per-stage split (backbone, neck, view_transformer = the BEV
        constructor, heads+losses, backward, optimizer), peak RSS (`ru_maxrss`, MiB), the BLAS
        libraries mapped, and the foreign CPU load during each step (`--max-extra K` retries a
        step with more than `--clean-thresh` foreign cores, up to K times)

Environment: as scripts/lanesegnet_fixtures.py (the devkit in OLV2_DEVKIT_DIR included).
"""
import argparse
import json
import logging
import os
import sys
import time

import lanesegnet_fixtures
from bench_side_by_side import rss_mib, state_dict_path, time_training_steps
from bench_toponet_original import FRAME_KEYS
from lanesegnet_fixtures import (FIXTURE_DIRS, FULL_BEV, MAPELE, MAPELE_TE_KEYS, TWO_FRAMES,
                                 batch_keys, build, build_fixture_model, build_reduced,
                                 data_batch, import_original, load_config, mapele, versions)

# Each model: (lanesegnet_fixtures.py's --model, whether it is the fixtures' reduced model).
MODELS = {'reduced': ('lanesegnet', True), 'full': ('lanesegnet', False),
          'bucket_reduced': (MAPELE, True), 'bucket_full': (MAPELE, False)}
FRAME = 0


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = ap.add_subparsers(dest='command', required=True)
    for name in ('prepare', 'time'):
        command = commands.add_parser(name)
        command.add_argument('--dir', required=True, help='where prepare writes, time reads')
        command.add_argument('--model', choices=list(MODELS), required=True)
        command.add_argument('--seed', type=int, default=0,
                             help='prepare: the full model\'s initialisation; time: dropout')
        command.add_argument('--threads', type=int, default=2)
    timing = commands.choices['time']
    timing.add_argument('--warmup', type=int, default=2)
    timing.add_argument('--steps', type=int, default=5)
    timing.add_argument('--max-extra', type=int, default=0)
    timing.add_argument('--clean-thresh', type=float, default=0.15)
    return ap.parse_args()


def input_path(directory, model):
    return os.path.join(directory, f'{model}_input.pt')


def is_reduced(name):
    return MODELS[name][1]


def build_model(name):
    """The original model `name` as its config builds it (weights to be loaded)."""
    return build_reduced()[1] if is_reduced(name) else build(load_config())


def initial_weights(name, seed):
    """The state dict both sides time: the fixture weights, or the full model's
    initialisation from `seed`."""
    import numpy as np
    import torch
    if is_reduced(name):
        return build_fixture_model()[1].state_dict()
    from mmcv.utils import get_logger
    get_logger('mmcv', log_level=logging.WARNING)  # init_weights logs every parameter at INFO
    torch.manual_seed(seed)
    np.random.seed(seed)
    model = build_model(name)
    model.init_weights()
    return model.state_dict()


def ground_truth(name):
    """The model's inputs.pt ('<key>.<frame>' targets, crop_shape), the instance masks at model
    `name`'s BEV: the fixture's 25 x 50 ones, or the pipeline's 100 x 200 ones of the same frames
    as the float64 0 / 1 the pipeline hands the model."""
    import torch
    fixtures = FIXTURE_DIRS[MODELS[name][0]]
    inputs = os.path.join(fixtures, 'inputs.pt')
    extra = torch.load(inputs)
    if not is_reduced(name):
        expected = os.path.join(fixtures, 'pipeline_expected.pt')
        pipeline = torch.load(expected)
        for key in batch_keys():
            # The model step's TEs are two_frames.pt's, not the pipeline's raw boxes.
            if key == 'gt_instance_masks' or key in MAPELE_TE_KEYS:
                continue
            if not torch.equal(pipeline[f'frames.{FRAME}.{key}'], extra[f'{key}.{FRAME}']):
                sys.exit(f'{expected}: frame {FRAME}\'s {key} differs from {inputs}\'s')
        masks = pipeline[f'frames.{FRAME}.gt_instance_masks'].to(torch.float64)
        if tuple(masks.shape[1:]) != FULL_BEV:
            sys.exit(f'{expected}: masks {list(masks.shape)}, expected [n, '
                     f'{FULL_BEV[0]}, {FULL_BEV[1]}]')
        extra[f'gt_instance_masks.{FRAME}'] = masks
    return extra


def write_input(directory, name):
    """Frame FRAME of two_frames.pt with the model's ground truth, in the fixture input format."""
    import torch
    frames = torch.load(TWO_FRAMES)
    extra = ground_truth(name)
    out = {key: frames[key][FRAME:FRAME + 1].clone() for key in FRAME_KEYS}
    out['crop_shape'] = extra['crop_shape'][FRAME:FRAME + 1].clone()
    out.update({key: extra[f'{key}.{FRAME}'].clone() for key in batch_keys()})
    torch.save(out, input_path(directory, name))


def prepare(args):
    import torch
    os.makedirs(args.dir, exist_ok=True)
    write_input(args.dir, args.model)
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
    batch = data_batch(frames, ground_truth(args.model), [FRAME])
    rss_load = rss_mib()

    out = dict(model='LaneSegNetMapElementBucket' if mapele() else 'LaneSegNet',
               variant=args.model)
    out.update(time_training_steps(model, batch, batch_keys(), args, rss_imports, rss_load))
    out['masks'] = list(batch['gt_instance_masks'][0].shape)
    if mapele():
        out['areas'] = list(batch['gt_areas_3d'][0].shape)
        out['traffic_elements'] = len(batch['gt_bboxes'][0])
    out.update(versions=versions(), total_wall_s=round(time.perf_counter() - t_start, 2))
    print(json.dumps(out), flush=True)


def main():
    t_start = time.perf_counter()
    args = parse_args()
    import torch
    torch.set_num_threads(args.threads)
    # The fixture helpers follow their module's --model (mapele()).
    lanesegnet_fixtures.MODEL = MODELS[args.model][0]
    import_original()
    if args.command == 'prepare':
        prepare(args)
    else:
        run_time(args, t_start)


if __name__ == '__main__':
    main()
