# Sourced by scripts/app and scripts/test: make .venv and install the project into it.
# $1 is the pip extra to install ("" for the app, "test" for the tests).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
extra=${1:-}
stamp=".venv/.installed-${extra:-app}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    if [ -n "$extra" ]; then
        .venv/bin/python -m pip install --quiet -e ".[$extra]"
    else
        .venv/bin/python -m pip install --quiet -e .
    fi
    # compile the numba kernels once now (cached on disk), not on the first page view
    .venv/bin/python -c "from nearsim.pipeline import warm_up; warm_up()"
    touch "$stamp"
fi
