"""Register ``junqi/Junqi-v0`` with Gymnasium once both are imported, in
either order, without importing Gymnasium (about 0.4 s) for users who never
do. Gymnasium 1.x dropped its plugin entry points, so ``import junqi`` is what
registers the env (``gymnasium.register_envs(junqi)`` is its idiom for that),
or ``gymnasium.make("junqi.gymnasium:junqi/Junqi-v0")`` with no import.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import warnings


def _register():
    # Never break the user's `import gymnasium`: say why instead.
    try:
        importlib.import_module("junqi.gymnasium")  # registers on import
    except ImportError as e:
        warnings.warn(f"junqi: junqi/Junqi-v0 not registered with Gymnasium: {e}", stacklevel=2)


class _AfterGymnasium(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps Gymnasium's loader so registering follows
    its first import, then steps aside."""

    def find_spec(self, name, path=None, target=None):
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _register()

        spec.loader.exec_module = exec_module
        return spec


def install():
    """Register now when Gymnasium is loaded, else when it is (if installed)."""
    if "gymnasium" in sys.modules:
        _register()
    elif importlib.util.find_spec("gymnasium") is not None:
        if not any(isinstance(f, _AfterGymnasium) for f in sys.meta_path):
            sys.meta_path.insert(0, _AfterGymnasium())
