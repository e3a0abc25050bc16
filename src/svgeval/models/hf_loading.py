"""Loading an ``hf:`` checkpoint: from a folder or the hub, with its tokenizer or processor.

A checkpoint whose configuration is a vision-language one (a model type of transformers'
image-text-to-text models, or a ``vision_config``) loads with ``AutoModelForImageTextToText``
and ``AutoProcessor``; any other with ``AutoModelForCausalLM`` and ``AutoTokenizer``. Whatever
stops it from loading (no such folder, a hub id that cannot be fetched, an architecture that is
not a generative one, custom code without ``trust_remote_code``, out of memory, no chat
template) raises :class:`ModelUnavailable` with one line, before any sample is asked.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import torch
import transformers

from svgeval.models.base import ModelUnavailable
from svgeval.models.checkpoint_options import HFOptions, first_line
from svgeval.models.hf import HFModel


def resolve_device(device: str) -> str:
    """``auto``: cuda when a GPU is visible, else mps, else cpu; another device is checked."""
    available = {"cpu": True, "cuda": torch.cuda.is_available(),
                 "mps": torch.backends.mps.is_available()}
    if device == "auto":
        return next(name for name in ("cuda", "mps", "cpu") if available[name])
    if not available[device]:
        raise ModelUnavailable(f"--model-arg device={device}: no {device} device is available")
    return device


def is_vision_language(config: Any) -> bool:
    """True for a configuration of an image-text-to-text model."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES

    return (config.model_type in MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES
            or getattr(config, "vision_config", None) is not None)


def load_hf_model(spec: str, source: str, options: HFOptions, default_batch_size: int) -> HFModel:
    """The ``hf:`` backend of ``source`` (a folder or hub id:
    :func:`~svgeval.models.in_process.checkpoint_source`) with ``options``."""
    remote = {"trust_remote_code": options.trust_remote_code}
    try:
        config = transformers.AutoConfig.from_pretrained(source, **remote)
        vision = is_vision_language(config)
        auto_model = (transformers.AutoModelForImageTextToText if vision
                      else transformers.AutoModelForCausalLM)
        placement: dict[str, Any] = (
            {"device_map": options.device_map} if options.device_map is not None else {}
        )
        device = None if options.device_map is not None else resolve_device(options.device)
        if options.attn_implementation is not None:
            placement["attn_implementation"] = options.attn_implementation
        model: Any = auto_model.from_pretrained(source, dtype=options.dtype, **placement, **remote)
        if device is not None:
            model.to(device)
        processor = (transformers.AutoProcessor if vision
                     else transformers.AutoTokenizer).from_pretrained(source, **remote)
    except ModelUnavailable:
        raise
    except torch.OutOfMemoryError:
        raise ModelUnavailable(
            f"{spec}: out of memory loading the weights; try --model-arg dtype=bfloat16, "
            "device_map=auto, or a smaller checkpoint"
        ) from None
    except (OSError, ValueError, KeyError, ImportError, RuntimeError) as error:
        if not options.trust_remote_code and "custom code" in str(error):
            raise ModelUnavailable(
                f"{spec}: the checkpoint brings its own Python code; run it only if you trust it, "
                "with --model-arg trust_remote_code=true"
            ) from None
        raise ModelUnavailable(f"{spec}: cannot load the checkpoint ({first_line(error)})") from None
    if options.chat_template is not None:
        try:
            processor.chat_template = options.chat_template.read_text(encoding="utf-8")
        except OSError as error:
            raise ModelUnavailable(f"{spec}: cannot read the chat template: {error}") from None
    if not getattr(processor, "chat_template", None):
        raise ModelUnavailable(
            f"{spec}: the checkpoint has no chat template; give one with "
            "--model-arg chat_template=FILE.jinja"
        )
    model.eval()
    return HFModel(
        model, processor, spec=spec, batch_size=options.batch_size or default_batch_size,
        max_new_tokens=options.max_new_tokens,
        details={"source": source, "transformers": transformers.__version__,
                 "model_args": {key: str(value) for key, value in asdict(options).items()
                                if value != getattr(HFOptions(), key)}},
    )
