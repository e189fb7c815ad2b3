"""Global functions: named packed functions (tvm_ffi's register_global_func).

Backend callbacks are registered as global functions; these let Python publish,
find and call them. Values cross as None, bool, int, float, str, bytes, Target,
Artifact and IRModule.
"""

from ._C import call_global_func, get_global_func, list_global_funcs, register_global_func


__all__ = ["register_global_func", "get_global_func", "list_global_funcs", "call_global_func"]
