"""The stage runner checks its arguments at once (escapes tests/test_garbage.py found).

Before, ``Runner`` stored a list of anything and a ``fetch`` of anything, and failed at the
first ``get`` with a ``TypeError`` from inside a stage.
"""

import numpy as np
import pytest

import nearsim as ns
from nearsim.pipeline import Runner


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"texts": [["a"], "b"]}, r"texts\[0\] is a list, which is not accepted"),
        ({"texts": [None]}, r"texts\[0\] is a NoneType, which is not accepted"),
        ({"fetch": 1.5}, r"fetch=1.5 is not accepted; accepted: a callable"),
        ({"digest": 3}, r"digest=3 is not accepted; accepted: a non-empty str"),
        ({"settings": {"num_perm": 64}}, r"settings=\{'num_perm': 64\} is not accepted"),
    ],
)
def test_runner_checks_its_arguments(kwargs, match):
    args = {"texts": ["a cat", "a cat!"]} | kwargs
    with pytest.raises(ValueError, match=match):
        Runner(**args)


def test_run_names_texts():
    with pytest.raises(TypeError, match=r"texts=array\(shape=\(\).* is not accepted"):
        ns.pipeline.run(np.array(3))
