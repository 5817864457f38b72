"""The explorer's own stages and teaching: everything only the explorer's views read.

Importing this package registers its stages onto the core stage graph
(:mod:`nearsim.pipeline`): the scoring against exact ground truth
(:mod:`~nearsim.scoring`), the SimHash comparison
(:mod:`~nearsim.explore.simhash_stages`, :mod:`~nearsim.explore.hash_health`), the
Threshold view's pairs and labels (:mod:`~nearsim.explore.threshold_pairs`,
:mod:`~nearsim.explore.labels`, :mod:`~nearsim.explore.label_draw`,
:mod:`~nearsim.explore.removal`), the teaching views (:mod:`~nearsim.explore.explain`), the
peers' presets and configurations (:mod:`~nearsim.explore.presets`,
:mod:`~nearsim.explore.export`) and the sizing model (:mod:`~nearsim.explore.sizing`).
"""

from nearsim.explore.stages import warm_up

__all__ = ["warm_up"]
