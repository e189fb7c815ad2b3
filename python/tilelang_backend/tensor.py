"""CPU tensors without NumPy or torch: the buffer protocol.

A kernel call takes any writable buffer-protocol object as a CPU tensor
(``array.array``, ``bytearray``, ``memoryview``, ctypes arrays): its format is the
dtype, its shape and strides the tensor's. The outputs a call allocates (``out_idx``,
``T.empty``) when its inputs are such buffers (or when NumPy is not installed) are
made here: a ``memoryview`` of a zeroed ``bytearray``, cast to the output's format and
shape, so ``out.tolist()``, ``out.shape``, ``out.format`` and ``out[i, j]`` work.

The buffer protocol has no cast to float16 or bfloat16 (``memoryview.cast`` knows
native formats only), so those outputs need NumPy or torch inputs.
"""

from __future__ import annotations

import struct
from typing import Iterable, Sequence

from . import _C

__all__ = ["empty", "zeros", "from_list", "FORMATS"]

#: dtype name -> struct format of a memoryview of that dtype
FORMATS = {
    "float32": "f",
    "float64": "d",
    "int8": "b",
    "int16": "h",
    "int32": "i",
    "int64": "q",
    "uint8": "B",
    "uint16": "H",
    "uint32": "I",
    "uint64": "Q",
    "bool": "?",
}


def _format(dtype) -> str:
    name = str(dtype)
    fmt = FORMATS.get(name)
    if fmt is None:
        raise TypeError(
            f"a {name} tensor cannot be made as a buffer-protocol object (memoryview casts to "
            f"{', '.join(FORMATS)}); pass NumPy or torch tensors for {name} outputs"
        )
    return fmt


def empty(shape: Sequence[int], dtype="float32") -> memoryview:
    """A zeroed C-contiguous CPU tensor of ``shape`` and ``dtype`` (a memoryview)."""
    shape = tuple(int(d) for d in shape)
    fmt = _format(dtype)
    n = 1
    for d in shape:
        if d < 0:
            raise ValueError(f"negative dimension {d} in shape {shape}")
        n *= d
    raw = memoryview(bytearray(n * struct.calcsize(fmt)))
    if n == 0:
        raise ValueError(f"shape {shape} has no elements; memoryview cannot represent an empty {len(shape)}-d tensor")
    return raw.cast(fmt, shape) if shape else raw.cast(fmt)


zeros = empty


def _flatten(values) -> list:
    out: list = []

    def walk(v):
        if isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        else:
            out.append(v)

    walk(values)
    return out


def _shape_of(values) -> tuple:
    shape = []
    v = values
    while isinstance(v, (list, tuple)):
        shape.append(len(v))
        v = v[0] if v else None
    return tuple(shape)


def from_list(values: Iterable, dtype="float32", shape: Sequence[int] | None = None) -> memoryview:
    """A CPU tensor holding ``values`` (nested lists give the shape, else ``shape``)."""
    values = list(values) if not isinstance(values, (list, tuple)) else values
    flat = _flatten(values)
    shape = tuple(shape) if shape is not None else _shape_of(values)
    t = empty(shape, dtype)
    flat_view = t.cast("B").cast(t.format)
    if len(flat) != len(flat_view):
        raise ValueError(f"{len(flat)} values do not fill shape {shape}")
    for i, x in enumerate(flat):
        flat_view[i] = x
    return t


_C._set_buffer_factory(empty)
