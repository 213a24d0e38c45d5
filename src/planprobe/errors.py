"""User-facing errors.

Anything a user can cause (a bad file, an impossible option) raises
``PlanprobeError`` with one line that names the file, line or field and says
what to do; the CLI prints that line and exits non-zero, never a traceback.
"""


class PlanprobeError(Exception):
    """A problem the user can fix; its message is shown as is."""


class FormatVersionError(PlanprobeError):
    """Data written by a newer planprobe than this one."""


class InfrastructureError(Exception):
    """The model service failed past all retries. Recorded as ``infra`` and kept
    apart from planning failures: it says nothing about the agent."""
