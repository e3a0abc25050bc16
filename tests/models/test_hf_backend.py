"""``hf:``: answers of a tiny Llama chat model against transformers' own ``generate``, batching,
seeded sampling, stops, and checkpoints that cannot load."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.tiny_chat_models import END_ID, build_chat_llm

from svgeval.models import Generation, GenerationRequest, ModelError, ModelUnavailable, load_model
from svgeval.models.local_inputs import sample_seed

from .local_helpers import answer_all, chat, settle_all

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from svgeval.models.hf import HFModel

PROMPTS = [
    "Change the color of the icon to red.",
    '<svg width="72" height="72"><circle cx="36" cy="36" r="30" fill="red"/></svg>',
    "Answer with the SVG code in a ```svg block.",
    "a",
    "Change the color of the icon to red. " * 6,
]


def requests(**fields: Any) -> list[GenerationRequest]:
    return [GenerationRequest(f"s{i}", chat(text), **fields) for i, text in enumerate(PROMPTS)]


def hf(folder: Path, **model_args: Any) -> HFModel:
    """The ``hf:`` model of ``folder``, waiting long enough for the requests sent together
    that they always make one batch, however busy the machine."""
    model = load_model(f"hf:{folder}", model_args={k: str(v) for k, v in model_args.items()})
    assert isinstance(model, HFModel)
    model.queue.linger_s = 1.0
    return model


def test_greedy_answers_equal_a_hand_written_generate_call(tiny_chat_llm: Path) -> None:
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_chat_llm)
    reference = transformers.AutoModelForCausalLM.from_pretrained(tiny_chat_llm)
    answers = answer_all(hf(tiny_chat_llm), requests(max_tokens=12))
    for text, answer in zip(PROMPTS, answers, strict=True):
        ids = tokenizer.apply_chat_template(chat(text), add_generation_prompt=True,
                                            return_tensors="pt", return_dict=True)["input_ids"]
        out = reference.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=12,
                                 do_sample=False)[0, ids.shape[1]:].tolist()
        stop = out.index(END_ID) if END_ID in out else None
        assert answer.text == tokenizer.decode(out[:stop], skip_special_tokens=True)
        assert answer.usage == {"prompt_tokens": ids.shape[1],
                                "completion_tokens": len(out) if stop is None else stop + 1}
        assert answer.finish_reason == ("length" if stop is None else "stop")
        assert 0 < answer.latency_s <= answer.total_s


def test_batched_generation_equals_one_at_a_time(tiny_chat_llm: Path) -> None:
    for fields in ({"max_tokens": 10}, {"max_tokens": 10, "temperature": 1.0, "seed": 7}):
        batched, alone = hf(tiny_chat_llm), hf(tiny_chat_llm, batch_size=1)
        together = answer_all(batched, requests(**fields))
        one_by_one = answer_all(alone, requests(**fields))
        assert batched.queue.batches == [len(PROMPTS)] and alone.queue.batches == [1] * 5
        assert [a.text for a in together] == [a.text for a in one_by_one], fields
        assert [a.usage for a in together] == [a.usage for a in one_by_one]


def test_a_batch_holds_prompts_of_similar_length(tiny_chat_llm: Path) -> None:
    model = hf(tiny_chat_llm, batch_size=2)
    seen: list[list[int]] = []
    generate = model.model.generate

    def recording(**inputs: Any) -> Any:
        seen.append(inputs["attention_mask"].sum(dim=1).tolist())
        return generate(**inputs)

    model.model.generate = recording
    answer_all(model, requests(max_tokens=2))
    # how many requests one round takes depends on when they arrive; within a round, prompts
    # go shortest first (tests/models/test_batching.py fixes a round and checks its batches)
    assert sorted(map(len, seen)) == [1, 2, 2] and all(batch == sorted(batch) for batch in seen)


def test_sampling_follows_its_seed_per_sample_and_epoch(tiny_chat_llm: Path) -> None:
    """A hand-written sampling loop with the same per-sample generator draws the same tokens."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_chat_llm)
    reference = transformers.AutoModelForCausalLM.from_pretrained(tiny_chat_llm)
    [answer] = answer_all(hf(tiny_chat_llm), [GenerationRequest(
        "icon/7", chat(PROMPTS[0]), temperature=0.7, max_tokens=6, seed=3)])
    ids = tokenizer.apply_chat_template(chat(PROMPTS[0]), add_generation_prompt=True,
                                        return_tensors="pt", return_dict=True)["input_ids"]
    generator = torch.Generator().manual_seed(sample_seed(3, "icon/7"))
    drawn: list[int] = []
    with torch.no_grad():
        for _ in range(6):
            logits = reference(ids).logits[0, -1].float() / 0.7
            token = int(torch.multinomial(torch.softmax(logits, -1), 1, generator=generator))
            if token == END_ID:
                break
            drawn.append(token)
            ids = torch.cat([ids, torch.tensor([[token]])], dim=1)
    assert answer.text == tokenizer.decode(drawn, skip_special_tokens=True)
    again = answer_all(hf(tiny_chat_llm), requests(temperature=1.0, max_tokens=8, seed=3))
    other = answer_all(hf(tiny_chat_llm), requests(temperature=1.0, max_tokens=8, seed=4))
    first = answer_all(hf(tiny_chat_llm), requests(temperature=1.0, max_tokens=8, seed=3))
    assert [a.text for a in again] == [a.text for a in first]  # a rerun draws the same
    assert all(a.text != b.text for a, b in zip(again, other, strict=True))  # another epoch


def test_an_answer_stops_at_the_generation_configs_end_token(
    tiny_chat_llm: Path, tmp_path: Path
) -> None:
    """Declaring the third greedy token an end token stops the answer before it."""
    [long] = answer_all(hf(tiny_chat_llm), [requests(max_tokens=5)[0]])
    assert long.finish_reason == "length" and long.usage["completion_tokens"] == 5
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_chat_llm)
    ids = tokenizer.apply_chat_template(chat(PROMPTS[0]), add_generation_prompt=True,
                                        return_tensors="pt", return_dict=True)["input_ids"]
    reference = transformers.AutoModelForCausalLM.from_pretrained(tiny_chat_llm)
    out = reference.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=5,
                             do_sample=False)[0, ids.shape[1]:].tolist()
    end = out.index(out[2])  # the third token, or an earlier one equal to it
    folder = Path(shutil.copytree(tiny_chat_llm, tmp_path / "model"))
    config = json.loads((folder / "generation_config.json").read_text())
    (folder / "generation_config.json").write_text(
        json.dumps({**config, "eos_token_id": [END_ID, out[2]]}))
    [short] = answer_all(hf(folder), [requests(max_tokens=5)[0]])
    assert short.finish_reason == "stop" and short.usage["completion_tokens"] == end + 1
    assert short.text == tokenizer.decode(out[:end], skip_special_tokens=True)
    assert long.text == tokenizer.decode(out, skip_special_tokens=True)


def test_a_prompt_longer_than_the_context_fails_alone(tmp_path: Path) -> None:
    folder = build_chat_llm(tmp_path / "short", max_position_embeddings=24)
    answers = settle_all(hf(folder), [
        GenerationRequest("long", chat(PROMPTS[4]), max_tokens=30),
        GenerationRequest("short", chat("a"), max_tokens=30),
    ])
    assert isinstance(answers[0], ModelError) and "the model's context is 24" in str(answers[0])
    assert isinstance(answers[1], Generation)
    n_prompt = answers[1].usage["prompt_tokens"]
    # the answer is cut where the context ends, not at --max-tokens
    assert answers[1].usage["completion_tokens"] <= 24 - n_prompt


def test_generation_restores_every_modules_mode_and_the_gradient_state(
    tiny_chat_llm: Path,
) -> None:
    model = hf(tiny_chat_llm)
    model.model.train()
    model.model.model.embed_tokens.eval()  # a frozen part kept in eval mode while training
    model.model.lm_head.weight.requires_grad_(False)
    before = {name: module.training for name, module in model.model.named_modules()}
    grads = {name: p.requires_grad for name, p in model.model.named_parameters()}
    answer_all(model, requests(max_tokens=3, temperature=1.0))
    assert {name: module.training for name, module in model.model.named_modules()} == before
    assert {name: p.requires_grad for name, p in model.model.named_parameters()} == grads
    assert torch.is_grad_enabled()
    assert all(p.grad is None for p in model.model.parameters())


def test_the_report_says_how_the_model_ran(tiny_chat_llm: Path) -> None:
    model = hf(tiny_chat_llm, batch_size=4, dtype="float32")
    answer_all(model, requests(max_tokens=2))
    report = model.report()
    assert report["backend"] == "transformers" and report["model_class"] == "LlamaForCausalLM"
    assert (report["dtype"], report["device"], report["batch_size"]) == ("float32", "cpu", 4)
    assert (report["batches"], report["mean_batch"]) == (2, 2.5)
    assert report["model_args"] == {"dtype": "float32", "batch_size": "4"}  # those given


def test_a_text_model_takes_no_images_and_a_template_refusal_fails_alone(
    tiny_chat_llm: Path,
) -> None:
    model = hf(tiny_chat_llm)
    assert not model.accepts_images
    bad = GenerationRequest("bad", [{"role": "user", "content": 42}], max_tokens=2)
    answers = settle_all(model, [bad, requests(max_tokens=2)[0]])
    assert isinstance(answers[0], ModelError) and "could not be formatted" in str(answers[0])
    assert isinstance(answers[1], Generation)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda root: root / "missing", "no such folder"),
        (lambda root: root, "is a file; give the checkpoint's folder"),
        (lambda root: "someone/some-model", "cannot load the checkpoint (OSError"),
    ],
)
def test_a_checkpoint_that_cannot_be_found_is_one_line(
    tmp_path: Path, make: Any, message: str
) -> None:
    where = make(tmp_path)
    if where == tmp_path:
        where = tmp_path / "weights.bin"
        where.write_bytes(b"")
    with pytest.raises(ModelUnavailable) as raised:
        load_model(f"hf:{where}")
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_a_checkpoint_of_another_kind_is_one_line(tiny_dino_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="AutoModelForCausalLM") as raised:
        load_model(f"hf:{tiny_dino_dir}")
    assert "\n" not in str(raised.value)
    custom = tmp_path / "custom"
    custom.mkdir()
    (custom / "config.json").write_text(json.dumps({
        "model_type": "svg-writer", "auto_map": {"AutoConfig": "modeling.SvgWriterConfig"}}))
    with pytest.raises(ModelUnavailable, match="trust_remote_code") as raised:
        load_model(f"hf:{custom}")
    assert "\n" not in str(raised.value)


def test_a_tokenizer_without_a_chat_template_needs_one(tmp_path: Path) -> None:
    folder = build_chat_llm(tmp_path / "base")
    for path in folder.glob("*.jinja"):
        path.unlink()
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config.pop("chat_template", None)
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    with pytest.raises(ModelUnavailable, match="--model-arg chat_template=FILE.jinja"):
        load_model(f"hf:{folder}")
    template = tmp_path / "plain.jinja"
    template.write_text("{% for m in messages %}{{ m['content'] }}{% endfor %}")
    model = hf(folder, chat_template=template)
    [answer] = answer_all(model, [requests(max_tokens=2)[0]])
    assert answer.usage["prompt_tokens"] == len(model.tokenizer(PROMPTS[0])["input_ids"])


def test_running_out_of_memory_while_loading_is_one_line(
    tiny_chat_llm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def too_big(*args: Any, **kwargs: Any) -> Any:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB\nmore")

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", too_big)
    with pytest.raises(ModelUnavailable, match="out of memory loading the weights"):
        load_model(f"hf:{tiny_chat_llm}")


def test_running_out_of_memory_in_a_batch_answers_its_halves(tiny_chat_llm: Path) -> None:
    model = hf(tiny_chat_llm)
    generate = model.model.generate

    def small_memory(**inputs: Any) -> Any:
        if inputs["input_ids"].shape[0] > 2:
            raise torch.OutOfMemoryError("CUDA out of memory")
        return generate(**inputs)

    model.model.generate = small_memory
    answers = answer_all(model, requests(max_tokens=4))
    assert [a.text for a in answers] == [a.text for a in answer_all(hf(tiny_chat_llm, batch_size=1),
                                                                   requests(max_tokens=4))]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"dtipe": "float32"}, "unknown option 'dtipe' for hf; valid options: dtype="),
        ({"dtype": "float8"}, "--model-arg dtype=float8: choose one of auto, float32"),
        ({"batch_size": "0"}, "--model-arg batch_size=0: must be more than 0"),
        ({"batch_size": "many"}, "--model-arg batch_size=many: expected int"),
    ],
)
def test_model_args_are_typed(tiny_chat_llm: Path, args: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(")):
        load_model(f"hf:{tiny_chat_llm}", model_args=args)


def test_no_temperature_means_the_checkpoints_own(tiny_chat_llm: Path, tmp_path: Path) -> None:
    """``--omit-temperature``: greedy for a checkpoint that does not sample, its temperature
    for one whose generation_config samples."""
    greedy = answer_all(hf(tiny_chat_llm), requests(max_tokens=6))
    unset = answer_all(hf(tiny_chat_llm), requests(max_tokens=6, temperature=None))
    assert [a.text for a in unset] == [a.text for a in greedy]
    folder = Path(shutil.copytree(tiny_chat_llm, tmp_path / "sampling"))
    config = json.loads((folder / "generation_config.json").read_text())
    (folder / "generation_config.json").write_text(
        json.dumps({**config, "do_sample": True, "temperature": 0.7}))
    own = answer_all(hf(folder), requests(max_tokens=6, temperature=None, seed=1))
    explicit = answer_all(hf(tiny_chat_llm), requests(max_tokens=6, temperature=0.7, seed=1))
    assert [a.text for a in own] == [a.text for a in explicit] != [a.text for a in greedy]
