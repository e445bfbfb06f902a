"""Figure modules: how each family's measured data becomes figures and prose values.

One module per kernel family ``F`` (``figures/F.py``), found by scripts/book/render.py, plus
``device``, ``ceilings`` and ``roofline`` for what every run writes. No torch here: the
site builds from committed data alone.
"""
