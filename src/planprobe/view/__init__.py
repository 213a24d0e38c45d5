"""``planprobe view DIR``: a local, read-only web app over a directory of runs, sweeps and studies.

Small modules, one job each: ``catalog`` finds what is in the directory, ``runs`` reads a run's
head (aggregate SQL, never every result) and its case rows, ``case`` turns one result into a
timeline, ``compare`` pairs runs of one suite, ``app`` is the Starlette application (token,
Content-Security-Policy, templates), ``server`` binds it to loopback. Everything shown is
untrusted text: Jinja2 autoescapes it and the page's own script (served as a file, the only
script the CSP lets run) puts data on the page through ``textContent`` only.
"""
