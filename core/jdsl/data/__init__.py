"""Package data: real third-party tau-bench v1 data (MIT, Copyright (c) 2024 Sierra).

The files next to this module are byte-identical copies of the project's shared data; nobody on
this project wrote them (see ``README.md`` and ``LICENSE-tau-bench`` here). Read them through
:mod:`jdsl.envs.data` (``data_path``, ``load_json``), which uses :mod:`importlib.resources` so an
installed wheel finds them too.
"""
