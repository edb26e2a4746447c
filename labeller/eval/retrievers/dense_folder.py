"""What a project's model folder may hold, checked before sentence-transformers reads it.

A model folder committed to a repository is untrusted input like the rest of it, but its
loaders (sentence-transformers, transformers, tokenizers) take their settings from the
folder's own JSON files: a ``tokenizer_name_or_path``, a ``*_file`` or ``cache_dir`` key, a
``processor_kwargs`` entry or a loader keyword there makes them open files anywhere on the
machine; one number in ``config.json`` sets unbounded work; and a folder without weights
is loaded with freshly initialised ones. So, before any of those libraries sees the folder:

- **Only the files of a sentence-transformers folder, only the keys they hold.** Every
  ``.json`` file (hidden ones too) must be one the loaders read, listed in ``modules.json``'s
  layout, or ``data_config.json`` (its training-data list, which no loader reads); each is
  read with an allow-list of its keys: a string, list or object value only where a normal
  model has one (``model_type``, a special token, ...), checked; elsewhere finite numbers,
  booleans and null only (a number names no file). A key that names a file or folder (``*_file``,
  ``*_dir``, ``*_path``, ``cache_dir``, ``tokenizer_name_or_path``, ...) or is a loader
  keyword (``trust_remote_code``, ``model_kwargs``, ``quantization_config``, ...) is refused
  at any depth, whatever its value but null or ``{}`` (which set nothing). A refusal names
  the file and the key, never looks at the path a value names, and so reads the same
  whether that path exists or not.
- **Bounded architecture.** ``config.json``'s model type is one of ``ARCHITECTURES``; its
  layers, widths, positions and vocabulary are within ``BOUNDS`` (real MiniLM, mpnet, bge
  and e5 models are far inside them), and the parameters the config implies, counted on
  torch's ``meta`` device (no memory), at most ``MAX_PARAMETERS``.
- **Weights present, none initialised.** ``model.safetensors`` (labeller loads no pickled
  weights) holds a tensor of the right shape for every parameter the config implies (and
  a Dense module's folder its own ``model.safetensors``), so nothing is randomly
  initialised in its place.

Only the project's folders are checked: a model in the user's own Hugging Face cache or an
installed model package is the user's choice, as any installed code is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from labeller.diagnostics import shorten
from labeller.errors import InvalidInput
from labeller.io import parse_json, read_regular_file

MODULES_JSON = "modules.json"  # sentence-transformers' list of a model's modules and their folders
WEIGHTS = "model.safetensors"
MAX_JSON_BYTES = 1024 * 1024  # a model's settings file (all-MiniLM-L6-v2's largest, data_config.json: 40 kB)
MAX_TOKENIZER_JSON_BYTES = 64 * 1024 * 1024  # tokenizer.json holds the vocabulary (xlm-roberta's: 17 MB)
MAX_MODULES = 16
MAX_STRING = 1000  # a token, a prompt, a class name: a setting's string, not a document

# config.json's model types labeller loads, each with the names its config gives the sizes
# bounded below (distilbert has its own); any other type is refused.
_STANDARD = {"layers": "num_hidden_layers", "hidden": "hidden_size", "intermediate": "intermediate_size",
             "heads": "num_attention_heads", "positions": "max_position_embeddings", "vocabulary": "vocab_size"}
ARCHITECTURES = {
    "bert": _STANDARD, "mpnet": _STANDARD, "roberta": _STANDARD, "xlm-roberta": _STANDARD,
    "distilbert": {**_STANDARD, "layers": "n_layers", "hidden": "dim", "intermediate": "hidden_dim",
                   "heads": "n_heads"},
}
# The stated bounds. all-MiniLM-L6-v2: 6 layers, 384 wide, 1,536 intermediate, 12 heads, 512
# positions, 30,522 tokens; all-mpnet-base-v2 and bge-base: 12, 768, 3,072, 12, 514 / 512;
# bge-small: 12, 384; the large models: 24 layers, 1,024 wide; multilingual-e5: 250,002 tokens.
BOUNDS = {"layers": 48, "hidden": 4096, "intermediate": 16384, "heads": 64, "positions": 8192,
          "vocabulary": 500_000, "type_vocab_size": 16}
MAX_PARAMETERS = 600_000_000  # 2.4 GB of float32; multilingual-e5-large has 560 M, all-MiniLM-L6-v2 23 M

# sentence-transformers' modules labeller loads (old and new class paths), by kind.
MODULE_TYPES = {
    "sentence_transformers.models.Transformer": "transformer",
    "sentence_transformers.base.modules.transformer.Transformer": "transformer",
    "sentence_transformers.models.Pooling": "pooling",
    "sentence_transformers.sentence_transformer.modules.pooling.Pooling": "pooling",
    "sentence_transformers.models.Normalize": "normalize",
    "sentence_transformers.base.modules.normalize.Normalize": "normalize",
    "sentence_transformers.models.Dense": "dense",
    "sentence_transformers.base.modules.dense.Dense": "dense",
}
# A Dense module's activation is imported by name: only these torch classes.
ACTIVATIONS = {f"torch.nn.modules.{name}" for name in (
    "linear.Identity", "activation.Tanh", "activation.ReLU", "activation.GELU", "activation.Sigmoid")}

# A key naming a file or folder, at any depth of any file: the loaders would open what it names.
_PATH_KEY = re.compile(r"(?i)(_files?|_dirs?|_path|_folder|_name_or_path|^cache_dir)$")
# Loader keywords (from_pretrained's and sentence-transformers'): the project sets these, never the folder.
LOADER_KEYWORDS = frozenset({
    "trust_remote_code", "local_files_only", "use_safetensors", "revision", "code_revision", "token",
    "use_auth_token", "subfolder", "force_download", "proxies", "device_map", "max_memory", "from_tf", "from_flax",
    "ignore_mismatched_sizes", "output_loading_info", "low_cpu_mem_usage", "quantization_config",
    "attn_implementation", "_attn_implementation", "use_kernels", "kernel_config", "adapter_kwargs",
    "adapter_name", "auto_map", "model_kwargs", "processor_kwargs", "config_kwargs", "model_args", "tokenizer_args",
    "config_args", "key_mapping", "weights_only", "state_dict", "variant", "offload_state_dict",
    "tp_plan", "device_mesh", "custom_pipelines", "requirements",
})

Check = Callable[[Any], bool]


def _identifier(value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-]{0,199}", value) is not None


def _version(value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(r"[0-9][0-9A-Za-z.+\-]{0,49}", value) is not None


def _text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_STRING


def _one_of(*allowed: str) -> Check:
    return lambda value: value in allowed


def _token(value: Any) -> bool:
    """A special token: its text, or transformers' AddedToken record."""
    if isinstance(value, dict):
        return set(value) <= {"content", "single_word", "lstrip", "rstrip", "normalized", "special", "__type"} and \
            _text(value.get("content")) and value.get("__type", "AddedToken") == "AddedToken" and \
            all(isinstance(v, bool) for k, v in value.items() if k not in ("content", "__type"))
    return _text(value)


def _list_of(check: Check, most: int = 10_000) -> Check:
    return lambda value: isinstance(value, list) and len(value) <= most and all(check(v) for v in value)


def _map_of(check: Check, most: int = 100_000) -> Check:
    return lambda value: isinstance(value, dict) and len(value) <= most and \
        all(len(k) <= MAX_STRING and check(v) for k, v in value.items())


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _width(value: Any) -> bool:
    """A Dense module's side: its matrix is allocated before its weights are read."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= BOUNDS["hidden"]


def _empty(value: Any) -> bool:
    return value == {}


# Per file: the keys a normal model's file has whose value is a string, list or object, each
# with its check; ``scalars`` says whether any other key may hold a number, boolean or null.
CONFIG_KEYS: dict[str, Check] = {
    "model_type": _identifier, "architectures": _list_of(_identifier, 10),
    "_name_or_path": _text,  # informational: transformers sets it to the folder it loads from
    "hidden_act": _identifier, "position_embedding_type": _identifier, "transformers_version": _version,
    "dtype": _one_of("float32", "float16", "bfloat16"), "torch_dtype": _one_of("float32", "float16", "bfloat16"),
    "problem_type": _identifier, "tokenizer_class": _identifier, "id2label": _map_of(_text, 1000),
    "label2id": _map_of(_number, 1000), "activation": _identifier,
}
TOKENIZER_CONFIG_KEYS: dict[str, Check] = {
    **{name: _token for name in ("unk_token", "sep_token", "pad_token", "cls_token", "mask_token", "bos_token",
                                 "eos_token")},
    "added_tokens_decoder": _map_of(_token), "additional_special_tokens": _list_of(_token),
    "extra_special_tokens": lambda v: _list_of(_token)(v) or _map_of(_token)(v),
    "tokenizer_class": _identifier, "backend": _one_of("tokenizers", "sentencepiece"),
    "padding_side": _one_of("left", "right"), "truncation_side": _one_of("left", "right"),
    "truncation_strategy": _identifier, "never_split": _list_of(_text), "model_input_names": _list_of(_identifier, 10),
    "errors": _identifier, "sp_model_kwargs": _empty,
    # transformers writes these three on save and overwrites them on load with its own values
    "name_or_path": _text, "local_files_only": lambda v: isinstance(v, bool), "is_local": lambda v: isinstance(v, bool),
}
SENTENCE_BERT_KEYS: dict[str, Check] = {
    "max_seq_length": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 < v <= BOUNDS["positions"],
    "do_lower_case": lambda v: isinstance(v, bool), "transformer_task": _one_of("feature-extraction"),
    "modality_config": lambda v: isinstance(v, dict) and set(v) <= {"text"} and all(
        isinstance(m, dict) and set(m) == {"method", "method_output_name"} and _identifier(m["method"]) and
        _identifier(m["method_output_name"]) for m in v.values()),
    "module_output_name": _identifier, "unpad_inputs": lambda v: v is None or isinstance(v, bool),
    **{name: _empty for name in ("model_kwargs", "processor_kwargs", "config_kwargs", "model_args", "tokenizer_args",
                                 "config_args", "processing_kwargs")},
}
ST_CONFIG_KEYS: dict[str, Check] = {
    "__version__": _map_of(_version, 10), "prompts": _map_of(_text, 100),
    "default_prompt_name": lambda v: v is None or _text(v), "model_type": _one_of("SentenceTransformer"),
    "similarity_fn_name": lambda v: v is None or _one_of("cosine", "dot", "euclidean", "manhattan")(v),
}
SPECIAL_TOKENS_KEYS: dict[str, Check] = {
    **TOKENIZER_CONFIG_KEYS, "additional_special_tokens": _list_of(_token),
}
MODULE_CONFIG_KEYS: dict[str, dict[str, Check]] = {
    "pooling": {"pooling_mode": lambda v: _identifier(v) or _list_of(_identifier, 10)(v)},
    "normalize": {"module_input_name": _identifier, "module_output_name": _identifier},
    "dense": {"activation_function": lambda v: v in ACTIVATIONS, "module_input_name": _identifier,
              "module_output_name": _identifier, "in_features": _width, "out_features": _width},
}
TOKENIZER_JSON_KEYS = {"version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer",
                       "post_processor", "decoder", "model"}  # the tokenizers format: inline data, no file names

# The root files the loaders read, each with (its keys, whether other keys may hold scalars).
ROOT_FILES: dict[str, tuple[dict[str, Check], bool]] = {
    "config.json": (CONFIG_KEYS, True),
    "tokenizer_config.json": (TOKENIZER_CONFIG_KEYS, True),
    "special_tokens_map.json": (SPECIAL_TOKENS_KEYS, False),
    "config_sentence_transformers.json": (ST_CONFIG_KEYS, False),
    "added_tokens.json": ({}, True),  # token -> id
    # the Transformer module's settings, under its current name and the older ones it still reads
    **{f"sentence_{name}_config.json": (SENTENCE_BERT_KEYS, False)
       for name in ("bert", "roberta", "distilbert", "camembert", "albert", "xlm-roberta", "xlnet")},
}
NOT_READ = {"data_config.json"}  # sentence-transformers' training-data list: no loader opens it


def check_model_folder(folder: Path, files: list[str]) -> None:
    """Refuse a project's model folder (``files``: every file in it, relative) that could make
    the loaders read outside it, work past the bounds or initialise weights it lacks."""
    modules = _modules(folder)
    module_kinds = {m["path"]: MODULE_TYPES[m["type"]] for m in modules}
    for rel in files:
        if not rel.endswith(".json") or rel in (MODULES_JSON, "tokenizer.json") or rel in NOT_READ:
            continue
        parent = PurePosixPath(rel).parent.as_posix()
        if rel in ROOT_FILES:
            keys, scalars = ROOT_FILES[rel]
        elif PurePosixPath(rel).name == "config.json" and parent in module_kinds and parent != ".":
            keys, scalars = MODULE_CONFIG_KEYS.get(module_kinds[parent], {}), True
        else:
            raise _refuse(folder, rel, f"{rel} is not a file labeller lets a model folder hold (it reads "
                          f"{', '.join(sorted([*ROOT_FILES, MODULES_JSON, 'tokenizer.json']))} and each module's "
                          "config.json)")
        _check_keys(folder, rel, _read(folder, rel), keys, scalars)
    if "tokenizer.json" in files:
        tokenizer = _read(folder, "tokenizer.json", MAX_TOKENIZER_JSON_BYTES)
        if not isinstance(tokenizer, dict):
            raise _refuse(folder, "tokenizer.json", "is not a JSON object")
        for key in sorted(set(tokenizer) - TOKENIZER_JSON_KEYS):
            raise _refuse(folder, "tokenizer.json", f"key {key!r} is not one of a tokenizers file")
    for path, kind in sorted(module_kinds.items()):
        if kind in ("transformer", "dense") and f"{path}/{WEIGHTS}".lstrip("/") not in files:
            where = f"{path}/" if path else ""
            raise _refuse(folder, f"{where}{WEIGHTS}", f"is missing: the {kind} module's weights (labeller loads "
                          "safetensors weights only, and never initialises weights a model folder lacks)")
    if "config.json" not in files:
        raise _refuse(folder, "config.json", "is missing: the transformer's architecture")
    _check_architecture(folder, _read(folder, "config.json"))


def check_weights(folder: Path) -> None:
    """Refuse a model whose ``model.safetensors`` lacks a tensor (of the right shape) for any
    parameter its config implies, or whose parameters exceed ``MAX_PARAMETERS``: the model
    is built on torch's meta device, so neither the check nor a hostile config allocates
    memory. Run after ``check_model_folder`` (``AutoConfig`` reads only the checked
    ``config.json``), with sentence-transformers' dependencies installed."""
    import torch
    import transformers
    from safetensors import safe_open

    try:
        with torch.device("meta"):
            model = transformers.AutoModel.from_config(
                transformers.AutoConfig.from_pretrained(str(folder), local_files_only=True))
    except Exception as exc:  # transformers' own errors (heads not dividing the width, ...): not a model
        raise _refuse(folder, "config.json", f"does not describe a model transformers can build: "
                      f"{type(exc).__name__}: {shorten(str(exc), 200)}") from None
    params = dict(model.named_parameters())
    count = sum(p.numel() for p in params.values()) + sum(b.numel() for b in model.buffers())
    if count > MAX_PARAMETERS:
        raise _refuse(folder, "config.json", f"implies {count:,} parameters, above labeller's bound of "
                      f"{MAX_PARAMETERS:,} for a model folder")
    try:
        with safe_open(str(folder / WEIGHTS), framework="pt") as weights:
            shapes = {name: tuple(weights.get_slice(name).get_shape()) for name in weights.keys()}
    except Exception as exc:  # safetensors' own errors: all mean "not a weights file"
        raise _refuse(folder, WEIGHTS, f"is not a safetensors file: {shorten(str(exc), 200)}") from None
    prefix = getattr(model, "base_model_prefix", "")
    missing = [name for name, p in params.items()
               if shapes.get(name, shapes.get(f"{prefix}.{name}")) != tuple(p.shape)]
    if missing:
        raise _refuse(folder, WEIGHTS, f"has no tensor of the right shape for {len(missing)} of the model's "
                      f"{len(params)} parameters (first: {shorten(missing[0], 200)}); labeller never initialises "
                      "weights a model folder lacks")


def _modules(folder: Path) -> list[dict]:
    """``modules.json``'s entries, each a module labeller loads from a plain folder of the model.
    Without one (a bare transformers folder) sentence-transformers loads the folder as its
    Transformer and adds a mean pooling of its own."""
    if not (folder / MODULES_JSON).exists():
        return [{"path": "", "type": "sentence_transformers.models.Transformer"}]
    modules = _read(folder, MODULES_JSON)
    if not isinstance(modules, list) or not 0 < len(modules) <= MAX_MODULES:
        raise _refuse(folder, MODULES_JSON, f"is not a list of 1 to {MAX_MODULES} modules")
    paths = set()
    for i, module in enumerate(modules):
        where = f"module {i}"
        if not isinstance(module, dict):
            raise _refuse(folder, MODULES_JSON, f"{where} is not an object")
        for key in sorted(set(module) - {"idx", "name", "path", "type", "kwargs"}):
            raise _refuse(folder, MODULES_JSON, f"{where}: key {key!r} is not one of a module's")
        path, kind = module.get("path"), module.get("type")
        if kind not in MODULE_TYPES:
            raise _refuse(folder, MODULES_JSON, f"{where}: type {shorten(repr(kind), 200)} is not a module labeller "
                          f"loads ({', '.join(sorted(MODULE_TYPES))})")
        if not isinstance(path, str) or not (path == "" or re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,99}", path)) \
                or path in paths:
            raise _refuse(folder, MODULES_JSON, f"{where}: path {shorten(repr(path), 200)} is not a plain folder "
                          "name of the model (or \"\" for the model's own folder), once")
        if (path == "") != (MODULE_TYPES[kind] == "transformer"):
            raise _refuse(folder, MODULES_JSON, f"{where}: the transformer is the model's own folder (path \"\"), "
                          "every other module a folder of its own")
        if not (isinstance(module.get("name"), str) and re.fullmatch(r"[A-Za-z0-9_.\-]{1,100}", module["name"])) or \
                not isinstance(module.get("idx"), int) or \
                not _list_of(_identifier, 10)(module.get("kwargs", [])):
            raise _refuse(folder, MODULES_JSON, f"{where}: name, idx or kwargs is not a module's")
        paths.add(path)
    return modules


def _check_keys(folder: Path, rel: str, data: Any, keys: dict[str, Check], scalars: bool) -> None:
    if not isinstance(data, dict):
        raise _refuse(folder, rel, "is not a JSON object")
    for key, value in data.items():
        _no_path_or_loader_key(folder, rel, key, value)
        if value is None:  # null sets nothing
            continue
        scalar = isinstance(value, (bool, int, float))
        if key not in keys and not (scalars and scalar):
            raise _refuse(folder, rel, f"key {shorten(repr(key), 100)} is not one labeller allows there with a "
                          f"{type(value).__name__} value (a path or a loader setting the project did not set?)")
        if not (keys[key](value) if key in keys else math.isfinite(value)):
            raise _refuse(folder, rel, f"key {shorten(repr(key), 100)} holds a value labeller does not allow "
                          f"there: {shorten(repr(value), 100)}")


def _no_path_or_loader_key(folder: Path, rel: str, key: str, value: Any, at: str = "") -> None:
    """Refuse a key naming a file or folder, or a loader keyword, at any depth below ``key``."""
    dotted = f"{at}{key}"
    exempt = rel in ("tokenizer_config.json", "special_tokens_map.json") and not at and \
        key in ("name_or_path", "local_files_only", "is_local")
    exempt = exempt or (rel == "config.json" and not at and key == "_name_or_path")
    if isinstance(value, dict):  # the deepest such key first: processor_kwargs.tokenizer_file, not processor_kwargs
        for k, v in value.items():
            _no_path_or_loader_key(folder, rel, k, v, f"{dotted}.")
    if not exempt and value is not None and value != {} and (_PATH_KEY.search(key) or key in LOADER_KEYWORDS):
        raise _refuse(folder, rel, f"key {shorten(repr(dotted), 100)} is a path or a loader setting; labeller "
                      "lets no model file set one (the project's loader sets its own)")


def _check_architecture(folder: Path, config: Any) -> None:
    if not isinstance(config, dict) or config.get("model_type") not in ARCHITECTURES:
        model_type = config.get("model_type") if isinstance(config, dict) else None
        raise _refuse(folder, "config.json", f"model_type {shorten(repr(model_type), 100)} is not one labeller "
                      f"loads ({', '.join(sorted(ARCHITECTURES))})")
    names = {**ARCHITECTURES[config["model_type"]], "type_vocab_size": "type_vocab_size"}
    for size, key in names.items():
        value = config.get(key)
        if value is None and size == "type_vocab_size":
            continue
        if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= BOUNDS[size]:
            raise _refuse(folder, "config.json", f"key {key!r} is {shorten(repr(value), 100)}: labeller loads a "
                          f"model folder whose {key} is a whole number from 1 to {BOUNDS[size]:,}")


def _read(folder: Path, rel: str, max_bytes: int = MAX_JSON_BYTES) -> Any:
    path = folder / rel
    return parse_json(read_regular_file(path, max_bytes=max_bytes, what=f"model file {rel}"), str(path))


def _refuse(folder: Path, rel: str, why: str) -> InvalidInput:
    return InvalidInput(f"[retriever.dense] model: {folder / rel}: {why}")
