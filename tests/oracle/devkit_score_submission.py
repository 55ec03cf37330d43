"""Scores a lane-segment submission pickle with the OpenLane-V2 devkit 2.x, as a leaderboard would.

Collects the ground truth of one split of a collection JSON with the devkit's own `collect` (lines
at 10 points, areas at 20), runs its `lanesegment.evaluation.evaluate` on the submission and
prints the "OpenLane-V2 UniScore" as one JSON object: DET_l, DET_a, DET_t, TOP_ll, TOP_lt,
UniScore.

Usage: python devkit_score_submission.py DEVKIT_DIR DATA_ROOT COLLECTION_JSON SPLIT SUBMISSION
       SCRATCH
"""

import json
import os
import sys

from devkit_oracle import install_pywrapgraph_adapter


def main():
    devkit, data_root, collection_file, split, submission, scratch = sys.argv[1:7]
    sys.path.insert(0, devkit)
    install_pywrapgraph_adapter()
    from openlanev2.lanesegment.evaluation import evaluate
    from openlanev2.lanesegment.preprocessing import collect

    with open(collection_file) as file:
        collection = json.load(file)
    os.makedirs(scratch, exist_ok=True)
    # collect writes `<root>/<name>.pkl`; a relative name out of the data root keeps it in scratch.
    name = os.path.relpath(os.path.realpath(os.path.join(scratch, 'ground_truth_ls')),
                           os.path.realpath(data_root))
    collect(data_root, {split: collection[split]}, name,
            n_points={'centerline': 10, 'left_laneline': 10, 'right_laneline': 10, 'area': 20})
    score = evaluate(os.path.join(data_root, name + '.pkl'), submission,
                     verbose=False)['OpenLane-V2 UniScore']
    print(json.dumps({'DET_l': float(score['DET_l']), 'DET_a': float(score['DET_a']),
                      'DET_t': float(score['DET_t']), 'TOP_ll': float(score['TOP_ll']),
                      'TOP_lt': float(score['TOP_lt']), 'UniScore': float(score['score'])}))


if __name__ == '__main__':
    main()
