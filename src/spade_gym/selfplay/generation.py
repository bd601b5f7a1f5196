"""Every token a self-play iteration samples goes through one of these generators.

TRL's ``GRPOTrainer`` owns the generation machinery: a vLLM server (weights pushed to it
by TRL before each ``rollout_func`` call) or colocated vLLM engines, and otherwise the
training model unwrapped for generation by TRL's ``unwrap_model_for_generation``
(which gathers DeepSpeed ZeRO-3 shards). :func:`make_generator` picks the one the
trainer was configured with, so the GPU presets (``use_vllm=True``) really generate
with vLLM and the CPU presets go through the same entry point with transformers.

**Temperatures.** TRL recomputes every sample's log-probabilities at one temperature,
``GRPOConfig.temperature`` (the *loss temperature*). A sample drawn at another temperature
and reported with its sampling log-probabilities makes TRL's importance-sampling
correction collapse (sequence ratios of 1e-16 and below: the update learns nothing).
So the log-probabilities returned here are always those of the loss temperature:

* transformers: the raw logits are kept and scored at the loss temperature, whatever
  the sampling temperature was (equal to the sampling log-probabilities when the two
  temperatures agree, which the GPU presets ensure);
* vLLM: the engine reports log-probabilities of the distribution it sampled from, so a
  role's sampling temperature must equal the loss temperature
  (:func:`check_temperatures` refuses anything else before the run starts).

**Seeds: every sample of a call is its own draw.** A GRPO group is G samples of one
prompt (a design prompt; an agent task's first turn), and its advantages are zero unless
the samples differ. A call's ``seed`` (from the iteration's RNG, so a resumed iteration
draws the same) covers the whole call:

* transformers seeds torch once and generates the batch; rows draw from one random
  stream, so equal prompts give different samples;
* vLLM seeds each *request* on its own (``SamplingParams.seed``: the same prompt with the
  same seed gives the same completion), so one seed for the whole call would make every
  copy of a prompt the same sample. Sample ``i`` of a call gets its own seed instead,
  :func:`sample_seeds` ``(seed)[i]``: the colocated engine takes one ``SamplingParams``
  per prompt; the server applies one seed to every prompt of a ``/v1/completions``
  request, so each sample is its own request (sent concurrently; the server batches
  them). One rule for designs and agent turns alike: ``n=G`` on one request would only
  cover prompts that repeat (designs, first turns; later turns of a group differ) and
  would rest on how vLLM seeds an ``n>1`` request's children.

Requests are made per rank and never as collectives: ranks play different numbers of
turns, so a gathered generate call would deadlock. On the server path every rank first
waits for the main process's weight push (see :class:`VLLMServerGenerator`).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from spade_gym.errors import ConfigError


@dataclass
class Sample:
    completion_ids: list[int]
    #: Log-probability of each completion token under the loss temperature.
    logprobs: list[float]
    #: Whether generation stopped at an end-of-turn token (else it hit the token limit).
    finished: bool


class Generator(Protocol):
    """What the rollouts need from a generation backend.

    ``sample`` returns one completion per prompt; with a ``seed`` the call is reproducible,
    and its samples are independent draws even where prompts repeat (see the module
    docstring).
    """

    loss_temperature: float

    def session(self) -> contextlib.AbstractContextManager: ...

    def sample(self, prompts: list[list[int]], *, max_new_tokens: int, temperature: float,
               seed: int | None = None) -> list[Sample]: ...


#: Concurrent single-sample requests to the vLLM server (TRL's client pools 64 connections).
SERVER_CONCURRENCY = 64


def sample_seeds(seed: int, n: int) -> list[int]:
    """The per-request seeds of a call's ``n`` samples on the vLLM paths.

    Consecutive from a hashed base: distinct within a call, and calls with nearby seeds (an
    agent's turns: ``seed * 100_003 + call``) start far apart instead of sharing all but one
    stream. The same call gets the same seeds in any process (no Python ``hash``).
    """
    digest = hashlib.blake2b(f"spade-gym:sample-seeds:{int(seed)}".encode(), digest_size=8).digest()
    base = int.from_bytes(digest, "big") % 2**31
    return [(base + i) % 2**31 for i in range(n)]


def eos_ids(model_generation_config, tokenizer) -> list[int]:
    configured = getattr(model_generation_config, "eos_token_id", None)
    candidates = configured if isinstance(configured, list) else [configured]
    ids: list[int] = [int(i) for i in candidates if i is not None]
    if tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in ids:
        ids.append(tokenizer.eos_token_id)
    return ids


def _cut_at_eos(row: list[int], logps: list[float], stop_ids: list[int]) -> Sample:
    stop = next((i for i, token in enumerate(row) if token in stop_ids), None)
    end = len(row) if stop is None else stop + 1  # keep the end-of-turn token: it is a choice too
    return Sample(list(row[:end]), list(logps[:end]), stop is not None)


class TransformersGenerator:
    """``model.generate`` on the training model, unwrapped the way TRL does it.

    Works with a bare model too (``trainer=None``): the warm start and the tests use that.
    """

    def __init__(self, model, tokenizer, *, loss_temperature: float, trainer=None):
        self.base_model = model
        self.tokenizer = tokenizer
        self.loss_temperature = float(loss_temperature)
        self.trainer = trainer
        self._model: Any = None
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.eos_ids = eos_ids(getattr(model, "generation_config", None), tokenizer)

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        """Hold the unwrapped model for a whole iteration (one ZeRO-3 gather, not one per turn)."""
        if self._model is not None:
            yield
            return
        if self.trainer is None:
            self._model = self.base_model
            try:
                yield
            finally:
                self._model = None
            return
        from trl.models import unwrap_model_for_generation

        trainer = self.trainer
        with unwrap_model_for_generation(trainer.model_wrapped, trainer.accelerator,
                                         gather_deepspeed3_params=trainer.args.ds3_gather_for_generation) as model:
            self._model = model
            try:
                yield
            finally:
                self._model = None

    def sample(self, prompts: list[list[int]], *, max_new_tokens: int, temperature: float,
               seed: int | None = None) -> list[Sample]:
        import torch

        if not prompts:
            return []
        with self.session():
            model = self._model
            was_training = model.training
            model.eval()
            device = next(model.parameters()).device
            # fork_rng restores every generator it touched (CPU and the current accelerator),
            # so a seeded sample leaves the training RNG streams exactly as they were.
            devices = [device] if device.type == "cuda" else []
            try:
                with torch.no_grad(), torch.random.fork_rng(devices=devices, enabled=seed is not None):
                    if seed is not None:
                        torch.manual_seed(seed)
                    width = max(len(p) for p in prompts)
                    pad = self.tokenizer.pad_token_id
                    input_ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts], device=device)
                    attention = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=device)
                    out = model.generate(
                        input_ids=input_ids, attention_mask=attention, max_new_tokens=max(1, max_new_tokens),
                        do_sample=temperature > 0, temperature=temperature if temperature > 0 else None,
                        top_k=0, top_p=1.0, pad_token_id=pad, eos_token_id=self.eos_ids,
                        output_logits=True, return_dict_in_generate=True,
                    )
            finally:
                if was_training:
                    model.train()
        generated = out.sequences[:, width:]
        # Raw logits scored at the loss temperature: what TRL's recompute will see.
        logits = torch.stack(out.logits, dim=1).float() / self.loss_temperature
        chosen = torch.log_softmax(logits, dim=-1).gather(-1, generated.unsqueeze(-1)).squeeze(-1)
        return [_cut_at_eos(row, logps, self.eos_ids) for row, logps in zip(generated.tolist(), chosen.tolist())]


class VLLMServerGenerator:
    """Per-rank requests to TRL's vLLM server (``trl vllm-serve``); TRL pushes the weights.

    **Ranks wait for the push.** Before each ``rollout_func`` call TRL's ``sync_weights``
    streams the new weights to the server from the main process only, then resets the
    server's prefix cache (``VLLMGeneration.sync_weights``: ``update_named_params`` and
    ``reset_prefix_cache`` under ``is_main_process``); the other ranks only iterate the
    parameters (a collective under ZeRO-3/FSDP, nothing at all under DDP) and enter the
    rollout at once. A request they sent then would be served by a half-updated model, or
    from a cache of the old one. So the rollout's first act, before any request, is a
    barrier of every rank (:meth:`SpadeRollout._start_iteration
    <spade_gym.selfplay.rollout.SpadeRollout._start_iteration>`): the main process reaches
    it only after its push and cache reset returned.
    """

    def __init__(self, trainer, tokenizer, *, loss_temperature: float, client=None):
        self.trainer = trainer
        self.tokenizer = tokenizer
        self.loss_temperature = float(loss_temperature)
        self._client = client
        self.eos_ids = eos_ids(getattr(trainer.model, "generation_config", None), tokenizer)

    @property
    def client(self):
        if self._client is None:
            vllm = self.trainer.vllm_generation
            self._client = getattr(vllm, "vllm_client", None)
            if self._client is None:  # TRL opens the client (and the weight channel) on the main process only
                from trl.generation.vllm_client import VLLMClient

                base_url = vllm.server_base_url or f"http://{vllm.server_host}:{vllm.server_port}"
                self._client = VLLMClient(base_url=base_url, connection_timeout=vllm.server_timeout)
        return self._client

    def session(self):
        return contextlib.nullcontext()

    def sample(self, prompts: list[list[int]], *, max_new_tokens: int, temperature: float,
               seed: int | None = None) -> list[Sample]:
        if not prompts:
            return []
        client = self.client

        def request(batch: list[list[int]], extra: dict) -> list[Sample]:
            out = client.generate(prompts=[list(p) for p in batch], n=1, temperature=temperature, top_p=1.0,
                                  top_k=0, max_tokens=max(1, max_new_tokens), logprobs=0, generation_kwargs=extra)
            logprobs = out["logprobs"] or [[[float("nan")]] * len(ids) for ids in out["completion_ids"]]
            return [_cut_at_eos(ids, [lp[0] for lp in lps], self.eos_ids)
                    for ids, lps in zip(out["completion_ids"], logprobs)]

        if seed is None:  # unseeded: the server's own random stream already differs per sample
            return request(prompts, {})
        # The server applies a request's seed to every prompt in it: one request per sample.
        seeds = sample_seeds(seed, len(prompts))
        with ThreadPoolExecutor(max_workers=min(SERVER_CONCURRENCY, len(prompts))) as pool:
            replies = list(pool.map(lambda i: request([prompts[i]], {"seed": seeds[i]}), range(len(prompts))))
        return [reply[0] for reply in replies]


class VLLMColocateGenerator:
    """This rank's colocated vLLM engine (TRL's ``vllm_mode="colocate"``)."""

    def __init__(self, trainer, tokenizer, *, loss_temperature: float):
        self.trainer = trainer
        self.vllm = trainer.vllm_generation
        self.tokenizer = tokenizer
        self.loss_temperature = float(loss_temperature)
        self.eos_ids = eos_ids(getattr(trainer.model, "generation_config", None), tokenizer)
        self._awake = False

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        vllm = self.vllm
        if self._awake or not vllm.enable_sleep_mode:
            yield
            return
        if getattr(vllm, "_llm_weights_sleeping", False):
            vllm.sync_weights()  # sleep level 2 dropped the weights: push the current ones again
        vllm.llm.wake_up(tags=["kv_cache"])
        self._awake = True
        try:
            yield
        finally:
            vllm.llm.sleep(level=2)
            vllm._llm_weights_sleeping = True
            self._awake = False

    def sample(self, prompts: list[list[int]], *, max_new_tokens: int, temperature: float,
               seed: int | None = None) -> list[Sample]:
        if not prompts:
            return []
        from vllm import SamplingParams

        # One SamplingParams per prompt: vLLM seeds each request on its own, so a shared seed
        # would give every copy of a prompt the same completion.
        seeds = sample_seeds(seed, len(prompts)) if seed is not None else [None] * len(prompts)
        params = [SamplingParams(n=1, temperature=temperature, top_p=1.0, top_k=0,
                                 max_tokens=max(1, max_new_tokens), logprobs=0, seed=s) for s in seeds]
        with self.session():
            outputs = self.vllm.llm.generate([{"prompt_token_ids": list(p)} for p in prompts],
                                             sampling_params=params, use_tqdm=False)
        samples = []
        for output in outputs:
            completion = output.outputs[0]
            ids = list(completion.token_ids)
            logps = [entry[token].logprob for token, entry in zip(ids, completion.logprobs or [])]
            samples.append(_cut_at_eos(ids, logps or [float("nan")] * len(ids), self.eos_ids))
        return samples


def check_temperatures(*, use_vllm: bool, loss_temperature: float, role_temperatures: dict[str, float]) -> None:
    """vLLM reports log-probabilities at the sampling temperature: they must be the loss's."""
    if not use_vllm:
        return
    for role, temperature in role_temperatures.items():
        if abs(temperature - loss_temperature) > 1e-9:
            raise ConfigError(
                f"{role}_temperature={temperature} differs from temperature={loss_temperature} (the loss "
                "temperature): with vLLM the sampled log-probabilities must be the ones the loss uses, or TRL's "
                f"importance-sampling correction zeroes the update. Set {role}_temperature={loss_temperature}.")


def make_generator(trainer, tokenizer, *, loss_temperature: float) -> Generator:
    """The generation path the trainer is configured for (see the module docstring)."""
    if getattr(trainer, "use_vllm", False):
        mode = getattr(trainer.args, "vllm_mode", "server")
        if mode == "server":
            return VLLMServerGenerator(trainer, tokenizer, loss_temperature=loss_temperature)
        if mode == "colocate":
            if getattr(trainer.vllm_generation, "tensor_parallel_size", 1) > 1:
                raise ConfigError("self-play rollouts need vllm_tensor_parallel_size=1 in colocate mode (ranks play "
                                  "different numbers of turns; tensor-parallel generation is collective)")
            return VLLMColocateGenerator(trainer, tokenizer, loss_temperature=loss_temperature)
        raise ConfigError(f"unknown vllm_mode {mode!r}")
    model = trainer.accelerator.unwrap_model(trainer.model)
    return TransformersGenerator(model, tokenizer, loss_temperature=loss_temperature, trainer=trainer)
