#!/usr/bin/python3
"""Golden fixtures of the ORIGINAL LaneSegNet, for comparison with our port.

Runs LaneSegNet (OpenDriveLab/LaneSegNet at commit 9f12fe7, the reference archive beside this
checkout) on the original baseline's stack (mmcv 1.5.2, mmdet 2.25.0, mmdet3d 1.0.0rc6, Debian's
torch 1.13) with the v2.x devkit (openlanev2 2.1.0), CPU, fp32, and writes the files
tests/data/lanesegnet/README.md describes into --dir (default tests/data/lanesegnet). With
--model mapele_bucket it runs LaneSegNet's Map Element Bucket model instead
(LaneSegNetMapElementBucket: lane segments, traffic elements, areas) and writes the files of
tests/data/lanesegnet_mapele_bucket/README.md (default --dir that folder; the train cases
one_frame and batch_two; shapes writes state_dict_shapes_subset_A_mapele_bucket.json). One
command a process:

  shapes            state_dict_shapes_subset_A.json: {name: shape} of the full subset-A model,
                    its config unchanged but for the pretrained-weights init_cfg
  inputs            raw/ (two hand-made v2.x frames, README: "Input") and inputs.pt: the targets
                    LaneSegNet's own preprocessing and transforms make of them, at the reduced
                    model's 25 x 50 BEV, and the extra metas of tests/data/gradients/two_frames.pt
  probe             formula_probe.pt: a few LaneSegNet entries of the weight formula
  train one_frame|batch_two|init_one_frame
                    one training step (train mode, every dropout 0) on frame 0, or on both frames
                    in one batch; init_one_frame: frame 0 with the heads' deterministic
                    init_weights() values (README: "Initialisation"). <case>_outputs.pt (module
                    outputs and matchings), <case>_losses.json, <case>_gradients.pt (compact);
                    init_one_frame also init_weights.json
  test              test_outputs.pt: forward_test of frame 0, eval mode, a fresh model
  pipeline          pipeline_expected.pt: the frames' targets at the full 100 x 200 BEV and the
                    transforms on edge cases (README: "Pipeline")

train and test read inputs.pt from --dir and take the weights as TopoNet's fixtures do: the
entries shared with the baseline_large fixture (img_backbone, img_neck, bev_constructor) from
it, every other one from the weight formula (scripts/toponet_fixtures.py).

Environment: OLV2_REFERENCE_DIR, OLV2_ORIGINAL_DIR, OLV2_FIXTURES as for original_gradients.py;
OLV2_LANESEGNET_SOURCES (the archive; default ../shared/reference/lanesegnet/sources.tar.xz beside
this checkout); OLV2_LANESEGNET_DIR (where it is extracted when not already; default
/tmp/olv2-lanesegnet); OLV2_DEVKIT_DIR (a folder holding the v2.x devkit `openlanev2/`, default
/tmp/olv2-devkit2: pip install --no-deps --target DIR openlanev2==2.1.0 similaritymeasures==0.6.0);
OLV2_TOPONET_FIXTURES (default tests/data/toponet: the TopoNet fixtures whose BEV, and for
mapele_bucket whose TE outputs, matchings and losses, must be equal bit for bit; made on another
CPU they differ in the last bits).
"""
import argparse
import copy
import importlib.util
import itertools
import json
import math
import os
import re
import sys
import tempfile

from original_gradients import FIXTURES, ORIGINAL, REFERENCE, ROOT, compact
from toponet_fixtures import (REDUCED_BEV, REDUCED_DIM, REDUCED_FFN_DIM, REDUCED_POS_DIM,
                              REDUCED_QUERIES, SHARED_PREFIXES, TE_OUTPUTS, WEIGHTS_RULE,
                              check_large_parts, extracted, formula_checksum, formula_weights,
                              keep_outputs, library_versions, load_fixture_weights, meta, plain,
                              record_matchings, reduce_large_parts, reduce_te_head, tensor,
                              z_rotation, zero_dropout)

LANESEGNET_COMMIT = '9f12fe7'
LANESEGNET_SOURCES = os.environ.get(
    'OLV2_LANESEGNET_SOURCES',
    os.path.join(ROOT, '..', 'shared', 'reference', 'lanesegnet', 'sources.tar.xz'))
LANESEGNET_DIR = os.environ.get('OLV2_LANESEGNET_DIR', '/tmp/olv2-lanesegnet')
DEVKIT_DIR = os.environ.get('OLV2_DEVKIT_DIR', '/tmp/olv2-devkit2')
CONFIG = 'LaneSegNet/projects/configs/lanesegnet_r50_8x1_24e_olv2_subset_A.py'
DATA_PROCESS = 'LaneSegNet/tools/data_process.py'
TWO_FRAMES = os.path.join(ROOT, 'tests', 'data', 'gradients', 'two_frames.pt')
CASES = {'one_frame': [0], 'batch_two': [0, 1], 'init_one_frame': [0]}
# The BEV of each case is TopoNet's (same BEV constructor code, weights and input): it is checked
# against these files and kept only as per-cell norms (README: "Training step").
# OLV2_TOPONET_FIXTURES: another folder of them, e.g. made on this machine (the BEV's last bits
# depend on the CPU's vector unit).
TOPONET_FIXTURES = os.environ.get('OLV2_TOPONET_FIXTURES',
                                  os.path.join(ROOT, 'tests', 'data', 'toponet'))
TOPONET_BEV = {'one_frame': ('one_frame_outputs.pt', 'bev'),
               'batch_two': ('batch_two_outputs.pt', 'bev'),
               'init_one_frame': ('one_frame_outputs.pt', 'bev'),
               'test': ('test_outputs.pt', 'test.bev')}
# The LayerNorm weights among the formula entries (checked against the modules).
LAYER_NORM_WEIGHT = re.compile(
    r'pts_bbox_head\.transformer\.decoder\.layers\.[0-9]+\.norms\.[0-9]+\.weight'
    r'|pts_bbox_head\.cls_(left_type_|right_type_)?branches\.[0-9]+\.[14]\.weight')
# Entries the formula leaves as built: a non-trainable constant.
FORMULA_KEEPS = ('pts_bbox_head.code_weights',)
PROBE = ('pts_bbox_head.reg_branches_offset.0.4.weight', 'pts_bbox_head.query_embedding.weight',
         'pts_bbox_head.cls_left_type_branches.0.6.bias', 'pts_bbox_head.cls_branches.0.4.weight',
         'pts_bbox_head.transformer.decoder.layers.0.attentions.1.sampling_offsets.weight',
         'lclc_head.classifier.layers.0.weight')
PROBE_LIMIT = 4096  # a larger probe entry keeps its first 64 values, as <name>@first64
# Smaller samples than TopoNet's 256, to keep the folder under 4 MB.
GRADIENT_WHOLE_LIMIT, GRADIENT_SAMPLE_SIZE = 1024, 128
GT_KEYS = ('gt_lanes_3d', 'gt_lane_labels_3d', 'gt_lane_adj', 'gt_lane_left_type',
           'gt_lane_right_type', 'gt_instance_masks')
LANE_OUTPUTS = ('all_cls_scores', 'all_lanes_preds', 'all_lanes_left_type',
                'all_lanes_right_type', 'history_states')
POINTS = 10  # method_para n_points: points per line
FULL_BEV = (100, 200)
# The Map Element Bucket model (--model mapele_bucket; README of
# tests/data/lanesegnet_mapele_bucket/): its config, fixture folder, cases, targets and weights.
MAPELE = 'mapele_bucket'
MAPELE_CONFIG = 'LaneSegNet/projects/configs/lanesegnet_r50_8x1_24e_olv2_subset_A_mapele_bucket.py'
MAPELE_DIR = os.path.join(ROOT, 'tests', 'data', 'lanesegnet_mapele_bucket')
# The fixture folder of each --model.
FIXTURE_DIRS = {'lanesegnet': os.path.join(ROOT, 'tests', 'data', 'lanesegnet'),
                MAPELE: MAPELE_DIR}
MAPELE_CASES = ('one_frame', 'batch_two')
MAPELE_RAW_COLLECTION = 'data_dict_mapele_bucket_fixture'
# Targets of the pipeline (gt_bboxes and gt_labels of the model step are two_frames.pt's).
MAPELE_GT_KEYS = ('gt_lanes_3d', 'gt_lane_labels_3d', 'gt_lane_adj', 'gt_lane_left_type',
                  'gt_lane_right_type', 'gt_instance_masks', 'gt_lane_lste_adj', 'gt_areas_3d',
                  'gt_area_labels_3d')
MAPELE_TE_KEYS = ('gt_bboxes', 'gt_labels')
AREA_POINTS = 20  # the devkit's and the dataset's points per area
MAPELE_LAYER_NORM_WEIGHT = re.compile(
    r'(pts_bbox_head|bbox_head|area_head)\.transformer\.(encoder|decoder)\.layers\.[0-9]+'
    r'\.norms\.[0-9]+\.weight'
    r'|pts_bbox_head\.cls_(left_type_|right_type_)?branches\.[0-9]+\.[14]\.weight'
    r'|area_head\.cls_branches\.[0-9]+\.1\.weight')
MAPELE_FORMULA_KEEPS = ('pts_bbox_head.code_weights', 'area_head.code_weights')
MAPELE_PROBE = ('bbox_head.reg_branches.0.4.weight', 'bbox_head.cls_branches.0.bias',
                'lste_head.classifier.layers.0.weight', 'area_head.instance_embedding.weight',
                'area_head.pts_embedding.weight', 'area_head.cls_branches.0.1.weight',
                'area_head.reg_branches.0.4.bias',
                'area_head.transformer.decoder.layers.0.attentions.1.sampling_offsets.weight',
                'area_head.transformer.decoder.layers.0.attentions.0.attn.in_proj_weight')
AREA_OUTPUTS = ('all_cls_scores', 'all_pts_preds')
# The reduced area head (README of the mapele fixtures: "Reduced model").
AREA_VECTORS = 10
# The areas' heights (m) by area id: among the area head's predicted heights (-2.6 ... -1.2 m
# in every decoder layer), as their x and y are among its predicted points (behind, to the
# right), so that the L1 costs of the matchings and of an area's orders do not separate into a
# part per query plus a part per area (README of the mapele fixtures: "Matchings").
AREA_HEIGHTS = {21: [-1.3, -2.6, -1.9, -2.2, -1.3], 22: [-2.5, -1.4, -2.1, -1.6, -2.5],
                31: [-1.3, -2.6, -1.6, -2.4, -1.5, -2.2], 51: [-1.7, -2.6, -1.3, -2.3, -1.7],
                52: [-2.6, -1.3, -2.4, -1.5, -2.5, -1.4, -2.0]}
# The raw frames' traffic elements: two_frames.pt's boxes (x1, y1, x2, y2 in the 160-wide front
# image) scaled to the original front camera's 1550 columns and moved down by the crop's 356 rows.
TE_RAW_SCALE, TE_RAW_ROW = 1550 / 160, 356
# A Hungarian matching must beat the next-best assignment by this much (cost units), and no
# denominator of its Dice cost (on raw logits: sum of logits + mask pixels + 1) may come closer
# to 0 than MIN_DICE_DENOMINATOR, or the annotations are to be changed (README: "Matchings"):
# far above the float32 rounding of costs of 1-100 (the matchings here: at least 7e-3 and 1.3).
# The mapele fixtures' matched areas must prefer their order by MIN_MARGIN too.
MIN_MARGIN = 2e-3
MIN_DICE_DENOMINATOR = 1.0
# Frame 0's outputs alone and in the batch of two (the mapele fixtures check them).
FRAME0_TOLERANCE = 1e-4
# The raw frames (README: "Input"): split, then (segment id, timestamp) of frame b.
RAW_SPLIT = 'train'
RAW_FRAMES = [('00100', '315970000000000100'), ('00101', '315970000000000101')]
RAW_COLLECTION = 'data_dict_lanesegnet_fixture'
# Camera and pose blocks of the raw frames, copied from these frames of the pipeline fixture.
SENSOR_SOURCES = ['train/00231/info/315968121249927208.json',
                  'train/00017/info/315967402849927210.json']
# Entries of the reduced heads that LaneSegNet's init_weights() sets to a value independent of
# the seed (README: "Initialisation"); the generator checks its finding against this.
DETERMINISTIC_INIT = re.compile(
    r'pts_bbox_head\.code_weights'
    r'|pts_bbox_head\.cls_(left_type_|right_type_)?branches\.[0-9]+\.[14]\.(weight|bias)'
    r'|pts_bbox_head\.transformer\.decoder\.layers\.[0-9]+\.norms\.[0-9]+\.(weight|bias)'
    r'|pts_bbox_head\.transformer\.decoder\.layers\.[0-9]+\.attentions\.0\.attn'
    r'\.(in_proj_bias|out_proj\.bias)'
    r'|pts_bbox_head\.transformer\.decoder\.layers\.[0-9]+\.attentions\.1'
    r'\.(sampling_offsets\.(weight|bias)|attention_weights\.(weight|bias)|value_proj\.bias'
    r'|output_proj\.bias)'
    r'|pts_bbox_head\.transformer\.reference_points\.bias')
INIT_SEEDS = (0, 1)
# and every value of a deterministic entry that is not one constant (or the name of an earlier
# entry with the same values)
INIT_FIRST_VALUES = 8


MODEL = 'lanesegnet'  # or MAPELE: set by main() from --model


def mapele():
    return MODEL == MAPELE


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--model', choices=['lanesegnet', MAPELE], default='lanesegnet')
    ap.add_argument('--dir', default=None,
                    help='the fixture folder: read (inputs.pt) and written (default '
                    'tests/data/lanesegnet, or tests/data/lanesegnet_mapele_bucket)')
    ap.add_argument('--threads', type=int, default=1)
    commands = ap.add_subparsers(dest='command', required=True)
    commands.add_parser('shapes')
    commands.add_parser('inputs')
    commands.add_parser('probe')
    commands.add_parser('train').add_argument('case', choices=sorted(CASES))
    commands.add_parser('test')
    commands.add_parser('pipeline')
    args = ap.parse_args()
    if args.dir is None:
        args.dir = FIXTURE_DIRS[args.model]
    if args.model == MAPELE and args.command == 'train' and args.case not in MAPELE_CASES:
        ap.error(f'--model {MAPELE}: train cases {", ".join(MAPELE_CASES)}')
    return args


def lanesegnet_root():
    """The extracted archive (a folder holding LaneSegNet/)."""
    return extracted(LANESEGNET_SOURCES, LANESEGNET_DIR)


def import_original():
    """The reference stack, LaneSegNet and the v2.x devkit on sys.path, in the order of the
    reference's README (not the reference's OpenLane-V2 folder: its openlanev2 is v1.x)."""
    paths = [os.path.join(REFERENCE, 'stubs'), os.path.join(ORIGINAL, 'mmcv'),
             os.path.join(ORIGINAL, 'mmdetection'), os.path.join(ORIGINAL, 'mmdetection3d'),
             os.path.join(lanesegnet_root(), 'LaneSegNet'), DEVKIT_DIR]
    for path in reversed(paths):
        if not os.path.isdir(path):
            sys.exit(f'{path}: missing; run scripts/make_lanesegnet_fixtures.sh (it sets up the '
                     'reference stack and the devkit)')
        sys.path.insert(0, path)
    import orig_stubs
    orig_stubs.install()
    import projects.bevformer  # noqa: F401  (registers the BEVFormer modules)
    import projects.lanesegnet  # noqa: F401  (registers LaneSegNet and its parts)


def load_config():
    from mmcv import Config
    cfg = Config.fromfile(os.path.join(lanesegnet_root(), MAPELE_CONFIG if mapele() else CONFIG),
                          import_custom_modules=False)
    cfg.model.img_backbone.init_cfg = None
    return cfg


def reduce_model_cfg(model):
    """Subset A at the sizes of TopoNet's reduced model (README: "Reduced model")."""
    dim, (bev_h, bev_w) = REDUCED_DIM, REDUCED_BEV
    reduce_large_parts(model)
    lane = model.lane_head
    lane.update(num_query=REDUCED_QUERIES, in_channels=dim, bev_h=bev_h, bev_w=bev_w)
    lane.transformer.embed_dims = dim
    lane_layer = lane.transformer.decoder.transformerlayers
    for attention in lane_layer.attn_cfgs:
        attention.embed_dims = dim
    # The config's FFN config is a one-element tuple (a trailing comma), as in the BEV encoder.
    lane_layer.ffn_cfgs[0].update(embed_dims=dim, feedforward_channels=REDUCED_FFN_DIM)
    if not mapele():
        model.lclc_head.update(in_channels_o1=dim, in_channels_o2=dim)
        return
    for relation in (model.lsls_head, model.lste_head):
        relation.update(in_channels_o1=dim, in_channels_o2=dim)
    reduce_te_head(model.bbox_head)
    area = model.area_head
    area.update(bev_h=bev_h, bev_w=bev_w, in_channels=dim, num_vec=AREA_VECTORS)
    area.transformer.embed_dims = dim
    area_layer = area.transformer.decoder.transformerlayers
    for attention in area_layer.attn_cfgs:
        attention.embed_dims = dim
    area_layer.feedforward_channels = REDUCED_FFN_DIM
    # As in the TE head: the FFN's width would be mmcv's default ffn_cfgs (embed_dims 256).
    area_layer.ffn_cfgs = dict(type='FFN', embed_dims=dim)
    # mmdet's DETRHead asserts num_feats * 2 == embed_dims; its default num_feats is 128.
    area.positional_encoding = dict(type='SinePositionalEncoding', num_feats=REDUCED_POS_DIM,
                                    normalize=True)


def fixture_model_cfg():
    cfg = load_config()
    reduce_model_cfg(cfg.model)
    check_large_parts(cfg.model)
    return cfg


def build(cfg):
    """The detector of cfg (the model config holds train_cfg); cfg.model stays as written."""
    from mmdet3d.models import build_model
    return build_model(copy.deepcopy(cfg.model))


def build_reduced():
    cfg = fixture_model_cfg()
    model = build(cfg)
    sizes = {m.embed_dims for m in model.modules() if hasattr(m, 'embed_dims')}
    if sizes != {REDUCED_DIM}:
        sys.exit(f'embed_dims of the reduced model\'s modules: {sorted(sizes)}, expected '
                 f'{REDUCED_DIM} only')
    return cfg, model


def lanesegnet_formula(model):
    if mapele():
        return formula_weights(model, MAPELE_LAYER_NORM_WEIGHT, MAPELE_FORMULA_KEEPS)
    return formula_weights(model, LAYER_NORM_WEIGHT, FORMULA_KEEPS)


def build_fixture_model():
    """The reduced model with the fixture weights; returns the config, the model and the formula
    weights."""
    cfg, model = build_reduced()
    formula = lanesegnet_formula(model)
    load_fixture_weights(model, formula)
    return cfg, model, formula


def versions():
    import cv2
    import shapely
    out = library_versions()
    out.update({'opencv': cv2.__version__, 'shapely': shapely.__version__,
                'openlanev2': '2.1.0 (PyPI)',
                'lanesegnet': f'OpenDriveLab/LaneSegNet at commit {LANESEGNET_COMMIT}'})
    return out


def write_shapes(directory):
    model = build(load_config())
    shapes = {name: list(t.shape) for name, t in model.state_dict().items()}
    name = 'state_dict_shapes_subset_A' + (f'_{MAPELE}' if mapele() else '') + '.json'
    with open(os.path.join(directory, name), 'w') as f:
        f.write('{\n' + ',\n'.join(f'{json.dumps(k)}: {json.dumps(v)}' for k, v in shapes.items())
                + '\n}\n')
    print(f'{name}: {len(shapes)} state-dict entries, '
          f'{sum(math.prod(s) for s in shapes.values())} values', file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# The hand-made annotations (README: "Input"). Metres in the ego frame: x forward, y left.

def rounded(points):
    """[k, 3] float64, rounded to the millimetre, as the annotations are written."""
    import numpy as np
    return np.round(np.asarray(points, dtype=np.float64), 3) + 0.0


def straight(xs, y, z):
    """Points at xs along y = y(x), z = z(x) (callables or constants)."""
    import numpy as np
    xs = np.asarray(xs, dtype=np.float64)
    ys = y(xs) if callable(y) else np.full_like(xs, y)
    zs = z(xs) if callable(z) else np.full_like(xs, z)
    return rounded(np.stack([xs, ys, zs], axis=1))


def arc(center, radius, degrees, z):
    """Points on a circle at the given angles (degrees, in driving order)."""
    import numpy as np
    t = np.radians(np.asarray(degrees, dtype=np.float64))
    xs = center[0] + radius * np.cos(t)
    ys = center[1] + radius * np.sin(t)
    zs = z(xs) if callable(z) else np.full_like(xs, z)
    return rounded(np.stack([xs, ys, zs], axis=1))


def crossing(p0, heading_degrees, length, width, z):
    """A pedestrian crossing as the format writes it: 5 points, p0, p1 = p0 + length along the
    heading, then width to the right of it (clockwise), closing on p0."""
    import numpy as np
    h = math.radians(heading_degrees)
    along = np.array([math.cos(h), math.sin(h)]) * length
    right = np.array([math.sin(h), -math.cos(h)]) * width
    p0 = np.asarray(p0, dtype=np.float64)
    xy = [p0, p0 + along, p0 + along + right, p0 + right, p0]
    return rounded([[x, y, z] for x, y in xy])


def lane_segment(id_, centerline, left, right, left_type, right_type, connector=False):
    return {'id': id_, 'centerline': centerline, 'left_laneline': left, 'right_laneline': right,
            'left_laneline_type': left_type, 'right_laneline_type': right_type,
            'is_intersection_or_connector': connector}


def annotation(b):
    """The v2.x annotation of frame b (numpy float64 points)."""
    import numpy as np
    if b == 0:
        def z_road(x):
            return -0.35 + 0.012 * x + 0.1 * np.sin(x / 7)
        segments = [
            # The ego lane, straight: 7 / 6 / 9 points, unevenly spaced.
            lane_segment(11, straight([-20, -15.5, -9, -4, 1.5, 7, 12], 0.0, z_road),
                         straight([-20, -12, -6.5, 0, 5, 12], 1.8, z_road),
                         straight([-20, -17, -13.5, -9, -3, 0.5, 4, 8.5, 12], -1.75, z_road),
                         1, 2),
            # Its continuation, curving left (radius 60 m): 8 / 11 / 5 points.
            lane_segment(12, arc((12, 60), 60, [-90, -86, -83, -79, -76, -72, -68, -65],
                                 lambda x: -0.2 + 0.02 * (x - 12)),
                         arc((12, 60), 58.2, [-90, -88, -87, -85, -82, -80, -77, -74, -71, -68,
                                              -65], lambda x: -0.2 + 0.02 * (x - 12)),
                         arc((12, 60), 61.75, [-90, -84, -78, -71, -65],
                             lambda x: -0.2 + 0.02 * (x - 12)),
                         0, 2),
            # The lane to the right, straight: 5 / 4 / 7 points.
            lane_segment(13, straight([-12, -8, 0, 6, 12], -3.6, -0.4),
                         straight([-12, -2, 5, 12], -1.75, -0.4),
                         straight([-12, -11, -6, -1, 3, 8, 12], -5.4, lambda x: -0.4 - 0.005 * x),
                         2, 1),
            # Its continuation, partly beyond the map (x > 50) and the pc_range (x > 51.2):
            # 4 / 5 / 2 points.
            lane_segment(14, straight([12, 30, 45, 66], lambda x: -3.6 - 0.01 * (x - 12), -0.4),
                         straight([12, 20, 37, 52, 66], lambda x: -1.75 - 0.01 * (x - 12), -0.38),
                         straight([12, 66], lambda x: -5.4 - 0.01 * (x - 12), -0.42),
                         2, 1),
            # A right-turn connector (radius 12 m): 7 / 9 / 6 points.
            lane_segment(15, arc((12, -15.6), 12, [90, 75, 62, 45, 30, 14, 0], -0.45),
                         arc((12, -15.6), 13.8, [90, 80, 70, 58, 45, 33, 21, 10, 0], -0.45),
                         arc((12, -15.6), 10.2, [90, 70, 50, 35, 15, 0], -0.45),
                         0, 0, connector=True),
        ]
        areas = [
            # Ahead, heading 0 -> 1 of 88.3 degrees: inside [-45, 135], not flipped.
            {'id': 21, 'category': 1, 'points': rounded(
                [[28, -10, -0.3], [28.6, 10, -0.25], [32.6, 10, -0.25], [32, -10, -0.3],
                 [28, -10, -0.3]])},
            # Behind, heading 0 -> 1 of -111 degrees: outside, flipped.
            {'id': 22, 'category': 1, 'points': crossing((-8, 7), -111.0, 15.0, 4.0, -0.5)},
            # A road boundary: the dataset skips it.
            {'id': 31, 'category': 2, 'points': straight([-30, -12, 0, 9, 25, 40], 9.5, -0.3)},
        ]
        topology = [[0, 1, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 1, 1], [0, 0, 0, 0, 0],
                    [0, 0, 0, 0, 0]]
    else:
        def z_slope(x):
            return -0.3 + 0.015 * x
        segments = [
            # Left of the ego, straight: 6 / 7 / 4 points.
            lane_segment(41, straight([-28, -18, -9, -3, 1, 5], 2.0, z_slope),
                         straight([-28, -21, -14, -10, -4, 0, 5], 3.8, z_slope),
                         straight([-28, -10, -2, 5], 0.2, z_slope),
                         1, 2),
            # Its continuation, bending right: 5 / 6 / 8 points.
            lane_segment(42, straight([5, 11, 18, 24, 30], lambda x: 2 - 0.005 * (x - 5) ** 2,
                                      z_slope),
                         straight([5, 9, 16, 20, 26, 30], lambda x: 3.8 - 0.005 * (x - 5) ** 2,
                                  z_slope),
                         straight([5, 7, 10, 14, 19, 22, 27, 30],
                                  lambda x: 0.2 - 0.005 * (x - 5) ** 2, z_slope),
                         2, 1),
            # A left-turn connector from the same start (radius 12 m): 6 / 5 / 10 points.
            lane_segment(43, arc((5, 14), 12, [-90, -75, -55, -40, -20, 0], -0.25),
                         arc((5, 14), 10.2, [-90, -70, -45, -20, 0], -0.25),
                         arc((5, 14), 13.8, [-90, -80, -71, -60, -52, -41, -30, -22, -10, 0],
                             -0.25),
                         0, 0, connector=True),
        ]
        areas = [
            # Behind the ego, heading 0 -> 1 of 120 degrees: inside, not flipped.
            {'id': 51, 'category': 1, 'points': crossing((0, -8), 120.0, 16.0, 3.5, -0.35)},
        ]
        topology = [[0, 1, 1], [0, 0, 0], [0, 0, 0]]
    return {'lane_segment': segments, 'area': areas, 'traffic_element': [],
            'topology_lsls': topology, 'topology_lste': [[] for _ in segments]}


def mapele_annotation(b):
    """Frame b of the Map Element Bucket fixtures: the LaneSegNet fixture's annotation with
    traffic elements (two_frames.pt's boxes in the original front camera's pixels, its labels as
    attributes), topology_lste, and a road boundary in frame 1 (README of the mapele fixtures:
    "Input")."""
    import numpy as np
    import torch
    ann = annotation(b)
    if b == 0:
        ann['area'] = [
            {'id': 21, 'category': 1, 'points': crossing((-48, -27), 62.0, 11.0, 4.0, 0.0)},
            {'id': 22, 'category': 1, 'points': crossing((-57, -36), 18.0, 12.0, 5.0, 0.0)},
            {'id': 31, 'category': 2, 'points': rounded(
                [[-80, -14, 0], [-66, -20.5, 0], [-58.5, -23, 0], [-49, -27.5, 0],
                 [-43, -29, 0], [-33, -33.5, 0]])}]
    else:
        ann['area'] = [
            {'id': 51, 'category': 1, 'points': crossing((-45, -24), 115.0, 10.0, 3.5, 0.0)},
            # A road boundary, bending: 7 unevenly spaced points.
            {'id': 52, 'category': 2, 'points': rounded(
                [[-86, -31, 0], [-71, -26, 0], [-64, -22.5, 0], [-52, -19.5, 0],
                 [-45, -16, 0], [-38, -14.5, 0], [-31, -12, 0]])}]
    frames = torch.load(TWO_FRAMES)
    boxes = frames[f'gt_te.{b}'].to(torch.float64).numpy().reshape(-1, 2, 2)
    labels = frames[f'gt_te_labels.{b}'].tolist()
    ann['traffic_element'] = [
        {'id': 60 + 10 * b + i, 'category': 1 if label < 4 else 2, 'attribute': label,
         'points': np.round(box * TE_RAW_SCALE + np.array([0.0, TE_RAW_ROW]), 2) + 0.0}
        for i, (box, label) in enumerate(zip(boxes, labels))]
    ann['topology_lste'] = ([[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 0], [1, 0, 0]] if b == 0
                            else [[1, 0], [0, 1], [0, 0]])
    for area in ann['area']:
        area['points'][:, 2] = AREA_HEIGHTS[area['id']]
    return ann


def frame_annotation(b):
    return mapele_annotation(b) if mapele() else annotation(b)


def listed(items):
    """Annotation items (dicts) with their numpy values as lists, for the JSON."""
    return [{k: (v.tolist() if hasattr(v, 'tolist') else v) for k, v in item.items()}
            for item in items]


def frame_json(b):
    """Frame b in the v2.x format: the annotation, and the camera and pose blocks of a pipeline
    fixture frame (README: "Input")."""
    segment_id, timestamp = RAW_FRAMES[b]
    with open(os.path.join(FIXTURES, 'pipeline', 'raw', SENSOR_SOURCES[b])) as f:
        source = json.load(f)
    sensor = {}
    for camera, block in source['sensor'].items():
        block = dict(block)
        block['image_path'] = f'{RAW_SPLIT}/{segment_id}/image/{camera}/{timestamp}.jpg'
        sensor[camera] = block
    ann = frame_annotation(b)
    written = {
        'lane_segment': listed(ann['lane_segment']), 'area': listed(ann['area']),
        'traffic_element': listed(ann['traffic_element']),
        'topology_lsls': ann['topology_lsls'], 'topology_lste': ann['topology_lste']}
    return {'version': 'v2.0', 'segment_id': segment_id,
            'meta_data': {'source': 'argoverse2', 'source_id': f'lanesegnet-fixture-{segment_id}'},
            'timestamp': int(timestamp), 'sensor': sensor, 'pose': source['pose'],
            'annotation': written}


def raw_collection():
    return MAPELE_RAW_COLLECTION if mapele() else RAW_COLLECTION


def write_raw(directory):
    """raw/: the collection JSON and the two frames' info/<timestamp>-ls.json."""
    raw = os.path.join(directory, 'raw')
    collection = {RAW_SPLIT: {}}
    for b, (segment_id, timestamp) in enumerate(RAW_FRAMES):
        info = os.path.join(raw, RAW_SPLIT, segment_id, 'info')
        os.makedirs(info, exist_ok=True)
        with open(os.path.join(info, f'{timestamp}-ls.json'), 'w') as f:
            json.dump(frame_json(b), f, indent=1)
            f.write('\n')
        collection[RAW_SPLIT][segment_id] = [f'{timestamp}.json']
    with open(os.path.join(raw, f'{raw_collection()}.json'), 'w') as f:
        json.dump(collection, f, indent=1)
        f.write('\n')
    return raw


def collected_infos(raw):
    """The frames as LaneSegNet's tools/data_process.py collects them into its
    *_lanesegnet.pkl (lines resampled to 10 points, float32; areas float32 as annotated), in the
    collection's order, from a temporary data root that links to raw's split. For the Map
    Element Bucket model, as the devkit's openlanev2.lanesegment collect makes the *_ls.pkl its
    dataset reads: the same lines, and areas resampled to 20 points (float32)."""
    import mmcv
    n_points = {'centerline': POINTS, 'left_laneline': POINTS, 'right_laneline': POINTS}
    if mapele():
        from openlanev2.lanesegment.preprocessing import collect
        n_points['area'] = AREA_POINTS
        suffix = 'ls'
    else:
        spec = importlib.util.spec_from_file_location(
            'lanesegnet_data_process', os.path.join(lanesegnet_root(), DATA_PROCESS))
        data_process = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(data_process)
        collect, suffix = data_process.collect, 'lanesegnet'
    with open(os.path.join(raw, f'{raw_collection()}.json')) as f:
        collection = json.load(f)
    with tempfile.TemporaryDirectory() as root:
        os.symlink(os.path.abspath(os.path.join(raw, RAW_SPLIT)), os.path.join(root, RAW_SPLIT))
        name = f'{raw_collection()}_{RAW_SPLIT}_{suffix}'
        collect(root, {RAW_SPLIT: collection[RAW_SPLIT]}, name, n_points=n_points)
        infos = mmcv.load(os.path.join(root, f'{name}.pkl'), file_format='pkl')
    return list(infos.values())


def dataset_stub(infos):
    """LaneSegNet's dataset without its __init__ (no files): enough for get_ann_info and
    format_openlanev2_gt."""
    from projects.lanesegnet.datasets.openlanev2_subset_A_lanesegnet_dataset import \
        OpenLaneV2_subset_A_LaneSegNet_Dataset
    from projects.lanesegnet.datasets.openlanev2_subset_A_mapele_bucket_dataset import \
        OpenLaneV2_subset_A_MapElementBucket_Dataset
    Dataset = (OpenLaneV2_subset_A_MapElementBucket_Dataset if mapele()
               else OpenLaneV2_subset_A_LaneSegNet_Dataset)
    dataset = Dataset.__new__(Dataset)
    dataset.LANE_CLASSES = tuple(load_config().class_names)
    dataset.data_infos = infos
    dataset.split = RAW_SPLIT
    return dataset


def frame_targets(dataset, index, bev):
    """get_ann_info, LaneSegmentParameterize3D, GenerateLaneSegmentMask on a bev = (h, w) grid and
    CustomFormatBundle3DLane, as the config's train pipeline runs them: {key: tensor}."""
    from projects.lanesegnet.datasets.pipelines import (CustomFormatBundle3DLane,
                                                        GenerateLaneSegmentMask,
                                                        LaneSegmentParameterize3D)
    cfg = load_config()
    results = dataset.get_ann_info(index)
    if mapele():
        results = load_te_boxes(results, cfg)
    results = LaneSegmentParameterize3D(method=cfg.para_method, method_para=cfg.method_para)(
        results)
    results = GenerateLaneSegmentMask(points_num=cfg.method_para['n_points'], bev_h=bev[0],
                                      bev_w=bev[1])(results)
    results = CustomFormatBundle3DLane(class_names=cfg.class_names)(results)
    if mapele():
        return {key: results[key].data for key in MAPELE_GT_KEYS + MAPELE_TE_KEYS}
    return {key: results[key].data for key in GT_KEYS}


def load_te_boxes(ann_info, cfg):
    """The train pipeline's steps on the traffic elements and the Map Element Bucket
    annotations: LoadAnnotations3DLaneSegment (the config's), then the box parts of
    CropFrontViewImageForAv2 (rows - 356, boxes with y2 <= 0 dropped with their lste columns)
    and RandomScaleImageMultiViewImage (x 0.33, its only scale)."""
    from mmdet.datasets.builder import PIPELINES
    from mmcv.utils import build_from_cfg
    from projects.lanesegnet.datasets.pipelines.transform_3d import (
        CropFrontViewImageForAv2, RandomScaleImageMultiViewImage)
    steps = {t['type']: t for t in cfg.train_pipeline}
    results = build_from_cfg(steps['LoadAnnotations3DLaneSegment'], PIPELINES)(
        {'ann_info': ann_info, 'bbox_fields': [], 'mask_fields': [], 'seg_fields': [],
         'bbox3d_fields': [], 'pts_mask_fields': [], 'pts_seg_fields': []})
    CropFrontViewImageForAv2(**{k: v for k, v in steps['CropFrontViewImageForAv2'].items()
                                if k != 'type'})._crop_bbox(results)
    scale, = steps['RandomScaleImageMultiViewImage']['scales']
    RandomScaleImageMultiViewImage(scales=[scale])._RandomScaleImageMultiViewImage__resize_bboxes(
        results, scale)
    return results


def annotation_tensors(out, prefix, ann):
    """The annotation's numbers under prefix: lines and points in their dtype, ids, types,
    flags and the topology as int64."""
    import torch
    for i, segment in enumerate(ann['lane_segment']):
        for key, value in segment.items():
            out[f'{prefix}lane_segment.{i}.{key}'] = (tensor(value) if hasattr(value, 'shape')
                                                      else torch.tensor(int(value)))
    for i, area in enumerate(ann['area']):
        out[f'{prefix}area.{i}.id'] = torch.tensor(int(area['id']))
        out[f'{prefix}area.{i}.category'] = torch.tensor(int(area['category']))
        out[f'{prefix}area.{i}.points'] = tensor(area['points'])
    out[f'{prefix}topology_lsls'] = tensor(ann['topology_lsls'], 'int64').reshape(
        len(ann['lane_segment']), len(ann['lane_segment']))
    if not mapele():
        return
    for i, element in enumerate(ann['traffic_element']):
        for key in ('id', 'category', 'attribute'):
            out[f'{prefix}traffic_element.{i}.{key}'] = torch.tensor(int(element[key]))
        out[f'{prefix}traffic_element.{i}.points'] = tensor(element['points'])
    out[f'{prefix}topology_lste'] = tensor(ann['topology_lste'], 'int64').reshape(
        len(ann['lane_segment']), len(ann['traffic_element']))


def check_raw(raw, b, out):
    """Exits unless raw's frame b holds the numbers of inputs.pt's annotation.{b}.*."""
    import numpy as np
    segment_id, timestamp = RAW_FRAMES[b]
    with open(os.path.join(raw, RAW_SPLIT, segment_id, 'info', f'{timestamp}-ls.json')) as f:
        ann = json.load(f)['annotation']
    read = {}
    annotation_tensors(read, '', {**ann, 'area': [{**a, 'points': np.array(a['points'])}
                                                  for a in ann['area']],
                                  'traffic_element': [{**t, 'points': np.array(t['points'])}
                                                      for t in ann['traffic_element']],
                                  'lane_segment': [{k: np.array(v) if isinstance(v, list) else v
                                                    for k, v in s.items()}
                                                   for s in ann['lane_segment']]})
    prefix = f'annotation.{b}.'
    ours = {k[len(prefix):]: v for k, v in out.items() if k.startswith(prefix)}
    if read.keys() != ours.keys() or any(not (read[k] == ours[k]).all() or
                                         read[k].dtype != ours[k].dtype for k in read):
        sys.exit(f'raw frame {b} does not read back as the annotation')


def write_inputs(directory):
    import torch
    frames = torch.load(TWO_FRAMES)
    count = frames['img'].shape[0]
    raw = write_raw(directory)
    dataset = dataset_stub(collected_infos(raw))
    out = {}
    for b in range(count):
        annotation_tensors(out, f'annotation.{b}.', frame_annotation(b))
        check_raw(raw, b, out)
        for key, value in frame_targets(dataset, b, REDUCED_BEV).items():
            if key not in MAPELE_TE_KEYS:
                out[f'{key}.{b}'] = value
        if mapele():
            mapele_inputs(out, frames, b)
        print(f'frame {b}: gt_lanes_3d {list(out[f"gt_lanes_3d.{b}"].shape)}, labels '
              f'{out[f"gt_lane_labels_3d.{b}"].tolist()}, mask pixels '
              f'{out[f"gt_instance_masks.{b}"].sum(dim=(1, 2)).tolist()}', file=sys.stderr)
    crop_shape = torch.zeros(count, frames['img'].shape[1], 2, dtype=torch.int64)
    crop_shape[:, 0] = torch.tensor((0, 20))
    out['crop_shape'] = crop_shape
    out['lidar2global_rotation'] = torch.stack(
        [z_rotation(float(frames['can_bus'][b, 16])) for b in range(count)])
    torch.save(out, os.path.join(directory, 'inputs.pt'))


def mapele_inputs(out, frames, b):
    """The model step's traffic elements (two_frames.pt's, as the TopoNet fixture feeds them)
    and which areas MapTR takes for polygons, for frame b; exits unless the lste matrix fits."""
    import torch
    out[f'gt_bboxes.{b}'] = frames[f'gt_te.{b}'].clone()
    out[f'gt_labels.{b}'] = frames[f'gt_te_labels.{b}'].clone()
    areas = out[f'gt_areas_3d.{b}']
    out[f'is_poly.{b}'] = torch.tensor([bool(torch.equal(a[0], a[-1])) for a in areas])
    lste = out[f'gt_lane_lste_adj.{b}']
    if lste.shape != (len(out[f'gt_lanes_3d.{b}']), len(out[f'gt_bboxes.{b}'])):
        sys.exit(f'frame {b}: gt_lane_lste_adj {list(lste.shape)} does not fit the TEs')
    print(f'frame {b}: areas {list(areas.shape)} {areas.dtype}, labels '
          f'{out[f"gt_area_labels_3d.{b}"].tolist()}, is_poly {out[f"is_poly.{b}"].tolist()}, '
          f'first - last {(areas[:, 0] - areas[:, -1]).abs().amax(dim=1).tolist()}',
          file=sys.stderr)


def write_probe(directory):
    import torch
    _, model = build_reduced()
    formula = lanesegnet_formula(model)
    probe = {}
    for name in MAPELE_PROBE if mapele() else PROBE:
        values = formula[name]
        if values.numel() <= PROBE_LIMIT:
            probe[name] = values
        else:
            probe[f'{name}@first64'] = values.reshape(-1)[:64].clone()
    torch.save(probe, os.path.join(directory, 'formula_probe.pt'))
    print(f'formula: {len(formula)} entries, {sum(t.numel() for t in formula.values())} values, '
          f'checksum {formula_checksum(formula)!r}', file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Training and test steps.

def batch_keys():
    """The ground-truth arguments of the model's forward_train, as inputs.pt names them."""
    return MAPELE_GT_KEYS + MAPELE_TE_KEYS if mapele() else GT_KEYS


def data_batch(frames, extra, selected):
    """train_step's input: img [B, queue 1, cams, 3, H, W], img_metas [[meta]] per sample."""
    batch = {key: [extra[f'{key}.{b}'] for b in selected] for key in batch_keys()}
    batch['img'] = frames['img'][selected].unsqueeze(1).clone()
    batch['img_metas'] = [[meta(frames, extra, b)] for b in selected]
    return batch


def matching_margin(cost):
    """How much the optimal assignment of cost [queries, gts] beats the next-best one, and its
    cost: any other assignment leaves out one of the optimal pairs, so the next best is the least
    optimum over the problems with one optimal pair forbidden."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment
    cost = np.asarray(cost, dtype=np.float64)
    rows, cols = linear_sum_assignment(cost)
    best = cost[rows, cols].sum()
    second = math.inf
    for r, c in zip(rows, cols):
        forbidden = cost.copy()
        forbidden[r, c] = math.inf
        rr, cc = linear_sum_assignment(forbidden)
        second = min(second, forbidden[rr, cc].sum())
    return float(second - best), float(best)


def cost_float64(assigner, lanes_pred, mask_pred, cls_pred, gt_lanes, gt_mask, gt_labels):
    """The assigner's cost matrix computed again in float64 from the same inputs (FocalLossCost,
    LaneL1Cost, CrossEntropyLossCost and DiceCost on the raw logits, written out for the last
    two, which cast to float32), and the least |denominator| of its Dice cost."""
    import torch
    import torch.nn.functional as F
    pred = mask_pred.detach().double().flatten(1)
    gt = gt_mask.double().flatten(1)
    cls = assigner.cls_cost(cls_pred.detach().double(), gt_labels)
    reg = assigner.reg_cost(lanes_pred.detach().double(), gt_lanes.double())
    pos = F.binary_cross_entropy_with_logits(pred, torch.ones_like(pred), reduction='none')
    neg = F.binary_cross_entropy_with_logits(pred, torch.zeros_like(pred), reduction='none')
    mask = (pos @ gt.T + neg @ (1 - gt).T) / pred.shape[1] * assigner.mask_cost.weight
    eps = assigner.dice_cost.eps
    denominator = pred.sum(-1)[:, None] + gt.sum(-1)[None, :] + eps
    dice = (1 - (2 * pred @ gt.T + eps) / denominator) * assigner.dice_cost.weight
    return (cls + reg + mask + dice).numpy(), {
        'least_dice_denominator': denominator.abs().min().item()}


def area_cost_float64(assigner, pts_pred, cls_pred, gt_shifts, gt_labels, *ignored):
    """MapTRAssigner's cost matrix computed again in float64 (FocalLossCost plus the least
    LaneL1Cost over each area's orders), and for the pairs it matches: whether the float64 costs
    pick an order of the same points as the original's (a polygon's orders 0 and 19 are the same
    points, and the float32 costs of the two may differ in the last bit), how many orders tie for
    the least cost, and the least gap to the next larger order cost (README: "Matchings")."""
    import numpy as np
    import torch
    from scipy.optimize import linear_sum_assignment
    cls = assigner.cls_cost(cls_pred.detach().double(), gt_labels)
    count, orders = gt_shifts.shape[:2]
    ordered = assigner.reg_cost(pts_pred.detach().double().flatten(1),
                                gt_shifts.double().flatten(2).flatten(0, 1))
    ordered = ordered.view(len(pts_pred), count, orders)
    reg, order64 = ordered.min(dim=2)
    cost = (cls + reg).numpy()
    order32 = assigner.reg_cost(pts_pred.detach().flatten(1), gt_shifts.flatten(2).flatten(0, 1))
    order32 = order32.view(len(pts_pred), count, orders).min(dim=2)[1]
    rows, cols = linear_sum_assignment(cost)
    pair_costs = ordered[torch.from_numpy(rows), torch.from_numpy(cols)]
    least = pair_costs.min(dim=1, keepdim=True).values
    larger = torch.where(pair_costs > least, pair_costs, torch.full_like(pair_costs, math.inf))
    targets64 = gt_shifts[torch.from_numpy(cols), order64[rows, cols]]
    targets32 = gt_shifts[torch.from_numpy(cols), order32[rows, cols]]
    return cost, {
        'float64_same_shifts': bool(torch.equal(targets64, targets32)),
        'tied_shifts': (pair_costs == least).sum(dim=1).tolist(),
        'least_shift_gap': float((larger.min(dim=1).values - least[:, 0]).min()),
        'least_cost_pairs': np.round(least[:, 0].numpy(), 6).tolist()}


def record_margins(head, margins, assigner_module=None, cost64=cost_float64):
    """margins gets, for each Hungarian matching of the head's loss ('<layer>.<sample>'): its
    margin over the next-best assignment, its optimal cost and, unless cost64 is None, how far
    the float64 costs (cost64) are from the original's float32 ones, whether they give the same
    matching, and what else cost64 tells (the lane head's: the least |Dice denominator|; README:
    "Matchings"). Exits when float64 costs change a matching. The assigner's scipy call
    (assigner_module's, by default the lane head's), wrapped, sees every cost matrix."""
    import numpy as np
    if assigner_module is None:
        from projects.lanesegnet.core.lane import lane_hungarian_assigner as assigner_module
    solve = assigner_module.linear_sum_assignment
    get_targets = head.get_targets
    assign = head.assigner.assign
    layers = itertools.count()
    current = {}

    def targets(*args, **kwargs):
        current['layer'], current['sample'] = next(layers), 0
        return get_targets(*args, **kwargs)

    def assigning(*args, **kwargs):
        current['inputs'] = args
        return assign(*args, **kwargs)

    def recording(cost):
        key = f'{current["layer"]}.{current["sample"]}'
        margin, best = matching_margin(cost)
        rows, cols = solve(cost)
        margins[key] = {'margin': margin, 'optimal_cost': best}
        if cost64 is not None:
            costs, more = cost64(head.assigner, *current['inputs'])
            same = [a.tolist() for a in solve(costs)] == [rows.tolist(), cols.tolist()]
            margins[key].update({
                'float64_cost_error': float(np.abs(costs - np.asarray(cost)).max()),
                'float64_same_matching': same}, **more)
            if not same or not more.get('float64_same_shifts', True):
                sys.exit(f'matching {key} changes with float64 costs ({margins[key]}): change '
                         'the annotations')
        current['sample'] += 1
        return rows, cols

    head.get_targets = targets
    head.assigner.assign = assigning
    assigner_module.linear_sum_assignment = recording


def record_outputs(model, out):
    """Fills out with the module outputs of the next forward pass (README: "Training step")."""
    import torch

    def keep_bev(module, inputs, result):
        out['bev'] = result.detach().clone()
        out['bev@norm'] = result.detach().norm(dim=-1)

    def keep_head(module, inputs, result):
        for key in LANE_OUTPUTS:
            out[f'lane.{key}'] = result[key].detach().clone()
        masks = result['all_mask_preds']
        if masks is None:
            out['lane.all_mask_preds@none'] = torch.tensor(True)
            return
        masks = masks.detach()
        out['lane.all_mask_preds@last'] = masks[-1].clone()
        out['lane.all_mask_preds@sum'] = masks.to(torch.float64).sum(dim=(-2, -1))
        out['lane.all_mask_preds@norm'] = masks.to(torch.float64).norm(dim=(-2, -1))

    def keep_transformer(module, inputs, result):
        _, init_reference, inter_references = result
        out['lane.init_reference'] = init_reference.detach().clone()
        out['lane.inter_references'] = inter_references.detach().clone()

    head = model.pts_bbox_head
    model.bev_constructor.register_forward_hook(keep_bev)
    head.register_forward_hook(keep_head)
    head.transformer.register_forward_hook(keep_transformer)
    if mapele():
        record_mapele_outputs(model, out)
    else:
        keep_relation(model.lclc_head, out, 'lclc')
    for layer, block in enumerate(head.transformer.decoder.layers):
        attention = block.attentions[1]
        forward = attention.forward

        def recording(*args, layer=layer, forward=forward, **kwargs):
            out[f'lane.attention_reference_points.{layer}'] = \
                kwargs['reference_points'].detach().clone()
            return forward(*args, **kwargs)

        attention.forward = recording


def record_mapele_outputs(model, out):
    """The Map Element Bucket model's other heads in out (README of its fixtures: "Training
    step"): the relation logits, the TE head's outputs and matchings, the area head's outputs,
    matchings with their shifts, and its ground truth's shifted orders."""
    def keep_area_transformer(module, inputs, result):
        hs, init_reference, inter_references = result
        out['area.hs'] = hs.detach().permute(0, 2, 1, 3).clone()
        out['area.init_reference'] = init_reference.detach().clone()
        out['area.inter_references'] = inter_references.detach().clone()

    keep_relation(model.lsls_head, out, 'lsls')
    keep_relation(model.lste_head, out, 'lste')
    model.bbox_head.register_forward_hook(keep_outputs(out, 'te', TE_OUTPUTS))
    record_matchings(model.bbox_head, 'assign.te', out)
    area = model.area_head
    area.register_forward_hook(keep_outputs(out, 'area', AREA_OUTPUTS))
    area.transformer.register_forward_hook(keep_area_transformer)
    record_matchings(area, 'assign.area', out)
    record_area_shifts(area, out)


def record_area_shifts(head, out):
    """out gets the area head's gt_shifts_pts per sample (area.gt_shifts_pts.{b}) and, per layer
    and sample, the order of each matched area (assign.area.{l}.{b}.assigned_shift:
    order_index[pos_inds, pos_assigned_gt_inds], as _get_target_single takes it)."""
    shift = head.shift_fixed_num_sampled_points
    assign = head.assigner.assign
    get_targets = head.get_targets
    samples, orders, layers = itertools.count(), [], itertools.count()

    def shifting(gt_area):
        result = shift(gt_area)
        out[f'area.gt_shifts_pts.{next(samples)}'] = result.clone()
        return result

    def assigning(*args):
        result = assign(*args)
        orders.append(result[1])
        return result

    def targets(*args, **kwargs):
        orders.clear()
        result = get_targets(*args, **kwargs)
        layer, matching = next(layers), result[-1]
        for b, (pos, gt) in enumerate(zip(matching['pos_inds'], matching['pos_assigned_gt_inds'])):
            out[f'assign.area.{layer}.{b}.assigned_shift'] = orders[b][pos, gt].long().clone()
        return result

    head.shift_fixed_num_sampled_points = shifting
    head.assigner.assign = assigning
    head.get_targets = targets


def keep_relation(relation_head, out, key):
    """out[key] gets the relation logits of the head's next forward: its forward_train and
    get_relationship call self.forward directly, past any hook."""
    forward = relation_head.forward

    def recording(*args, **kwargs):
        result = forward(*args, **kwargs)
        out[key] = result.detach().clone()
        return result

    relation_head.forward = recording


def seeded_init(seed):
    """The reduced model built after torch.manual_seed(seed), then model.init_weights()."""
    import torch
    torch.manual_seed(seed)
    _, model = build_reduced()
    model.init_weights()
    return model.state_dict()


def init_weights_record(model):
    """The heads' entries that init_weights() sets the same for two seeds (checked against
    DETERMINISTIC_INIT), with their seed-0 values; every other head entry takes the formula's.
    Returns (the weights to load, the formula's part, the record for init_weights.json)."""
    import torch
    states = [seeded_init(seed) for seed in INIT_SEEDS]
    heads = [name for name, t in model.state_dict().items()
             if not name.startswith(SHARED_PREFIXES) and t.is_floating_point()]
    same = [name for name in heads if torch.equal(states[0][name], states[1][name])]
    expected = [name for name in heads if DETERMINISTIC_INIT.fullmatch(name)]
    if same != expected:
        sys.exit(f'init_weights: deterministic beyond the expected '
                 f'{sorted(set(same) - set(expected))}, random among them '
                 f'{sorted(set(expected) - set(same))}')
    formula = {name: t for name, t in lanesegnet_formula(model).items() if name not in same}
    weights = dict(formula)
    entries, written = {}, {}
    for name in same:
        value = states[0][name]
        weights[name] = value
        flat = value.to(torch.float64).reshape(-1)
        entries[name] = {'shape': list(value.shape), 'sum': flat.sum().item(),
                         'sum_of_squares': (flat * flat).sum().item(),
                         'first': flat[:INIT_FIRST_VALUES].tolist()}
        if not torch.all(flat == flat[0]):
            earlier = [k for k, v in written.items() if torch.equal(v, value)]
            if earlier:
                entries[name]['values_as'] = earlier[0]
            else:
                entries[name]['values'] = flat.tolist()
                written[name] = value
    record = {'seeds_compared': list(INIT_SEEDS), 'deterministic_entries': len(same),
              'random_entries': len(formula), 'deterministic': entries,
              'random': list(formula)}
    return weights, formula, record


def gradients_of(model):
    gradients, without = {}, []
    for name, param in model.named_parameters():
        if param.grad is None:
            without.append(name)
        else:
            gradients[name] = param.grad.detach().clone()
    zero = [name for name, grad in gradients.items() if not grad.any()]
    return gradients, without, zero


def check_toponet_bev(case, bev):
    """Exits unless bev is bit for bit the BEV of TopoNet's fixture of the same case."""
    import torch
    name, key = TOPONET_BEV[case]
    path = os.path.join(TOPONET_FIXTURES, name)
    if not os.path.isfile(path):
        sys.exit(f'{path}: missing (the BEV is checked against it)')
    theirs = torch.load(path)[key]
    if not torch.equal(bev, theirs):
        sys.exit(f'{case}: the BEV differs from {path}\'s `{key}` by up to '
                 f'{(bev - theirs).abs().max().item():.3g}')


def run_train(directory, case):
    import torch
    frames = torch.load(TWO_FRAMES)
    extra = torch.load(os.path.join(directory, 'inputs.pt'))
    cfg, model = build_reduced()
    init_record = None
    if case == 'init_one_frame':
        weights, formula, init_record = init_weights_record(model)
    else:
        weights = formula = lanesegnet_formula(model)
    load_fixture_weights(model, weights)
    model.train()
    dropout = zero_dropout(model)
    outputs, margins = {}, {}
    record_outputs(model, outputs)
    record_matchings(model.pts_bbox_head, 'assign.lane', outputs)
    record_margins(model.pts_bbox_head, margins)
    other_margins = record_mapele_margins(model) if mapele() else {}
    dtypes = {}
    parse_losses = model._parse_losses

    def parsing(losses):
        dtypes.update({k: str(v.dtype).replace('torch.', '') for k, v in losses.items()})
        return parse_losses(losses)

    model._parse_losses = parsing
    step = model.train_step(data_batch(frames, extra, CASES[case]), None)
    step['loss'].backward()

    check_toponet_bev(case, outputs.pop('bev'))
    if mapele():
        check_toponet_te(case, outputs, step['log_vars'])
    gradients, without, zero = gradients_of(model)
    print(f'parameters without a gradient: {without}\nzero gradients: {zero}', file=sys.stderr)
    log_vars = step['log_vars']
    losses = {k: v for k, v in log_vars.items() if k != 'loss'}
    weakest = min(margins, key=lambda k: margins[k]['margin'])
    record = {
        'case': case, 'frames': CASES[case], 'losses': losses, 'total_loss': log_vars['loss'],
        'num_loss_terms': len(losses), 'loss_dtypes': dtypes,
        'dropout_modules_zeroed': dropout,
        'params_without_grad': without, 'params_zero_grad': zero,
        'weights_rule': WEIGHTS_RULE if init_record is None else
        f'{WEIGHTS_RULE}, deterministic init_weights() entries kept (init_weights.json)',
        'formula_entries': len(formula), 'formula_checksum': formula_checksum(formula),
        'matching_margins': margins, 'min_matching_margin': margins[weakest]['margin'],
        'min_matching_margin_at': weakest,
        **{f'{head}_{key}': value for head, head_margins in other_margins.items()
           for key, value in least_margin(head_margins).items()},
        'gradients_whole_limit': GRADIENT_WHOLE_LIMIT,
        'gradients_sample_size': GRADIENT_SAMPLE_SIZE, 'threads': torch.get_num_threads(),
        'versions': versions(), 'model_cfg': plain(cfg.model)}
    with open(os.path.join(directory, f'{case}_losses.json'), 'w') as f:
        json.dump(record, f, indent=1)
        f.write('\n')
    if init_record is not None:
        with open(os.path.join(directory, 'init_weights.json'), 'w') as f:
            json.dump(init_record, f, indent=1)
            f.write('\n')
    torch.save(outputs, os.path.join(directory, f'{case}_outputs.pt'))
    torch.save(compact(gradients, GRADIENT_WHOLE_LIMIT, GRADIENT_SAMPLE_SIZE),
               os.path.join(directory, f'{case}_gradients.pt'))
    print(f'{case}: {len(losses)} loss terms, total {log_vars["loss"]}, dropout zeroed {dropout}, '
          f'least matching margin {margins[weakest]["margin"]:.4g} (layer.sample {weakest}), '
          f'float64 costs within {max(m["float64_cost_error"] for m in margins.values()):.3g}, '
          f'least |Dice denominator| '
          f'{min(m["least_dice_denominator"] for m in margins.values()):.3g}', file=sys.stderr)
    for head, head_margins in {'lane': margins, **other_margins}.items():
        least = least_margin(head_margins)
        print(f'{case}: {head} matchings: least margin {least["min_matching_margin"]:.4g} '
              f'(layer.sample {least["min_matching_margin_at"]})', file=sys.stderr)
        if least['min_matching_margin'] < MIN_MARGIN:
            sys.exit(f'{case}: {head} matching {least["min_matching_margin_at"]} beats the '
                     f'next-best assignment by only {least["min_matching_margin"]:.3g} < '
                     f'{MIN_MARGIN}: change the annotations')
        gaps = {k: m['least_shift_gap'] for k, m in head_margins.items()
                if m.get('least_shift_gap', math.inf) < MIN_MARGIN}
        if gaps:
            sys.exit(f'{case}: matched areas whose best order beats the next by < {MIN_MARGIN}: '
                     f'{gaps}: change the annotations')
    if mapele() and case == 'batch_two':
        check_frame0(directory, outputs)
    near_pole = {k: m['least_dice_denominator'] for k, m in margins.items()
                 if m['least_dice_denominator'] < MIN_DICE_DENOMINATOR}
    if near_pole:
        sys.exit(f'{case}: Dice-cost denominators near 0 {near_pole}: change the annotations')


def check_frame0(directory, outputs):
    """Exits unless frame 0's outputs in the batch of two are the one-frame step's (to
    FRAME0_TOLERANCE times max(1, the largest |value|); matchings and ground-truth shifts
    exactly): each one_frame tensor is compared with the batch's at index 0 of the one dimension
    where their sizes are 1 and 2."""
    import torch
    alone = torch.load(os.path.join(directory, 'one_frame_outputs.pt'))
    worst = (0.0, None)
    for key, value in alone.items():
        if key.startswith(('assign.', 'area.gt_shifts_pts.')):  # sample 0's, by name
            if not torch.equal(value, outputs[key]):
                sys.exit(f'batch_two: frame 0\'s {key} differs from one_frame\'s')
            continue
        batch = outputs[key]
        dims = [d for d in range(value.dim()) if value.shape[d] != batch.shape[d]]
        if len(dims) != 1 or (value.shape[dims[0]], batch.shape[dims[0]]) != (1, 2):
            sys.exit(f'batch_two: {key} {list(batch.shape)} is not a batch of one_frame\'s '
                     f'{list(value.shape)}')
        diff = (batch.narrow(dims[0], 0, 1) - value).abs().max().item()
        worst = max(worst, (diff / max(1.0, value.abs().max().item()), key))
    print(f'batch_two: frame 0 as in one_frame to {worst[0]:.3g} relative to max(1, the largest '
          f'|value|) ({worst[1]})', file=sys.stderr)
    if worst[0] > FRAME0_TOLERANCE:
        sys.exit(f'batch_two: frame 0 differs from one_frame by {worst[0]:.3g} in {worst[1]}')


def least_margin(margins):
    weakest = min(margins, key=lambda k: margins[k]['margin'])
    return {'matching_margins': margins, 'min_matching_margin': margins[weakest]['margin'],
            'min_matching_margin_at': weakest}


def record_mapele_margins(model):
    """{'te': margins, 'area': margins} of the TE head's matchings (margins and optimal costs
    only: they are TopoNet's) and the area head's (with float64 costs and orders)."""
    from mmdet.core.bbox.assigners import hungarian_assigner
    from projects.lanesegnet.thirdparty import maptr_assigner
    margins = {'te': {}, 'area': {}}
    record_margins(model.bbox_head, margins['te'], hungarian_assigner, None)
    record_margins(model.area_head, margins['area'], maptr_assigner, area_cost_float64)
    return margins


def check_toponet_te(case, outputs, log_vars):
    """Exits unless the TE head's outputs, matchings and losses are the TopoNet fixture's of the
    same case bit for bit (same head config, weights, image features and ground truth)."""
    import torch
    name, _ = TOPONET_BEV[case]
    theirs = torch.load(os.path.join(TOPONET_FIXTURES, name))
    keys = [k for k in theirs if k.startswith(('te.', 'assign.te.'))]
    if sorted(keys) != sorted(k for k in outputs if k.startswith(('te.', 'assign.te.'))):
        sys.exit(f'{case}: the TE records differ from {name}\'s in their keys')
    differ = [k for k in keys if not torch.equal(outputs[k], theirs[k])]
    with open(os.path.join(TOPONET_FIXTURES, name.replace('outputs.pt', 'losses.json'))) as f:
        losses = json.load(f)['losses']
    differ += [k for k, v in losses.items() if k.startswith('bbox_head.') and log_vars[k] != v]
    if differ:
        sys.exit(f'{case}: TE outputs or losses differ from the TopoNet fixture\'s: {differ}')


def decode_last_layer(head, hs, reference):
    """[B, Q, 90] lanes of the head's last branches on hs [B, Q, C] around reference
    [B, Q, 10, 3] (sigmoid space), as LaneSegHead.forward decodes them."""
    import torch
    from mmdet.models.utils.transformer import inverse_sigmoid
    low, high = torch.tensor(head.pc_range[:3]), torch.tensor(head.pc_range[3:])
    tmp = (head.reg_branches[-1](hs).view(*reference.shape) + inverse_sigmoid(reference)).sigmoid()
    centerline = (tmp * (high - low) + low).flatten(2)
    offset = head.reg_branches_offset[-1](hs)
    return torch.cat([centerline, centerline + offset, centerline - offset], dim=-1)


def train_branch_shift(model, head_out, lanes):
    """How far (metres, max) the test lanes are from the last layer decoded as the training
    branch does it (around inter_references[-2], not [-1]); exits unless lanes are the latter."""
    import torch
    head = model.pts_bbox_head
    hs, references = head_out['history_states'][-1], head_out['inter_references']
    with torch.no_grad():
        if (decode_last_layer(head, hs, references[-1])[0] - lanes).abs().max() > 1e-4:
            sys.exit('test: the lanes are not decoded around inter_references[-1]')
        return (decode_last_layer(head, hs, references[-2])[0] - lanes).abs().max().item()


def mapele_test_results(out, result):
    """The Map Element Bucket model's TE, lste and area results of frame 0 in out; exits unless
    the TE boxes are the TopoNet fixture's (same TE head, weights and image features)."""
    import torch
    boxes, scores, labels = result['bbox_results']
    te = {'test.bbox.boxes': boxes, 'test.bbox.scores': scores, 'test.bbox.labels': labels,
          'test.lste': result['lste_results']}
    te = {k: torch.from_numpy(v.copy()) for k, v in te.items()}
    theirs = torch.load(os.path.join(TOPONET_FIXTURES, 'test_outputs.pt'))
    differ = [k for k in te if k.startswith('test.bbox.') and not torch.equal(te[k], theirs[k])]
    if differ:
        sys.exit(f'test: {differ} differ from the TopoNet fixture\'s')
    out.update(te)
    pts, scores, labels = result['area_results']
    out['test.area.pts'] = torch.from_numpy(pts.copy())
    out['test.area.scores'] = torch.from_numpy(scores.copy())
    out['test.area.labels'] = torch.from_numpy(labels.copy())


def run_test(directory):
    import torch
    frames = torch.load(TWO_FRAMES)
    extra = torch.load(os.path.join(directory, 'inputs.pt'))
    _, model, _ = build_fixture_model()
    model.eval()
    received, head_out = {}, {}
    simple_test = model.simple_test

    def recording(img_metas, img=None, **kwargs):
        received['can_bus'] = torch.from_numpy(img_metas[0]['can_bus'].copy())
        return simple_test(img_metas, img, **kwargs)

    def keep_head(module, inputs, result):
        head_out.update(result)

    model.simple_test = recording
    model.pts_bbox_head.register_forward_hook(keep_head)
    if mapele():
        keep_relation(model.lsls_head, head_out, 'lsls')
        keep_relation(model.lste_head, head_out, 'lste')
    else:
        keep_relation(model.lclc_head, head_out, 'lclc')
    model.pts_bbox_head.transformer.register_forward_hook(
        lambda module, inputs, result: head_out.update(inter_references=result[2]))
    with torch.no_grad():
        result = model.forward_test(img_metas=[meta(frames, extra, 0)],
                                    img=frames['img'][:1].clone(), rescale=False)[0]
    names = ('lanes', 'scores', 'labels', 'left_type_scores', 'left_type_labels',
             'right_type_scores', 'right_type_labels')
    out = {f'test.lane.{name}': torch.from_numpy(value.copy())
           for name, value in zip(names, result['lane_results'])}
    out['test.lsls'] = torch.from_numpy(result['lsls_results'].copy())
    bev = model.prev_frame_info['prev_bev']
    check_toponet_bev('test', bev)
    out['test.bev@norm'] = bev.norm(dim=-1)
    out['test.can_bus'] = received['can_bus']
    out['test.all_cls_scores'] = head_out['all_cls_scores'].clone()
    out['test.history_states'] = head_out['history_states'].clone()
    out['test.inter_references'] = head_out['inter_references'].clone()
    if mapele():
        out['test.lsls_logits'] = head_out['lsls'].clone()
        out['test.lste_logits'] = head_out['lste'].clone()
        mapele_test_results(out, result)
    else:
        out['test.lclc'] = head_out['lclc'].clone()
    shift = train_branch_shift(model, head_out, out['test.lane.lanes'])
    print(f'test: the last layer decoded around inter_references[-2], as in training, would move '
          f'the lanes by up to {shift:.3g} m', file=sys.stderr)
    out['test.all_mask_preds_is_none'] = torch.tensor(head_out['all_mask_preds'] is None)
    if not mapele() and (result['bbox_results'] is not None
                         or result['lste_results'] is not None):
        sys.exit('test: LaneSegNet returned traffic-element results')
    torch.save(out, os.path.join(directory, 'test_outputs.pt'))
    print(f'test: labels {out["test.lane.labels"].tolist()}, masks computed: '
          f'{head_out["all_mask_preds"] is not None}', file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Pipeline edge cases (README: "Pipeline").

def crossing_cases():
    """{case: 5 points} for ped2lane_segment: headings of 0 -> 1 inside [-45, 135], outside, and
    exactly on both ends (exactly representable differences), in float64 and float32."""
    import numpy as np

    def square(p0, p1, z=-0.3):
        p0, p1 = np.asarray(p0, dtype=np.float64), np.asarray(p1, dtype=np.float64)
        d = p1 - p0
        right = np.array([d[1], -d[0]]) / np.linalg.norm(d) * 3.0
        xy = [p0, p1, p1 + right, p0 + right, p0]
        return np.array([[x, y, z + 0.01 * i] for i, (x, y) in enumerate(xy)])

    cases = {
        'heading_90': square((10, -8), (10, 8)),
        'heading_0': square((-6, 2), (10, 2)),
        'heading_minus_90': square((20, 8), (20, -8)),
        'heading_180': square((10, 2), (-6, 2)),
        'heading_minus_45_exact': square((10, 5), (12.5, 2.5)),
        'heading_135_exact': square((10, 5), (7.5, 7.5)),
        'heading_minus_45_just_outside': square((10, 5), (12.5, 2.4995)),
        'heading_135_just_outside': square((10, 5), (7.4995, 7.5)),
        'heading_134': square((-3, -3), (-3 - math.cos(math.radians(46)) * 9,
                                         -3 + math.sin(math.radians(46)) * 9)),
    }
    out = {}
    for name, points in cases.items():
        out[f'{name}.float64'] = points
        out[f'{name}.float32'] = points.astype(np.float32)
    return out


def record_crossings(out, dataset):
    import numpy as np
    for name, points in crossing_cases().items():
        centerline, left, right = dataset.ped2lane_segment(points)
        v = points[1] - points[0]
        heading = np.rad2deg(np.arctan2(v[1], v[0]))
        prefix = f'ped.{name}.'
        out[prefix + 'points'] = tensor(points)
        out[prefix + 'heading'] = tensor(heading)
        out[prefix + 'flipped'] = tensor(bool(heading < -45 or heading > 135))
        for key, line in (('centerline', centerline), ('left', left), ('right', right)):
            out[prefix + key] = tensor(np.array(line.coords))
        expected_left = points[[2, 3]] if heading < -45 or heading > 135 else points[[0, 1]]
        if not np.array_equal(np.array(left.coords), expected_left.astype(np.float64)):
            sys.exit(f'ped2lane_segment {name}: left {np.array(left.coords)}, expected '
                     f'{expected_left}')
    flips = {k[len('ped.'):-len('.flipped')]: bool(v) for k, v in out.items()
             if k.endswith('.flipped')}
    print(f'ped2lane_segment: flipped {flips}', file=sys.stderr)


def parameterize_cases():
    """Lane segments [centerline, left, right] for LaneSegmentParameterize3D: differing point
    counts, uneven spacing, varying z, a 2-point boundary, a boundary running backwards."""
    import numpy as np
    t7 = np.array([0.0, 0.4, 1.9, 2.1, 4.4, 6.8, 7.5])
    t12 = np.arange(12) ** 1.4 / 4
    left0 = np.stack([3 * t7 - 4, 0.15 * t7 ** 2 + 1.8, 0.7 * np.sin(t7) - 0.3], axis=1)
    right0 = np.stack([1.9 * t12 - 4, 0.06 * t12 ** 2.2 - 1.7, -0.05 * t12 - 0.3], axis=1)
    center0 = (left0[[0, 3, 6]] + np.array([[0, -1.75, 0]] * 3))
    left1 = np.array([[40.0, 10.0, -0.2], [20.0, 10.5, 0.4]])
    right1 = np.array([[40.0, 6.5, -0.2], [33.0, 6.4, 0.0], [31.0, 6.6, 0.1], [20.0, 7.0, 0.3]])
    center1 = (left1 + right1[[0, 3]]) / 2
    return [[center0, left0, right0], [center1, left1, right1]]


def record_parameterize(out):
    import numpy as np
    from shapely.geometry import LineString
    from projects.lanesegnet.datasets.pipelines import LaneSegmentParameterize3D
    from toponet_fixtures import polyline_interpolate
    cases = parameterize_cases()
    for i, lines in enumerate(cases):
        for key, line in zip(('centerline', 'left', 'right'), lines):
            out[f'param.input.{i}.{key}'] = tensor(line)
    results = LaneSegmentParameterize3D('fix_pts_interp', {'n_points': POINTS})(
        {'gt_lanes_3d': [[LineString(line) for line in lines] for lines in cases]})
    out['param.output'] = tensor(results['gt_lanes_3d'])
    ours = np.array([np.concatenate([
        ((polyline_interpolate(left, POINTS, 2) + polyline_interpolate(right, POINTS, 2)) / 2)
        .reshape(-1), polyline_interpolate(left, POINTS, 2).reshape(-1),
        polyline_interpolate(right, POINTS, 2).reshape(-1)]) for _, left, right in cases],
        dtype=np.float32)
    differ = ours != results['gt_lanes_3d']
    print(f'parameterize: the equal 2-D arc-length rule differs from the original in '
          f'{int(differ.sum())} of {differ.size} float32 values, by up to '
          f'{np.abs(ours - results["gt_lanes_3d"]).max():.3g}', file=sys.stderr)


def segment_row(left, right):
    """[90] float32: centerline (their mean), left, right of two [10, 3] boundaries."""
    import numpy as np
    left, right = np.asarray(left, dtype=np.float64), np.asarray(right, dtype=np.float64)
    return np.concatenate([((left + right) / 2).reshape(-1), left.reshape(-1),
                           right.reshape(-1)]).astype(np.float32)


def line(start, end, z=-0.3):
    """POINTS points from start to end (x, y), evenly spaced, at height z."""
    import numpy as np
    t = np.linspace(0, 1, POINTS)[:, None]
    xy = np.asarray(start, dtype=np.float64) + t * (np.asarray(end, dtype=np.float64)
                                                    - np.asarray(start, dtype=np.float64))
    return np.concatenate([xy, np.full((POINTS, 1), z)], axis=1)


def mask_cases():
    """{case: [90] float32 row} for GenerateLaneSegmentMask at the full 100 x 200 grid (0.5 m a
    pixel; pixel = int32(x * 2 + 100), int32(y * 2 + 50))."""
    import numpy as np
    t = np.linspace(0, 1, POINTS)
    return {
        # Crossing the right map edge x = 50 and the top edge y = 25.
        'partly_outside': segment_row(line((38, 20), (58, 29)), line((40, 16.5), (60, 25.5))),
        # Left and right cross half way: a bow tie.
        'self_intersecting': segment_row(line((-10, 2), (10, -2)), line((-10, -2), (10, 2))),
        # Left equals right: zero area.
        'degenerate': segment_row(line((-5, -10), (15, -6)), line((-5, -10), (15, -6))),
        # Narrower than a pixel.
        'thin': segment_row(line((0, 10), (20, 10.2)), line((0, 9.8), (20, 10))),
        # x = -0.3 m: pixel 99.4 -> 99 (int32 truncates; floor is the same here).
        'minus_0_3': segment_row(line((-0.3, 1.3), (6, 1.3)), line((-0.3, -1.3), (6, -1.3))),
        # A wedge from a corner beyond both edges: the apex (-50.3, -25.3) m is pixel
        # (-0.6, -0.6), int32 (0, 0) (truncation toward zero), where floor gives (-1, -1) and
        # 30 pixels differ (checked).
        'negative_truncation': segment_row(
            np.concatenate([[[-50.3, -25.3, -0.3]], line((-30, -23), (-20, -22))[1:]]),
            np.concatenate([[[-50.3, -25.3, -0.3]], line((-48, -5), (-47, 5))[1:]])),
        # Wholly outside the grid.
        'outside': segment_row(line((60, 30), (70, 30)), line((60, 27), (70, 27))),
        # A curved, uneven segment with z.
        'curved': segment_row(
            np.stack([12 + 13.8 * np.sin(t * 1.4), -15.6 + 13.8 * np.cos(t * 1.4),
                      -0.4 + 0.1 * t], axis=1),
            np.stack([12 + 10.2 * np.sin(t * 1.4), -15.6 + 10.2 * np.cos(t * 1.4),
                      -0.4 + 0.1 * t], axis=1)),
    }


def floor_masks(rows):
    """GenerateLaneSegmentMask's masks at the full grid with the pixel coordinates floored
    instead of truncated, to show where the difference shows."""
    import cv2
    import numpy as np
    lanes = rows.reshape(-1, 3, POINTS, 3).astype(np.float64)
    scale = np.array([FULL_BEV[1] / 100, FULL_BEV[0] / 50])
    origin = np.array([FULL_BEV[1] // 2, FULL_BEV[0] // 2])
    masks = []
    for left, right in zip(lanes[:, 1], lanes[:, 2]):
        boundary = np.concatenate((left, right[::-1], left[0:1]))[:, :2]
        pixels = np.floor(boundary.astype(np.float32) * scale + origin).astype(np.int32)
        masks.append(cv2.fillPoly(np.zeros(FULL_BEV, np.uint8), [pixels], 1))
    return np.stack(masks)


def record_masks(out):
    import numpy as np
    from projects.lanesegnet.datasets.pipelines import GenerateLaneSegmentMask
    cases = mask_cases()
    rows = np.stack(list(cases.values()))
    results = GenerateLaneSegmentMask(points_num=POINTS, bev_h=FULL_BEV[0], bev_w=FULL_BEV[1])(
        {'gt_lanes_3d': rows})
    masks = np.stack(results['gt_instance_masks'])
    if not np.isin(masks, (0.0, 1.0)).all():
        sys.exit('GenerateLaneSegmentMask: a mask value other than 0 and 1')
    floor = floor_masks(rows)
    differ = {name: int((a != b).sum()) for name, a, b in zip(cases, masks, floor)}
    if differ['negative_truncation'] == 0:
        sys.exit('masks: negative_truncation does not tell truncation from floor')
    print(f'masks: pixels that floor instead of truncation would change: {differ}',
          file=sys.stderr)
    out['mask.input'] = tensor(rows)
    out['mask.output'] = tensor(masks.astype(np.uint8))
    print('masks: pixels ' + ', '.join(f'{name} {int(m.sum())}'
                                       for name, m in zip(cases, masks)), file=sys.stderr)
    return list(cases)


def record_format_gt(out):
    """format_openlanev2_gt on one frame: crossings to 10 + 10 points, road boundaries dropped."""
    import numpy as np
    ann = annotation(0)
    ann = copy.deepcopy(ann)
    for area in ann['area']:
        area['points'] = area['points'].astype(np.float32)
    info = {'segment_id': RAW_FRAMES[0][0], 'timestamp': RAW_FRAMES[0][1], 'annotation': ann}
    dataset = dataset_stub([info])
    gt = dataset.format_openlanev2_gt()
    areas = gt[(RAW_SPLIT, RAW_FRAMES[0][0], RAW_FRAMES[0][1])]['annotation']['area']
    for i, area in enumerate(ann['area']):
        out[f'format_gt.input.{i}.category'] = tensor(area['category'], 'int64')
        out[f'format_gt.input.{i}.points'] = tensor(area['points'])
    for i, area in enumerate(areas):
        out[f'format_gt.output.{i}.id'] = tensor(area['id'], 'int64')
        out[f'format_gt.output.{i}.points'] = tensor(area['points'])
    print(f'format_openlanev2_gt: {len(ann["area"])} areas in, {len(areas)} out, points '
          f'{[list(a["points"].shape) for a in areas]} {areas[0]["points"].dtype}',
          file=sys.stderr)


def write_pipeline(directory):
    import torch
    out = {}
    raw = os.path.join(directory, 'raw')
    infos = collected_infos(raw)
    dataset = dataset_stub(infos)
    for b, info in enumerate(infos):
        prefix = f'frames.{b}.'
        ann = info['annotation']
        for i, segment in enumerate(ann['lane_segment']):
            for key in ('centerline', 'left_laneline', 'right_laneline'):
                out[f'{prefix}collected.lane_segment.{i}.{key}'] = tensor(segment[key])
        for i, area in enumerate(ann['area']):
            out[f'{prefix}collected.area.{i}.points'] = tensor(area['points'])
        for i, element in enumerate(ann['traffic_element'] if mapele() else []):
            out[f'{prefix}collected.traffic_element.{i}.points'] = tensor(element['points'])
        targets = frame_targets(dataset, b, FULL_BEV)
        for key, value in targets.items():
            out[prefix + key] = (value.to(torch.uint8) if key == 'gt_instance_masks' else value)
    if mapele():
        torch.save(out, os.path.join(directory, 'pipeline_expected.pt'))
        return
    record_crossings(out, dataset)
    record_parameterize(out)
    record_masks(out)
    record_format_gt(out)
    torch.save(out, os.path.join(directory, 'pipeline_expected.pt'))


def main():
    args = parse_args()
    import torch
    torch.set_num_threads(args.threads)
    global MODEL
    MODEL = args.model
    os.makedirs(args.dir, exist_ok=True)
    import_original()
    if args.command == 'shapes':
        write_shapes(args.dir)
    elif args.command == 'inputs':
        write_inputs(args.dir)
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
