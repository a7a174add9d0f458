"""jdsl: Jupyter-native behavior trees for LLM agents, and a trace compiler.

The curated public API is re-exported here as the packages land.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
