"""Behavior packages: restricted IR, typed signatures and capability contracts, no code.

Build one by compiling traces (:func:`jdsl.compiler.compile_behavior`) or from a written tree
(:func:`package_from_root`); write it with :func:`export_jdsl` (a deterministic zip) or
:func:`export_dir`; read it with :func:`load_package`, which checks every digest, the archive's
hygiene and the IR; run it with ``package.as_root(tools).run(...)``.
"""

from jdsl.package.authoring import package_from_root
from jdsl.package.bundle import BehaviorPackage, LoadedPackage, Tools
from jdsl.package.export import SUFFIX, export_dir, export_jdsl, package_digest, zip_bytes
from jdsl.package.format import (
    MAX_COMPRESSION_RATIO,
    MAX_MEMBER_BYTES,
    MAX_TOTAL_BYTES,
    PACKAGE_FORMAT,
    SIGNATURE_FORMAT,
    Manifest,
    ToolContract,
    ToolEffects,
    default_effects,
    digest,
    dump_json,
    manifest_digest,
)
from jdsl.package.inputs import InputUse, input_types
from jdsl.package.load import load_package, verify_package

__all__ = [
    "MAX_COMPRESSION_RATIO",
    "MAX_MEMBER_BYTES",
    "MAX_TOTAL_BYTES",
    "PACKAGE_FORMAT",
    "SIGNATURE_FORMAT",
    "SUFFIX",
    "BehaviorPackage",
    "InputUse",
    "LoadedPackage",
    "Manifest",
    "ToolContract",
    "ToolEffects",
    "Tools",
    "default_effects",
    "digest",
    "dump_json",
    "export_dir",
    "export_jdsl",
    "input_types",
    "load_package",
    "manifest_digest",
    "package_digest",
    "package_from_root",
    "verify_package",
    "zip_bytes",
]
