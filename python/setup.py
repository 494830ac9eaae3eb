"""Only here to tag the wheel for the platform when it bundles libslog2.so
(slog2/libslog2.so present at build time); everything else is in pyproject.toml."""

import os

from setuptools import setup
from setuptools.dist import Distribution

try:  # setuptools >= 70.1 ships bdist_wheel itself
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover - older build environments
    from wheel.bdist_wheel import bdist_wheel

BUNDLED = os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "slog2", "libslog2.so"))


class _Dist(Distribution):
    def has_ext_modules(self):
        return BUNDLED


class _Wheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = not BUNDLED

    def get_tag(self):
        py, abi, plat = super().get_tag()
        return ("py3", "none", plat) if BUNDLED else (py, abi, plat)


setup(distclass=_Dist, cmdclass={"bdist_wheel": _Wheel})
