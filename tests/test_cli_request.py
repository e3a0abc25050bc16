"""A run as one :class:`RunRequest`: the command's flags are its fields, with its defaults (the
flags read them from :data:`DEFAULTS`, no second copy); its constraints refuse each wrong value
with one line naming the flag; and the one builder gives its settings to the runner."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic_core import PydanticUndefined

from svgeval.cli.run import REPEATED, run
from svgeval.render.backends import RENDERERS
from svgeval.render.forkserver import DEFAULT_RENDERER
from svgeval.run_request import DEFAULTS, Renderer, RunRequest, Shard, checked
from svgeval.runner import RunSettings
from svgeval.runner.build import settings_of


def test_the_request_has_a_field_for_each_flag_with_the_command_s_default() -> None:
    fields = RunRequest.model_fields
    parameters = inspect.signature(run).parameters
    named = {REPEATED[name][0] if name in REPEATED else name: p for name, p in parameters.items()}
    assert set(named) == set(fields)
    for name, parameter in named.items():
        default = fields[name].get_default(call_default_factory=True)
        if parameter.default is inspect.Parameter.empty:
            assert default is PydanticUndefined, name
        elif name in ("options", "model_args", "model_paths"):  # repeated: None, or a dict
            assert parameter.default is None and default == {}, name
        else:
            assert parameter.default == default, name
    assert DEFAULTS.model_dump() == RunRequest(task="t").model_dump(exclude={"task"})


def test_the_renderers_are_the_render_layer_s() -> None:
    """The render layer names its renderers and its default for the render workers, which start
    before anything else (without pydantic): the request's must be the same."""
    assert get_args(Renderer) == RENDERERS and DEFAULTS.renderer == DEFAULT_RENDERER


@pytest.mark.parametrize(("flags", "message"), [
    ({"limit": 0}, "--limit must be at least 1, got 0"),
    ({"timeout": 0.0}, "--timeout must be more than 0, got 0"),
    ({"first_token_timeout": -1.0}, "--first-token-timeout must be more than 0, got -1"),
    ({"temperature": 2.5}, "--temperature must be at most 2, got 2.5"),
    ({"temperature": -0.1}, "--temperature must be at least 0, got -0.1"),
    ({"judge_concurrency": 0}, "--judge-concurrency must be at least 1, got 0"),
    ({"renderer": "inkscape"}, "--renderer must be one of cairosvg, skia, resvg, got 'inkscape'"),
    ({"device": "tpu"}, "--device must be one of auto, cpu, cuda, mps, got 'tpu'"),
    ({"precision": "fp64"}, "--precision must be one of fp32, bf16, fp16, got 'fp64'"),
    ({"executor": "dask"}, "--executor must be one of local, ray, got 'dask'"),
    ({"ray_address": "auto"}, "--ray-address needs --executor ray"),
    ({"judge_base_url": "http://h/v1"}, "--judge-base-url needs --judge MODEL"),
    ({"shard": "2"}, "--shard expects INDEX/COUNT such as 0/2, got '2'"),
    ({"shard": "2/2"}, ("--shard 2/2: INDEX must be 0 to COUNT-1 and COUNT at least 1 "
                        "(e.g. 0/2 and 1/2)")),
    ({"limit": "all"}, ("--limit: input should be a valid integer, unable to parse string as an "
                        "integer, got 'all'")),
])
def test_a_wrong_value_is_one_line_naming_the_flag(flags: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as refused:
        checked(RunRequest, task="svgeditbench", **flags)
    assert str(refused.value) == message


def test_a_shard_is_read_as_written() -> None:
    request = checked(RunRequest, task="t", shard="1/2", executor="ray", ray_address="auto")
    assert request.shard == Shard(index=1, count=2)


def test_settings_carry_the_flags() -> None:
    request = RunRequest(task="t", temperature=0.7, shard="1/3", device="cpu",  # type: ignore[arg-type]
                         render_cache=Path("cache"), epochs=2, renderer="skia")
    assert settings_of(request, None) == RunSettings(
        temperature=0.7, seed=0, concurrency=8, timeout_s=120.0, render_timeout_s=10.0,
        renderer="skia", render_cache="cache", device="cpu", epochs=2,
        shard=Shard(index=1, count=3))
    assert settings_of(request, 30.0).render_timeout_s == 30.0  # the task's protocol
    omitted = RunRequest(task="t", omit_temperature=True, render_timeout=5.0, device="auto")
    assert settings_of(omitted, 30.0).temperature is None
    assert settings_of(omitted, 30.0).render_timeout_s == 5.0
    assert settings_of(omitted, 30.0).device is None
