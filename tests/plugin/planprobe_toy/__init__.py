"""A third-party planprobe plug-in, as a user would write one, for the tests.

It is installed the way any distribution is: ``planprobe_toy-0.1.dist-info`` beside it
declares its entry points, and the test set-up puts this folder on ``sys.path``
(``pythonpath`` in pyproject.toml; ``PYTHONPATH`` for subprocesses). Nothing in
planprobe names it: the family ``lamps``, the agent ``alphabetical`` and the model
kind ``toy`` are found through the entry-point groups alone, and so is the family's reader
for ``--model solver`` (``solver_reader.py``): ``lamps`` claims ``SolvableFromText`` and the contract
test holds it to 100% like a built-in.
"""
