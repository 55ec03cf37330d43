"""The official OpenLane-V2 devkit as a test oracle for `evaluate`.

Writes random ground truth in the on-disk format (both subsets' camera sets) and random
predictions beside it, scores every case with the devkit (`collect` for the ground-truth pickle,
`evaluate` on the submission dict) and with our `evaluate` program (the info files and a results
JSON of the same float32 numbers), in the TOP definitions of the devkit version given, and
compares DET_l, DET_t, TOP_ll, TOP_lt, OLS and the F-Score. Our `evaluate` also scores the
devkit's ground-truth pickle with the predictions as a submission pickle of mixed numpy dtypes,
which must give exactly the numbers of the JSON files.

The F-Score matches lanes by a minimum-cost assignment of integer costs, where two matchings of
equal total cost are common; the devkit takes OR-tools' min-cost-flow solution, we take SciPy's
`linear_sum_assignment` one (our `linear_sum_assignment` reproduces it, ties included). Where the
two solvers pick different matchings of one frame (a tie), the F-Score of that case is reported
and not compared; every other number always is.

Usage: python devkit_oracle.py DEVKIT_DIR VERSION EVALUATE_BINARY SCRATCH [--cases N] [--seed S]

DEVKIT_DIR holds the `openlanev2` package of the devkit release (pip openlanev2==1.1.0 is tag
v1.1.0 file for file, 1.0.0 is tag v1.0.0); VERSION is v1.1 or v1.0. The devkit's F-Score imports
`ortools.graph.pywrapgraph`, which OR-tools no longer ships for Python 3.11; the adapter below
maps its method names onto `ortools.graph.python.min_cost_flow`, the same solver. Prints one line
per case and exits 1 when any metric differs by more than 1e-6.
"""

import argparse
import copy
import json
import os
import pickle
import subprocess
import sys
import types

import numpy as np

TOLERANCE = 1e-6
SUBSET_CAMERAS = {
    'A': ['ring_front_center', 'ring_front_left', 'ring_front_right', 'ring_rear_left',
          'ring_rear_right', 'ring_side_left', 'ring_side_right'],
    'B': ['CAM_FRONT', 'CAM_FRONT_RIGHT', 'CAM_FRONT_LEFT', 'CAM_BACK', 'CAM_BACK_LEFT',
          'CAM_BACK_RIGHT'],
}


def install_pywrapgraph_adapter():
    from ortools.graph.python import min_cost_flow

    class SimpleMinCostFlow:
        def __init__(self):
            self._solver = min_cost_flow.SimpleMinCostFlow()
            self.OPTIMAL = self._solver.OPTIMAL

        def AddArcWithCapacityAndUnitCost(self, tail, head, capacity, cost):
            return self._solver.add_arc_with_capacity_and_unit_cost(tail, head, capacity, cost)

        def SetNodeSupply(self, node, supply):
            self._solver.set_node_supply(node, supply)

        def Solve(self):
            return self._solver.solve()

        def NumArcs(self):
            return self._solver.num_arcs()

        def Tail(self, arc):
            return self._solver.tail(arc)

        def Head(self, arc):
            return self._solver.head(arc)

        def Flow(self, arc):
            return self._solver.flow(arc)

        def UnitCost(self, arc):
            return self._solver.unit_cost(arc)

    module = types.ModuleType('ortools.graph.pywrapgraph')
    module.SimpleMinCostFlow = SimpleMinCostFlow
    sys.modules['ortools.graph.pywrapgraph'] = module


def smooth_lane(rng, points):
    """A random smooth centerline of `points` points, mostly along x, in the BEV range."""
    start = np.array([rng.uniform(-48, 30), rng.uniform(-22, 22), rng.uniform(-0.5, 0.5)])
    length = rng.uniform(8, 40)
    heading = rng.uniform(-0.6, 0.6) + (np.pi if rng.random() < 0.15 else 0.0)
    bend = rng.uniform(-0.02, 0.02)
    t = np.linspace(0, length, points)
    angle = heading + bend * t
    xy = start[:2] + np.stack([np.cumsum(np.cos(angle)), np.cumsum(np.sin(angle))], 1) * (
        length / points)
    z = start[2] + rng.uniform(-0.02, 0.02) * t
    return np.concatenate([xy, z[:, None]], 1)


def random_box(rng):
    x1, y1 = rng.uniform(0, 1400), rng.uniform(0, 700)
    return np.array([[x1, y1], [x1 + rng.uniform(8, 120), y1 + rng.uniform(8, 120)]])


def make_frame(rng, subset, segment, timestamp):
    lanes = [smooth_lane(rng, 201) for _ in range(rng.integers(0, 7))]
    boxes = [random_box(rng) for _ in range(rng.integers(0, 5))]
    attributes = [int(rng.integers(0, 13)) for _ in boxes]
    n, m = len(lanes), len(boxes)
    sensor = {}
    for camera in SUBSET_CAMERAS[subset]:
        sensor[camera] = {
            'image_path': f'val/{segment}/image/{camera}/{timestamp}.jpg',
            'extrinsic': {'rotation': [[0, 0, 1], [-1, 0, 0], [0, -1, 0]],
                          'translation': [1.5, 0, 1.4]},
            'intrinsic': {'K': [[1000, 0, 800], [0, 1000, 450], [0, 0, 1]],
                          'distortion': [0, 0, 0]},
        }
    return {
        'version': 'v1.0', 'segment_id': segment, 'meta_data': {'source': 'oracle'},
        'timestamp': int(timestamp), 'sensor': sensor,
        'pose': {'rotation': [[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'translation': [0, 0, 0]},
        'annotation': {
            'lane_centerline': [{'id': 100 + i, 'points': lane.tolist(),
                                 'is_intersection_or_connector': False}
                                for i, lane in enumerate(lanes)],
            'traffic_element': [{'id': 200 + j, 'category': 1, 'attribute': attributes[j],
                                 'points': box.tolist()} for j, box in enumerate(boxes)],
            'topology_lclc': (rng.random((n, n)) < 0.3).astype(int).tolist(),
            'topology_lcte': (rng.random((n, m)) < 0.3).astype(int).tolist(),
        },
    }


def predict(rng, frame):
    """Noisy copies of some ground truth, reversed or false lanes, random scores (float32)."""
    annotation = frame['annotation']
    lanes = []
    for lane in annotation['lane_centerline']:
        points = np.asarray(lane['points'])[::20]
        if rng.random() < 0.8:
            noisy = points + rng.normal(0, rng.choice([0.2, 0.8, 1.6]), points.shape)
            lanes.append(noisy[::-1] if rng.random() < 0.1 else noisy)
    for _ in range(rng.integers(0, 3)):
        lanes.append(smooth_lane(rng, 11))
    boxes, attributes = [], []
    for element in annotation['traffic_element']:
        if rng.random() < 0.8:
            boxes.append(np.asarray(element['points']) + rng.normal(0, 6, (2, 2)))
            attributes.append(element['attribute'] if rng.random() < 0.7 else int(rng.integers(0, 13)))
    for _ in range(rng.integers(0, 3)):
        boxes.append(random_box(rng))
        attributes.append(int(rng.integers(0, 13)))
    n, m = len(lanes), len(boxes)
    return {
        'lane_centerline': [{'id': 1000 + i, 'points': np.asarray(lane, np.float32),
                             'confidence': np.float32(rng.random())}
                            for i, lane in enumerate(lanes)],
        'traffic_element': [{'id': 2000 + j, 'attribute': attributes[j],
                             'points': np.sort(np.asarray(box, np.float32), axis=0),
                             'confidence': np.float32(rng.random())}
                            for j, box in enumerate(boxes)],
        'topology_lclc': rng.random((n, n)).astype(np.float32),
        'topology_lcte': rng.random((n, m)).astype(np.float32),
    }


def results_json(predictions):
    """The results file of `predictions`: the same float32 numbers, as JSON."""
    def numbers(array):
        return [[float(v) for v in row] for row in np.asarray(array, np.float32)]
    results = {}
    for (split, segment, timestamp), frame in predictions.items():
        results[f'{split}/{segment}/{timestamp}'] = {'predictions': {
            'lane_centerline': [{'id': lane['id'], 'points': numbers(lane['points']),
                                 'confidence': float(lane['confidence'])}
                                for lane in frame['lane_centerline']],
            'traffic_element': [{'id': element['id'], 'attribute': element['attribute'],
                                 'points': numbers(element['points']),
                                 'confidence': float(element['confidence'])}
                                for element in frame['traffic_element']],
            'topology_lclc': numbers(frame['topology_lclc']),
            'topology_lcte': numbers(frame['topology_lcte']),
        }}
    return {'method': 'oracle', 'results': results}


def write_case(rng, root, subset, num_frames):
    collection = {'val': {}}
    predictions = {}
    for f in range(num_frames):
        segment, timestamp = f'{10000 + f // 2:05d}', str(315967000000000000 + f)
        frame = make_frame(rng, subset, segment, timestamp)
        info = os.path.join(root, 'val', segment, 'info')
        os.makedirs(info, exist_ok=True)
        with open(os.path.join(info, f'{timestamp}.json'), 'w') as out:
            json.dump(frame, out)
        collection['val'].setdefault(segment, []).append(f'{timestamp}.json')
        predictions[('val', segment, timestamp)] = predict(rng, frame)
    with open(os.path.join(root, 'collection.json'), 'w') as out:
        json.dump(collection, out)
    with open(os.path.join(root, 'results.json'), 'w') as out:
        json.dump(results_json(predictions), out)
    return collection, predictions


class TieWatch:
    """Wraps the devkit's min-cost-flow matching to see whether SciPy's minimum-cost assignment
    of the same costs picks other pairs (a tie of equal total cost)."""

    def __init__(self, f_score_module):
        from scipy.optimize import linear_sum_assignment
        self.ties = 0
        solve = f_score_module.SolveMinCostFlow

        def watched(adjacency, costs):
            matched = solve(adjacency, costs)
            rows, cols = linear_sum_assignment(costs.astype(np.int32).astype(np.float64))
            if sorted((gt, pred) for gt, pred, _ in matched) != sorted(zip(rows.tolist(),
                                                                           cols.tolist())):
                self.ties += 1
            return matched

        f_score_module.SolveMinCostFlow = watched


def write_submission_pickle(root, predictions):
    """The predictions as a submission pickle of mixed dtypes holding the same numbers: float64
    lane points and lane-lane topology, float32 boxes, confidences as Python floats, numpy
    float64 or float32 scalars."""
    results = {}
    for index, (key, frame) in enumerate(predictions.items()):
        kinds = [float, np.float64, np.float32]
        results[key] = {'predictions': {
            'lane_centerline': [{'id': lane['id'],
                                 'points': np.asarray(lane['points'], np.float64),
                                 'confidence': kinds[(index + i) % 3](lane['confidence'])}
                                for i, lane in enumerate(frame['lane_centerline'])],
            'traffic_element': [{'id': element['id'], 'attribute': element['attribute'],
                                 'points': np.asarray(element['points'], np.float32),
                                 'confidence': kinds[(index + j + 1) % 3](element['confidence'])}
                                for j, element in enumerate(frame['traffic_element'])],
            'topology_lclc': np.asarray(frame['topology_lclc'], np.float64),
            'topology_lcte': np.asarray(frame['topology_lcte'], np.float32),
        }}
    with open(os.path.join(root, 'submission.pkl'), 'wb') as out:
        pickle.dump({'method': 'oracle', 'results': results}, out)


def devkit_metrics(devkit, root, collection, predictions):
    devkit.collect(root, collection, 'ground_truth', point_interval=20)
    submission = {'method': 'oracle', 'authors': ['oracle'], 'e-mail': 'oracle@example.org',
                  'institution / company': 'oracle', 'country / region': 'DE',
                  'results': {key: {'predictions': copy.deepcopy(value)}
                              for key, value in predictions.items()}}
    metrics = devkit.evaluate(os.path.join(root, 'ground_truth.pkl'), submission, verbose=False)
    score = metrics['OpenLane-V2 Score']
    return {'DET_l': score['DET_l'], 'DET_t': score['DET_t'], 'TOP_ll': score['TOP_ll'],
            'TOP_lt': score['TOP_lt'], 'OLS': score['score'],
            'F-Score': metrics['F-Score for 3D Lane']['score']}


def our_metrics(evaluate, root, version, inputs):
    out = os.path.join(root, 'metrics.json')
    subprocess.run([evaluate, *inputs, '--split', 'val', '--metric-version', version,
                    '--out', out], check=True, stdout=subprocess.DEVNULL)
    with open(out) as file:
        metrics = json.load(file)
    assert metrics['metric_version'] == version, metrics['metric_version']
    return metrics


def metrics_of_json_and_pickles(evaluate, root, version):
    """Our metrics from the info files and the results JSON, and from the devkit's ground-truth
    pickle and the submission pickle: they must be the same numbers."""
    from_json = our_metrics(evaluate, root, version,
                            ['--data-root', root, '--collection', 'collection.json',
                             '--results', os.path.join(root, 'results.json')])
    from_pickles = our_metrics(evaluate, root, version,
                               ['--ground-truth', os.path.join(root, 'ground_truth.pkl'),
                                '--results', os.path.join(root, 'submission.pkl')])
    if from_json != from_pickles:
        raise SystemExit(f'{root}: the pickles score {from_pickles}, the JSON files {from_json}')
    return from_json


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('devkit_dir')
    parser.add_argument('version', choices=['v1.0', 'v1.1'])
    parser.add_argument('evaluate')
    parser.add_argument('scratch')
    parser.add_argument('--cases', type=int, default=24)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args()

    sys.path.insert(0, args.devkit_dir)
    install_pywrapgraph_adapter()
    import openlanev2.evaluation as evaluation
    import openlanev2.evaluation.f_score as f_score
    import openlanev2.preprocessing as preprocessing
    devkit = types.SimpleNamespace(collect=preprocessing.collect, evaluate=evaluation.evaluate)
    tie_watch = TieWatch(f_score)

    rng = np.random.default_rng(args.seed)
    worst, failures, compared, f_scores_compared = 0.0, 0, 0, 0
    for case in range(args.cases):
        subset = 'AB'[case % 2]
        root = os.path.join(args.scratch, f'case_{case:02d}')
        collection, predictions = write_case(rng, root, subset, int(rng.integers(2, 6)))
        ties_before = tie_watch.ties
        try:
            expected = devkit_metrics(devkit, root, collection, predictions)
        except ValueError as error:  # v1.0 fails when no frame has ground-truth lanes
            print(f'case {case:02d} subset {subset}: the devkit fails ({error}); skipped')
            continue
        tie = tie_watch.ties > ties_before
        if tie:
            expected.pop('F-Score')
        else:
            f_scores_compared += 1
        write_submission_pickle(root, predictions)
        ours = metrics_of_json_and_pickles(args.evaluate, root, args.version)
        differences = {name: abs(float(ours[name]) - float(value))
                       for name, value in expected.items()}
        bad = {name: (float(ours[name]), float(expected[name]))
               for name, difference in differences.items() if not difference <= TOLERANCE}
        worst = max(worst, max(differences.values()))
        compared += 1
        failures += bool(bad)
        print(f'case {case:02d} subset {subset} {args.version}: ' +
              ' '.join(f'{name} {float(value):.6f}' for name, value in expected.items()) +
              (f' F-Score not compared (a tie of matchings: ours {float(ours["F-Score"]):.6f})'
               if tie else '') +
              (f'  DIFFERS (ours, devkit): {bad}' if bad else '  equal'))
    print(f'compared {compared} cases ({f_scores_compared} with their F-Score), {failures} '
          f'differ, largest difference {worst:.3g}')
    return 1 if failures or compared == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
