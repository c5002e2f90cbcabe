"""Validates docker-compose.yml against the Compose specification (the `compose-spec` package
from PyPI, run by scripts/schemathesis.sh, so by CI), after interpolating its variables the way
`docker compose` does: `${VAR:?message}` must be set, here with example values."""
import os
import re
import sys

import compose_spec

EXAMPLE = {
    "JWT_SECRET": "0" * 64,
    "POSTGRES_PASSWORD": "example-password",
}


def interpolate(text, env):
    def one(m):
        name, op, arg = m.group(1), m.group(2), m.group(3) or ""
        value = env.get(name, "")
        if op == ":?" and not value:
            sys.exit(f"docker-compose.yml: {name} is required ({arg})")
        if op == ":-" and not value:
            return arg
        return value

    return re.sub(r"\$\{([A-Z_][A-Z0-9_]*)(?:(:\?|:-)([^}]*))?\}", one, text)


path = sys.argv[1] if len(sys.argv) > 1 else "docker-compose.yml"
text = interpolate(open(path, encoding="utf-8").read(), {**EXAMPLE, **os.environ})
compose = compose_spec.PyCompose.from_yaml(text)
compose.validate()
compose.to_spec()
print(f"{path}: valid Compose file, services {', '.join(compose.service_names())}")
