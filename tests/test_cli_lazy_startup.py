"""Start-up (issue #30): the root lists every command from a light table (cli/lazy.py) and
imports a command's module only when that command runs; ``import planprobe`` loads nothing
else; the OpenAI-compatible backend needs no ``openai`` SDK. Checked by what gets imported,
never by timing."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import typer

from helpers import subprocess_env

TESTS = __import__("pathlib").Path(__file__).resolve().parent
# heavy third-party modules and command modules that ``planprobe run --help`` must not load
HEAVY = ("openai", "httpx", "httpcore", "aiohttp", "z3", "numpy", "matplotlib", "ray", "litellm", "mcp",
         "inspect_ai", "llama_cpp", "urllib.request")


def _loaded_after(code: str) -> list[str]:
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    env = {k: v for k, v in subprocess_env().items() if not k.lower().endswith("_proxy")}  # a proxy means the SDK
    r = subprocess.run([sys.executable, "-c", probe], check=False, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-1500:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_run_help_loads_no_other_command_and_no_heavy_module():
    loaded = _loaded_after(
        "from typer.testing import CliRunner\nfrom planprobe.cli.root import app\n"
        "r = CliRunner().invoke(app, ['run', '--help'])\nassert r.exit_code == 0, r.output\n"
        "assert '--concurrency' in r.output")
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY or m in HEAVY]
    assert not heavy, heavy
    commands = {m for m in loaded if m.startswith("planprobe.cli.")} - {
        "planprobe.cli.root", "planprobe.cli.lazy", "planprobe.cli.common", "planprobe.cli.options",
        "planprobe.cli.run", "planprobe.cli.show"}  # run shows its summary with show's function
    assert not commands, sorted(commands)


def test_import_planprobe_loads_only_its_version():
    loaded = _loaded_after("import planprobe\nassert planprobe.__version__")
    assert [m for m in loaded if m.startswith("planprobe")] == ["planprobe", "planprobe.version"]
    assert "pydantic" not in loaded


def test_every_public_name_of_the_package_resolves():
    import planprobe

    for name in planprobe.__all__:
        assert getattr(planprobe, name) is not None, name
    assert set(planprobe.__all__) <= set(dir(planprobe))


def test_the_light_table_lists_each_command_as_its_module_registers_it():
    """Names, order, owning module and the help line --help shows: from the table, and from the
    commands themselves (every module loaded)."""
    from planprobe.cli.lazy import COMMANDS, load_command

    for name, module, line in COMMANDS:
        command = load_command(name)
        assert command is not None, name
        first = inspect.cleandoc(command.short_help or command.help or "").split("\n\n")[0].replace("\n", " ")
        assert first.strip() == line, f"cli/lazy.py: update the help line of {name!r} to {first.strip()!r}"
        if module:
            holder = typer.Typer()
            __import__(f"planprobe.cli.{module}", fromlist=["register"]).register(holder)
            assert name in typer.main.get_group(holder).commands, (name, module)


def test_the_root_help_lists_every_command_without_loading_them():
    from planprobe.cli.lazy import COMMANDS

    loaded = _loaded_after(
        "from typer.testing import CliRunner\nfrom planprobe.cli.root import app\n"
        "r = CliRunner().invoke(app, ['--help'], env={'COLUMNS': '300'})\nassert r.exit_code == 0, r.output")
    commands = {m for m in loaded if m.startswith("planprobe.cli.")} - {
        "planprobe.cli.root", "planprobe.cli.lazy", "planprobe.cli.common"}
    assert not commands, sorted(commands)
    from typer.testing import CliRunner

    from planprobe.cli.root import app

    out = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "300"}).output
    positions = [out.index(f"│ {name} ") for name, _, _ in COMMANDS]  # a row of the commands panel
    assert positions == sorted(positions)
    for _, _, line in COMMANDS:
        assert line[:60] in out


def test_an_openai_compatible_call_loads_no_openai_sdk():
    loaded = _loaded_after(
        f"import asyncio, sys\nsys.path.insert(0, {str(TESTS)!r})\n"
        "from http_faults import ScriptedServer, always, chat_reply\n"
        "from planprobe.models import ModelOptions, make_model\nfrom planprobe.models.base import ChatParams\n"
        "from planprobe.schema import Message\n"
        "with ScriptedServer(always(lambda: chat_reply('hi'))) as server:\n"
        "    m = make_model('openai:m', ModelOptions(base_url=server.url, cache=False))\n"
        "    async def go():\n"
        "        try:\n"
        "            return await m.chat([Message(role='user', content='x')], None, ChatParams())\n"
        "        finally:\n"
        "            await m.aclose()\n"
        "    assert asyncio.run(go()).message.content == 'hi'")
    assert not [m for m in loaded if m.split(".")[0] in ("openai", "httpx", "httpcore", "aiohttp")]
