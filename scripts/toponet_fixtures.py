#!/usr/bin/python3
"""Golden fixtures of the ORIGINAL TopoNet, for comparison with our port.

Runs TopoNet (OpenDriveLab/TopoNet, `projects/` at commit 0436764, the reference archive beside
this checkout) on the original baseline's stack (mmcv 1.5.2, mmdet 2.25.0, mmdet3d 1.0.0rc6,
Debian's torch 1.13), CPU, fp32, and writes the files tests/data/toponet/README.md describes
into --dir (default tests/data/toponet). One command a process:

  shapes A|B        state_dict_shapes_subset_{A,B}.json: {name: shape} of the full model of that
                    subset's config, unchanged but for the pretrained-weights init_cfg
  inputs            inputs.pt: the extra inputs TopoNet needs, derived from the two frames of
                    tests/data/gradients/two_frames.pt (README: "Input")
  probe             formula_probe.pt: a few entries of the weight formula (README: "Weights"),
                    for a test of another implementation of it
  train one_frame|batch_two
                    one training step (train mode, every dropout 0) on frame 0, or on both
                    frames in one batch: <case>_outputs.pt (module outputs and matchings),
                    <case>_losses.json, <case>_gradients.pt (the compact form of
                    original_gradients.py --golden, with smaller limits)
  test              test_outputs.pt: forward_test of frame 0, eval mode, a fresh model
  pipeline          pipeline_expected.pt: TopoNet's dataset and transforms on the raw frames of the
                    pipeline fixture (README: "Pipeline"): every frame of both splits, the steps of
                    one train frame, GridMask under given draws, LaneParameterize3D off the
                    201-point shortcut

train and test read inputs.pt from --dir and take the weights as a reader of these files does:
the entries shared with the baseline_large fixture (img_backbone, img_neck, bev_constructor) from
it, every other one from the weight formula.

Environment: OLV2_REFERENCE_DIR, OLV2_ORIGINAL_DIR, OLV2_FIXTURES as for original_gradients.py;
OLV2_TOPONET_SOURCES (the archive; default ../shared/reference/toponet/sources.tar.xz beside this
checkout); OLV2_TOPONET_DIR (where it is extracted when not already; default /tmp/olv2-toponet).
pipeline also needs the real pyquaternion (0.9.9; the reference's stubs only stand in for it).
"""
import argparse
import copy
import itertools
import json
import math
import os
import platform
import re
import sys
import tarfile
import tempfile

from original_gradients import FIXTURES, ORIGINAL, REFERENCE, ROOT, compact

TOPONET_COMMIT = '0436764'
TOPONET_SOURCES = os.environ.get(
    'OLV2_TOPONET_SOURCES',
    os.path.join(ROOT, '..', 'shared', 'reference', 'toponet', 'sources.tar.xz'))
TOPONET_DIR = os.environ.get('OLV2_TOPONET_DIR', '/tmp/olv2-toponet')
CONFIG = 'TopoNet/projects/configs/toponet_r50_8x1_24e_olv2_subset_{}.py'
TWO_FRAMES = os.path.join(ROOT, 'tests', 'data', 'gradients', 'two_frames.pt')
CASES = {'one_frame': [0], 'batch_two': [0, 1]}
# Taken from the baseline_large fixture; the weight formula gives every other entry.
LARGE_PARTS = ('img_backbone', 'img_neck', 'bev_constructor')
SHARED_PREFIXES = tuple(f'{part}.' for part in LARGE_PARTS)
# The reduced model's sizes (README: "Reduced model"): _dim_, _ffn_dim_, _pos_dim_, the BEV
# (h, w) and the queries of each head.
REDUCED_DIM, REDUCED_FFN_DIM, REDUCED_POS_DIM = 64, 128, 32
REDUCED_BEV = (25, 50)
REDUCED_QUERIES = 20
WEIGHTS_RULE = 'formula v1'
# Entries the formula leaves as built: a non-trainable constant (integer buffers are kept too).
FORMULA_KEEPS = ('pts_bbox_head.code_weights',)
# The formula entries that are nn.LayerNorm weights (checked against the modules).
LAYER_NORM_WEIGHT = re.compile(
    r'(bbox_head|pts_bbox_head)\.transformer\.(encoder|decoder)\.layers\.[0-9]+\.norms\.[0-9]+'
    r'\.weight|pts_bbox_head\.cls_branches\.[0-9]+\.[14]\.weight')
FNV_OFFSET, FNV_PRIME = 0xcbf29ce484222325, 0x100000001b3
FORMULA_MULTIPLIER, FORMULA_MODULUS = 1103515245, 2147483648
PROBE = ('bbox_head.reg_branches.0.4.weight', 'bbox_head.query_embedding.weight',
         'bbox_head.cls_branches.0.bias', 'pts_bbox_head.cls_branches.0.1.weight',
         'pts_bbox_head.transformer.decoder.layers.0.ffns.0.lcte_gnn_layer.weight')
PROBE_LIMIT = 4096  # a larger probe entry keeps its first 64 values, as <name>@first64
GRADIENT_WHOLE_LIMIT, GRADIENT_SAMPLE_SIZE = 1024, 256
GT_KEYS = ('gt_lanes_3d', 'gt_lane_labels_3d', 'gt_lane_adj', 'gt_lane_lcte_adj', 'gt_bboxes',
           'gt_labels')
LANE_POINTS = 11
FRONT_CROP = (0, 20)  # crop_shape of camera 0: (x, y) offset the TE head adds back at test time
TE_OUTPUTS = ('all_cls_scores', 'all_bbox_preds', 'history_states')
LANE_OUTPUTS = ('all_cls_scores', 'all_lanes_preds', 'all_lclc_preds', 'all_lcte_preds',
                'history_states')
PIPELINE_RAW = os.path.join(FIXTURES, 'pipeline', 'raw')
PIPELINE_COLLECTION = 'data_dict_fixture'
# Random transforms of the config's train pipeline, left out (GridMask is recorded on its own).
RANDOM_TRANSFORMS = ('PhotoMetricDistortionMultiViewImage', 'GridMaskMultiViewImage')
IMG_STRIDE = 16
# (x1, y1, x2, y2) boxes in raw front-image pixels around the crop's top row 356: above it, ending
# exactly on it, ending half a pixel below it, crossing its bottom row 1906, inside.
CROP_DROP_BOXES = [[10, 100, 50, 300], [60, 300, 90, 356], [100, 300, 140, 356.5],
                   [150, 1800, 190, 2000], [200, 500, 240, 600]]
GRIDMASK_SHAPE = (2, 37, 53, 3)  # cameras, H, W, C: the layout the transform sees
# case: (rand, d, st_h, st_w), what np.random.rand(), randint(2, h), randint(d), randint(d) return,
# in that order; 'skip' draws rand() only, above prob 0.7.
GRIDMASK_CASES = {'d9': (0.5, 9, 7, 5), 'd4': (0.5, 4, 0, 3), 'skip': (0.9,)}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--dir', default=os.path.join(ROOT, 'tests', 'data', 'toponet'),
                    help='the fixture folder: read (inputs.pt) and written')
    ap.add_argument('--threads', type=int, default=1)
    commands = ap.add_subparsers(dest='command', required=True)
    commands.add_parser('shapes').add_argument('subset', choices=['A', 'B'])
    commands.add_parser('inputs')
    commands.add_parser('probe')
    commands.add_parser('train').add_argument('case', choices=sorted(CASES))
    commands.add_parser('test')
    commands.add_parser('pipeline')
    return ap.parse_args()


def extracted(sources, directory):
    """`directory` holding the archive `sources` extracted, extracted first when missing."""
    marker = os.path.join(directory, '.extracted')
    if not os.path.isfile(marker):
        os.makedirs(directory, exist_ok=True)
        with tarfile.open(sources) as archive:
            archive.extractall(directory)
        open(marker, 'w').close()
    return directory


def toponet_root():
    """The extracted archive (a folder holding TopoNet/)."""
    return extracted(TOPONET_SOURCES, TOPONET_DIR)


def import_original():
    paths = [os.path.join(REFERENCE, 'stubs'), os.path.join(ORIGINAL, 'mmcv'),
             os.path.join(ORIGINAL, 'mmdetection'), os.path.join(ORIGINAL, 'mmdetection3d'),
             os.path.join(toponet_root(), 'TopoNet'), os.path.join(ORIGINAL, 'OpenLane-V2')]
    for path in reversed(paths):
        if not os.path.isdir(path):
            sys.exit(f'{path}: missing; run {REFERENCE}/setup.sh first')
        sys.path.insert(0, path)
    import orig_stubs
    orig_stubs.install()
    import projects.bevformer  # noqa: F401  (registers the BEVFormer modules)
    import projects.toponet  # noqa: F401  (registers TopoNet and its parts)


def load_config(subset):
    from mmcv import Config
    cfg = Config.fromfile(os.path.join(toponet_root(), CONFIG.format(subset)),
                          import_custom_modules=False)
    cfg.model.img_backbone.init_cfg = None
    return cfg


def reduce_large_parts(model):
    """img_backbone, img_neck and bev_constructor at the baseline_large fixture's sizes (README:
    "Reduced model"); the LaneSegNet fixtures reduce theirs the same way."""
    dim, pos_dim, (bev_h, bev_w) = REDUCED_DIM, REDUCED_POS_DIM, REDUCED_BEV
    ffn = dict(embed_dims=dim, feedforward_channels=REDUCED_FFN_DIM)
    model.img_backbone.update(depth=18, base_channels=32)
    model.img_neck.update(in_channels=[64, 128, 256], out_channels=dim)

    bev = model.bev_constructor
    bev.update(embed_dims=dim, bev_h=bev_h, bev_w=bev_w, rotate_center=[bev_h // 2, bev_w // 2])
    bev.encoder.num_layers = 2
    bev_layer = bev.encoder.transformerlayers
    temporal, spatial = bev_layer.attn_cfgs
    temporal.embed_dims = dim
    spatial.embed_dims = dim
    spatial.deformable_attention.embed_dims = dim
    bev_layer.ffn_cfgs[0].update(ffn)
    bev.positional_encoding.update(num_feats=pos_dim, row_num_embed=bev_h, col_num_embed=bev_w)


def reduce_te_head(te):
    """The traffic-element head (CustomDeformableDETRHead) at the reduced sizes (README: "Reduced
    model"); LaneSegNet's map-element-bucket fixtures reduce theirs the same way."""
    dim, ffn_dim, pos_dim = REDUCED_DIM, REDUCED_FFN_DIM, REDUCED_POS_DIM
    te.update(num_query=REDUCED_QUERIES, in_channels=dim)
    te.test_cfg.max_per_img = REDUCED_QUERIES
    te.transformer.encoder.num_layers = 1
    te_encoder_layer = te.transformer.encoder.transformerlayers
    te_encoder_layer.attn_cfgs.embed_dims = dim
    te_encoder_layer.ffn_cfgs[0].update(embed_dims=dim, feedforward_channels=ffn_dim)
    te_decoder_layer = te.transformer.decoder.transformerlayers
    for attention in te_decoder_layer.attn_cfgs:
        attention.embed_dims = dim
    te_decoder_layer.feedforward_channels = ffn_dim
    # The config leaves this FFN's width to mmcv's default ffn_cfgs (embed_dims 256).
    te_decoder_layer.ffn_cfgs = dict(type='FFN', embed_dims=dim)
    te.positional_encoding.num_feats = pos_dim


def reduce_model_cfg(model):
    """Subset A at the sizes of the baseline_large fixture (README: "Reduced model")."""
    dim, ffn_dim = REDUCED_DIM, REDUCED_FFN_DIM
    (bev_h, bev_w), num_query = REDUCED_BEV, REDUCED_QUERIES
    ffn = dict(embed_dims=dim, feedforward_channels=ffn_dim)
    reduce_large_parts(model)
    reduce_te_head(model.bbox_head)

    lane = model.lane_head
    lane.update(num_query=num_query, in_channels=dim, bev_h=bev_h, bev_w=bev_w)
    lane.transformer.embed_dims = dim
    lane_layer = lane.transformer.decoder.transformerlayers
    for attention in lane_layer.attn_cfgs:
        attention.embed_dims = dim
    lane_layer.ffn_cfgs.update(ffn)
    for relation in (lane.lclc_head, lane.lcte_head):
        relation.update(in_channels_o1=dim, in_channels_o2=dim)


def plain(value):
    """A config as JSON values (tuples as lists)."""
    return json.loads(json.dumps(value.to_dict() if hasattr(value, 'to_dict') else value))


def check_large_parts(model_cfg):
    """Exits unless the reduced config's img_backbone, img_neck and bev_constructor are the
    baseline_large fixture's, whose weights they take."""
    large = json.load(open(os.path.join(FIXTURES, 'baseline_large_losses.json')))['model_cfg']
    ours = plain({part: model_cfg[part] for part in LARGE_PARTS})
    # TopoNet's and LaneSegNet's configs write their FFN config with a trailing comma: a
    # one-element tuple, which mmcv builds as the dict itself.
    bev_layer = ours['bev_constructor']['encoder']['transformerlayers']
    bev_layer['ffn_cfgs'], = bev_layer['ffn_cfgs']
    for part in LARGE_PARTS:
        if ours[part] != large[part]:
            sys.exit(f'model_cfg.{part} differs from the baseline_large fixture\'s:\n'
                     f'{ours[part]}\n{large[part]}')


def fixture_model_cfg():
    """The reduced model's config; its backbone, neck and BEV constructor must be
    baseline_large's, whose weights they take."""
    cfg = load_config('A')
    reduce_model_cfg(cfg.model)
    check_large_parts(cfg.model)
    return cfg


def build(cfg):
    """The detector of cfg; cfg.model itself stays as written (TopoNet adds train_cfg to the
    head configs it is given)."""
    from mmdet3d.models import build_model
    return build_model(copy.deepcopy(cfg.model), train_cfg=cfg.get('train_cfg'),
                       test_cfg=cfg.get('test_cfg'))


def build_reduced():
    """The reduced model's config and a model built from it, with its own initial weights."""
    cfg = fixture_model_cfg()
    model = build(cfg)
    sizes = {m.embed_dims for m in model.modules() if hasattr(m, 'embed_dims')}
    if sizes != {64}:
        sys.exit(f'embed_dims of the reduced model\'s modules: {sorted(sizes)}, expected 64 only')
    return cfg, model


def fnv1a64(text):
    """64-bit FNV-1a of the UTF-8 bytes of text."""
    h = FNV_OFFSET
    for byte in text.encode('utf-8'):
        h = ((h ^ byte) * FNV_PRIME) % 2 ** 64
    return h


def formula_tensor(name, shape, layer_norm_weight):
    """The formula's value of entry `name` (README: "Weights"): uniform in [-scale, scale), or
    in [0.9, 1.1) for a LayerNorm weight, from integer and IEEE-double arithmetic only."""
    import torch
    b = fnv1a64(name) % FORMULA_MODULUS
    k = torch.arange(math.prod(shape), dtype=torch.int64)
    u = ((k * FORMULA_MULTIPLIER + b) % FORMULA_MODULUS).to(torch.float64) / float(FORMULA_MODULUS)
    if layer_norm_weight:
        values = 1.0 + (2.0 * u - 1.0) * 0.1
    else:
        scale = 1.0 / math.sqrt(shape[-1]) if len(shape) >= 2 else 0.1
        values = (2.0 * u - 1.0) * scale
    return values.to(torch.float32).reshape(shape)


def formula_weights(model, layer_norm_weight=LAYER_NORM_WEIGHT, keeps=FORMULA_KEEPS):
    """{name: formula tensor} for every state-dict entry of model but the shared ones, the kept
    constants and integer buffers, in state-dict order. Checks layer_norm_weight (the pattern of
    the LayerNorm weights' names) against the model's nn.LayerNorm modules."""
    import torch
    entries = {name: t for name, t in model.state_dict().items()
               if not name.startswith(SHARED_PREFIXES) and name not in keeps
               and t.is_floating_point()}
    layer_norm = {f'{name}.weight' for name, m in model.named_modules()
                  if isinstance(m, torch.nn.LayerNorm)} & entries.keys()
    by_name = {name for name in entries if layer_norm_weight.fullmatch(name)}
    if by_name != layer_norm:
        sys.exit(f'the LayerNorm-weight pattern matches {sorted(by_name - layer_norm)} beyond the '
                 f'LayerNorm weights and misses {sorted(layer_norm - by_name)}')
    return {name: formula_tensor(name, list(t.shape), name in layer_norm)
            for name, t in entries.items()}


def formula_checksum(weights):
    """The float64 sums of the formula tensors, added in state-dict order."""
    import torch
    return sum(t.to(torch.float64).sum().item() for t in weights.values())


def load_fixture_weights(model, weights):
    """Loads the baseline_large fixture's entries of the shared parts and then weights (the
    formula's, or any others) into model; every other entry keeps its value."""
    import torch
    own = model.state_dict()
    shared = torch.load(os.path.join(FIXTURES, 'baseline_large_state_dict.pt'))
    taken = [k for k in own if k.startswith(SHARED_PREFIXES)]
    wrong = [f'{k}: missing' if k not in shared else f'{k}: {list(shared[k].shape)} there, '
             f'{list(own[k].shape)} here' for k in taken
             if k not in shared or shared[k].shape != own[k].shape]
    if wrong:
        sys.exit('the baseline_large fixture does not fit:\n' + '\n'.join(wrong))
    full = dict(own)
    full.update({k: shared[k] for k in taken})
    full.update(weights)
    model.load_state_dict(full, strict=True)
    loaded = model.state_dict()
    differ = [k for k, v in weights.items() if not torch.equal(loaded[k], v)]
    if differ:
        sys.exit(f'the model does not hold the given weights: {differ}')


def build_fixture_model():
    """The reduced model with the fixture weights: baseline_large's shared entries, the formula
    for the others. Returns the config, the model and the formula weights."""
    cfg, model = build_reduced()
    formula = formula_weights(model)
    load_fixture_weights(model, formula)
    return cfg, model, formula


def write_shapes(directory, subset):
    model = build(load_config(subset))
    shapes = {name: list(t.shape) for name, t in model.state_dict().items()}
    path = os.path.join(directory, f'state_dict_shapes_subset_{subset}.json')
    with open(path, 'w') as f:
        f.write('{\n' + ',\n'.join(f'{json.dumps(k)}: {json.dumps(v)}' for k, v in shapes.items())
                + '\n}\n')
    print(f'subset {subset}: {len(shapes)} state-dict entries', file=sys.stderr)


def bezier_points(control, n_points=LANE_POINTS):
    """[n, 5 * 3] control points of a degree-4 Bezier -> [n, n_points * 3] points at
    t = i / (n_points - 1): P(t) = sum_j C(4, j) (1 - t)^(4 - j) t^j P_j, the basis in
    float64, the product in float32 (as the OpenLane-V2 devkit turns Bezier lanes into points)."""
    import torch
    control = control.view(control.shape[0], -1, 3)
    degree = control.shape[1] - 1
    t = torch.arange(n_points, dtype=torch.float64) / (n_points - 1)
    basis = torch.stack([math.comb(degree, j) * (1 - t) ** (degree - j) * t ** j
                         for j in range(degree + 1)], dim=1)
    points = torch.einsum('ij,njk->nik', basis.to(torch.float32), control)
    return points.reshape(control.shape[0], n_points * 3).contiguous()


def z_rotation(yaw):
    import torch
    c, s = math.cos(yaw), math.sin(yaw)
    return torch.tensor([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]], dtype=torch.float64)


def write_inputs(directory):
    import torch
    frames = torch.load(TWO_FRAMES)
    count = frames['img'].shape[0]
    out = {}
    for b in range(count):
        lanes = bezier_points(frames[f'gt_lc.{b}'])
        out[f'gt_lanes_3d.{b}'] = lanes
        out[f'gt_lane_labels_3d.{b}'] = torch.zeros(lanes.shape[0], dtype=torch.int64)
        out[f'gt_lane_adj.{b}'] = frames[f'gt_topology_lclc.{b}'].to(torch.float32)
        out[f'gt_lane_lcte_adj.{b}'] = frames[f'gt_topology_lcte.{b}'].to(torch.float32)
        out[f'gt_bboxes.{b}'] = frames[f'gt_te.{b}'].clone()
        out[f'gt_labels.{b}'] = frames[f'gt_te_labels.{b}'].clone()
    crop_shape = torch.zeros(count, frames['img'].shape[1], 2, dtype=torch.int64)
    crop_shape[:, 0] = torch.tensor(FRONT_CROP)
    out['crop_shape'] = crop_shape
    out['lidar2global_rotation'] = torch.stack(
        [z_rotation(float(frames['can_bus'][b, 16])) for b in range(count)])
    torch.save(out, os.path.join(directory, 'inputs.pt'))


def write_probe(directory):
    """formula_probe.pt: a few formula entries of different kinds, whole, or the first 64
    values of a large one."""
    import torch
    _, model = build_reduced()
    formula = formula_weights(model)
    probe = {}
    for name in PROBE:
        values = formula[name]
        if values.numel() <= PROBE_LIMIT:
            probe[name] = values
        else:
            probe[f'{name}@first64'] = values.reshape(-1)[:64].clone()
    torch.save(probe, os.path.join(directory, 'formula_probe.pt'))
    print(f'formula: {len(formula)} entries, checksum {formula_checksum(formula)!r}',
          file=sys.stderr)


def meta(frames, extra, b):
    """img_metas entry of frame b, as TopoNet's pipeline hands it to the model."""
    import numpy as np
    return {
        'lidar2img': [m.numpy() for m in frames['lidar2img'][b]],
        'img_shape': [tuple(int(v) for v in s) for s in frames['img_shape'][b]],
        'pad_shape': [tuple(int(v) for v in s) for s in frames['pad_shape'][b]],
        'scale_factor': frames['scale_factor'][b].numpy().astype(np.float32),
        'crop_shape': [s.numpy() for s in extra['crop_shape'][b]],
        # A copy: forward_test edits can_bus in place.
        'can_bus': frames['can_bus'][b].numpy().copy(),
        'lidar2global_rotation': extra['lidar2global_rotation'][b].numpy(),
        'scene_token': f'frame{b}',
        'sample_idx': str(b),
    }


def data_batch(frames, extra, selected):
    """train_step's input: img [B, queue 1, cams, 3, H, W], img_metas [[meta]] per sample."""
    batch = {key: [extra[f'{key}.{b}'] for b in selected] for key in GT_KEYS}
    batch['img'] = frames['img'][selected].unsqueeze(1).clone()
    batch['img_metas'] = [[meta(frames, extra, b)] for b in selected]
    return batch


def zero_dropout(model):
    import torch
    counts = {'Dropout': 0, 'MultiheadAttention': 0}
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
            counts['Dropout'] += 1
        elif isinstance(module, torch.nn.MultiheadAttention):
            module.dropout = 0.0
            counts['MultiheadAttention'] += 1
    return counts


def keep_outputs(out, prefix, keys):
    """A forward hook that puts the module's result[key] for keys in out as <prefix>.<key>."""
    def hook(module, inputs, result):
        for key in keys:
            out[f'{prefix}.{key}'] = result[key].detach().clone()
    return hook


def record_outputs(model, out):
    """Fills out with the module outputs and matchings of the next forward_train."""
    def keep_bev(module, inputs, result):
        out['bev'] = result.detach().clone()

    model.bev_constructor.register_forward_hook(keep_bev)
    model.bbox_head.register_forward_hook(keep_outputs(out, 'te', TE_OUTPUTS))
    model.pts_bbox_head.register_forward_hook(keep_outputs(out, 'lane', LANE_OUTPUTS))
    record_matchings(model.bbox_head, 'assign.te', out)
    record_matchings(model.pts_bbox_head, 'assign.lane', out)


def record_matchings(head, prefix, out):
    """The head's loss calls get_targets once per decoder layer, in order; its last result
    holds the matching per sample."""
    get_targets = head.get_targets
    layers = itertools.count()

    def recording(*args, **kwargs):
        targets = get_targets(*args, **kwargs)
        layer, matching = next(layers), targets[-1]
        for b, (pos, gt) in enumerate(zip(matching['pos_inds'], matching['pos_assigned_gt_inds'])):
            out[f'{prefix}.{layer}.{b}.pos_inds'] = pos.long().clone()
            out[f'{prefix}.{layer}.{b}.pos_assigned_gt_inds'] = gt.long().clone()
        return targets

    head.get_targets = recording


def versions():
    return {**library_versions(), 'toponet': f'projects/ at commit {TOPONET_COMMIT}'}


def library_versions():
    import mmcv
    import mmdet
    import mmdet3d
    import numpy
    import scipy
    import torch
    return {'python': platform.python_version(), 'torch': torch.__version__,
            'numpy': numpy.__version__, 'scipy': scipy.__version__, 'mmcv': mmcv.__version__,
            'mmdet': mmdet.__version__, 'mmdet3d': mmdet3d.__version__}


def run_train(directory, case):
    import torch
    frames = torch.load(TWO_FRAMES)
    extra = torch.load(os.path.join(directory, 'inputs.pt'))
    cfg, model, formula = build_fixture_model()
    model.train()
    dropout = zero_dropout(model)
    outputs = {}
    record_outputs(model, outputs)

    step = model.train_step(data_batch(frames, extra, CASES[case]), None)
    step['loss'].backward()

    gradients, without = {}, []
    for name, param in model.named_parameters():
        if param.grad is None:
            without.append(name)
        else:
            gradients[name] = param.grad.detach().clone()
    zero = [name for name, grad in gradients.items() if not grad.any()]
    print(f'parameters without a gradient: {without}\nzero gradients: {zero}', file=sys.stderr)
    log_vars = step['log_vars']
    losses = {k: v for k, v in log_vars.items() if k != 'loss'}
    record = {
        'case': case, 'frames': CASES[case], 'losses': losses, 'total_loss': log_vars['loss'],
        'num_loss_terms': len(losses), 'dropout_modules_zeroed': dropout,
        'params_without_grad': without, 'params_zero_grad': zero,
        'weights_rule': WEIGHTS_RULE, 'formula_entries': len(formula),
        'formula_checksum': formula_checksum(formula),
        'gradients_whole_limit': GRADIENT_WHOLE_LIMIT,
        'gradients_sample_size': GRADIENT_SAMPLE_SIZE, 'threads': torch.get_num_threads(),
        'versions': versions(), 'model_cfg': plain(cfg.model)}
    with open(os.path.join(directory, f'{case}_losses.json'), 'w') as f:
        json.dump(record, f, indent=1)
        f.write('\n')
    torch.save(outputs, os.path.join(directory, f'{case}_outputs.pt'))
    torch.save(compact(gradients, GRADIENT_WHOLE_LIMIT, GRADIENT_SAMPLE_SIZE),
               os.path.join(directory, f'{case}_gradients.pt'))
    print(f'{case}: {len(losses)} loss terms, total {log_vars["loss"]}, dropout zeroed {dropout}',
          file=sys.stderr)


def run_test(directory):
    import torch
    frames = torch.load(TWO_FRAMES)
    extra = torch.load(os.path.join(directory, 'inputs.pt'))
    _, model, _ = build_fixture_model()
    model.eval()
    received = {}
    simple_test = model.simple_test

    def recording(img_metas, img=None, **kwargs):
        received['can_bus'] = torch.from_numpy(img_metas[0]['can_bus'].copy())
        return simple_test(img_metas, img, **kwargs)

    model.simple_test = recording
    with torch.no_grad():
        result = model.forward_test(img_metas=[meta(frames, extra, 0)],
                                    img=frames['img'][:1].clone(), rescale=False)[0]
    boxes, box_scores, box_labels = result['bbox_results']
    lanes, lane_scores, lane_labels = result['lane_results']
    out = {
        'test.bbox.boxes': boxes, 'test.bbox.scores': box_scores, 'test.bbox.labels': box_labels,
        'test.lane.lanes': lanes, 'test.lane.scores': lane_scores,
        'test.lane.labels': lane_labels, 'test.lclc': result['lclc_results'],
        'test.lcte': result['lcte_results']}
    out = {k: torch.from_numpy(v.copy()) for k, v in out.items()}
    out['test.bev'] = model.prev_frame_info['prev_bev'].clone()
    out['test.can_bus'] = received['can_bus']
    torch.save(out, os.path.join(directory, 'test_outputs.pt'))


def tensor(value, dtype=None):
    """A tensor of its own storage (a numpy array, a list of them, a tuple, a scalar)."""
    import numpy as np
    import torch
    return torch.from_numpy(np.array(value, dtype=dtype))


def make_collections(root):
    """Writes the devkit's .pkl collections of the raw fixture root into root (which gets links to
    its splits), as the devkit's preprocess.py does: per split of the collection JSON,
    collect(root, {split: segments}, '<stem>_<split>', point_interval 1 for train, 20 otherwise).
    Returns the splits in JSON order."""
    from openlanev2.preprocessing import collect
    with open(os.path.join(PIPELINE_RAW, f'{PIPELINE_COLLECTION}.json')) as f:
        data_dict = json.load(f)
    for split, segments in data_dict.items():
        os.symlink(os.path.join(PIPELINE_RAW, split), os.path.join(root, split))
        collect(root, {split: segments}, f'{PIPELINE_COLLECTION}_{split}',
                point_interval=1 if split == 'train' else 20)
    return list(data_dict)


def pipeline_dataset(root, split):
    """TopoNet's dataset of the subset-A config for split (cfg.data.train for train, with the
    random transforms left out; cfg.data.val unchanged otherwise), on the collection in root."""
    from mmdet3d.datasets import build_dataset
    data = load_config('A').data
    cfg = copy.deepcopy(data.train if split == 'train' else data.val)
    cfg.pipeline = [t for t in cfg.pipeline if t['type'] not in RANDOM_TRANSFORMS]
    cfg.data_root = root + os.sep
    cfg.ann_file = os.path.join(root, f'{PIPELINE_COLLECTION}_{split}.pkl')
    return build_dataset(cfg)


def record_frame(out, prefix, item, train):
    """The collated image (strided, and its statistics), the meta and, for train, the ground truth
    of one dataset item."""
    import torch
    img = item['img'].data
    meta = item['img_metas'].data
    if train:  # union2one: a queue of one, img [1, cams, 3, H, W], img_metas {0: meta}
        img, meta = img[0], meta[0]
    planes = img.to(torch.float64).flatten(2)
    out[prefix + 'img_s16'] = img[:, :, ::IMG_STRIDE, ::IMG_STRIDE].contiguous()
    out[prefix + 'img_mean'] = planes.mean(dim=2)
    out[prefix + 'img_std'] = planes.std(dim=2, unbiased=False)
    out[prefix + 'img_full_shape'] = tensor(img.shape)
    out[prefix + 'lidar2img'] = tensor(meta['lidar2img'])
    for key in ('img_shape', 'pad_shape', 'ori_shape'):
        out[prefix + key] = tensor(meta[key])
    out[prefix + 'crop_shape'] = tensor(meta['crop_shape'], 'int64')
    out[prefix + 'scale_factor'] = tensor(meta['scale_factor'])
    out[prefix + 'can_bus'] = tensor(meta['can_bus'])
    out[prefix + 'lidar2global_rotation'] = tensor(meta['lidar2global_rotation'])
    if train:
        for key in GT_KEYS:
            out[prefix + key] = item[key].data.clone()
    return meta


def record_frames(out, root, split):
    """Every frame of split, dataset[i] in order."""
    dataset = pipeline_dataset(root, split)
    train = not dataset.test_mode
    order = []
    for i in range(len(dataset)):
        info = dataset.data_infos[i]
        prefix = f'{split}.{info["timestamp"]}.'
        meta = record_frame(out, prefix, dataset[i], train)
        if (meta['scene_token'], meta['sample_idx']) != (info['segment_id'], info['timestamp']):
            sys.exit(f'{split} item {i} is frame {meta["scene_token"]}/{meta["sample_idx"]}, '
                     f'not {info["segment_id"]}/{info["timestamp"]}')
        order.append([int(info['segment_id']), int(info['timestamp'])])
        gt = (f', (n, k) = {tuple(out[prefix + "gt_lane_lcte_adj"].shape)}' if train else '')
        print(f'{prefix} img {out[prefix + "img_full_shape"].tolist()}{gt}',
              file=sys.stderr)
    out[f'{split}.sample_order'] = tensor(order)
    print(f'{split}: {len(dataset)} frames', file=sys.stderr)
    return dataset


def record_steps(out, dataset):
    """The first frame of the train dataset through its transforms one at a time: as loaded
    (get_data_info, the images and annotations), after CropFrontViewImageForAv2, after
    RandomScaleImageMultiViewImage (which follows the crop)."""
    load, annotations, crop, scale = dataset.pipeline.transforms[:4]
    if [type(t).__name__ for t in (crop, scale)] != ['CropFrontViewImageForAv2',
                                                     'RandomScaleImageMultiViewImage']:
        sys.exit(f'unexpected train pipeline: {dataset.pipeline}')
    results = dataset.get_data_info(0)
    dataset.pre_pipeline(results)
    results = annotations(load(results))
    out['steps.loaded.lidar2img'] = tensor(results['lidar2img'])
    out['steps.loaded.cam_intrinsic0'] = tensor(results['cam_intrinsic'][0])
    out['steps.loaded.gt_bboxes'] = tensor(results['gt_bboxes'])
    results = crop(results)
    for key in ('img_shape', 'ori_shape', 'crop_shape'):
        out[f'steps.crop.{key}'] = tensor(results[key], 'int64')
    out['steps.crop.lidar2img0'] = tensor(results['lidar2img'][0])
    out['steps.crop.cam_intrinsic0'] = tensor(results['cam_intrinsic'][0])
    for key in ('gt_bboxes', 'gt_labels', 'gt_lane_lcte_adj'):
        out[f'steps.crop.{key}'] = tensor(results[key])
    results = scale(results)
    for key in ('img_shape', 'ori_shape'):
        out[f'steps.scale.{key}'] = tensor(results[key])
    out['steps.scale.scale_factor'] = tensor(results['scale_factor'])
    out['steps.scale.lidar2img0'] = tensor(results['lidar2img'][0])
    out['steps.scale.lidar2img1'] = tensor(results['lidar2img'][1])
    out['steps.scale.cam_intrinsic0'] = tensor(results['cam_intrinsic'][0])
    out['steps.scale.gt_bboxes'] = tensor(results['gt_bboxes'])
    dropped = len(out['steps.loaded.gt_bboxes']) - len(out['steps.crop.gt_bboxes'])
    print(f'steps: frame {results["scene_token"]}/{results["sample_idx"]}, '
          f'{dropped} boxes dropped by the crop', file=sys.stderr)


def record_crop_drop(out):
    """CropFrontViewImageForAv2 on CROP_DROP_BOXES (labels 0..k-1, so the kept labels are the
    kept boxes), with a one-camera stand-in for the rest of the results."""
    import numpy as np
    from projects.toponet.datasets.pipelines import CropFrontViewImageForAv2
    boxes = np.array(CROP_DROP_BOXES, dtype=np.float32)
    count = len(boxes)
    lcte = (np.arange(2 * count).reshape(2, count) % 3 == 0).astype(np.float32)
    out['crop_drop.gt_bboxes_in'] = tensor(boxes)
    out['crop_drop.gt_lane_lcte_adj_in'] = tensor(lcte)
    results = CropFrontViewImageForAv2()({
        'img': [np.zeros((2048, 1, 3), np.float32)], 'crop_shape': [np.zeros(2)],
        'cam_intrinsic': [np.eye(4)], 'lidar2cam': [np.eye(4)], 'lidar2img': [np.eye(4)],
        'gt_bboxes': boxes.copy(), 'gt_labels': np.arange(count), 'gt_lane_lcte_adj': lcte})
    for key in ('gt_bboxes', 'gt_labels', 'gt_lane_lcte_adj'):
        out[f'crop_drop.{key}'] = tensor(results[key])
    print(f'crop_drop: kept {results["gt_labels"].tolist()} of {count}', file=sys.stderr)


def record_gridmask(out):
    """GridMaskMultiViewImage() on a ramp (1, 2, ...) under each case's draws, injected in place
    of np.random.rand / np.random.randint, which must be called as the README says."""
    import numpy as np
    from projects.toponet.datasets.pipelines import GridMaskMultiViewImage
    ramp = np.arange(1, math.prod(GRIDMASK_SHAPE) + 1, dtype=np.float32).reshape(GRIDMASK_SHAPE)
    h, w = GRIDMASK_SHAPE[1:3]
    out['gridmask.input'] = tensor(ramp)
    rand, randint = np.random.rand, np.random.randint
    try:
        for case, draws in GRIDMASK_CASES.items():
            expected = [('rand', ())]
            if len(draws) > 1:
                expected += [('randint', (2, h))] + [('randint', (draws[1],))] * 2
            calls = []

            def draw(name):
                def drawn(*args):
                    calls.append((name, args))
                    if calls != expected[:len(calls)]:
                        sys.exit(f'gridmask {case}: draws {calls}, expected {expected}')
                    return draws[len(calls) - 1]
                return drawn

            np.random.rand, np.random.randint = draw('rand'), draw('randint')
            results = GridMaskMultiViewImage()({'img': list(ramp.copy())})
            if calls != expected:
                sys.exit(f'gridmask {case}: draws {calls}, expected {expected}')
            out[f'gridmask.{case}.rand'] = tensor(draws[0])
            for key, value in zip(('d', 'st_h', 'st_w'), draws[1:]):
                out[f'gridmask.{case}.{key}'] = tensor(value)
            out[f'gridmask.{case}.h'] = tensor(h)
            out[f'gridmask.{case}.w'] = tensor(w)
            out[f'gridmask.{case}.img'] = tensor(results['img'])
    finally:
        np.random.rand, np.random.randint = rand, randint


def polyline_interpolate(lane, n_points, dims):
    """n_points equally spaced by the arc length in the first dims coordinates, every coordinate
    linear along each segment: the rule to compare shapely's with."""
    import numpy as np
    lane = lane.astype(np.float64)
    steps = np.linalg.norm(np.diff(lane[:, :dims], axis=0), axis=1)
    along = np.concatenate([[0.0], np.cumsum(steps)])
    return np.stack([np.interp(np.linspace(0, along[-1], n_points), along, lane[:, c])
                     for c in range(lane.shape[1])], axis=1)


def record_lane_param(out):
    """LaneParameterize3D(fix_pts_interp, n_points 11) on two 3-D lanes of 7 and 13 unevenly
    spaced points (not 201, so shapely interpolates them). Prints how far shapely's points are from
    equal spacing by the x-y and by the x-y-z arc length."""
    import numpy as np
    from projects.toponet.core.lane.util import fix_pts_interpolate
    from projects.toponet.datasets.pipelines import LaneParameterize3D
    t7 = np.array([0.0, 0.5, 1.7, 2.0, 4.5, 7.0, 7.3])
    t13 = np.arange(13) ** 1.5 / 3
    lanes = [np.stack([3 * t7, 0.2 * t7 ** 2 - 1, 0.8 * np.sin(t7)], axis=1),
             np.stack([1.5 * t13 - 2, 4 * np.cos(t13 / 5), 0.4 * t13 - 0.3 * t13 ** 1.2], axis=1)]
    lanes = [lane.astype(np.float32) for lane in lanes]
    results = LaneParameterize3D('fix_pts_interp', dict(n_points=LANE_POINTS))(
        {'gt_lanes_3d': lanes})
    for i, lane in enumerate(lanes):
        out[f'lane_param.input.{i}'] = tensor(lane)
    out['lane_param.output'] = tensor(results['gt_lanes_3d'])
    for dims in (2, 3):
        diff = max(np.abs(fix_pts_interpolate(lane, LANE_POINTS)
                          - polyline_interpolate(lane, LANE_POINTS, dims)).max() for lane in lanes)
        print(f'lane_param: shapely vs equal {dims}-D arc length: max |diff| {diff:.3g}',
              file=sys.stderr)


def write_pipeline(directory):
    import pyquaternion
    import torch
    if getattr(pyquaternion, '__orig_stub__', False):
        sys.exit('pipeline: the real pyquaternion is missing (pip install pyquaternion==0.9.9)')
    out = {}
    with tempfile.TemporaryDirectory() as root:
        for split in make_collections(root):
            dataset = record_frames(out, root, split)
            if split == 'train':
                record_steps(out, dataset)
    record_crop_drop(out)
    record_gridmask(out)
    record_lane_param(out)
    torch.save(out, os.path.join(directory, 'pipeline_expected.pt'))


def main():
    args = parse_args()
    import torch
    torch.set_num_threads(args.threads)
    os.makedirs(args.dir, exist_ok=True)
    if args.command == 'inputs':
        write_inputs(args.dir)
        return
    import_original()
    if args.command == 'shapes':
        write_shapes(args.dir, args.subset)
    elif args.command == 'probe':
        write_probe(args.dir)
    elif args.command == 'train':
        run_train(args.dir, args.case)
    elif args.command == 'pipeline':
        write_pipeline(args.dir)
    else:
        run_test(args.dir)


if __name__ == '__main__':
    main()
