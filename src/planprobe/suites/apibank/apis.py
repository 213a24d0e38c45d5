"""planprobe's own implementations of API-Bank's level-1/2 APIs.

Each API behaves as API-Bank's ``apis/*.py`` class does — the same checks in the
same order, the same messages, the same output shapes — over API-Bank's initial
databases (``init_database/*.json``). A ``World`` is one fresh copy of those
databases: API-Bank's evaluator builds a new ``ToolManager`` for every call it
judges, so a call is always served from the initial state, and APIs declared over
the same database share it (a token RegisterUser creates is seen by CheckToken).

``World.call`` returns API-Bank's result dict ``{"api_name", "input", "output",
"exception"}`` (CheckToken, DeleteAccount, ForgotPassword and RegisterUser leave out
``api_name``, as in API-Bank). An exception inside the API becomes its message in
``exception``, exactly as API-Bank's ``call`` wrappers do.

Offline stand-ins (documented in docs/api-bank.md): Dictionary and Translate call web
services in API-Bank; here they answer only inputs recorded in the data set (others
fail with "Failed."). SearchEngine ranks with BM25 (Okapi, k1=1.5, b=0.75, ε=0.25,
as ``rank_bm25``) over a regex word tokenizer instead of NLTK's ``word_tokenize``.
Randomness (appointment IDs, new tokens) comes from a seeded ``random.Random``.

This module holds the world and the dispatch; the APIs themselves are grouped in
``api_account``, ``api_schedule``, ``api_health`` and ``api_services``, and what they
share (failures, API-Bank's date handling, BM25, call keys) in ``api_support``.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from . import api_account, api_health, api_schedule, api_services
from .api_support import Handler, fail

# CheckToken, DeleteAccount, ForgotPassword and RegisterUser return no api_name
_NO_API_NAME = {"CheckToken", "DeleteAccount", "ForgotPassword", "RegisterUser"}


class World:
    """One fresh copy of API-Bank's initial databases and the APIs over them."""

    def __init__(self, databases: dict[str, Any], seed: str = "", recorded: dict[str, Any] | None = None,
                 searcher: Callable[[Any], Any] | None = None):
        self._source = databases
        self.db: dict[str, Any] = {}  # tables copied on first use: most calls touch one or two
        self.rng = random.Random(f"planprobe/apibank/{seed}")
        self.recorded = recorded or {}  # canonical_input -> recorded result (offline web APIs)
        self.searcher = searcher
        self.verification_code: int | None = None
        self.reset_user: str | None = None
        self.bank_accounts: dict[int, dict[str, str]] = {0: {"account": "test", "password": "test", "name": "yifei"}}

    # -- the shared token check (API-Bank's CheckToken) ----------------------

    def username_of(self, token: Any) -> str:
        for username, account in self.table("Account").items():
            if account["token"] == token:
                return username
        raise fail("The token is invalid.")

    def table(self, name: str) -> Any:
        """A database table, copied from the initial databases on first use."""
        if name not in self.db:
            self.db[name] = copy.deepcopy(self._source.get(name, {}))
        return self.db[name]

    # -- dispatch --------------------------------------------------------------

    def call(self, api: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run ``api`` with already converted ``args``; always a result dict."""
        handler = _HANDLERS[api]
        inputs: Any = dict(args)
        if api == "GetToday":
            inputs = None
        output: Any = None
        exception: str | None = None
        try:
            output = handler(self, inputs if inputs is not None else {})
        except Exception as exc:  # noqa: BLE001  (API-Bank turns every failure into its message)
            exception = str(exc)
            output = None
        result: dict[str, Any] = {} if api in _NO_API_NAME else {"api_name": api}
        result.update({"input": inputs, "output": output, "exception": exception})
        return result


_HANDLERS: dict[str, Handler] = {
    **api_account.HANDLERS, **api_schedule.HANDLERS, **api_health.HANDLERS, **api_services.HANDLERS,
}


def implemented() -> set[str]:
    """The APIs with an implementation (the tests check it is the whole catalogue)."""
    return set(_HANDLERS)
