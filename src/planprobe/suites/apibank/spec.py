"""What an API-Bank case is, for the family and the importer alike: the family names, the spec
version, the kinds of case per level, API-Bank's call syntax, and the level-3 tools. A module of its
own so that the family (its environment and oracle) never imports the importer
(``importers/apibank``), which builds cases with these.
"""

from __future__ import annotations

import json
from typing import Any

from ...schema import ToolSpec
from .catalog import tool_spec

FAMILY = "apibank"
RESPONSE_FAMILY = "apibank-response"
SPEC_VERSION = 1
KINDS = {1: ("api", "response"), 2: ("api", "response"), 3: ("step", "response", "run")}


def call_text(api: str, args: dict[str, Any] | None) -> str:
    """A call in API-Bank's bracket syntax (shown to agents as history)."""
    inner = ", ".join(f"{k}='{v}'" if isinstance(v, str) else f"{k}={json.dumps(v, ensure_ascii=False)}"
                      for k, v in (args or {}).items())
    return f"[{api}({inner})]"


L3_TOOLSEARCHER = {"name": "ToolSearcher",
                   "description": "Searches for relevant tools in library based on the keyword.",
                   "input_parameters": {"keywords": {"type": "str", "description": "The keyword to search for."}},
                   "output_parameters": {"best_matchs": {"type": "Union[List[dict], dict]",
                                                         "description": "The best match tool(s)."}}}


def level3_tool(d: dict[str, Any]) -> ToolSpec:
    """A level-3 API as a tool: API-Bank does not record which parameters its level-3
    APIs require, so none is required."""
    return tool_spec({**d, "required": []})
