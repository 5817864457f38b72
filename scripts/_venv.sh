# Sourced by scripts/app and scripts/test: make .venv and install the project into it.
# $1 is the pip extra to install: "app" for the explorer, "test" for the tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
extra=${1:?which extra: app or test}
stamp=".venv/.installed-${extra}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".[$extra]"
    # compile the numba kernels once now (cached on disk), not on the first page view
    .venv/bin/python -c "from nearsim.explore import warm_up; warm_up()"
    touch "$stamp"
fi
