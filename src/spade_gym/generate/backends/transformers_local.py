"""Completions sampled from a local checkpoint with ``transformers``.

torch and transformers are imported when a backend is built, so importing this module stays cheap.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from spade_gym.errors import ConfigError
from spade_gym.generate.backends.base import BackendError, Completion, _check_request, _ContextManaged


class TransformersBackend(_ContextManaged):
    """Samples completions from a local checkpoint with ``transformers``.

    Meant for small models and for the CPU self-play preset; for large models serve them
    with an inference server and use :class:`OpenAIBackend`. Calls are serialised with a
    lock: one model cannot usefully run two ``generate`` calls at once.
    """

    name = "transformers"

    @staticmethod
    def required_arguments(model: str | None, base_url: str | None, options: dict) -> dict[str, Any]:
        if not model:
            raise ConfigError("the transformers backend needs model: a local checkpoint directory")
        return {"model_path": model}

    def __init__(
        self,
        model_path: str | Path,
        device: str | None = None,
        dtype: str | None = None,
        batch_size: int = 4,
    ):
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as exc:
            raise BackendError(
                "the transformers backend needs torch and transformers: "
                "pip install 'spade-gym[train]'") from exc
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        self._torch = torch
        self.model = str(model_path)
        self.batch_size = batch_size
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        torch_dtype = self._resolve_dtype(dtype)
        # A path that is not a directory may be a cached hub id; never go online for it.
        local_only = not Path(model_path).is_dir()
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(model_path, local_files_only=local_only)
            model = AutoModelForCausalLM.from_pretrained(
                model_path, dtype=torch_dtype, local_files_only=local_only)
        except (OSError, ValueError) as exc:
            raise BackendError(
                f"cannot load a causal LM checkpoint from {model_path}: {exc}") from exc
        # transformers types ``PreTrainedModel.to`` through a decorator that loses the bound self.
        self._model = model.to(self.device).eval()  # type: ignore[arg-type]
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self._lock = threading.Lock()

    def _resolve_dtype(self, dtype: str | None) -> Any:
        torch = self._torch
        if dtype is None:
            if self.device.startswith("cuda"):
                return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
            return torch.float32
        resolved = getattr(torch, dtype, None)
        if not isinstance(resolved, torch.dtype):
            raise ConfigError(
                f"unknown dtype {dtype!r}; use e.g. 'float32', 'bfloat16' or 'float16'")
        return resolved

    def format_prompt(self, messages: list[dict], tools: list[dict] | None = None) -> tuple[str, bool]:
        """Render ``messages`` as prompt text; also say whether it already has special tokens.

        Uses the tokenizer's chat template when it has one (with ``tools`` for a tool-use
        episode: the template describes them and how to call them); otherwise a plain
        ``Role: content`` transcript, so base checkpoints still work.
        """
        if getattr(self.tokenizer, "chat_template", None):
            if tools is not None:
                schemas: list[Any] = list(tools)  # the tokenizer's annotation wants list[dict | Callable]
                text = self.tokenizer.apply_chat_template(
                    _template_messages(messages), tools=schemas, tokenize=False, add_generation_prompt=True)
            else:
                text = self.tokenizer.apply_chat_template(
                    messages, tokenize=False, add_generation_prompt=True)
            if not isinstance(text, str):  # tokenize=False renders text; anything else is a tokenizer bug
                raise BackendError(f"{self.model}: the chat template rendered {type(text).__name__}, not text")
            return text, True
        lines = [f"{m['role'].capitalize()}: {m.get('content') or ''}" for m in messages]
        if tools is not None:
            listed = "\n".join(json.dumps(t, ensure_ascii=False) for t in tools)
            lines.insert(0, f"Tools (call one as <tool_call>{{\"name\": ..., \"arguments\": {{...}}}}</tool_call>):\n"
                            f"{listed}")
        return "\n\n".join(lines) + "\n\nAssistant:", False

    def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float = 0.7,
        max_tokens: int = 4096,
        seed: int | None = None,
    ) -> list[Completion]:
        _check_request(messages, n, max_tokens)
        return self.complete_batch([messages] * n, temperature=temperature, max_tokens=max_tokens, seed=seed)

    def complete_batch(
        self,
        conversations: list[list[dict]],
        *,
        temperature: float = 0.7,
        max_tokens: int = 1024,
        seed: int | None = None,
        tools: list[list[dict] | None] | None = None,
    ) -> list[Completion]:
        """One completion for each of several chats, generated together in batches of
        ``batch_size`` (left padding): ``n`` samples of one design prompt, or the next
        turn of many episodes at once (what an agent needs). ``tools`` gives each chat its
        tool schemas (None for a chat without tools).
        """
        if not conversations:
            return []
        torch = self._torch
        per_chat = list(tools) if tools is not None else [None] * len(conversations)
        texts, templated = zip(*(self.format_prompt(m, t) for m, t in zip(conversations, per_chat)))
        eos_ids = self._eos_ids()
        sampling: dict[str, Any] = {"do_sample": temperature > 0}
        if temperature > 0:
            sampling["temperature"] = temperature
        out: list[Completion] = []
        devices = [torch.device(self.device)] if self.device.startswith("cuda") else []
        side = self.tokenizer.padding_side
        with self._lock, torch.random.fork_rng(devices=devices), torch.inference_mode():
            if seed is not None:
                torch.manual_seed(seed)
            self.tokenizer.padding_side = "left"
            try:
                for start in range(0, len(texts), self.batch_size):
                    chunk = list(texts[start:start + self.batch_size])
                    # The template already contains the special tokens; adding them again
                    # would double the BOS of models that use one.
                    inputs = self.tokenizer(chunk, return_tensors="pt", padding=True,
                                            add_special_tokens=not templated[start])
                    inputs = {key: value.to(self.device) for key, value in inputs.items()}
                    prompt_len = int(inputs["input_ids"].shape[1])
                    output = self._model.generate(**inputs, max_new_tokens=max_tokens,
                                                  pad_token_id=self.tokenizer.pad_token_id,
                                                  eos_token_id=eos_ids, **sampling)
                    lengths = inputs["attention_mask"].sum(dim=1).tolist()
                    for row, length in zip(output[:, prompt_len:].tolist(), lengths):
                        stop = next((i for i, tok in enumerate(row) if tok in eos_ids), None)
                        generated = row if stop is None else row[:stop]
                        text = self.tokenizer.decode(generated, skip_special_tokens=True)
                        assert isinstance(text, str), "one sequence of ids decodes to one str"
                        out.append(Completion(text,
                                              prompt_tokens=int(length),
                                              completion_tokens=len(generated) + (stop is not None),
                                              finish_reason="length" if stop is None else "stop"))
            finally:
                self.tokenizer.padding_side = side
        return out

    def _eos_ids(self) -> list[int]:
        """End-of-turn ids: the generation config's (chat models list several), the tokenizer's."""
        configured = getattr(self._model.generation_config, "eos_token_id", None)
        candidates: list[Any] = configured if isinstance(configured, list) else [configured]
        ids: list[int] = [i for i in candidates if i is not None]
        if self.tokenizer.eos_token_id is not None and self.tokenizer.eos_token_id not in ids:
            ids.append(self.tokenizer.eos_token_id)
        if not ids:
            raise BackendError(f"{self.model} defines no end-of-sequence token; "
                               "set eos_token in its tokenizer or generation config")
        return ids

    def close(self) -> None:
        self._model = None
        if self.device.startswith("cuda"):
            self._torch.cuda.empty_cache()


def _template_messages(messages: list[dict]) -> list[dict]:
    """Chat messages for a chat template: tool-call arguments as objects (templates serialise
    them themselves; the OpenAI format carries them as JSON strings)."""
    out = []
    for message in messages:
        if message.get("tool_calls"):
            converted = []
            for call in message["tool_calls"]:
                function = dict(call.get("function") or {})
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    try:
                        function["arguments"] = json.loads(arguments) if arguments.strip() else {}
                    except ValueError:
                        pass  # not JSON: the template shows the model its own malformed text
                converted.append({**call, "function": function})
            message = {**message, "tool_calls": converted}
        out.append(message)
    return out
