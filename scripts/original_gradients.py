#!/usr/bin/python3
"""The original stack's per-parameter gradients of one training step, for comparison with ours.

Runs the ORIGINAL OpenLane-V2 `Baseline`, or with `--model baseline_large` the fixtures' reduced
`BaselineLarge` (the reference copy beside this checkout, set up by its `setup.sh`), with the
fixture weights, dropout 0, fp32: `train_step` (forward_train and mmdet's `_parse_losses`) on
the frames of an input file, backward, no optimizer. Writes `{parameter name: gradient}` as a
`.pt` dict. Parameters without a gradient are left out and listed on stderr.

  the reduced BaselineLarge on its fixture frame (`baseline_large_input.pt`), built from the
  fixtures' `model_cfg` and checked against the fixtures' losses first:
    /usr/bin/python3 scripts/original_gradients.py --model baseline_large --out grads.pt

  one process, every frame of the input in one batch:
    /usr/bin/python3 scripts/original_gradients.py --input two_frames.pt --out grads.pt
  two ranks, one frame each, under mmcv's MMDistributedDataParallel (Gloo), as the original
  trainer runs; rank 0 writes the averaged gradients:
    /usr/bin/python3 scripts/torchrun.py --nproc_per_node 2 scripts/original_gradients.py \\
        --input two_frames.pt --out grads.pt --launcher pytorch

  --make-two-frames FILE writes the two-frame input these records use: the fixture frame, then
  a second frame made from it by a fixed rule (mirrored, re-noised images; the ego moved; three
  of the four lanes and two of the three traffic elements, moved, with other labels and links).
  --golden writes the record in the compact form the parity tests read: tensors of at most
  8192 elements (--whole-limit) whole; larger ones as `<name>@rows` (the L2 norm of each slice
  along dim 0), `<name>@index` (2048 (--sample-size) flat indices drawn from a fixed seed,
  int32) and `<name>@sample` (the gradient there).

Environment: OLV2_REFERENCE_DIR (default ../shared/reference/original beside this checkout),
OLV2_ORIGINAL_DIR (where its setup.sh extracted the original; default /tmp/olv2-original),
OLV2_FIXTURES (default ../shared/fixtures).
"""
import argparse
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.environ.get('OLV2_REFERENCE_DIR',
                           os.path.join(ROOT, '..', 'shared', 'reference', 'original'))
ORIGINAL = os.environ.get('OLV2_ORIGINAL_DIR', '/tmp/olv2-original')
FIXTURES = os.environ.get('OLV2_FIXTURES', os.path.join(ROOT, '..', 'shared', 'fixtures'))

WHOLE_LIMIT = 8192
SAMPLE_SIZE = 2048
SAMPLE_SEED = 2026

# The fixtures' files of each model: weights, one input frame, losses and exact model config.
FIXTURE_PREFIX = {'baseline': 'baseline_', 'baseline_large': 'baseline_large_'}
# How far (relative) the reduced BaselineLarge's loss terms may be from the fixtures' before the
# run is refused: the fixtures ran on 2 threads; on 1 thread they measured within 1.2e-6.
FIXTURE_LOSS_RTOL = 1e-5


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--model', choices=sorted(FIXTURE_PREFIX), default='baseline')
    ap.add_argument('--input', help='frames in the fixture input format (default: the '
                    "model's fixture frame)")
    ap.add_argument('--out', help='gradient record to write (.pt)')
    ap.add_argument('--make-two-frames', metavar='FILE', help='write the two-frame input and exit')
    ap.add_argument('--launcher', choices=['none', 'pytorch'], default='none')
    ap.add_argument('--golden', action='store_true', help='write the compact form (see above)')
    ap.add_argument('--whole-limit', type=int, default=WHOLE_LIMIT,
                    help='--golden: the largest tensor kept whole (elements)')
    ap.add_argument('--sample-size', type=int, default=SAMPLE_SIZE,
                    help='--golden: the values sampled from a larger tensor')
    ap.add_argument('--threads', type=int, default=1)
    args = ap.parse_args()
    if not args.make_two_frames and not args.out:
        ap.error('--out or --make-two-frames is required')
    return args


def import_original():
    for path in reversed([os.path.join(REFERENCE, 'stubs'), os.path.join(ORIGINAL, 'mmcv'),
                          os.path.join(ORIGINAL, 'mmdetection'),
                          os.path.join(ORIGINAL, 'mmdetection3d'),
                          os.path.join(ORIGINAL, 'OpenLane-V2')]):
        if not os.path.isdir(path):
            sys.exit(f'{path}: missing; run {REFERENCE}/setup.sh first')
        sys.path.insert(0, path)
    import orig_stubs
    orig_stubs.install()
    import plugin.mmdet3d.baseline  # noqa: F401  (registers Baseline and its parts)


def frame_count(frames):
    return frames['img'].shape[0]


def gt_of(frames, key, b):
    """Ground truth of frame b: `<key>.<b>`, or `<key>` in a one-frame file."""
    if f'{key}.{b}' in frames:
        return frames[f'{key}.{b}']
    if frame_count(frames) == 1 and key in frames:
        return frames[key]
    sys.exit(f'input: ground truth `{key}.{b}` missing')


def make_two_frames(path):
    """The fixture frame, then a second one derived from it by a fixed rule."""
    import torch
    one = torch.load(os.path.join(FIXTURES, 'baseline_input.pt'))
    valid_h, valid_w = (int(v) for v in one['img_shape'][0, 0, :2])
    generator = torch.Generator().manual_seed(7)
    img2 = one['img'].flip(-1).clone()
    img2[..., :valid_h, :valid_w] += 0.3 * torch.randn(img2[..., :valid_h, :valid_w].shape,
                                                       generator=generator)
    # The ego 1.5 m further and turned 4 degrees left: a point p in the new ego frame is
    # motion @ p in the old one, so lidar2img' = lidar2img @ motion.
    yaw = math.radians(4.0)
    motion = torch.eye(4, dtype=torch.float64)
    motion[0, 0], motion[0, 1] = math.cos(yaw), -math.sin(yaw)
    motion[1, 0], motion[1, 1] = math.sin(yaw), math.cos(yaw)
    motion[0, 3] = 1.5
    lanes = one['gt_lc'][[0, 1, 3]].clone().view(3, 5, 3)
    lanes[..., 0] -= 4.0
    lanes[..., 1] += 1.2
    boxes = one['gt_te'][[2, 0]].clone()
    boxes[:, [0, 2]] = (boxes[:, [0, 2]] + 9.0).clamp(max=159.0)
    boxes[:, [1, 3]] = (boxes[:, [1, 3]] + 4.0).clamp(max=119.0)
    can_bus2 = one['can_bus'].clone()
    can_bus2[0, :2] += torch.tensor([1.2, 0.9], dtype=can_bus2.dtype)
    out = {
        'img': torch.cat([one['img'], img2]),
        'lidar2img': torch.cat([one['lidar2img'], one['lidar2img'] @ motion]),
        'img_shape': one['img_shape'].repeat(2, 1, 1),
        'pad_shape': one['pad_shape'].repeat(2, 1, 1),
        'scale_factor': one['scale_factor'].repeat(2, 1),
        'can_bus': torch.cat([one['can_bus'], can_bus2]),
    }
    for key in ('gt_lc', 'gt_lc_labels', 'gt_te', 'gt_te_labels', 'gt_topology_lclc',
                'gt_topology_lcte'):
        out[f'{key}.0'] = one[key]
    out['gt_lc.1'] = lanes.view(3, 15).contiguous()
    out['gt_lc_labels.1'] = torch.zeros(3, dtype=one['gt_lc_labels'].dtype)
    out['gt_te.1'] = boxes.contiguous()
    out['gt_te_labels.1'] = torch.tensor([5, 11], dtype=one['gt_te_labels'].dtype)
    out['gt_topology_lclc.1'] = torch.tensor([[0, 1, 0], [0, 0, 0], [1, 0, 0]],
                                             dtype=one['gt_topology_lclc'].dtype)
    out['gt_topology_lcte.1'] = torch.tensor([[1, 0], [0, 0], [0, 1]],
                                             dtype=one['gt_topology_lcte'].dtype)
    torch.save(out, path)


def data_batch(frames, selected):
    """mmdet's train_step input for the frames `selected` (indices into the file)."""
    import numpy as np
    metas, gts = [], {k: [] for k in ('gt_lc', 'gt_lc_labels', 'gt_te', 'gt_te_labels',
                                      'gt_topology_lclc', 'gt_topology_lcte')}
    for b in selected:
        metas.append({
            'lidar2img': [m.numpy() for m in frames['lidar2img'][b]],
            'img_shape': [tuple(int(v) for v in s) for s in frames['img_shape'][b]],
            'pad_shape': [tuple(int(v) for v in s) for s in frames['pad_shape'][b]],
            'scale_factor': frames['scale_factor'][b].numpy().astype(np.float32),
            'can_bus': frames['can_bus'][b].numpy(),
            'scene_token': f'frame{b}',
            'sample_idx': str(b),
        })
        for key in gts:
            gts[key].append(gt_of(frames, key, b))
    return dict(img=frames['img'][selected].clone(), img_metas=metas, **gts)


def fixture_file(model_name, what):
    return os.path.join(FIXTURES, FIXTURE_PREFIX[model_name] + what)


def original_model_config(model_name):
    """`Baseline`: the original baseline.py without its pretrained weights, which must be the
    fixtures' config. `BaselineLarge`: the fixtures' exact reduced config (`model_cfg`)."""
    from mmcv import Config
    fixture_cfg = json.load(open(fixture_file(model_name, 'losses.json')))['model_cfg']
    if model_name == 'baseline_large':
        if fixture_cfg.get('type') != 'BaselineLarge':
            sys.exit(f'{fixture_file(model_name, "losses.json")}: model_cfg is no BaselineLarge')
        return Config(dict(model=fixture_cfg)).model
    cfg = Config.fromfile(os.path.join(ORIGINAL, 'OpenLane-V2/plugin/mmdet3d/configs/baseline.py'),
                          import_custom_modules=False)
    cfg.model.img_backbone.init_cfg = None
    if json.loads(json.dumps(cfg.model.to_dict())) != fixture_cfg:
        sys.exit('the original baseline.py differs from the fixtures\' model config')
    return cfg.model


def build_original_model(model_name):
    import torch
    from mmdet3d.models import build_model
    model = build_model(original_model_config(model_name))
    model.load_state_dict(torch.load(fixture_file(model_name, 'state_dict.pt')), strict=True)
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
        elif isinstance(module, torch.nn.MultiheadAttention):
            module.dropout = 0.0
    model.train()
    return model


def check_fixture_losses(model_name, log_vars):
    """The step's loss terms are the fixtures' (same model, weights and frame), or exit."""
    recorded = json.load(open(fixture_file(model_name, 'losses.json')))['losses']
    ours = {k: v for k, v in log_vars.items() if k != 'loss'}
    if sorted(ours) != sorted(recorded):
        sys.exit(f'loss terms {sorted(ours)}, the fixtures have {sorted(recorded)}')
    for key, value in recorded.items():
        if abs(ours[key] - value) > FIXTURE_LOSS_RTOL * abs(value):
            sys.exit(f'{key}: {ours[key]!r}, the fixtures have {value!r}')


def compact(gradients, whole_limit=WHOLE_LIMIT, sample_size=SAMPLE_SIZE):
    """The golden form: tensors of at most whole_limit elements whole, larger ones as slice norms
    and sample_size values at indices drawn from a fixed seed."""
    import torch
    out = {}
    generator = torch.Generator().manual_seed(SAMPLE_SEED)
    for name, grad in gradients.items():
        if grad.numel() <= whole_limit:
            out[name] = grad
            continue
        index = torch.randperm(grad.numel(), generator=generator)[:sample_size].sort().values
        out[f'{name}@rows'] = grad.reshape(grad.shape[0], -1).norm(dim=1)
        out[f'{name}@index'] = index.to(torch.int32)
        out[f'{name}@sample'] = grad.reshape(-1)[index].clone()
    return out


def main():
    args = parse_args()
    import torch
    torch.set_num_threads(args.threads)
    if args.make_two_frames:
        make_two_frames(args.make_two_frames)
        return
    import_original()
    import torch.distributed as dist
    frames = torch.load(args.input or fixture_file(args.model, 'input.pt'))

    model = build_original_model(args.model)
    names = [name for name, _ in model.named_parameters()]
    rank, world = 0, 1
    if args.launcher == 'pytorch':
        dist.init_process_group('gloo')
        rank, world = dist.get_rank(), dist.get_world_size()
        if world != frame_count(frames):
            sys.exit(f'{world} ranks for {frame_count(frames)} frames: one frame a rank')
        from mmcv.parallel import MMDistributedDataParallel
        # As mmdet's train_detector wraps it.
        runner_model = MMDistributedDataParallel(model, broadcast_buffers=False,
                                                 find_unused_parameters=False)
        batch = data_batch(frames, [rank])
    else:
        runner_model = model
        batch = data_batch(frames, list(range(frame_count(frames))))

    outputs = runner_model.train_step(batch, None)
    outputs['loss'].backward()
    # The loss terms as the original logs them (the mean over ranks).
    print(json.dumps({'rank': rank, 'loss': float(outputs['log_vars']['loss']),
                      'log_vars': {k: float(v) for k, v in outputs['log_vars'].items()}}),
          file=sys.stderr)
    if args.model == 'baseline_large' and not args.input:
        check_fixture_losses(args.model, outputs['log_vars'])

    gradients, without = {}, []
    for name, param in zip(names, model.parameters()):
        if param.grad is None:
            without.append(name)
        else:
            gradients[name] = param.grad.detach().clone()
    if without:
        print(f'parameters without a gradient: {without}', file=sys.stderr)
    if rank == 0:
        torch.save(compact(gradients, args.whole_limit, args.sample_size) if args.golden
                   else gradients, args.out)
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == '__main__':
    main()
