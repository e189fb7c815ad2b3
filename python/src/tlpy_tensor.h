/* tlpy_tensor.h - tensors borrowed from Python objects for one call (dlpack.c). */
#ifndef TLPY_TENSOR_H
#define TLPY_TENSOR_H

#include <dlpack/dlpack.h>

#include "tlpy.h"

#define TLPY_MAX_NDIM 8

typedef struct tlpy_tensor {
  DLTensor *tensor;  /* valid while `keep` is held */
  PyObject *keep;    /* the DLPack capsule, or the torch tensor */
  DLTensor own;      /* filled on the torch path */
  int64_t shape[TLPY_MAX_NDIM], strides[TLPY_MAX_NDIM];
  int is_torch;
  int is_buffer;      /* read through the buffer protocol (keep: a memoryview) */
} tlpy_tensor;

int tlpy_dlpack_init(void);
/* True if o is a torch.Tensor (only when the user has imported torch). */
int tlpy_is_torch_tensor(PyObject *o);
/* Borrows o's tensor for one call (__dlpack__, a torch tensor, or a writable CPU
 * buffer of the buffer protocol: array.array, memoryview, ctypes arrays); -1 with an exception. Release with
 * tlpy_tensor_release. */
int tlpy_tensor_import(PyObject *o, tlpy_tensor *out);
void tlpy_tensor_release(tlpy_tensor *t);
/* Call arguments: bool/int/float as scalars, anything else as a tensor. On failure
 * nothing is held. */
int tlpy_args_convert(PyObject *const *args, Py_ssize_t n, tl_value *values, tlpy_tensor *tensors);
void tlpy_args_release(tlpy_tensor *tensors, Py_ssize_t n);

#endif
