#!/usr/bin/python3
"""Convert a JSON results file into the official OpenLane-V2 submission pickle.

The C++ tools (`evaluate`, validation in `train_ds`) write predictions as JSON: one member
"<split>/<segment_id>/<timestamp>" per frame under "results" (spec/evaluation.md section 2). The
official evaluator and the leaderboard read a pickle instead:

    {'method': str, 'authors': [str], 'e-mail': str, 'institution / company': str,
     'country / region': str,
     'results': {(split, segment_id, timestamp): {'predictions': {
         'lane_centerline': [{'id': int, 'points': float32 (n, 3), 'confidence': float32}],
         'traffic_element': [{'id': int, 'attribute': int, 'points': float32 (2, 2),
                              'confidence': float32}],
         'topology_lclc': float32 (N, N),
         'topology_lcte': float32 (N, M)}}}}

Topology matrices get their shape from the list lengths, so a frame without lanes gets (0, 0) and
(0, M) arrays and a frame without traffic elements gets (N, 0) — numpy alone would infer (0,) from
`[]`, which the official format check rejects.

Metadata comes from the JSON's top-level members (`train_ds` writes its config's `submission`
section there) and can be set or overridden with the options below. A leaderboard submission
needs all five members that the devkit's `check_results`
(openlanev2/centerline/preprocessing/check.py) asks for: `method`, `e-mail`,
`institution / company` and `country / region` as strings (the country a name or code that
`iso3166.countries.get` knows), and `authors` as a list of at most 10 names. The devkit only
prints "Missing key [...] for a valid submission"; this script refuses to write the pickle
instead, naming every missing or ill-typed member.

Usage (Debian's interpreter, which has numpy):

    /usr/bin/python3 scripts/results_to_submission.py results.json submission.pkl \\
        --method "my method" --authors "A. Author" "B. Author" --e-mail me@example.org \\
        --institution "My Lab" --country "Germany"

Exit status 0 on success, 2 on a malformed results file (the message names the frame) or
incomplete metadata (the message names the members).
"""

import argparse
import json
import math
import pickle
import sys

import numpy as np

METADATA_OPTIONS = {
    "method": "method",
    "authors": "authors",
    "e_mail": "e-mail",
    "institution": "institution / company",
    "country": "country / region",
}


MAX_AUTHORS = 10


class InputError(Exception):
    pass


def known_country(name):
    """True, False, or None when the iso3166 package (Debian's python3-iso3166) is missing."""
    try:
        import iso3166
    except ImportError:
        return None
    try:
        iso3166.countries.get(name)
    except KeyError:
        return False
    return True


def check_metadata(submission):
    """Raises InputError naming every leaderboard metadata member that is missing or ill-typed."""
    missing = [name for name in METADATA_OPTIONS.values() if name not in submission]
    if missing:
        raise InputError("missing metadata for a valid submission: " +
                         ", ".join(f"`{name}`" for name in missing) +
                         " (set them in the config's `submission` section or with "
                         "--method, --authors, --e-mail, --institution, --country)")
    for name in ("method", "e-mail", "institution / company", "country / region"):
        if not isinstance(submission[name], str) or not submission[name].strip():
            raise InputError(f"metadata `{name}`: expected a non-empty string, "
                             f"got {submission[name]!r}")
    authors = submission["authors"]
    if (not isinstance(authors, list) or not authors or len(authors) > MAX_AUTHORS
            or not all(isinstance(author, str) and author.strip() for author in authors)):
        raise InputError(f"metadata `authors`: expected a list of 1 to {MAX_AUTHORS} names, "
                         f"got {authors!r}")
    country = known_country(submission["country / region"])
    if country is False:
        raise InputError(f"metadata `country / region`: {submission['country / region']!r} is "
                         "not an ISO 3166 country name or code")
    if country is None:
        print("results_to_submission: warning: python3-iso3166 is not installed, "
              "`country / region` is not checked", file=sys.stderr)


def frame_key(key):
    parts = key.split("/")
    if len(parts) != 3 or not all(parts):
        raise InputError(f"key `{key}`: expected \"<split>/<segment_id>/<timestamp>\"")
    return tuple(parts)


def float32_array(values, shape, where):
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InputError(f"{where}: expected numbers of shape {shape}: {error}")
    if array.size != int(np.prod(shape)):
        raise InputError(f"{where}: expected shape {shape}, got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise InputError(f"{where}: non-finite number")
    return array.reshape(shape).astype(np.float32)


def integer(value, where):
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: expected an integer, got {value!r}")
    return value


def confidence(value, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{where}: expected a finite number, got {value!r}")
    return np.float32(value)


def matrix(values, rows, cols, where):
    if not isinstance(values, list) or len(values) != rows:
        raise InputError(f"{where}: expected {rows} rows ({rows} x {cols})")
    for r, row in enumerate(values):
        if not isinstance(row, list) or len(row) != cols:
            raise InputError(f"{where}[{r}]: expected {cols} numbers ({rows} x {cols})")
    return float32_array(values, (rows, cols), where)


def convert_frame(key, value):
    where = f"frame {key}"
    try:
        predictions = value["predictions"]
        lanes_in = predictions["lane_centerline"]
        elements_in = predictions["traffic_element"]
        lclc = predictions["topology_lclc"]
        lcte = predictions["topology_lcte"]
    except (KeyError, TypeError) as error:
        raise InputError(f"{where}: missing member {error}")
    lanes = []
    for i, lane in enumerate(lanes_in):
        at = f"{where}: lane_centerline[{i}]"
        points = lane["points"]
        if not isinstance(points, list) or not points:
            raise InputError(f"{at}.points: expected n >= 1 points")
        lanes.append({
            "id": integer(lane["id"], f"{at}.id"),
            "points": float32_array(points, (len(points), 3), f"{at}.points"),
            "confidence": confidence(lane["confidence"], f"{at}.confidence"),
        })
    elements = []
    for j, element in enumerate(elements_in):
        at = f"{where}: traffic_element[{j}]"
        elements.append({
            "id": integer(element["id"], f"{at}.id"),
            "attribute": integer(element["attribute"], f"{at}.attribute"),
            "points": float32_array(element["points"], (2, 2), f"{at}.points"),
            "confidence": confidence(element["confidence"], f"{at}.confidence"),
        })
    ids = [lane["id"] for lane in lanes] + [element["id"] for element in elements]
    if len(set(ids)) != len(ids):
        raise InputError(f"{where}: ids are not unique across lanes and traffic elements")
    n, m = len(lanes), len(elements)
    return {"predictions": {
        "lane_centerline": lanes,
        "traffic_element": elements,
        "topology_lclc": matrix(lclc, n, n, f"{where}: topology_lclc"),
        "topology_lcte": matrix(lcte, n, m, f"{where}: topology_lcte"),
    }}


def reject_duplicate_keys(pairs):
    keys = [key for key, _ in pairs]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:
        raise InputError(f"member `{duplicates[0]}` appears twice")
    return dict(pairs)


def convert(results_json, metadata_overrides):
    if not isinstance(results_json, dict) or not isinstance(results_json.get("results"), dict):
        raise InputError("expected an object with a `results` object of frames")
    submission = {name: results_json[name] for name in METADATA_OPTIONS.values()
                  if name in results_json}
    submission.update(metadata_overrides)
    check_metadata(submission)
    submission["results"] = {frame_key(key): convert_frame(key, value)
                             for key, value in results_json["results"].items()}
    return submission


def main(argv):
    parser = argparse.ArgumentParser(
        description="Convert a JSON results file into the official OpenLane-V2 submission pickle.")
    parser.add_argument("results", help="JSON results file written by the C++ tools")
    parser.add_argument("output", help="pickle to write")
    parser.add_argument("--method")
    parser.add_argument("--authors", nargs="+")
    parser.add_argument("--e-mail", dest="e_mail")
    parser.add_argument("--institution")
    parser.add_argument("--country")
    args = parser.parse_args(argv)
    overrides = {METADATA_OPTIONS[option]: getattr(args, option)
                 for option in METADATA_OPTIONS if getattr(args, option) is not None}
    try:
        with open(args.results) as file:
            results_json = json.load(file, object_pairs_hook=reject_duplicate_keys)
        submission = convert(results_json, overrides)
    except (OSError, ValueError, InputError, KeyError, TypeError) as error:
        print(f"results_to_submission: error: {args.results}: {error}", file=sys.stderr)
        return 2
    with open(args.output, "wb") as file:
        pickle.dump(submission, file)
    print(f"results_to_submission: wrote {len(submission['results'])} frames to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
