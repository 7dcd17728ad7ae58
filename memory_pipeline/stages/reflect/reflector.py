"""The Reflector stage: build its messages, validate compression, escalate guidance, parse.

Rendering of observations lives in reflect_input.py and parsing in reflect_parser.py; both are
re-exported here. `reflect_observations` takes the LLM client as an argument (no I/O here).
"""

from __future__ import annotations

from memory_pipeline.errors import MemoryPipelineError
from memory_pipeline.models import LLMUsage, Observation, Reflection, ReflectorOutput
from memory_pipeline.prompts import Prompt
from memory_pipeline.stages.reflect.input import (
    REDISTILL_AFTER_DAYS,
    ReflectorInput,
    age_days,
    needs_redistill,
    redistill,
    render_observations,
)
from memory_pipeline.stages.reflect.parser import looks_like_reflection, parse_reflector_output
from memory_pipeline.stages.tokens import estimate_tokens

__all__ = [
    "GUIDANCE",
    "REDISTILL_AFTER_DAYS",
    "age_days",
    "build_reflector_messages",
    "needs_redistill",
    "parse_reflector_output",
    "redistill",
    "reflect_observations",
    "render_observations",
    "render_reflector_output",
    "validate_compression",
]

# Appended to the user prompt on each retry; "Compression level N" is also what the offline
# reflector reads to know how hard to compress.
GUIDANCE: tuple[str, ...] = (
    "",
    "\nCompression level 1 of 3: your previous answer was not shorter than the observations. "
    "Aim for 8/10 detail: merge related proposals more aggressively, especially from distilled "
    "observations, and keep each line to one sentence.\n",
    "\nCompression level 2 of 3: your answer must be much shorter. Aim for 6/10 detail: propose "
    "only from 🔴 facts and the single most important 🟡 pattern; drop every 🟢 item.\n",
    "\nCompression level 3 of 3: last attempt. Propose at most five lines, only Hard Rules, User "
    "preferences and System Architecture facts from 🔴 observations, each under 25 words, and a "
    "one-sentence summary.\n",
)


def validate_compression(input_tokens: int, output_tokens: int) -> bool:
    """The reflection must be smaller than what it reflects on."""
    return output_tokens < input_tokens


def build_reflector_messages(
    prompt: Prompt, *, observer_instructions: str, memory_md: str, observations: str, day: str, level: int = 0
) -> tuple[str, str]:
    """(system, user) for the Reflector at a guidance level, rendered strictly from the prompt file."""
    if not 0 <= level < len(GUIDANCE):
        raise MemoryPipelineError(f"guidance level {level} out of range 0..{len(GUIDANCE) - 1}")
    return prompt.render(
        observer_instructions=observer_instructions.strip(),
        memory_md=memory_md.strip() or "(empty)",
        observations=observations,
        date=day,
        guidance=GUIDANCE[level],
    )


def render_reflector_output(output: ReflectorOutput) -> str:
    """The tagged text of an output: what its size is measured on after trimming."""
    sections: dict[str, list[str]] = {}
    for draft in output.proposals:
        refs = f" [{', '.join(draft.refs)}]" if draft.refs else ""
        quoted = "[quoted] " if draft.quotes_transcript else ""
        sections.setdefault(draft.section, []).append(f"- {quoted}{draft.text}{refs}")
    body = "\n\n".join(f"## Proposed for: {name}\n" + "\n".join(lines) for name, lines in sections.items())
    return f"<proposals>\n{body}\n</proposals>\n\n<summary>\n{output.summary}\n</summary>\n"


def _trim_to_fit(output: ReflectorOutput, input_tokens: int) -> ReflectorOutput:
    """Keep proposals in order while the rendered answer stays smaller than the input."""
    kept = output.model_copy(update={"proposals": []})
    for draft in output.proposals:
        candidate = kept.model_copy(update={"proposals": [*kept.proposals, draft]})
        if not validate_compression(input_tokens, estimate_tokens(render_reflector_output(candidate))):
            break
        kept = candidate
    return kept


def reflect_observations(
    observations: list[Observation],
    *,
    day: str,
    memory_md: str,
    observer_instructions: str,
    llm,
    prompt: Prompt,
    model: str,
    distilled_ids: set[str] | None = None,
    start_level: int = 0,
) -> tuple[Reflection, list[str]]:
    """Reflect with escalating guidance until the answer is smaller than the observations.

    Returns the Reflection and notes (one per failed compression attempt, and a final note when
    even the last level was too large and the proposals were trimmed to fit).
    """
    distilled_ids = distilled_ids or set()
    rendered: ReflectorInput = render_observations(observations, distilled_ids)
    reflection = Reflection(date=day, observation_ids=rendered.observation_ids, sessions=rendered.sessions,
                            redistilled_ids=sorted(distilled_ids & set(rendered.observation_ids)),
                            code_version=prompt.code_version(model))
    if not observations:
        return reflection, []
    input_tokens = estimate_tokens(rendered.text)

    def validate(raw: str) -> tuple[str, ReflectorOutput]:
        if not looks_like_reflection(raw):
            raise ValueError("no <proposals> or <summary> block and no proposal lines")
        return raw, parse_reflector_output(raw, rendered.refs)

    usage, notes = LLMUsage(), []
    output, output_tokens, level = ReflectorOutput(), 0, start_level
    for level in range(start_level, len(GUIDANCE)):
        system, user = build_reflector_messages(prompt, observer_instructions=observer_instructions,
                                                memory_md=memory_md, observations=rendered.text, day=day, level=level)
        (raw, output), call_usage = llm.complete(task="reflector", model=model, system=system, prompt=user,
                                                 validate=validate)
        usage = usage + call_usage
        reflection.attempts += 1
        output_tokens = estimate_tokens(raw)
        if validate_compression(input_tokens, output_tokens):
            break
        notes.append(f"level {level}: output {output_tokens} tokens >= input {input_tokens}")
    else:
        output = _trim_to_fit(output, input_tokens)
        output_tokens = estimate_tokens(render_reflector_output(output))
        notes.append(f"every guidance level was too large; kept {len(output.proposals)} proposals that fit")
    reflection.proposals = output.proposals
    reflection.summary = output.summary
    reflection.input_tokens, reflection.output_tokens = input_tokens, output_tokens
    reflection.guidance_level, reflection.usage = level, usage
    return reflection, notes
