"""The OpenLane-V2 devkit 2.x and LaneSegNet as test oracles for `evaluate` on the lane-segment task.

Writes random v2.x ground truth in the on-disk format (`<timestamp>-ls.json`: lane segments with
both lanelines, pedestrian crossings as closed 5-point outlines, road boundaries, traffic elements,
`topology_lsls` and `topology_lste`) and random predictions beside it, then scores every case:
- with the devkit 2.x (`lanesegment.preprocessing.collect` for the ground-truth pickle, lines at
  10 points and areas at 20, then `lanesegment.evaluation.evaluate`): DET_l, DET_a, DET_t, TOP_ll,
  TOP_lt and the UniScore, against our `evaluate --collection-kind ls` (the info files) and our
  `evaluate --collection-kind lanesegnet` (the same frames with the areas as annotated, resampled
  by us);
- with LaneSegNet's own `lanesegnet_evaluate`, read from the original's sources, on the ground
  truth as LaneSegNet's dataset formats it (`format_openlanev2_gt`: the crossings only, corners
  0-1 and 2-3 each resampled to 10 points): mAP, AP_ls, AP_ped and TOP_lsls against our
  `evaluate --collection-kind lanesegnet`.
Our `evaluate` reads the predictions from a results JSON of the same float32 numbers; it also
scores the devkit's ground-truth pickle with the predictions as a submission pickle (float64 lane
segments, float32 areas, Python float confidences), which must give exactly the numbers of the
JSON files.

Usage: python devkit_lanesegment_oracle.py DEVKIT_DIR LANESEGNET_SOURCES EVALUATE_BINARY SCRATCH
       [--cases N] [--seed S]

DEVKIT_DIR holds the `openlanev2` package of the devkit release 2.1.0; LANESEGNET_SOURCES is the
original LaneSegNet's source archive (a .tar.xz holding LaneSegNet/projects/...). Prints one line
per case and exits 1 when any metric differs by more than 1e-6.
"""

import argparse
import copy
import importlib.util
import json
import os
import pickle
import subprocess
import sys
import tarfile

import numpy as np

from devkit_oracle import SUBSET_CAMERAS, install_pywrapgraph_adapter, random_box, smooth_lane

TOLERANCE = 1e-6
LANESEGNET_EVALUATE = 'LaneSegNet/projects/lanesegnet/datasets/openlanev2_evaluate_custom.py'
UNISCORE = ['DET_l', 'DET_a', 'DET_t', 'TOP_ll', 'TOP_lt', 'UniScore']
LANESEGNET = ['mAP', 'AP_ls', 'AP_ped', 'TOP_lsls']


def offset(line, distance):
    """`line` moved sideways (to its left for distance > 0) in the ground plane."""
    heading = np.gradient(line[:, :2], axis=0)
    normal = np.stack([-heading[:, 1], heading[:, 0]], 1)
    normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-9)
    moved = line.copy()
    moved[:, :2] += distance * normal
    return moved


def crossing(rng):
    """A pedestrian crossing as annotated: a closed outline of 5 points (the first repeated)."""
    centre = np.array([rng.uniform(-40, 40), rng.uniform(-20, 20), rng.uniform(-0.3, 0.3)])
    angle = rng.uniform(0, np.pi)
    along = np.array([np.cos(angle), np.sin(angle), 0.0]) * rng.uniform(3, 10)
    across = np.array([-np.sin(angle), np.cos(angle), 0.0]) * rng.uniform(1.5, 4)
    corners = [centre - along - across, centre + along - across, centre + along + across,
               centre - along + across]
    return np.array(corners + [corners[0]])


def make_frame(rng, subset, segment, timestamp):
    centerlines = [smooth_lane(rng, int(rng.integers(5, 40))) for _ in range(rng.integers(0, 6))]
    areas = [(1, crossing(rng)) for _ in range(rng.integers(0, 3))]
    areas += [(2, smooth_lane(rng, int(rng.integers(4, 30)))) for _ in range(rng.integers(0, 3))]
    boxes = [random_box(rng) for _ in range(rng.integers(0, 4))]
    attributes = [int(rng.integers(0, 13)) for _ in boxes]
    n, m = len(centerlines), len(boxes)
    sensor = {}
    for camera in SUBSET_CAMERAS[subset]:
        sensor[camera] = {
            'image_path': f'val/{segment}/image/{camera}/{timestamp}.jpg',
            'extrinsic': {'rotation': [[0, 0, 1], [-1, 0, 0], [0, -1, 0]],
                          'translation': [1.5, 0, 1.4]},
            'intrinsic': {'K': [[1000, 0, 800], [0, 1000, 450], [0, 0, 1]],
                          'distortion': [0, 0, 0]},
        }
    segments = []
    for i, line in enumerate(centerlines):
        width = rng.uniform(1.4, 2.0)
        segments.append({
            'id': 100 + i, 'centerline': line.tolist(),
            'left_laneline': offset(line, width).tolist(),
            'right_laneline': offset(line, -width).tolist(),
            'left_laneline_type': int(rng.integers(0, 3)),
            'right_laneline_type': int(rng.integers(0, 3)),
            'is_intersection_or_connector': False,
        })
    return {
        'version': 'v2.0', 'segment_id': segment, 'meta_data': {'source': 'oracle'},
        'timestamp': int(timestamp), 'sensor': sensor,
        'pose': {'rotation': [[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'translation': [0, 0, 0]},
        'annotation': {
            'lane_segment': segments,
            'area': [{'id': 300 + k, 'category': category, 'points': points.tolist()}
                     for k, (category, points) in enumerate(areas)],
            'traffic_element': [{'id': 200 + j, 'category': 1, 'attribute': attributes[j],
                                 'points': box.tolist()} for j, box in enumerate(boxes)],
            'topology_lsls': (rng.random((n, n)) < 0.3).astype(int).tolist(),
            'topology_lste': (rng.random((n, m)) < 0.3).astype(int).tolist(),
        },
    }


def ten_points(line):
    """Ten points along a line, roughly evenly spaced by index (no resampling by length)."""
    line = np.asarray(line)
    return line[np.linspace(0, len(line) - 1, 10).round().astype(int)]


def predict(rng, frame):
    """Noisy copies of some ground truth, reversed or false ones, random scores (float32)."""
    annotation = frame['annotation']
    segments = []
    for segment in annotation['lane_segment']:
        if rng.random() < 0.8:
            sigma = rng.choice([0.15, 0.6, 1.4])
            lines = [ten_points(segment[key]) + rng.normal(0, sigma, (10, 3))
                     for key in ('centerline', 'left_laneline', 'right_laneline')]
            if rng.random() < 0.1:
                lines = [line[::-1] for line in lines]
            elif rng.random() < 0.15:  # the centerline alone far off: only the devkit's
                lines[0] = offset(lines[0], rng.uniform(3.0, 5.0))  # Chamfer mask rejects it
            segments.append(lines)
    for _ in range(rng.integers(0, 3)):
        line = smooth_lane(rng, 10)
        segments.append([line, offset(line, 1.7), offset(line, -1.7)])
    areas = []
    for area in annotation['area']:
        if rng.random() < 0.8:
            points = np.asarray(area['points'])
            if area['category'] == 1:  # as LaneSegNet predicts crossings: two edges of 10 points
                first = np.linspace(points[0], points[1], 10)
                third = np.linspace(points[3], points[2], 10)
                points = np.concatenate([first, third[::-1]])
            else:
                points = np.linspace(points[0], points[-1], 20) if rng.random() < 0.3 else points
            category = area['category'] if rng.random() < 0.85 else 3 - area['category']
            areas.append((category, points + rng.normal(0, rng.choice([0.1, 0.4, 0.9]),
                                                          points.shape)))
    for _ in range(rng.integers(0, 2)):
        areas.append((int(rng.integers(1, 3)), smooth_lane(rng, 20)))
    boxes, attributes = [], []
    for element in annotation['traffic_element']:
        if rng.random() < 0.8:
            boxes.append(np.asarray(element['points']) + rng.normal(0, 6, (2, 2)))
            attributes.append(element['attribute'] if rng.random() < 0.7 else
                              int(rng.integers(0, 13)))
    for _ in range(rng.integers(0, 2)):
        boxes.append(random_box(rng))
        attributes.append(int(rng.integers(0, 13)))
    n, m = len(segments), len(boxes)
    as32 = lambda array: np.asarray(array, np.float32)
    return {
        'lane_segment': [{'id': 1000 + i, 'centerline': as32(lines[0]),
                          'left_laneline': as32(lines[1]), 'right_laneline': as32(lines[2]),
                          'left_laneline_type': int(rng.integers(0, 3)),
                          'right_laneline_type': int(rng.integers(0, 3)),
                          'confidence': np.float32(rng.random())}
                         for i, lines in enumerate(segments)],
        'area': [{'id': 3000 + k, 'category': category, 'points': as32(points),
                  'confidence': np.float32(rng.random())}
                 for k, (category, points) in enumerate(areas)],
        'traffic_element': [{'id': 2000 + j, 'attribute': attributes[j],
                             'points': np.sort(as32(box), axis=0),
                             'confidence': np.float32(rng.random())}
                            for j, box in enumerate(boxes)],
        'topology_lsls': rng.random((n, n)).astype(np.float32),
        'topology_lste': rng.random((n, m)).astype(np.float32),
    }


def results_json(predictions):
    """The results file of `predictions`: the same float32 numbers, as JSON."""
    def numbers(array):
        return [[float(v) for v in row] for row in np.asarray(array, np.float32)]

    results = {}
    for (split, segment, timestamp), frame in predictions.items():
        results[f'{split}/{segment}/{timestamp}'] = {'predictions': {
            'lane_segment': [{key: (numbers(value) if isinstance(value, np.ndarray) else
                                    float(value) if key == 'confidence' else value)
                              for key, value in lane.items()} for lane in frame['lane_segment']],
            'area': [{'id': area['id'], 'category': area['category'],
                      'points': numbers(area['points']), 'confidence': float(area['confidence'])}
                     for area in frame['area']],
            'traffic_element': [{'id': element['id'], 'attribute': element['attribute'],
                                 'points': numbers(element['points']),
                                 'confidence': float(element['confidence'])}
                                for element in frame['traffic_element']],
            'topology_lsls': numbers(frame['topology_lsls']),
            'topology_lste': numbers(frame['topology_lste']),
        }}
    return {'method': 'oracle', 'results': results}


def write_case(rng, root, subset, num_frames):
    collection = {'val': {}}
    predictions = {}
    frames = {}
    for f in range(num_frames):
        segment, timestamp = f'{10000 + f // 2:05d}', str(315967000000000000 + f)
        frame = make_frame(rng, subset, segment, timestamp)
        info = os.path.join(root, 'val', segment, 'info')
        os.makedirs(info, exist_ok=True)
        with open(os.path.join(info, f'{timestamp}-ls.json'), 'w') as out:
            json.dump(frame, out)
        collection['val'].setdefault(segment, []).append(f'{timestamp}.json')
        predictions[('val', segment, timestamp)] = predict(rng, frame)
        frames[('val', segment, timestamp)] = frame
    with open(os.path.join(root, 'collection.json'), 'w') as out:
        json.dump(collection, out)
    with open(os.path.join(root, 'results.json'), 'w') as out:
        json.dump(results_json(predictions), out)
    return collection, predictions, frames


def load_lanesegnet_evaluate(sources, scratch):
    """LaneSegNet's `lanesegnet_evaluate`, imported from the original's source archive."""
    path = os.path.join(scratch, 'openlanev2_evaluate_custom.py')
    with tarfile.open(sources) as archive:
        with open(path, 'wb') as out:
            out.write(archive.extractfile(LANESEGNET_EVALUATE).read())
    spec = importlib.util.spec_from_file_location('openlanev2_evaluate_custom', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.lanesegnet_evaluate


def lanesegnet_ground_truth(ground_truth, frames, resample):
    """The ground truth as LaneSegNet's dataset formats it for its evaluation: the collected lines
    and, of the areas as annotated, the crossings only, corners 0-1 then 2-3, each resampled to 10
    points (`format_openlanev2_gt`)."""
    formatted = copy.deepcopy(ground_truth)
    for key, info in formatted.items():
        crossings = []
        for area in frames[key]['annotation']['area']:
            if area['category'] != 1:
                continue
            points = np.asarray(area['points'], np.float64)
            crossings.append({'id': area['id'], 'category': 1, 'points': np.concatenate(
                [resample(points[[0, 1]], 10), resample(points[[2, 3]], 10)])})
        info['annotation']['area'] = crossings
    return formatted


def write_submission_pickle(root, submission):
    """The submission with the same numbers in other dtypes than the oracle's."""
    mixed = copy.deepcopy(submission)
    for frame in mixed['results'].values():
        for lane in frame['predictions']['lane_segment']:
            for key in ('centerline', 'left_laneline', 'right_laneline'):
                lane[key] = np.asarray(lane[key], np.float64)
            lane['confidence'] = float(lane['confidence'])
    with open(os.path.join(root, 'submission.pkl'), 'wb') as out:
        pickle.dump(mixed, out)


def our_metrics(evaluate, root, kind):
    """Our metrics from the info files read as collection `kind` and the results JSON, or
    (kind 'pickles') from the devkit's ground-truth pickle and the submission pickle."""
    out = os.path.join(root, f'metrics_{kind}.json')
    inputs = (['--ground-truth', os.path.join(root, 'ground_truth_ls.pkl'),
               '--results', os.path.join(root, 'submission.pkl')] if kind == 'pickles' else
              ['--data-root', root, '--collection', 'collection.json', '--collection-kind', kind,
               '--results', os.path.join(root, 'results.json')])
    subprocess.run([evaluate, *inputs, '--split', 'val', '--out', out], check=True,
                   stdout=subprocess.DEVNULL)
    with open(out) as file:
        metrics = json.load(file)
    assert metrics['metric_set'] == 'OpenLane-V2 UniScore', metrics['metric_set']
    return metrics


def compare(name, ours, expected, worst):
    differences = {key: abs(float(ours[key]) - float(expected[key])) for key in expected}
    bad = {key: (float(ours[key]), float(expected[key]))
           for key, difference in differences.items() if not difference <= TOLERANCE}
    return max([worst, *differences.values()]), (f' {name} DIFFERS (ours, oracle): {bad}'
                                                 if bad else '')


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('devkit_dir')
    parser.add_argument('lanesegnet_sources')
    parser.add_argument('evaluate')
    parser.add_argument('scratch')
    parser.add_argument('--cases', type=int, default=16)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args()

    sys.path.insert(0, args.devkit_dir)
    install_pywrapgraph_adapter()
    from openlanev2.lanesegment.evaluation import evaluate as devkit_evaluate
    from openlanev2.lanesegment.preprocessing import collect
    from openlanev2.lanesegment.preprocessing.collect import _fix_pts_interpolate
    os.makedirs(args.scratch, exist_ok=True)
    lanesegnet_evaluate = load_lanesegnet_evaluate(args.lanesegnet_sources, args.scratch)
    n_points = {'centerline': 10, 'left_laneline': 10, 'right_laneline': 10, 'area': 20}

    rng = np.random.default_rng(args.seed)
    worst, failures = 0.0, 0
    for case in range(args.cases):
        subset = 'AB'[case % 2]
        root = os.path.join(args.scratch, f'case_{case:02d}')
        collection, predictions, frames = write_case(rng, root, subset, int(rng.integers(2, 6)))
        collect(root, collection, 'ground_truth_ls', n_points=n_points)
        submission = {'method': 'oracle', 'results': {
            key: {'predictions': copy.deepcopy(value)} for key, value in predictions.items()}}
        score = devkit_evaluate(os.path.join(root, 'ground_truth_ls.pkl'),
                                copy.deepcopy(submission), verbose=False)['OpenLane-V2 UniScore']
        expected = dict(zip(UNISCORE, [score['DET_l'], score['DET_a'], score['DET_t'],
                                       score['TOP_ll'], score['TOP_lt'], score['score']]))
        with open(os.path.join(root, 'ground_truth_ls.pkl'), 'rb') as file:
            ground_truth = pickle.load(file)
        lanesegnet = lanesegnet_evaluate(
            lanesegnet_ground_truth(ground_truth, frames, _fix_pts_interpolate),
            copy.deepcopy(submission), verbose=False)
        expected_lanesegnet = {key: lanesegnet[key] for key in LANESEGNET}

        ours_ls = our_metrics(args.evaluate, root, 'ls')
        write_submission_pickle(root, submission)
        if our_metrics(args.evaluate, root, 'pickles') != ours_ls:
            raise SystemExit(f'{root}: the pickles score otherwise than the JSON files')
        ours_lanesegnet = our_metrics(args.evaluate, root, 'lanesegnet')
        if 'LaneSegNet' in ours_ls:
            raise SystemExit(f'{root}: LaneSegNet\'s metrics from the devkit\'s collection, whose '
                             'areas are resampled')
        worst, ls_bad = compare('devkit', ours_ls, expected, worst)
        worst, areas_bad = compare('devkit (areas as annotated)', ours_lanesegnet, expected, worst)
        worst, own_bad = compare('LaneSegNet', ours_lanesegnet['LaneSegNet'], expected_lanesegnet,
                                 worst)
        bad = ls_bad + areas_bad + own_bad
        failures += bool(bad)
        print(f'case {case:02d} subset {subset}: ' +
              ' '.join(f'{key} {float(value):.6f}' for key, value in expected.items()) + ' | ' +
              ' '.join(f'{key} {float(value):.6f}' for key, value in expected_lanesegnet.items()) +
              (bad if bad else '  equal'))
    print(f'compared {args.cases} cases, {failures} differ, largest difference {worst:.3g}')
    return 1 if failures or args.cases == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
