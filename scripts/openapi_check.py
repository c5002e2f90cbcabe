"""Checks openapi/openapi.json beyond what the Rust tests do (run by scripts/schemathesis.sh,
so by CI): the document is valid OpenAPI 3.1 (openapi-spec-validator), every operation has a
unique operationId and an example, and every example is valid against its own schema."""
import json
import sys

from jsonschema import Draft202012Validator
from openapi_spec_validator import validate
from referencing import Registry, Resource

path = sys.argv[1] if len(sys.argv) > 1 else "openapi/openapi.json"
doc = json.load(open(path, encoding="utf-8"))
validate(doc)

failures = []
ids = set()


def check(example, schema, where):
    # Component references point into the whole document, registered as urn:paiju.
    validator = Draft202012Validator(schema, registry=registry)
    for error in validator.iter_errors(example):
        failures.append(f"{where}: {error.message} at {list(error.absolute_path)}")


def retarget(node):
    if isinstance(node, dict):
        return {k: ("urn:paiju" + v if k == "$ref" and v.startswith("#/") else retarget(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [retarget(x) for x in node]
    return node


registry = Registry().with_resource("urn:paiju", Resource.opaque(retarget(doc)))

for route, ops in doc["paths"].items():
    for method, op in ops.items():
        where = f"{method.upper()} {route}"
        op_id = op.get("operationId")
        if not op_id:
            failures.append(f"{where}: no operationId")
        elif op_id in ids:
            failures.append(f"{where}: operationId {op_id} used twice")
        ids.add(op_id)
        examples = []
        body = op.get("requestBody", {}).get("content", {}).get("application/json")
        if body:
            examples.append(("request", body))
        for code, response in op.get("responses", {}).items():
            content = response.get("content", {}).get("application/json")
            if content and code.startswith("2"):
                examples.append((f"response {code}", content))
        with_example = [(w, c) for w, c in examples if "example" in c]
        if examples and not with_example:
            failures.append(f"{where}: no example")
        for what, content in with_example:
            check(content["example"], retarget(content["schema"]), f"{where} {what} example")

if failures:
    print("openapi/openapi.json:", *failures, sep="\n  ", file=sys.stderr)
    sys.exit(1)
print(f"openapi/openapi.json: valid OpenAPI 3.1, {len(ids)} operations, examples valid")
