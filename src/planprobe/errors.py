"""User-facing errors.

Anything a user can cause (a bad file, an impossible option) raises
``PlanprobeError`` with one line that names the file, line or field and says
what to do; the CLI prints that line and exits with the error's ``exit_code``
(2 unless a subclass says otherwise), never a traceback.
"""


class PlanprobeError(Exception):
    """A problem the user can fix; its message is shown as is."""

    exit_code = 2


class FormatVersionError(PlanprobeError):
    """Data written by a newer planprobe than this one."""


class ServiceUnusableError(PlanprobeError):
    """The model endpoint cannot serve the run at all — a rejected key (401/403), a wrong
    URL or model (404/405), or nothing listening at the base URL. The run stops at once
    (exit 3); the cases in flight are not recorded, so re-running the same command
    after fixing the cause runs them."""

    exit_code = 3


class InfrastructureError(Exception):
    """The model service failed past all retries. Recorded as ``infra`` and kept
    apart from planning failures: it says nothing about the agent."""


class ContextLimitError(Exception):
    """The conversation no longer fits the model's context window. Like the time and
    iteration limits it ends the episode (status ``context_limit``, verdict class
    ``timeout``): it is the same for the embedded model and for a server, and retrying
    would not change it."""
