"""jdsl.package: deterministic export, safe load, digests, permissions, bind, authoring."""

from __future__ import annotations

import io
import json
import stat
import zipfile
from pathlib import Path

import pytest
from jdsl.dsl import act, predict, ref, root, seq
from jdsl.envs.fixtures import RetailWorld
from jdsl.errors import PackageError
from jdsl.package import (
    BehaviorPackage,
    ToolContract,
    ToolEffects,
    export_dir,
    export_jdsl,
    load_package,
    package_digest,
    package_from_root,
    zip_bytes,
)
from jdsl.package import load as load_module
from jdsl.testing import ScriptedModel
from jdsl.tree import Status


def _tree(world: RetailWorld):
    tools = {t.name: t for t in world.tools()}
    return root("authored", model="some-model").do(seq(
        act(tools["lookup"], email=ref("email")) >> "customer",
        act(tools["list_orders"], customer_id=ref("customer.id")) >> "orders",
        predict("request, orders -> selected_index: int", instructions="Pick the order."),
        act(tools["get_order"], order_id=ref("orders[$selected_index].id")) >> "order",
    ))  # fmt: skip


@pytest.fixture
def package() -> BehaviorPackage:
    contracts = {
        "lookup": "retail.lookup",
        "list_orders": {"logical_id": "retail.list_orders"},
        "get_order": ToolContract("retail.get_order", effects=ToolEffects()),
    }
    return package_from_root(_tree(RetailWorld.numbered(1)), tool_contracts=contracts)


def _logical(world: RetailWorld) -> dict:
    return {f"retail.{t.name}": t for t in world.tools()}


def test_authored_tree_packages_and_runs_the_same(package, tmp_path) -> None:
    loaded = load_package(export_jdsl(package, tmp_path / "a"))
    assert loaded.required_capabilities == [
        "retail.get_order",
        "retail.list_orders",
        "retail.lookup",
    ]
    assert loaded.manifest.source == {"authoring": "python-dsl"}
    assert sorted(loaded.signatures) == ["predict_1"]
    world = RetailWorld.numbered(5)
    root_ = loaded.as_root(_logical(world))
    assert root_.model_id == "some-model"
    ctx = root_.run(model=ScriptedModel("1"), email=world.email, request="cancel")
    direct = _tree(world).run(model=ScriptedModel("1"), email=world.email, request="cancel")
    assert ctx.status is Status.SUCCESS and ctx.blackboard["order"] == direct.blackboard["order"]


def test_authoring_needs_a_contract_per_tool() -> None:
    tree = _tree(RetailWorld.numbered(1))
    with pytest.raises(PackageError, match="get_order"):
        package_from_root(tree, tool_contracts={"lookup": "a.lookup", "list_orders": "a.list"})
    with pytest.raises(PackageError, match="does not use"):
        package_from_root(tree, tool_contracts={"lookup": "a", "list_orders": "b",
                                                "get_order": "c", "nope": "d"})  # fmt: skip
    with pytest.raises(PackageError, match="no child"):
        package_from_root(root("empty"))


def test_export_is_deterministic_and_atomic(package, tmp_path) -> None:
    first = export_jdsl(package, tmp_path / "x.jdsl").read_bytes()
    again = export_jdsl(package, tmp_path / "x.jdsl").read_bytes()
    assert first == again == zip_bytes(package)
    assert package_digest(package) == package_digest(load_package(tmp_path / "x.jdsl"))
    with zipfile.ZipFile(io.BytesIO(first)) as archive:
        names = [i.filename for i in archive.infolist()]
        assert names == sorted(names)
        assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    assert [p.name for p in tmp_path.iterdir()] == ["x.jdsl"]  # no temp file left


def test_directory_export_round_trips(package, tmp_path) -> None:
    target = export_dir(package, tmp_path / "pkg")
    export_dir(package, target)  # replacing works
    assert load_package(target).files == package.files


def test_permissions_and_binding(package) -> None:
    assert package.permissions() == {
        "reads": ["retail.get_order", "retail.list_orders", "retail.lookup"],
        "writes": [],
        "destructive": [],
    }
    tools = _logical(RetailWorld.numbered(1))
    del tools["retail.get_order"]
    with pytest.raises(PackageError, match="retail.get_order") as missing:
        package.bind(tools)
    assert "key host tools by capability id" not in str(missing.value)
    host_named = {t.name: t for t in RetailWorld.numbered(1).tools()}  # not keyed by capability
    with pytest.raises(PackageError, match="'get_order' -> 'retail.get_order'"):
        package.bind(host_named)


def _zip(tmp_path: Path, members: dict[str, bytes], *, link: str | None = None) -> Path:
    path = tmp_path / "evil.jdsl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        if link:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return path


@pytest.mark.parametrize("bad", ["/abs.json", "../up.json", "a/../../b.json", "c:\\x.json"])
def test_archives_with_escaping_paths_are_refused(package, tmp_path, bad) -> None:
    path = _zip(tmp_path, {**package.files, bad: b"{}"})
    with pytest.raises(PackageError, match="absolute or '..'") as info:
        load_package(path)
    assert info.value.path == bad


def test_links_are_refused(package, tmp_path) -> None:
    with pytest.raises(PackageError, match="links") as info:
        load_package(_zip(tmp_path, dict(package.files), link="signatures/x.json"))
    assert info.value.path == "signatures/x.json"


def test_oversize_and_bomb_members_are_refused(package, tmp_path, monkeypatch) -> None:
    bomb = _zip(tmp_path, {**package.files, "README.md": b"\0" * (2 * 1024 * 1024)})
    with pytest.raises(PackageError, match="compression ratio") as info:
        load_package(bomb)
    assert info.value.path == "README.md"
    monkeypatch.setattr(load_module, "MAX_MEMBER_BYTES", 100)
    with pytest.raises(PackageError, match="over 100"):
        load_package(_zip(tmp_path, dict(package.files)))


def test_unlisted_and_missing_files_are_refused(package, tmp_path) -> None:
    with pytest.raises(PackageError, match="not listed") as info:
        load_package(_zip(tmp_path, {**package.files, "extra.py": b"print(1)"}))
    assert info.value.path == "extra.py"
    files = dict(package.files)
    del files["tools.json"]
    with pytest.raises(PackageError, match="missing file 'tools.json'"):
        load_package(_zip(tmp_path, files))


def test_a_file_added_to_a_package_folder_is_refused_as_in_an_archive(package, tmp_path) -> None:
    # SECURITY.md: verify proves no file was added since the manifest was written.
    folder = export_dir(package, tmp_path / "pkg")
    (folder / "signatures" / "extra.json").write_text("{}")
    with pytest.raises(PackageError, match="not listed") as info:
        load_package(folder)
    assert info.value.path == "signatures/extra.json"


@pytest.mark.parametrize(
    ("manifest", "said"),
    [
        (b"not json", "manifest.json is not valid JSON ("),
        (b"[1]", "manifest.json must be a JSON object"),
        (b'{"format": "jdsl.package.v1"}', "must list its files, behavior.json included"),
        (b'{"format": "v0"}', "unsupported package format 'v0'"),
    ],
)
def test_a_damaged_manifest_says_what_to_do(package, tmp_path, manifest, said) -> None:
    folder = export_dir(package, tmp_path / "pkg")
    (folder / "manifest.json").write_bytes(manifest)
    with pytest.raises(PackageError) as info:
        load_package(folder)
    assert said in str(info.value) and "`jdsl compile -o`" in str(info.value)


def test_format_and_ir_are_checked(package, tmp_path) -> None:
    manifest = json.loads(package.files["manifest.json"])
    bad_format = {
        **package.files,
        "manifest.json": json.dumps({**manifest, "format": "v0"}).encode(),
    }
    with pytest.raises(PackageError, match="unsupported package format"):
        load_package(_zip(tmp_path, bad_format))
    ir = json.loads(package.files["behavior.json"])
    ir["root"]["child"]["children"][0]["tool"] = "undeclared.tool"
    rebuilt = BehaviorPackage.assemble(
        {k: v for k, v in manifest.items() if k not in ("files", "format")},
        behavior=ir, tools=list(package.tools.values()),
        signatures=list(package.signatures.values()),
    )  # fmt: skip
    with pytest.raises(PackageError, match="invalid package IR.*undeclared.tool") as info:
        load_package(export_jdsl(rebuilt, tmp_path / "ir"))
    assert info.value.path == "behavior.json"


def test_not_a_package(tmp_path) -> None:
    (tmp_path / "junk.jdsl").write_text("not a zip")
    with pytest.raises(PackageError, match="not a valid .jdsl archive"):
        load_package(tmp_path / "junk.jdsl")
    with pytest.raises(PackageError, match="no package"):
        load_package(tmp_path / "missing.jdsl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(PackageError, match="manifest.json"):
        load_package(tmp_path / "empty")


def test_symlinked_file_in_a_directory_is_refused(package, tmp_path) -> None:
    target = export_dir(package, tmp_path / "pkg")
    (tmp_path / "other.json").write_bytes(package.files["tools.json"])
    (target / "tools.json").unlink()
    (target / "tools.json").symlink_to(tmp_path / "other.json")
    with pytest.raises(PackageError, match="links") as info:
        load_package(target)
    assert info.value.path == "tools.json"


def test_package_from_root_with_contracts(package, tmp_path) -> None:
    tree = _tree(RetailWorld.numbered(1))
    contracts = {
        "lookup": "retail.lookup",
        "list_orders": {"logical_id": "retail.list_orders"},
        "get_order": ToolContract("retail.get_order", effects=ToolEffects()),
    }
    made = package_from_root(tree, tool_contracts=contracts, task_family="retail")
    assert made.manifest.task_family == "retail"
    others = {k: v for k, v in package.files.items() if k != "manifest.json"}
    assert {k: v for k, v in made.files.items() if k != "manifest.json"} == others
    assert made.ir == package.ir and made.required_capabilities == package.required_capabilities
    with pytest.raises(PackageError, match="get_order"):
        package_from_root(tree, tool_contracts={"lookup": "a.lookup", "list_orders": "a.list"})


def test_without_contracts_bound_tools_give_their_input_schemas() -> None:
    made = package_from_root(_tree(RetailWorld.numbered(1)))
    schema = made.tools["lookup"].input_schema
    assert schema["type"] == "object" and "email" in schema["properties"]
    assert "customer_id" in made.tools["list_orders"].input_schema["properties"]


def test_without_contracts_an_unbound_tool_keeps_a_bare_schema() -> None:
    tree = root("r").do(seq(act("ping", x=ref("x")) >> "y"))
    assert package_from_root(tree).tools["ping"].input_schema == {"type": "object"}


def test_the_manifest_is_covered_by_the_package_digest(package, tmp_path) -> None:
    manifest = json.loads(package.files["manifest.json"])
    assert manifest["manifest_digest"].startswith("sha256:")
    for change in ({"name": "renamed"}, {"verification": {"status": "passed"}}):
        edited = {**package.files, "manifest.json": json.dumps({**manifest, **change}).encode()}
        with pytest.raises(PackageError, match="manifest changed after packaging"):
            load_module.verify_package(BehaviorPackage(edited))
    bare = {k: v for k, v in manifest.items() if k != "manifest_digest"}
    unsealed = {**package.files, "manifest.json": json.dumps(bare).encode()}
    with pytest.raises(PackageError, match="no manifest_digest"):
        load_module.verify_package(BehaviorPackage(unsealed))


def test_a_renamed_archive_manifest_fails_load(package, tmp_path) -> None:
    path = export_jdsl(package, tmp_path / "p")
    with zipfile.ZipFile(path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    manifest = json.loads(members["manifest.json"])
    members["manifest.json"] = json.dumps({**manifest, "name": "evil"}).encode()
    tampered = tmp_path / "t.jdsl"
    with zipfile.ZipFile(tampered, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(PackageError, match="manifest.json"):
        load_package(tampered)


def test_a_for_each_tree_packages_exports_loads_and_runs(tmp_path) -> None:
    from jdsl.dsl import for_each

    world = RetailWorld.numbered(3)
    tools = {t.name: t for t in world.tools()}
    tree = root("each_order").do(seq(
        act(tools["lookup"], email=ref("email")) >> "customer",
        act(tools["list_orders"], customer_id=ref("customer.id")) >> "orders",
        for_each("order", "orders", act(tools["get_order"], order_id=ref("order.id")) >> "detail",
                 collect="detail", store="details"),
    ))  # fmt: skip
    contracts = {name: f"retail.{name}" for name in ("lookup", "list_orders", "get_order")}
    loaded = load_package(export_jdsl(package_from_root(tree, tool_contracts=contracts),
                                      tmp_path / "each"))  # fmt: skip
    loop = loaded.ir["root"]["child"]["children"][2]
    assert loop["kind"] == "for_each" and loop["child"]["tool"] == "retail.get_order"
    ctx = loaded.as_root(_logical(world)).run(email=world.email)
    direct = tree.run(email=world.email)
    assert ctx.status is Status.SUCCESS
    assert [d["id"] for d in ctx.blackboard["details"]] == [
        o["id"] for o in ctx.blackboard["orders"]
    ]
    assert ctx.blackboard["details"] == direct.blackboard["details"]


def test_a_folder_of_packages_names_them_instead_of_a_missing_manifest(tmp_path: Path) -> None:
    folder = tmp_path / "out.jdsl"
    folder.mkdir()
    for name in ("airline.cancel.jdsl", "airline.book.jdsl"):
        (folder / name).write_bytes(b"PK")
    with pytest.raises(PackageError, match=r"folder of 2 package\(s\).*airline\.book\.jdsl"):
        load_package(folder)


def test_no_package_at_a_path_says_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(PackageError, match="pass a .jdsl archive or a package folder"):
        load_package(tmp_path / "nope.jdsl")


def test_every_broken_package_message_names_a_fix_that_exists(tmp_path) -> None:
    """No advice names a command that does not exist (there is no `jdsl package export`);
    a missing or an extra file says what to do."""
    package = package_from_root(_tree(RetailWorld.numbered(1)))
    folder = export_dir(package, tmp_path / "pkg")
    (tmp_path / "junk.jdsl").write_text("not a zip")
    (tmp_path / "empty").mkdir()
    extra = export_dir(package, tmp_path / "extra")
    (extra / "evil.py").write_text("import os")
    (folder / "tools.json").unlink()
    messages = []
    for path in (tmp_path / "junk.jdsl", tmp_path / "empty", folder, extra):
        with pytest.raises(PackageError) as info:
            load_package(path)
        messages.append(str(info.value))
    assert not any("jdsl package export" in m for m in messages), messages
    assert all("jdsl compile" in m or "export" in m for m in messages), messages
