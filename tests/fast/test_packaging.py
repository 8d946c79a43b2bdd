"""``pip install .`` installs every package of the source tree: a folder missing from
pyproject's list once broke ``validate`` and ``proxy`` outside an editable install."""

import tomllib

from tests.helpers import ROOT


def test_every_package_folder_is_listed_in_pyproject():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed, roots = set(setuptools["packages"]), setuptools["package-dir"]
    found = set()
    for package, folder in roots.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            if "node_modules" in relative.parts:
                continue
            found.add(".".join((package, *relative.parts)))
    assert found - listed == set(), "add these to [tool.setuptools] packages"
    assert listed - found == set(), "these listed packages have no folder"


def test_the_package_ships_its_pep_561_marker():
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data["mcp_resume"]
    assert (ROOT / "src" / "mcp_resume" / "py.typed").is_file()
