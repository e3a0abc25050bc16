"""One answer of a run: asked of the model as a :class:`ResponseRecord` (the answer, or the
request's failure), and the failure its scored record carries."""

from __future__ import annotations

from svgeval.models.base import AnswerMissing, GenerationRequest, Model, ModelError
from svgeval.runner.identity import prompt_hash
from svgeval.runner.reask import ask_until_complete
from svgeval.runner.records import ResponseRecord, Timing, Usage
from svgeval.runner.run_config import RunSettings
from svgeval.runner.units import WorkUnit, epoch_seed
from svgeval.tasks.base import Sample, Task
from svgeval.tasks.outcome import Failure, FailureKind


async def answer_of(model: Model, task: Task, settings: RunSettings, unit: WorkUnit,
                    sample: Sample) -> ResponseRecord | None:
    """``model``'s answer to ``sample`` in ``unit``'s epoch (asked again as the task's
    protocol says), its failure, or None when it has no answer (AnswerMissing)."""
    digest = prompt_hash(sample)
    request = GenerationRequest(
        sample_id=sample.id,
        messages=sample.messages,
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        seed=epoch_seed(settings.seed, unit.epoch),
        input_svg=sample.input_svg,
        reference=sample.reference,
    )
    try:
        generation = await ask_until_complete(model, request, task)
    except AnswerMissing:
        return None
    except ModelError as error:
        return ResponseRecord(
            id=sample.id,
            epoch=unit.epoch,
            prompt_hash=digest,
            error=str(error),
            timing=Timing(attempts=error.attempts, total_s=error.total_s),
        )
    return ResponseRecord(
        id=sample.id,
        epoch=unit.epoch,
        prompt_hash=digest,
        response=generation.text,
        usage=Usage.reported(generation.usage),
        timing=Timing(
            attempts=generation.attempts,
            total_s=generation.total_s or generation.latency_s,
            last_attempt_s=generation.latency_s,
        ),
        finish_reason=generation.finish_reason,
    )


def answer_failure(failure: Failure | None, answer: ResponseRecord,
                   max_tokens: int | None) -> Failure | None:
    """The failure of a scored answer: a request that failed for good is the model's error
    (it was scored as an empty answer, so the task's failure values apply), and a model failure
    of an answer the server cut off is a ``truncated`` one."""
    if answer.error is not None:
        failure = Failure(kind=FailureKind.MODEL_ERROR, detail=answer.error)
    if failure is None or not failure.is_models or answer.finish_reason != "length":
        return failure
    limit = f"--max-tokens {max_tokens}" if max_tokens else "the server's token limit"
    return Failure(
        kind=FailureKind.TRUNCATED,
        detail=f"answer cut off by {limit}: raise --max-tokens ({failure.tag}: {failure.detail})",
    )
