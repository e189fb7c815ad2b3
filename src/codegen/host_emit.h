/* Launch emitters of host codegen `c` (host_c.c): how a host entry reaches device
 * code, chosen by the module attribute tl.launch_convention (docs/lowering.md).
 * `call` (host_c.c) calls device functions of the same translation unit;
 * `cuda_driver` (host_cuda.c) launches an embedded cubin through the CUDA driver. */
#ifndef TL_CODEGEN_HOST_EMIT_H
#define TL_CODEGEN_HOST_EMIT_H

#include "base/vec.h"
#include "codegen/c_printer.h"

typedef struct tl__host_ctx tl__host_ctx;

typedef struct tl__launch_emitter {
  const char *convention;
  bool uses_stream;
  /* Declarations the entries need (device function prototypes, driver tables). */
  void (*declare)(tl__cgen *g, const tl_ir_module *mod);
  /* One TL_STMT_LAUNCH (the entry's parameters are bound by then). */
  void (*launch)(tl__cgen *g, tl__host_ctx *c, const tl_ir_stmt *s);
  /* Before the entry's `return 0;` (NULL: nothing). */
  void (*finish)(tl__cgen *g, tl__host_ctx *c);
} tl__launch_emitter;

/* What an emitter sees of the entry being printed. */
struct tl__host_ctx {
  const tl_ir_module *mod;
  const tl_ir_func *f;
  const tl__launch_emitter *emitter;
  bool params_bound;
  bool oom;      /* collecting `used` ran out of memory */
  tl__vec used;  /* const tl_ir_var *: variables the entry's body mentions */
  int launches;  /* LAUNCH statements printed so far in this entry */
};

/* The device kernel `name` of mod, or NULL. */
const tl_ir_func *tl__host_find_kernel(const tl_ir_module *mod, const char *name);

/* `cuda_driver`: the cubin embedded (the execution backend appends its bytes as
 * tl_cuda_image_data(), see tl__cuda_image_source), the driver opened with dlopen,
 * modules loaded per device on first use, cuLaunchKernel on the entry's stream. */
extern const tl__launch_emitter tl__cuda_driver_emitter;

#endif
