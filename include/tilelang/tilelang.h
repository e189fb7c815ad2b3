/* tilelang/tilelang.h - the umbrella header: everything public. */
#ifndef TILELANG_TILELANG_H
#define TILELANG_TILELANG_H

#include "tilelang/base.h"
#include "tilelang/target.h"
#include "tilelang/ffi.h"
#include "tilelang/ir.h"
#include "tilelang/backend.h"

#endif
