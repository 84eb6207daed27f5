"""Validates a SARIF log on stdin against tests/data/sarif-2.1.0.schema.json
(argv[1]) with the jsonschema package (a real JSON-schema validator), then
checks what GitHub code scanning needs beyond the schema: exactly one
location per result, every uriBaseId defined in the run's
originalUriBaseIds, relatedLocations with distinct ids.  With --fingerprints,
every result must carry partialFingerprints.  Exit 0 when valid, else 1 with
the reasons on stderr."""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    want_fp = "--fingerprints" in sys.argv[2:]
    log = json.load(sys.stdin)
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)
    errors = []
    for ri, run in enumerate(log["runs"]):
        bases = run.get("originalUriBaseIds", {})
        for k, b in bases.items():
            if not b.get("uri", "").endswith("/"):
                errors.append(f"run {ri}: originalUriBaseIds.{k} does not end with '/'")

        def check_loc(where, loc):
            art = loc.get("physicalLocation", {}).get("artifactLocation", {})
            base = art.get("uriBaseId")
            if base is not None and base not in bases:
                errors.append(f"{where}: uriBaseId {base} not in originalUriBaseIds")

        for i, res in enumerate(run.get("results", [])):
            where = f"run {ri} result {i}"
            locs = res.get("locations", [])
            if len(locs) != 1:
                errors.append(f"{where}: {len(locs)} locations, code scanning wants exactly one")
            for loc in locs:
                check_loc(where, loc)
            ids = [r.get("id") for r in res.get("relatedLocations", [])]
            if len(ids) != len(set(ids)):
                errors.append(f"{where}: relatedLocations ids repeat")
            for loc in res.get("relatedLocations", []):
                check_loc(where, loc)
            if want_fp and not res.get("partialFingerprints"):
                errors.append(f"{where}: no partialFingerprints")
    for e in errors[:20]:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
