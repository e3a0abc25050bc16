"""``svgeval run``'s flags as one :class:`RunRequest`: its defaults are the command's, its check
refuses each wrong value with one line naming the flag, and its settings are the run's."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import pytest

from svgeval.cli.errors import UserError
from svgeval.cli.request import RunRequest
from svgeval.cli.run import run
from svgeval.runner import RunSettings
from svgeval.runner.run_config import Shard

FIELD_OF_FLAG = {"set_": "sets", "model_arg": "model_args", "model_path": "model_paths"}
"""The run parameters whose request field has another name (repeatable flags: lists)."""


def test_the_request_has_a_field_for_each_flag_with_the_command_s_default() -> None:
    fields = {field.name: field for field in dataclasses.fields(RunRequest)}
    parameters = inspect.signature(run).parameters
    assert {FIELD_OF_FLAG.get(name, name) for name in parameters} == set(fields)
    for name, parameter in parameters.items():
        field = fields[FIELD_OF_FLAG.get(name, name)]
        if parameter.default is inspect.Parameter.empty:
            assert field.default is dataclasses.MISSING, name
        elif name in FIELD_OF_FLAG:  # None on the command line, an empty list in the request
            assert parameter.default is None, name
            assert callable(field.default_factory) and field.default_factory() == [], name
        else:
            assert field.default == parameter.default, name


@pytest.mark.parametrize(("flags", "message"), [
    ({"limit": 0}, "--limit must be at least 1, got 0"),
    ({"timeout": 0.0}, "--timeout must be more than 0, got 0"),
    ({"first_token_timeout": -1.0}, "--first-token-timeout must be more than 0, got -1"),
    ({"temperature": 2.5}, "--temperature must be at most 2, got 2.5"),
    ({"temperature": -0.1}, "--temperature must be at least 0, got -0.1"),
    ({"renderer": "inkscape"}, "--renderer must be one of cairosvg, skia, resvg, got 'inkscape'"),
    ({"device": "tpu"}, "--device must be auto, cpu, cuda or mps, got 'tpu'"),
    ({"executor": "dask"}, "--executor must be one of local, ray, got 'dask'"),
    ({"ray_address": "auto"}, "--ray-address needs --executor ray"),
])
def test_check_names_the_flag_and_the_value(flags: dict[str, object], message: str) -> None:
    with pytest.raises(UserError) as refused:
        RunRequest(task="svgeditbench", **flags).check()  # type: ignore[arg-type]
    assert str(refused.value) == message


def test_a_malformed_shard_is_refused() -> None:
    with pytest.raises(ValueError, match="--shard expects INDEX/COUNT"):
        RunRequest(task="t", shard="2").check()
    RunRequest(task="t", shard="1/2", executor="ray", ray_address="auto").check()


def test_settings_carry_the_flags() -> None:
    request = RunRequest(task="t", temperature=0.7, shard="1/3", device="cpu",
                         render_cache=Path("cache"), epochs=2, renderer="skia")
    assert request.settings(None) == RunSettings(
        temperature=0.7, seed=0, concurrency=8, timeout_s=120.0, render_timeout_s=10.0,
        renderer="skia", render_cache="cache", device="cpu", epochs=2,
        shard=Shard(index=1, count=3))
    assert request.settings(30.0).render_timeout_s == 30.0  # the task's protocol
    omitted = RunRequest(task="t", omit_temperature=True, render_timeout=5.0, device="auto")
    assert omitted.settings(30.0).temperature is None
    assert omitted.settings(30.0).render_timeout_s == 5.0 and omitted.settings(30.0).device is None
