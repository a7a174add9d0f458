"""Package a written tree: ``package_from_root(root, tool_contracts=...)``.

Packaging a written tree lives here, above :mod:`jdsl.tree` (the tree layer never imports the
package layer; there is no ``Root.to_package``). Tool names in the tree (host names) become
logical capability ids through ``tool_contracts``; model leaves get ``signatures/<id>.json``
records (unnamed leaves are given ids ``predict_<n>`` / ``react_<n>``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from jdsl.errors import PackageError
from jdsl.interaction.tools import tool_spec
from jdsl.ir import to_ir, validate_ir
from jdsl.ir.walk import walk_ir
from jdsl.package.bundle import BehaviorPackage
from jdsl.package.format import SIGNATURE_FORMAT, ToolContract, default_effects
from jdsl.signature import Signature
from jdsl.tree import Root

__all__ = ["ContractSpec", "package_from_root"]

ContractSpec = ToolContract | Mapping[str, Any] | str
"""A :class:`ToolContract`, its dict form, or just the logical id."""


def package_from_root(
    root: Root,
    *,
    tool_contracts: Mapping[str, ContractSpec] | None = None,
    task_family: str = "",
    version: str = "0.1.0",
) -> BehaviorPackage:
    """Package an authored tree (no traces, verification ``unverified``).

    Args:
        root: the tree; it needs a child.
        tool_contracts: host tool name -> contract. When given, every tool the tree uses needs
            one and every contract must be used; when None, capabilities keep the host names,
            get :func:`default_effects`, and a tool bound on the root gives its description
            and ``input_schema`` (:func:`jdsl.interaction.tools.tool_spec`).
        task_family: recorded in the manifest.
        version: the package version.

    Raises:
        PackageError: no child, a tool without a contract, an unused contract, two conflicting
            contracts for one logical id, or IR that does not validate.
    """
    if root.child is None:
        raise PackageError(f"root {root.name!r} has no child; call .do(...) before packaging")
    ir = copy.deepcopy(to_ir(root))
    nodes = list(walk_ir(ir["root"]))
    used = sorted({t for n in nodes for t in _tools(n)})
    contracts = _resolve_contracts(used, tool_contracts, root.bindings.tools)
    for node in nodes:
        if node.get("kind") == "action":
            node["tool"] = contracts[node["tool"]].logical_id
        elif node.get("kind") == "react":
            node["tools"] = [contracts[t].logical_id for t in node.get("tools") or ()]
    signatures = _signatures(nodes)
    capabilities = sorted({c.logical_id for c in contracts.values()})
    report = validate_ir(ir, required_capabilities=capabilities)
    if not report.ok:
        raise PackageError("the tree is not valid Behavior IR: " + "; ".join(report.problems))
    unique = {c.logical_id: c for c in contracts.values()}
    manifest = {
        "name": root.name,
        "version": version,
        "task_family": task_family,
        "model_id": root.model_id,
        "runtime": {"jdsl": ">=0.1"},
        "required_capabilities": capabilities,
        "source": {"authoring": "python-dsl"},
        "verification": {"status": "unverified"},
    }
    tools = [unique[k] for k in sorted(unique)]
    return BehaviorPackage.assemble(manifest, behavior=ir, tools=tools, signatures=signatures)


def _tools(node: dict[str, Any]) -> list[str]:
    if node.get("kind") == "action":
        return [node["tool"]]
    if node.get("kind") == "react":
        return list(node.get("tools") or ())
    return []


def _contract(host: str, spec: ContractSpec) -> ToolContract:
    if isinstance(spec, ToolContract):
        return spec
    if isinstance(spec, str):
        return ToolContract(spec, effects=default_effects(spec))
    data = dict(spec)
    data.setdefault("logical_id", host)
    if "effects" not in data:
        data["effects"] = default_effects(str(data["logical_id"])).__dict__
    return ToolContract.from_dict(data)


def _bound_contract(host: str, fn: Callable[..., Any] | None) -> ToolContract:
    """A host-named contract; a bound tool gives its description and parameter schema."""
    if fn is None:
        return ToolContract(host, effects=default_effects(host))
    spec = tool_spec(fn, name=host)
    return ToolContract(
        host,
        description=spec.description,
        input_schema=dict(spec.parameters),
        effects=default_effects(host),
    )


def _resolve_contracts(
    used: list[str],
    given: Mapping[str, ContractSpec] | None,
    bound: Mapping[str, Callable[..., Any]],
) -> dict[str, ToolContract]:
    if given is None:
        return {t: _bound_contract(t, bound.get(t)) for t in used}
    missing = [t for t in used if t not in given]
    if missing:
        raise PackageError(f"tool {missing[0]!r} needs an explicit ToolContract in tool_contracts")
    unused = sorted(set(given) - set(used))
    if unused:
        raise PackageError(f"tool_contracts names tools the tree does not use: {unused}")
    resolved = {t: _contract(t, given[t]) for t in used}
    by_id: dict[str, ToolContract] = {}
    for contract in resolved.values():
        other = by_id.setdefault(contract.logical_id, contract)
        if other != contract:
            raise PackageError(f"conflicting contracts for capability {contract.logical_id!r}")
    return resolved


def _signatures(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    taken = {n["id"] for n in nodes if n.get("id")}
    records = []
    counts = {"predict": 0, "react": 0}
    for node in nodes:
        kind = node.get("kind")
        if kind not in counts:
            continue
        counts[kind] += 1
        if not node.get("id"):
            base, n = f"{kind}_{counts[kind]}", counts[kind]
            while base in taken:
                n += 1
                base = f"{kind}_{n}"
            node["id"] = base
            taken.add(base)
        sig = Signature.parse(node["signature"])
        records.append(
            {
                "format": SIGNATURE_FORMAT,
                "id": node["id"],
                "kind": kind,
                "signature": node["signature"],
                "inputs": [{"name": f.name, "type": f.type} for f in sig.inputs],
                "outputs": [
                    {"name": f.name, "type": f.type, "schema": sig.output_schema(f.name)}
                    for f in sig.outputs
                ],
                "instructions": node.get("instructions") or "",
                "tools": list(node.get("tools") or ()),
            }
        )
    return records
