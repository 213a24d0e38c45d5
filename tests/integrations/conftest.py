"""LiteLLM fetches its price table from the network when imported unless told not to; the
tests never reach the network, whichever test imports it first."""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
